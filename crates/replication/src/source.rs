//! The replication source: dump threads for replicas and binlog clients.
//!
//! # Protocol (MySQL 8.0's, read in `sql/rpl_binlog_sender.cc`, `sql/rpl_source.cc`)
//! - COM_REGISTER_SLAVE records the replica (server id, reported host and port, source id,
//!   `@replica_uuid`/`@slave_uuid`) for SHOW REPLICAS, answered with OK.
//! - COM_BINLOG_DUMP (file, position) and COM_BINLOG_DUMP_GTID (file, position, the replica's
//!   GTID set). Both need REPLICATION SLAVE (else ER_SPECIFIC_ACCESS_DENIED_ERROR 1227). With
//!   GTIDs and no file name the dump starts at the newest file whose PREVIOUS_GTIDS the replica
//!   has, after two refusals: the replica holds GTIDs of this server's UUID that this server
//!   never executed (errant), or GTIDs this server purged are missing from it.
//! - The stream: a fake ROTATE (timestamp 0, `log_pos` 0, LOG_EVENT_ARTIFICIAL_F) naming the
//!   file and position, the file's FORMAT_DESCRIPTION (in-use flag cleared; `log_pos` and
//!   `created` zeroed when the dump skips the file's start), then the events as they are in
//!   the file, checksum included. At the end of a file (its ROTATE) the next file follows with
//!   its own fake ROTATE and FORMAT_DESCRIPTION. In the active file nothing past the published
//!   synced end is read, so a replica never receives a transaction that is not durable.
//! - With a GTID set, whole transactions the replica has are skipped; a HEARTBEAT carrying
//!   the position after a skipped run tells the replica how far the source read.
//! - Idle for `@master_heartbeat_period` ns: a HEARTBEAT (v1) with the current position.
//! - BINLOG_DUMP_NON_BLOCK (or server id 0, as mysqlbinlog uses it): EOF at the end instead
//!   of waiting.
//! - Any failure ends the stream with ERR 1236 (ER_MASTER_FATAL_ERROR_READING_BINLOG) and
//!   MySQL's message. Like mysqld, the connection closes when a dump ends.
//!
//! # Checksums
//! As mysqld does, events are sent as stored; `@master_binlog_checksum` (or
//! `@source_binlog_checksum`) only says whether the client understands them. Unset, and the
//! file has checksums: the dump is refused with 1236 (a client that cannot parse checksums
//! never gets any). `'CRC32'`: the fake ROTATE carries one. Any other value (`'NONE'`, or the
//! `'ALL'` mysql_async sends): the fake ROTATE has none; the FORMAT_DESCRIPTION tells what
//! follows.
//!
//! # Threads
//! Each dump runs [`dump_thread`] on its own OS thread: the tailing reader waits on the
//! binlog's condition variable for the synced end to move. Packets go to the connection's task
//! through a bounded channel in batches (everything readable at once, up to
//! [`BATCH_BYTES`]); the task writes them and flushes when the channel is empty. While
//! waiting, the task also reads the socket, so a client that closes ends its dump at once; the
//! thread notices the closed channel within [`POLL`]. [`Source::shutdown`] stops every dump.
//!
//! Once a blocking dump reaches the synced end, its thread hands the dump's state to the
//! connection's task ([`Handover`]) and ends; the segments the shared tail ([`super::tail`])
//! reads once for all caught-up dumps are then written to the socket by the tail thread
//! itself ([`Attached`]: a `dup` of the socket, non-blocking writes), while the task waits for
//! the client, heartbeats and shutdown; the dump comes back to the task when its socket is
//! full, for a heartbeat, on an error, or when it must locate itself in the ring again. Over
//! TLS (or with `BINLOGD_DUMP_SENDER=0`) the task sends the segments itself. A dump that falls
//! out of the tail's ring goes back to a thread reading the files.

use std::collections::BTreeMap;
use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use binlog::event::{
    decode_event, flags, EventBody, EventHeader, EventType, FormatContext, HeartbeatEvent,
    RotateEvent, TYPE_OFFSET,
};
use binlog::files::{BinlogFiles, BinlogPosition, BinlogReader, FilePin, Next};
use binlog::gtid::{Gtid, GtidSet, Sid};
use bytes::{Bytes, BytesMut};
use commit::Coordinator;
use mysql_common::constants::CapabilityFlags;
use mysql_common::io::ParseBuf;
use mysql_common::packets::{BinlogDumpFlags, ComBinlogDump, ComRegisterSlave};
use mysql_common::proto::codec::packet_to_chunks;
use parking_lot::Mutex;
use tokio::sync::{mpsc, Notify};

use super::tail::{Follower, Located, Segment, Tail, COALESCE};
use accounts::{Privileges, Users};
use protocol::{self, ErrPacket, PacketWriter, ReplicationCommand};
use sql::admin::ReplicaInfo;

/// ER_MASTER_FATAL_ERROR_READING_BINLOG.
const ER_FATAL_READING_BINLOG: u16 = 1236;
/// ER_SPECIFIC_ACCESS_DENIED_ERROR.
const ER_SPECIFIC_ACCESS_DENIED: u16 = 1227;
/// The magic at the start of every binlog file.
const HEADER_SIZE: u64 = 4;
/// A batch handed to the connection's task is sent once it holds this many bytes.
const BATCH_BYTES: usize = 256 * 1024;
/// Batches in flight between a dump thread and its connection (bounds a slow client's memory).
const CHANNEL_BATCHES: usize = 8;
/// How long a dump thread that was woken by a new group waits for more before sending.
const DUMP_COALESCE: Duration = COALESCE;
/// How often a waiting dump thread checks whether its client or the server went away.
const POLL: Duration = Duration::from_millis(500);
/// `created` in a FORMAT_DESCRIPTION: after the header, binlog version (2) and server
/// version (50).
const FDE_CREATED_OFFSET: usize = 19 + 2 + 50;

/// The session state a dump reads: the user variables replication clients set first.
#[derive(Debug, Clone, Default)]
pub struct DumpVariables {
    /// `@master_binlog_checksum` / `@source_binlog_checksum`, if set.
    pub checksum: Option<String>,
    /// `@master_heartbeat_period` / `@source_heartbeat_period` in nanoseconds (0: none).
    pub heartbeat_period_ns: u64,
    /// `@replica_uuid` / `@slave_uuid`, if set.
    pub replica_uuid: Option<String>,
}

impl DumpVariables {
    /// Reads the variables from a session; the 8.0.26 `source_`/`replica_` names win over
    /// the older ones when both are set (mysqld's `get_user_var_from_alternatives`).
    pub fn from_session(session: &sql::Session) -> DumpVariables {
        let text = |names: [&str; 2]| {
            names.iter().find_map(|n| match session.user_variable(n)? {
                engine::Value::Null => None,
                engine::Value::Bytes(b) => Some(String::from_utf8_lossy(b).into_owned()),
                v => Some(v.to_string()),
            })
        };
        let heartbeat_period_ns = text(["source_heartbeat_period", "master_heartbeat_period"])
            .and_then(|t| {
                let t = t.trim();
                t.parse::<u64>().ok().or_else(|| t.parse::<f64>().ok().map(|f| f.max(0.0) as u64))
            })
            .unwrap_or(0);
        DumpVariables {
            checksum: text(["source_binlog_checksum", "master_binlog_checksum"]),
            heartbeat_period_ns,
            replica_uuid: text(["replica_uuid", "slave_uuid"]),
        }
    }
}

/// Who is asking: the connection's identity, as the protocol layer authenticated it.
#[derive(Debug, Clone)]
pub struct Peer {
    pub connection_id: u32,
    pub user: String,
    /// The client's address (account host matching).
    pub host: String,
    pub capabilities: CapabilityFlags,
}

/// The registered replicas (COM_REGISTER_SLAVE), by connection id, for SHOW REPLICAS.
#[derive(Debug, Default)]
pub struct Replicas {
    by_connection: Mutex<BTreeMap<u32, ReplicaInfo>>,
}

impl Replicas {
    /// Every registered replica, ordered by server id.
    pub fn list(&self) -> Vec<ReplicaInfo> {
        let mut all: Vec<ReplicaInfo> = self.by_connection.lock().values().cloned().collect();
        all.sort_by_key(|r| r.server_id);
        all
    }

    fn register(&self, connection_id: u32, info: ReplicaInfo) {
        let mut map = self.by_connection.lock();
        // As mysqld's register_replica: one entry per server id, the newest wins.
        map.retain(|_, r| r.server_id != info.server_id);
        map.insert(connection_id, info);
    }

    /// Forgets the replica registered by a connection (its dump ended or it disconnected).
    pub fn unregister(&self, connection_id: u32) {
        self.by_connection.lock().remove(&connection_id);
    }
}

/// The source side of replication, shared by all connections.
pub struct Source {
    coordinator: Arc<Coordinator<engine::Engine>>,
    users: Arc<Users>,
    replicas: Arc<Replicas>,
    /// `<datadir>/binlog` (closed files' sizes for position checks).
    binlog_dir: PathBuf,
    server_id: u32,
    server_sid: Sid,
    stopping: Arc<AtomicBool>,
    /// The shared reader caught-up dumps follow.
    tail: Arc<Tail>,
    /// Whether caught-up dumps join [`Tail`] (`BINLOGD_DUMP_SHARE=0` keeps every dump on its
    /// own thread, for comparisons).
    share: bool,
    /// Whether the tail thread writes caught-up dumps' sockets itself
    /// (`BINLOGD_DUMP_SENDER=0`: each dump's task does, for comparisons).
    sender: bool,
}

impl Source {
    pub fn new(
        coordinator: Arc<Coordinator<engine::Engine>>,
        users: Arc<Users>,
        replicas: Arc<Replicas>,
        binlog_dir: PathBuf,
        server_id: u32,
        server_sid: Sid,
    ) -> Source {
        let stopping = Arc::new(AtomicBool::new(false));
        Source {
            tail: Tail::new(coordinator.binlog_files(), stopping.clone()),
            share: std::env::var("BINLOGD_DUMP_SHARE").map_or(true, |v| v.trim() != "0"),
            sender: std::env::var("BINLOGD_DUMP_SENDER").map_or(true, |v| v.trim() != "0"),
            coordinator,
            users,
            replicas,
            binlog_dir,
            server_id,
            server_sid,
            stopping,
        }
    }

    /// The registry SHOW REPLICAS reads.
    pub fn replicas(&self) -> &Arc<Replicas> {
        &self.replicas
    }

    /// Ends every dump (server shutdown): each thread stops within [`POLL`] and its
    /// connection closes.
    pub fn shutdown(&self) {
        self.stopping.store(true, Ordering::Release);
    }

    /// Answers one replication command on `out`. Returns `Err` to end the connection after a
    /// dump, as mysqld does; a refused registration or privilege check is an ERR and the
    /// connection goes on.
    pub async fn handle(
        &self,
        command: ReplicationCommand,
        packet: &[u8],
        peer: &Peer,
        vars: DumpVariables,
        out: &mut PacketWriter<'_>,
    ) -> protocol::Result<()> {
        if !self
            .users
            .lookup(&peer.user, &peer.host)
            .is_some_and(|a| a.privileges.contains(Privileges::REPLICATION_SLAVE))
        {
            return Err(ErrPacket::new(
                ER_SPECIFIC_ACCESS_DENIED,
                "42000",
                "Access denied; you need (at least one of) the REPLICATION SLAVE privilege(s) \
                 for this operation",
            )
            .into());
        }
        match command {
            ReplicationCommand::RegisterSlave => {
                let register = parse_register(packet)?;
                // mysqld: a source id of 0 means this server.
                let source_id = match register.master_id() {
                    0 => self.server_id,
                    id => id,
                };
                self.replicas.register(
                    peer.connection_id,
                    ReplicaInfo {
                        server_id: register.server_id(),
                        host: register.hostname().into_owned(),
                        port: register.port(),
                        source_id,
                        uuid: vars.replica_uuid.clone().unwrap_or_default(),
                    },
                );
                write_ok(out, peer.capabilities);
                out.flush().await
            }
            ReplicationCommand::BinlogDump | ReplicationCommand::BinlogDumpGtid => {
                let request = parse_request(command, packet)?;
                let result = self.stream(request, peer, vars, out).await;
                self.replicas.unregister(peer.connection_id);
                result
            }
        }
    }

    /// Runs one dump until it ends; always ends the connection. The dump alternates between
    /// its own thread reading the files (from the start, and whenever it is behind the shared
    /// tail) and the connection's task sending the tail's segments (once caught up).
    async fn stream(
        &self,
        request: DumpRequest,
        peer: &Peer,
        vars: DumpVariables,
        out: &mut PacketWriter<'_>,
    ) -> protocol::Result<()> {
        log::info!(
            "start binlog dump for connection {} (replica server_id {}, {})",
            peer.connection_id,
            request.server_id,
            request.describe()
        );
        let mut resume = None;
        while let Some(caught_up) = self.follow_files(&request, &vars, resume, peer, out).await? {
            resume = self.follow_tail(&request, &vars, caught_up, peer, out).await?;
            if resume.is_none() {
                break;
            }
        }
        Err(protocol::Error::Closed)
    }

    /// Runs a dump thread (from the request's start, or from where `resume` left) until the
    /// dump ends (`None`) or catches up with the synced end and hands over.
    async fn follow_files(
        &self,
        request: &DumpRequest,
        vars: &DumpVariables,
        resume: Option<Box<Handover>>,
        peer: &Peer,
        out: &mut PacketWriter<'_>,
    ) -> protocol::Result<Option<Box<Handover>>> {
        let (tx, mut rx) = mpsc::channel::<Chunk>(CHANNEL_BATCHES);
        let dump = Dump {
            files: self.coordinator.binlog_files(),
            coordinator: self.coordinator.clone(),
            binlog_dir: self.binlog_dir.clone(),
            server_id: self.server_id,
            server_sid: self.server_sid,
            stopping: self.stopping.clone(),
            request: request.clone(),
            vars: vars.clone(),
            tail: self.share.then(|| self.tail.clone()),
        };
        std::thread::Builder::new()
            .name(format!("binlog-dump-{}", peer.connection_id))
            .spawn(move || dump_thread(dump, resume, tx))
            .map_err(protocol::Error::Io)?;
        loop {
            tokio::select! {
                chunk = rx.recv() => match chunk {
                    Some(Chunk::Packets(packets)) => {
                        for packet in &packets {
                            out.write_packet(packet);
                        }
                        if rx.is_empty() {
                            out.flush().await?;
                        } else {
                            out.flush_if_full().await?;
                        }
                    }
                    Some(Chunk::CaughtUp(handover)) => {
                        out.flush().await?;
                        return Ok(Some(handover));
                    }
                    Some(Chunk::Eof) => {
                        write_eof(out, peer.capabilities);
                        out.flush().await?;
                        return Ok(None);
                    }
                    Some(Chunk::Error(message)) => {
                        end_fatal(out, peer, message).await?;
                        return Ok(None);
                    }
                    // The thread stopped without a last word: the server is shutting down.
                    None => return Ok(None),
                },
                // A client never speaks during a dump (no semi-sync here): data or a closed
                // socket both end it. Dropping `rx` tells the thread.
                _ = out.read_packet() => return Ok(None),
            }
        }
    }

    /// Sends the shared tail's segments from the handover's position until the dump ends
    /// (`None`) or falls out of the ring (the position to resume reading the files from).
    async fn follow_tail(
        &self,
        request: &DumpRequest,
        vars: &DumpVariables,
        mut h: Box<Handover>,
        peer: &Peer,
        out: &mut PacketWriter<'_>,
    ) -> protocol::Result<Option<Box<Handover>>> {
        let mut sub = self.tail.subscribe();
        let period = Duration::from_nanos(vars.heartbeat_period_ns);
        let exclude = request.gtids.as_ref();
        let attached = Arc::new(Attached {
            server_id: self.server_id,
            exclude: request.gtids.clone(),
            state: Mutex::new(AttachedState::default()),
            back: Notify::new(),
            logged: AtomicBool::new(false),
        });
        loop {
            if self.stopping.load(Ordering::Acquire) {
                return Ok(None);
            }
            // Seen before looking, so a segment published after the look wakes the wait.
            sub.changed.borrow_and_update();
            match self.tail.locate(&h.pos) {
                Located::Found(segment, index) => {
                    let now = Instant::now();
                    match send_segment(self.server_id, &mut h, exclude, &segment, index, now, out) {
                        Ok(()) => h.pin_file(),
                        Err(Stop::Fatal(message)) => {
                            end_fatal(out, peer, message).await?;
                            return Ok(None);
                        }
                        Err(Stop::Gone) => return Ok(None),
                    }
                    // More segments may be ready (a task that was not scheduled for a while):
                    // they go out in the same write.
                    out.flush_if_full().await?;
                    continue;
                }
                Located::NotYet => {
                    out.flush().await?;
                    // Caught up: the tail thread sends from here on, if it can have the socket.
                    match self.sender.then(|| out.clone_socket()).flatten() {
                        Some(Ok(socket)) => {
                            match self.attached(&attached, socket, h, period, peer, out).await? {
                                Some(back) => {
                                    h = back;
                                    continue;
                                }
                                None => return Ok(None),
                            }
                        }
                        Some(Err(e)) => log::warn!("binlog dump sends from its task: {e}"),
                        None => {}
                    }
                }
                Located::Gone => {
                    out.flush().await?;
                    return Ok(Some(h));
                }
                Located::Ended => {
                    out.flush().await?;
                    return Ok(None);
                }
            }
            let wait = if period.is_zero() {
                POLL
            } else {
                period.saturating_sub(h.last_sent.elapsed()).min(POLL)
            };
            let timed_out = tokio::select! {
                changed = tokio::time::timeout(wait, sub.changed.changed()) => changed.is_err(),
                // As in `follow_files`: the client spoke or closed.
                _ = out.read_packet() => return Ok(None),
            };
            if timed_out && self.heartbeat_if_due(&mut h, period, out)? {
                out.flush().await?;
            }
        }
    }
}

impl Source {
    /// Lets the tail thread send this caught-up dump's segments on `socket` (a handle on the
    /// connection's) until the dump comes back to its task: `Some` to go on from the task
    /// (the socket was full, the dump must locate again, a heartbeat is due), `None` once the
    /// dump ended.
    async fn attached(
        &self,
        attached: &Arc<Attached>,
        socket: protocol::packet::SocketHandle,
        h: Box<Handover>,
        period: Duration,
        peer: &Peer,
        out: &mut PacketWriter<'_>,
    ) -> protocol::Result<Option<Box<Handover>>> {
        let pos = h.pos.clone();
        {
            let mut st = attached.state.lock();
            st.socket = Some(socket);
            st.h = Some(h);
            st.seq = out.seq();
            st.back = Back::No;
        }
        if !self.tail.attach(&pos, attached.clone()) {
            return Ok(Some(attached.take_back(out).0));
        }
        // Should this future be dropped (its connection's task cancelled), the tail thread
        // must stop writing and let go of the socket, or the connection would stay open.
        let _detach = Detach(attached);
        if !attached.logged.swap(true, Ordering::Relaxed) {
            log::info!(
                "binlog dump for connection {} is sent by the binlog-tail thread",
                peer.connection_id
            );
        }
        enum Woken {
            Back,
            Client,
            Timer,
        }
        let (mut h, back) = loop {
            let since = attached.state.lock().h.as_ref().map(|h| h.last_sent.elapsed());
            let wait = match since {
                Some(since) if !period.is_zero() => period.saturating_sub(since).min(POLL),
                _ => POLL,
            };
            let woken = tokio::select! {
                _ = attached.back.notified() => Woken::Back,
                // As in `follow_files`: the client spoke or closed.
                _ = out.read_packet() => Woken::Client,
                _ = tokio::time::sleep(wait) => Woken::Timer,
            };
            match woken {
                Woken::Back => break attached.take_back(out),
                Woken::Client => {
                    attached.take_back(out);
                    return Ok(None);
                }
                Woken::Timer if self.stopping.load(Ordering::Acquire) => {
                    attached.take_back(out);
                    return Ok(None);
                }
                Woken::Timer => {
                    // Due unless the tail thread sent something meanwhile.
                    let due = !period.is_zero()
                        && attached
                            .state
                            .lock()
                            .h
                            .as_ref()
                            .is_some_and(|h| h.last_sent.elapsed() >= period);
                    if due {
                        break attached.take_back(out);
                    }
                }
            }
        };
        match back {
            Back::No => {
                // Taken back for a heartbeat (or woken by a permit left from an earlier
                // return): sent if still due.
                self.heartbeat_if_due(&mut h, period, out)?;
                out.flush().await?;
                Ok(Some(h))
            }
            Back::Full | Back::Relocate => Ok(Some(h)),
            Back::Closed => Ok(None),
            Back::Fatal(message) => {
                end_fatal(out, peer, message).await?;
                Ok(None)
            }
        }
    }
}

impl Source {
    /// Sends a heartbeat if the dump sent nothing for `period` (0: never); true if it did.
    fn heartbeat_if_due(
        &self,
        h: &mut Handover,
        period: Duration,
        out: &mut PacketWriter<'_>,
    ) -> protocol::Result<bool> {
        if period.is_zero() || h.last_sent.elapsed() < period {
            return Ok(false);
        }
        let beat = heartbeat(self.server_id, &h.pos.file, h.pos.pos, h.stream.checksum);
        Direct(out).event(&beat)?;
        h.last_sent = Instant::now();
        Ok(true)
    }
}

/// Ends a dump with ERR 1236 carrying `message` (and logs why).
async fn end_fatal(
    out: &mut PacketWriter<'_>,
    peer: &Peer,
    message: String,
) -> protocol::Result<()> {
    log::info!("binlog dump for connection {} ended: {message}", peer.connection_id);
    out.write_err(&ErrPacket::new(ER_FATAL_READING_BINLOG, "HY000", message));
    out.flush().await
}

/// Why an attached dump came back to its task.
#[derive(Default)]
enum Back {
    /// It did not: the task took it back (a heartbeat, the client, shutdown).
    #[default]
    No,
    /// The socket was full: the rest of what was framed waits for the task's write.
    Full,
    /// The tail moved on without it (the ring lost its place, the tail stopped): the task
    /// locates it again.
    Relocate,
    /// A write failed: the client went away.
    Closed,
    /// The dump failed: ERR 1236 with this message.
    Fatal(String),
}

/// A caught-up dump the tail thread sends to ([`super::tail`]).
struct Attached {
    server_id: u32,
    exclude: Option<GtidSet>,
    state: Mutex<AttachedState>,
    /// Wakes the task when the dump comes back.
    back: Notify,
    /// Whether the first attach was logged.
    logged: AtomicBool,
}

/// An attached dump's state, shared by the tail thread and the connection's task.
#[derive(Default)]
struct AttachedState {
    /// A handle on the connection's socket while the tail thread sends (`None` once back:
    /// the handle must not keep the connection open).
    socket: Option<protocol::packet::SocketHandle>,
    /// The dump's place.
    h: Option<Box<Handover>>,
    /// The connection's next packet sequence id.
    seq: u8,
    /// Packets framed and not yet written.
    pending: BytesMut,
    /// Bytes written (the connection's Bytes_sent).
    written: u64,
    back: Back,
}

/// Detaches a dump when dropped (see [`Source::attached`]).
struct Detach<'a>(&'a Attached);

impl Drop for Detach<'_> {
    fn drop(&mut self) {
        self.0.state.lock().socket = None;
    }
}

impl Attached {
    /// The task takes the dump back: what the thread could not write is buffered in `out`
    /// with the sequence ids it used.
    fn take_back(&self, out: &mut PacketWriter<'_>) -> (Box<Handover>, Back) {
        let mut st = self.state.lock();
        st.socket = None;
        out.resume_framed(&st.pending, st.seq, st.written);
        st.pending.clear();
        st.written = 0;
        let h = st.h.take().expect("an attached dump has its handover");
        (h, std::mem::take(&mut st.back))
    }
}

impl Follower for Attached {
    fn send(&self, tail: &Tail, now: Instant) -> bool {
        use std::io::Write;
        let mut guard = self.state.lock();
        let st = &mut *guard;
        let (Some(socket), Some(h)) = (st.socket.as_ref(), st.h.as_mut()) else {
            return false;
        };
        // What goes out, in order: what an earlier send could not write, then per segment
        // either its framing shared with the other dumps at the same sequence id (no copy
        // here: the socket write reads it) or, for segments that need per-event work, its
        // packets framed into a buffer of this dump's own.
        let mut parts: Vec<Bytes> = Vec::new();
        if !st.pending.is_empty() {
            parts.push(st.pending.split().freeze());
        }
        let exclude = self.exclude.as_ref();
        let mut back = None;
        while back.is_none() {
            match tail.locate(&h.pos) {
                Located::Found(segment, 0) if plain(h, exclude, &segment, 0) => {
                    let framed = segment.framed(st.seq);
                    st.seq = framed.next_seq;
                    parts.push(framed.bytes);
                    let mut own = BytesMut::new();
                    let mut out = Framer { seq: &mut st.seq, buf: &mut own };
                    match segment_sent(self.server_id, h, true, exclude, &segment, now, &mut out) {
                        Ok(()) => h.pin_file(),
                        Err(Stop::Fatal(message)) => back = Some(Back::Fatal(message)),
                        Err(Stop::Gone) => back = Some(Back::Closed),
                    }
                    if !own.is_empty() {
                        parts.push(own.freeze());
                    }
                }
                Located::Found(segment, index) => {
                    let mut own = BytesMut::new();
                    let mut out = Framer { seq: &mut st.seq, buf: &mut own };
                    match send_segment(self.server_id, h, exclude, &segment, index, now, &mut out) {
                        Ok(()) => h.pin_file(),
                        Err(Stop::Fatal(message)) => back = Some(Back::Fatal(message)),
                        Err(Stop::Gone) => back = Some(Back::Closed),
                    }
                    if !own.is_empty() {
                        parts.push(own.freeze());
                    }
                }
                Located::NotYet => break,
                Located::Gone | Located::Ended => back = Some(Back::Relocate),
            }
        }
        // One non-blocking `writev` for all of it (the socket is tokio's): a full socket sends
        // the dump back to its task with the rest, which waits until it can write.
        let mut done = 0;
        while done < parts.len() {
            // At most IOV_MAX (1 024 on Linux) buffers a call.
            let slices: Vec<std::io::IoSlice<'_>> =
                parts[done..].iter().take(1024).map(|p| std::io::IoSlice::new(p)).collect();
            match (&*socket).write_vectored(&slices) {
                Ok(0) => {
                    back = Some(Back::Closed);
                    break;
                }
                Ok(mut n) => {
                    st.written += n as u64;
                    while done < parts.len() && n >= parts[done].len() {
                        n -= parts[done].len();
                        done += 1;
                    }
                    if n > 0 {
                        bytes::Buf::advance(&mut parts[done], n);
                    }
                }
                Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
                Err(e) if e.kind() == std::io::ErrorKind::WouldBlock => {
                    back.get_or_insert(Back::Full);
                    break;
                }
                Err(_) => {
                    back = Some(Back::Closed);
                    break;
                }
            }
        }
        match back {
            None => true,
            Some(back) => {
                // The task writes what is left (whole packets with their sequence ids).
                for part in &parts[done..] {
                    st.pending.extend_from_slice(part);
                }
                st.back = back;
                st.socket = None;
                self.back.notify_one();
                false
            }
        }
    }

    fn attached(&self) -> bool {
        self.state.lock().socket.is_some()
    }
}

/// Where a caught-up dump stands when it moves between its thread and the shared tail.
struct Handover {
    /// The next event's place.
    pos: BinlogPosition,
    /// `pos.file` held against PURGE while the dump sends it from the shared tail (a reader
    /// on the file holds it while the thread reads), so a dump that falls out of the ring can
    /// always go back to the file, as PURGE stops at a file a dump is on.
    pin: FilePin,
    stream: Stream,
    /// When the last packet went out (heartbeats).
    last_sent: Instant,
}

impl Handover {
    /// Holds `pos.file` against PURGE, after a segment that may have moved the dump to the
    /// next file. That file cannot have been purged: the tail's own reader is on it or later.
    fn pin_file(&mut self) {
        if let Err(e) = self.pin.follow(&self.pos.file) {
            log::warn!("binlog dump could not pin {}: {e}", self.pos.file);
        }
    }
}

/// Whether a tail segment can go to this dump as is from event `index` (packet framing only):
/// no event needs per-dump work (a new file's fake ROTATE, GTIDs the replica has).
fn plain(h: &Handover, exclude: Option<&GtidSet>, segment: &Segment, index: usize) -> bool {
    let first_pos = segment.start + u64::from(segment.offsets[index]);
    segment.file == h.stream.file
        && first_pos != HEADER_SIZE
        && h.stream.skipped_end.is_none()
        && match exclude {
            None => true,
            // A GTID event first resets `skipping`, as `handle_event` would.
            Some(set) => {
                !segment.has_any_of(set)
                    && (!h.stream.skipping || segment.event_type(index) == EventType::GTID.0)
            }
        }
}

/// Sends a tail segment from event `index`: as is (packet framing only) when no event needs
/// per-dump work, else event by event as the file path does. `now`: when (heartbeats).
fn send_segment(
    server_id: u32,
    h: &mut Handover,
    exclude: Option<&GtidSet>,
    segment: &Segment,
    index: usize,
    now: Instant,
    out: &mut impl Packets,
) -> Result<(), Stop> {
    let as_is = plain(h, exclude, segment, index);
    if as_is {
        // The segment holds each packet's payload whole (`0x00` + event): framing is one
        // copy into the connection's buffer behind a 4-byte header.
        for i in index..segment.offsets.len() {
            out.packet(&segment.bytes[segment.packet_range(i)]);
        }
    } else {
        for i in index..segment.offsets.len() {
            let (pos, bytes) = segment.event(i);
            handle_event(
                server_id,
                &mut Direct(out),
                &mut h.stream,
                exclude,
                &segment.file,
                pos,
                &bytes,
            )?;
        }
    }
    segment_sent(server_id, h, as_is, exclude, segment, now, out)
}

/// Moves the dump past a segment whose events were sent (or skipped); `plain`: sent as is.
fn segment_sent(
    server_id: u32,
    h: &mut Handover,
    plain: bool,
    exclude: Option<&GtidSet>,
    segment: &Segment,
    now: Instant,
    out: &mut impl Packets,
) -> Result<(), Stop> {
    if plain && exclude.is_some() {
        // Sent as is: its GTID events reset `skipping`, as `handle_event` would.
        h.stream.skipping = false;
    }
    // No allocation per segment while the dump stays in one file.
    if h.pos.file != segment.file {
        h.pos.file.clone_from(&segment.file);
    }
    h.pos.pos = segment.end();
    // Caught up with what the tail published: a skipped run is announced now, as the file
    // path does when it reaches the synced end.
    announce_skipped(&mut Direct(out), &mut h.stream, server_id)?;
    h.last_sent = now;
    Ok(())
}

/// Where dump packets go: a batch for the connection's task (the thread), or straight into
/// the connection's buffer (the task).
trait Sink {
    /// Queues `0x00` + `event`.
    fn event(&mut self, event: &[u8]) -> Result<(), Stop>;
    /// Whether the client and the server are still there.
    fn check(&self) -> Result<(), Stop>;
}

/// Where a caught-up dump's packets are framed: the connection's buffer (its task) or an
/// [`Attached`] dump's own buffer (the tail thread).
trait Packets {
    /// Buffers one packet.
    fn packet(&mut self, payload: &[u8]);
    /// Buffers `0x00` + `event` as one packet.
    fn event_packet(&mut self, event: &[u8]);
}

impl Packets for PacketWriter<'_> {
    fn packet(&mut self, payload: &[u8]) {
        self.write_packet(payload);
    }

    fn event_packet(&mut self, event: &[u8]) {
        self.write_with(|packet| {
            packet.reserve(event.len() + 1);
            packet.push(0x00);
            packet.extend_from_slice(event);
        });
    }
}

/// Packets framed for an [`Attached`] dump, continuing its connection's sequence ids.
struct Framer<'b> {
    seq: &'b mut u8,
    buf: &'b mut BytesMut,
}

impl Packets for Framer<'_> {
    fn packet(&mut self, payload: &[u8]) {
        let mut payload = payload;
        *self.seq = packet_to_chunks(*self.seq, &mut payload, self.buf);
    }

    fn event_packet(&mut self, event: &[u8]) {
        // Only the per-event path (rotations, skipped GTIDs) comes here: one copy is fine.
        let mut packet = Vec::with_capacity(event.len() + 1);
        packet.push(0x00);
        packet.extend_from_slice(event);
        self.packet(&packet);
    }
}

/// The connection's own buffer (its task), or an attached dump's (the tail thread).
struct Direct<'w, P: Packets>(&'w mut P);

impl<P: Packets> Sink for Direct<'_, P> {
    fn event(&mut self, event: &[u8]) -> Result<(), Stop> {
        self.0.event_packet(event);
        Ok(())
    }

    fn check(&self) -> Result<(), Stop> {
        Ok(())
    }
}

impl From<Stop> for protocol::Error {
    fn from(_: Stop) -> protocol::Error {
        protocol::Error::Closed
    }
}

/// What the dump thread hands the connection.
enum Chunk {
    /// Packets to send (each `0x00` + an event).
    Packets(Vec<Vec<u8>>),
    /// The end of a non-blocking dump.
    Eof,
    /// The dump failed: ERR 1236 with this message.
    Error(String),
    /// The dump reached the synced end and its thread ended: the task follows the tail.
    CaughtUp(Box<Handover>),
}

/// A parsed COM_BINLOG_DUMP or COM_BINLOG_DUMP_GTID.
#[derive(Debug, Clone)]
pub(crate) struct DumpRequest {
    pub(crate) server_id: u32,
    pub(crate) non_block: bool,
    /// Empty: the first file (file mode) or the one auto-position picks (GTID mode).
    pub(crate) file: String,
    pub(crate) pos: u64,
    /// The replica's GTID set (COM_BINLOG_DUMP_GTID).
    pub(crate) gtids: Option<GtidSet>,
}

impl DumpRequest {
    fn describe(&self) -> String {
        match &self.gtids {
            Some(set) if self.file.is_empty() => format!("auto-position, replica has '{set}'"),
            Some(set) => format!("'{}' at {}, replica has '{set}'", self.file, self.pos),
            None => format!("'{}' at {}", self.file, self.pos),
        }
    }
}

/// COM_REGISTER_SLAVE: `0x15 | server_id u32 | hostname (u8 length) | user (u8 length) |
/// password (u8 length) | port u16 | replication_rank u32 | master_id u32`. Every length is one
/// byte checked by `mysql_common`'s `ParseBuf` against the packet, so its parser is used;
/// a short packet is ER_MALFORMED_PACKET, as mysqld's `register_replica`.
pub(crate) fn parse_register(packet: &[u8]) -> protocol::Result<ComRegisterSlave<'_>> {
    ParseBuf(packet)
        .parse(())
        .map_err(|_| protocol::Error::Malformed { what: "COM_REGISTER_SLAVE" })
}

/// `ER_MALFORMED_GTID_SET_ENCODING`: what mysqld's `Gtid_set::add_gtid_encoding` reports for a
/// COM_BINLOG_DUMP_GTID whose GTID block does not decode.
const ER_MALFORMED_GTID_SET_ENCODING: u16 = 1773;

/// Parses COM_BINLOG_DUMP or COM_BINLOG_DUMP_GTID (`packet` starts with the command byte).
///
/// COM_BINLOG_DUMP_GTID is read by hand, as mysqld's `com_binlog_dump_gtid` reads it, because
/// `mysql_common`'s parser trusts the SID block's counts: 2^45 declared intervals made it
/// allocate 512 TiB and abort the process, 2^62 panicked with "capacity overflow". Here every
/// length is checked against the bytes present before it is used (ER_MALFORMED_PACKET 1835
/// otherwise, mysqld's `CHECK_PACKET_SIZE`), and the GTID block goes through
/// [`GtidSet::decode_binary`], which does the same for its counts (ER_MALFORMED_GTID_SET_ENCODING
/// 1773, as `add_gtid_encoding`).
///
/// Format: `0x1e | flags u16 | server_id u32 | name_size u32 | name | pos u64 | data_size u32 |
/// data` (data: the GTID set's binary form). mysqld always reads `data_size`; a packet that
/// ends right after `pos` (`mysql_common` omits the block without BINLOG_THROUGH_GTID) is taken
/// as an empty set.
pub(crate) fn parse_request(
    command: ReplicationCommand,
    packet: &[u8],
) -> protocol::Result<DumpRequest> {
    if command == ReplicationCommand::BinlogDump {
        // Format: 0x12 | pos u32 | flags u16 | server_id u32 | file name (rest); nothing in it
        // is a count, so mysql_common's parser is safe.
        let dump: ComBinlogDump<'_> = ParseBuf(packet)
            .parse(())
            .map_err(|_| protocol::Error::Malformed { what: "COM_BINLOG_DUMP" })?;
        return Ok(DumpRequest {
            server_id: dump.server_id(),
            non_block: dump.flags().contains(BinlogDumpFlags::BINLOG_DUMP_NON_BLOCK),
            file: c_string(dump.filename_raw()),
            pos: u64::from(dump.pos()),
            gtids: None,
        });
    }
    let malformed = || protocol::Error::Malformed { what: "COM_BINLOG_DUMP_GTID" };
    let mut buf = ParseBuf(packet);
    let (Some(_command), Some(flags), Some(server_id), Some(name_size)) = (
        buf.checked_eat_u8(),
        buf.checked_eat_u16_le(),
        buf.checked_eat_u32_le(),
        buf.checked_eat_u32_le(),
    ) else {
        return Err(malformed());
    };
    let name =
        usize::try_from(name_size).ok().and_then(|n| buf.checked_eat(n)).ok_or_else(malformed)?;
    let pos = buf.checked_eat_u64_le().ok_or_else(malformed)?;
    let gtids = if buf.is_empty() {
        GtidSet::new()
    } else {
        let data_size = buf.checked_eat_u32_le().ok_or_else(malformed)?;
        let data = usize::try_from(data_size)
            .ok()
            .and_then(|n| buf.checked_eat(n))
            .ok_or_else(malformed)?;
        decode_dump_gtids(data)?
    };
    let flags = BinlogDumpFlags::from_bits_truncate(flags);
    Ok(DumpRequest {
        server_id,
        non_block: flags.contains(BinlogDumpFlags::BINLOG_DUMP_NON_BLOCK),
        file: c_string(name),
        pos,
        gtids: Some(gtids),
    })
}

/// The GTID block of COM_BINLOG_DUMP_GTID: the whole of `data` must be one set's binary form.
/// A tagged (MySQL 8.4) encoding starts with a format byte and does not decode here: such a
/// replica holds GTIDs this source never had.
fn decode_dump_gtids(data: &[u8]) -> protocol::Result<GtidSet> {
    let bad = || {
        protocol::Error::from(ErrPacket::new(
            ER_MALFORMED_GTID_SET_ENCODING,
            "HY000",
            "Malformed GTID set encoding.",
        ))
    };
    let untagged;
    let data = if data.len() >= 8 && data[7] == TAGGED_FORMAT {
        untagged = untag(data)?.ok_or_else(bad)?;
        &untagged[..]
    } else {
        data
    };
    match GtidSet::decode_binary(data) {
        Ok((set, used)) if used == data.len() => Ok(set),
        _ => Err(bad()),
    }
}

/// The format byte (the header's most significant byte) of MySQL 8.4's tagged GTID encoding.
const TAGGED_FORMAT: u8 = 0x01;

/// A tagged-format GTID block (MySQL 8.4: `header u64` with the format in bits 56..64 and the
/// sid count in bits 8..56, then per sid `uuid[16] | tag_len varlen | tag | n_intervals u64 |
/// intervals`) rewritten in the untagged form, if no sid has a tag (`None` when it is cut or
/// malformed). A non-empty tag is ER 1236: this source has no tagged GTIDs, so such a replica
/// holds transactions it never had. Only lengths checked against the block are used: the
/// copy is never larger than the block.
fn untag(data: &[u8]) -> protocol::Result<Option<Vec<u8>>> {
    let header = u64::from_le_bytes(data[..8].try_into().expect("8 bytes"));
    let n_sids = (header & 0x00FF_FFFF_FFFF_FF00) >> 8;
    let mut out = Vec::with_capacity(data.len());
    out.extend_from_slice(&n_sids.to_le_bytes());
    let mut rest = &data[8..];
    for _ in 0..n_sids {
        // uuid[16] | tag length (0: one zero byte) | n_intervals u64
        let Some((&tag_len, after_uuid)) = rest.get(16..).and_then(|r| r.split_first()) else {
            return Ok(None);
        };
        if tag_len != 0 {
            return Err(ErrPacket::new(
                ER_FATAL_READING_BINLOG,
                "HY000",
                "The replica's GTID set holds tagged GTIDs, which this source does not support",
            )
            .into());
        }
        let Some(count) = after_uuid.get(..8) else { return Ok(None) };
        let n_ivs = u64::from_le_bytes(count.try_into().expect("8 bytes"));
        let Some(len) = usize::try_from(n_ivs).ok().and_then(|n| n.checked_mul(16)) else {
            return Ok(None);
        };
        let Some(intervals) = after_uuid[8..].get(..len) else { return Ok(None) };
        out.extend_from_slice(&rest[..16]);
        out.extend_from_slice(count);
        out.extend_from_slice(intervals);
        rest = &after_uuid[8 + len..];
    }
    if !rest.is_empty() {
        return Ok(None);
    }
    Ok(Some(out))
}

/// A file name as mysqld reads it from the packet: up to the first NUL (python-mysql-replication
/// sends `"\0\0\0"` for "none").
fn c_string(raw: &[u8]) -> String {
    let end = raw.iter().position(|&b| b == 0).unwrap_or(raw.len());
    String::from_utf8_lossy(&raw[..end]).into_owned()
}

/// Everything a dump thread needs.
struct Dump {
    files: BinlogFiles,
    coordinator: Arc<Coordinator<engine::Engine>>,
    binlog_dir: PathBuf,
    server_id: u32,
    server_sid: Sid,
    stopping: Arc<AtomicBool>,
    request: DumpRequest,
    vars: DumpVariables,
    /// The tail to hand over to once caught up (none: the thread follows to the end).
    tail: Option<Arc<Tail>>,
}

/// How a dump ended early.
enum Stop {
    /// A 1236 for the client.
    Fatal(String),
    /// The client or the server went away: nothing more to say.
    Gone,
}

impl From<String> for Stop {
    fn from(message: String) -> Stop {
        Stop::Fatal(message)
    }
}

/// What the client said about checksums (mysqld's `m_slave_checksum_alg`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum ClientChecksum {
    /// Not set: the client predates checksums.
    Undefined,
    Crc32,
    /// `NONE`, or a value mysqld's typelib lookup does not know (mysql_async's `'ALL'`).
    Other,
}

fn dump_thread(dump: Dump, resume: Option<Box<Handover>>, tx: mpsc::Sender<Chunk>) {
    let mut sender = Sender {
        tx,
        batch: Vec::new(),
        batch_bytes: 0,
        last_sent: Instant::now(),
        stopping: dump.stopping.clone(),
    };
    let last = match run_dump(&dump, resume, &mut sender) {
        Ok(Some(handover)) => Chunk::CaughtUp(handover),
        Ok(None) => Chunk::Eof,
        Err(Stop::Fatal(message)) => Chunk::Error(message),
        Err(Stop::Gone) => return,
    };
    if sender.flush().is_ok() {
        let _ = sender.tx.blocking_send(last);
    }
}

/// Batches packets for the connection's task.
struct Sender {
    tx: mpsc::Sender<Chunk>,
    batch: Vec<Vec<u8>>,
    batch_bytes: usize,
    last_sent: Instant,
    stopping: Arc<AtomicBool>,
}

impl Sink for Sender {
    /// Queues `0x00` + `event`; sends the batch once it is large.
    fn event(&mut self, event: &[u8]) -> Result<(), Stop> {
        let mut packet = Vec::with_capacity(event.len() + 1);
        packet.push(0x00);
        packet.extend_from_slice(event);
        self.batch_bytes += packet.len();
        self.batch.push(packet);
        self.last_sent = Instant::now();
        if self.batch_bytes >= BATCH_BYTES {
            self.flush()?;
        }
        Ok(())
    }

    fn check(&self) -> Result<(), Stop> {
        if self.tx.is_closed() || self.stopping.load(Ordering::Acquire) {
            return Err(Stop::Gone);
        }
        Ok(())
    }
}

impl Sender {
    fn flush(&mut self) -> Result<(), Stop> {
        if self.batch.is_empty() {
            return self.check();
        }
        let batch = std::mem::take(&mut self.batch);
        self.batch_bytes = 0;
        self.tx.blocking_send(Chunk::Packets(batch)).map_err(|_| Stop::Gone)
    }
}

/// The dump's position and framing state while streaming.
struct Stream {
    /// The file being sent.
    file: String,
    /// Whether the current file's events carry a CRC32 (its FORMAT_DESCRIPTION says).
    checksum: bool,
    /// Inside a transaction the replica already has.
    skipping: bool,
    /// End of the last skipped run not yet announced by a heartbeat.
    skipped_end: Option<u64>,
}

/// Runs a dump thread: `Ok(None)` at the end of a non-blocking dump, `Ok(Some(..))` when a
/// blocking dump reached the synced end and hands over to the shared tail.
fn run_dump(
    dump: &Dump,
    resume: Option<Box<Handover>>,
    sender: &mut Sender,
) -> Result<Option<Box<Handover>>, Stop> {
    let (reader, stream) = match resume {
        Some(h) => {
            sender.last_sent = h.last_sent;
            (open_reader(&dump.files, &h.pos.file, h.pos.pos)?, h.stream)
        }
        None => start_dump(dump, sender)?,
    };
    follow(dump, sender, reader, stream)
}

/// The start of a dump: the fake ROTATE, the FORMAT_DESCRIPTION, and a reader at the
/// requested position.
fn start_dump(dump: &Dump, sender: &mut Sender) -> Result<(BinlogReader, Stream), Stop> {
    let request = &dump.request;
    let client = client_checksum(dump.vars.checksum.as_deref());
    let (file, pos, first_gtid) = start_point(dump)?;
    let exclude = request.gtids.as_ref();
    // mysqld clears the FORMAT_DESCRIPTION's log_pos and `created` when the dump skips the
    // start of the file (file mode past offset 4; GTID mode when the file's first transaction
    // is one the replica has), so the replica neither advances its position nor drops its
    // temporary tables for it.
    let clear_log_pos = match (&request.gtids, request.file.is_empty()) {
        (Some(set), true) => first_gtid.is_some_and(|g| set.contains(&g)),
        _ => pos > HEADER_SIZE,
    };

    let mut stream = Stream {
        file: file.clone(),
        checksum: client == ClientChecksum::Crc32,
        skipping: false,
        skipped_end: None,
    };
    sender.event(&fake_rotate(dump.server_id, &file, pos, stream.checksum))?;

    let mut reader = open_reader(&dump.files, &file, HEADER_SIZE)?;
    let fde = match reader.next(Some(Duration::ZERO)) {
        Ok(Next::Event(ev))
            if ev.bytes.get(TYPE_OFFSET) == Some(&EventType::FORMAT_DESCRIPTION.0) =>
        {
            ev
        }
        Ok(_) => {
            return Err("Could not find format_description_event in binlog file".to_string().into())
        }
        Err(e) => return Err(read_error(&e, &file, pos).into()),
    };
    let (fde_bytes, checksum) = prepare_fde(&fde.bytes, clear_log_pos)
        .map_err(|e| Stop::Fatal(format!("bogus data in log event: {e}")))?;
    stream.checksum = checksum;
    if client == ClientChecksum::Undefined && checksum {
        return Err(format!(
            "Replica can not handle replication events with the checksum that source is \
             configured to log; the first event '{file}' at {pos}, the last event read from \
             '{file}' at 4, the last byte read from '{file}' at {}.",
            fde.pos + fde.bytes.len() as u64
        )
        .into());
    }
    sender.event(&fde_bytes)?;
    if pos > HEADER_SIZE && pos != fde.pos + fde.bytes.len() as u64 {
        reader = open_reader(&dump.files, &file, pos)?;
        // The first read after a jump shows whether `pos` is an event boundary: an event read
        // there has a valid size, next position and CRC only if it starts one.
        match reader.next(Some(Duration::ZERO)) {
            Ok(Next::Event(ev)) => handle_event(
                dump.server_id,
                sender,
                &mut stream,
                exclude,
                &ev.file,
                ev.pos,
                &ev.bytes,
            )?,
            Ok(_) => {}
            Err(binlog::files::Error::Corrupt { .. }) => {
                return Err(format!(
                    "Client requested source to start replication from impossible position; \
                     the first event '{file}' at {pos}, the last event read from '{file}' at \
                     {pos}, the last byte read from '{file}' at {pos}."
                )
                .into())
            }
            Err(e) => return Err(read_error(&e, &file, pos).into()),
        }
    }
    Ok((reader, stream))
}

/// Sends the files' events up to the synced end, then waits for more (a blocking dump hands
/// over to the shared tail instead, when there is one).
fn follow(
    dump: &Dump,
    sender: &mut Sender,
    mut reader: BinlogReader,
    mut stream: Stream,
) -> Result<Option<Box<Handover>>, Stop> {
    let request = &dump.request;
    let exclude = request.gtids.as_ref();
    let non_block = request.non_block || request.server_id == 0;
    let period = Duration::from_nanos(dump.vars.heartbeat_period_ns);
    let server_id = dump.server_id;
    loop {
        match reader.next(Some(Duration::ZERO)) {
            Ok(Next::Event(ev)) => {
                handle_event(server_id, sender, &mut stream, exclude, &ev.file, ev.pos, &ev.bytes)?;
                continue;
            }
            Ok(Next::Ended) => return end_of_log(sender, &mut stream, server_id, non_block),
            Ok(Next::TimedOut) => {}
            Err(e) => return Err(read_error(&e, &stream.file, reader.position().pos).into()),
        }
        // Caught up with the synced end: send what is batched, then wait.
        announce_skipped(sender, &mut stream, server_id)?;
        sender.flush()?;
        if non_block {
            return Ok(None);
        }
        if dump.tail.as_ref().is_some_and(|t| t.usable()) {
            let last_sent = sender.last_sent;
            // Pinned before the reader (which holds the file too) is dropped.
            let pos = reader.position();
            match dump.files.pin(&pos.file) {
                Ok(pin) => return Ok(Some(Box::new(Handover { pos, pin, stream, last_sent }))),
                Err(e) => log::warn!("binlog dump stays on its thread: {e}"),
            }
        }
        loop {
            let wait = if period.is_zero() {
                POLL
            } else {
                period.saturating_sub(sender.last_sent.elapsed()).min(POLL)
            };
            match reader.next(Some(wait)) {
                Ok(Next::Event(ev)) => {
                    handle_event(
                        server_id,
                        sender,
                        &mut stream,
                        exclude,
                        &ev.file,
                        ev.pos,
                        &ev.bytes,
                    )?;
                    // Let a few more groups become durable before draining and sending: every
                    // group wakes every dump thread, and with many dumps the wake-ups, packet
                    // batches and socket writes per group cost more CPU than the commits
                    // themselves on a small machine. A dump is then at most this much behind.
                    std::thread::sleep(DUMP_COALESCE);
                    break;
                }
                Ok(Next::Ended) => return end_of_log(sender, &mut stream, server_id, non_block),
                Ok(Next::TimedOut) => {
                    sender.check()?;
                    if !period.is_zero() && sender.last_sent.elapsed() >= period {
                        let pos = reader.position();
                        sender.event(&heartbeat(server_id, &pos.file, pos.pos, stream.checksum))?;
                        sender.flush()?;
                    }
                }
                Err(e) => return Err(read_error(&e, &stream.file, reader.position().pos).into()),
            }
        }
    }
}

/// The writer closed (server shutdown): a non-blocking dump ends with EOF, a blocking one just
/// stops, as mysqld's dump threads are killed at shutdown.
fn end_of_log(
    sender: &mut Sender,
    stream: &mut Stream,
    server_id: u32,
    non_block: bool,
) -> Result<Option<Box<Handover>>, Stop> {
    announce_skipped(sender, stream, server_id)?;
    sender.flush()?;
    if non_block {
        Ok(None)
    } else {
        Err(Stop::Gone)
    }
}

fn announce_skipped(sink: &mut impl Sink, stream: &mut Stream, server_id: u32) -> Result<(), Stop> {
    if let Some(end) = stream.skipped_end.take() {
        sink.event(&heartbeat(server_id, &stream.file, end, stream.checksum))?;
    }
    Ok(())
}

/// Sends (or skips) one event: from the files (a dump thread) or a tail segment (a task).
fn handle_event(
    server_id: u32,
    sender: &mut impl Sink,
    stream: &mut Stream,
    exclude: Option<&GtidSet>,
    file: &str,
    pos: u64,
    bytes: &[u8],
) -> Result<(), Stop> {
    let event_type = bytes.get(TYPE_OFFSET).copied().unwrap_or(0);
    if file != stream.file {
        // Rotated into the next file: announce it as mysqld does, then its header follows.
        announce_skipped(sender, stream, server_id)?;
        stream.file = file.to_string();
        stream.skipping = false;
        sender.event(&fake_rotate(server_id, file, HEADER_SIZE, stream.checksum))?;
    }
    if event_type == EventType::FORMAT_DESCRIPTION.0 {
        let (bytes, checksum) = prepare_fde(bytes, false)
            .map_err(|e| Stop::Fatal(format!("bogus data in log event: {e}")))?;
        stream.checksum = checksum;
        stream.skipping = false;
        return sender.event(&bytes);
    }
    if let Some(exclude) = exclude {
        if event_type == EventType::GTID.0 {
            let gtid = match decode_event(bytes, &checksum_ctx(stream.checksum), pos) {
                Ok(event) => match event.body {
                    EventBody::Gtid(g) => Some(g.gtid()),
                    _ => None,
                },
                Err(e) => return Err(format!("bogus data in log event: {e}").into()),
            };
            stream.skipping = gtid.is_some_and(|g| exclude.contains(&g));
        } else if !is_transaction_event(event_type) {
            stream.skipping = false;
        }
        if stream.skipping {
            stream.skipped_end = Some(pos + bytes.len() as u64);
            return sender.check();
        }
    }
    announce_skipped(sender, stream, server_id)?;
    sender.event(bytes)
}

/// Events that belong to a transaction's group (skipped with it).
fn is_transaction_event(event_type: u8) -> bool {
    ![
        EventType::FORMAT_DESCRIPTION.0,
        EventType::PREVIOUS_GTIDS.0,
        EventType::ROTATE.0,
        EventType::STOP.0,
        EventType::GTID.0,
    ]
    .contains(&event_type)
}

/// Where the dump starts: file, position, and (GTID auto-position) the file's first GTID.
fn start_point(dump: &Dump) -> Result<(String, u64, Option<Gtid>), Stop> {
    let request = &dump.request;
    let names = dump.files.file_names();
    if request.pos < HEADER_SIZE {
        return Err("Client requested source to start replication from position < 4"
            .to_string()
            .into());
    }
    let not_found = || -> Stop {
        "Could not find first log file name in binary log index file".to_string().into()
    };
    let (file, first_gtid) = if !request.file.is_empty() {
        if !names.contains(&request.file) {
            return Err(not_found());
        }
        (request.file.clone(), None)
    } else if let Some(replica) = &request.gtids {
        auto_position(dump, replica, &names)?
    } else {
        (names.first().cloned().ok_or_else(not_found)?, None)
    };
    // Auto-position picks the file, so the dump starts at its beginning.
    let pos =
        if request.file.is_empty() && request.gtids.is_some() { HEADER_SIZE } else { request.pos };
    // mysqld compares with the file's length; for the active file the durable end is what a
    // dump may read.
    let end = dump.files.synced_end();
    let size = if end.file == file {
        end.pos
    } else {
        std::fs::metadata(dump.binlog_dir.join(&file)).map(|m| m.len()).map_err(|_| not_found())?
    };
    if pos > size {
        return Err("Client requested source to start replication from position > file size"
            .to_string()
            .into());
    }
    Ok((file, pos, first_gtid))
}

/// GTID auto-position (mysqld's `check_start_file` + `find_first_log_not_in_gtid_set`).
fn auto_position(
    dump: &Dump,
    replica: &GtidSet,
    names: &[String],
) -> Result<(String, Option<Gtid>), Stop> {
    let executed = dump.coordinator.gtid_executed();
    // Only this server's own UUID can be judged: other UUIDs may come from other sources.
    let mine = |set: &GtidSet| {
        let mut only = GtidSet::new();
        for (sid, intervals) in set.iter() {
            if *sid == dump.server_sid {
                for iv in intervals {
                    only.add_interval(*sid, iv.start, iv.end);
                }
            }
        }
        only
    };
    if !mine(replica).is_subset(&executed) {
        return Err(REPLICA_HAS_MORE_GTIDS.to_string().into());
    }
    let purged = dump
        .coordinator
        .gtid_purged()
        .map_err(|e| Stop::Fatal(format!("could not read gtid_purged: {e}")))?;
    if !purged.is_subset(replica) {
        return Err(purged_message(replica, &purged.subtract(replica)).into());
    }
    let mut oldest_previous = None;
    for name in names.iter().rev() {
        let (previous, first_gtid) = file_header_gtids(&dump.files, name)?;
        if previous.is_subset(replica) {
            return Ok((name.clone(), first_gtid));
        }
        oldest_previous = Some(previous);
    }
    let missing = oldest_previous.unwrap_or_default().subtract(replica);
    Err(purged_message(replica, &missing).into())
}

/// A file's PREVIOUS_GTIDS and its first transaction's GTID, if it has one yet.
fn file_header_gtids(files: &BinlogFiles, name: &str) -> Result<(GtidSet, Option<Gtid>), Stop> {
    let mut reader = open_reader(files, name, HEADER_SIZE)?;
    let mut ctx = FormatContext::default();
    let mut previous = None;
    // FORMAT_DESCRIPTION, PREVIOUS_GTIDS, then the first transaction's GTID if any.
    for _ in 0..3 {
        let ev = match reader.next(Some(Duration::ZERO)) {
            Ok(Next::Event(ev)) if ev.file == name => ev,
            Ok(_) => break,
            Err(e) => return Err(read_error(&e, name, HEADER_SIZE).into()),
        };
        let event = decode_event(&ev.bytes, &ctx, ev.pos)
            .map_err(|e| Stop::Fatal(format!("bogus data in log event: {e}")))?;
        match event.body {
            EventBody::FormatDescription(f) => {
                ctx = FormatContext::from_fde(&f, ev.pos)
                    .map_err(|e| Stop::Fatal(format!("bogus data in log event: {e}")))?;
            }
            EventBody::PreviousGtids(p) => previous = Some(p.gtids().clone()),
            EventBody::Gtid(g) => return Ok((previous.unwrap_or_default(), Some(g.gtid()))),
            _ => break,
        }
    }
    Ok((previous.unwrap_or_default(), None))
}

fn open_reader(files: &BinlogFiles, name: &str, pos: u64) -> Result<BinlogReader, Stop> {
    files.reader_at(name, pos).map_err(|e| match e {
        binlog::files::Error::UnknownFile { .. } | binlog::files::Error::Purged { .. } => {
            Stop::Fatal("Could not find first log file name in binary log index file".to_string())
        }
        e => Stop::Fatal(read_error(&e, name, pos)),
    })
}

/// mysqld's `log_read_error_msg` wording for a read failure, with the place.
fn read_error(e: &binlog::files::Error, file: &str, pos: u64) -> String {
    let what = match e {
        binlog::files::Error::Corrupt { .. } => "event read from binlog did not pass crc check",
        binlog::files::Error::Purged { .. } | binlog::files::Error::UnknownFile { .. } => {
            "could not find next log"
        }
        _ => "I/O error reading log event",
    };
    format!("{what}; the last event read from '{file}' at {pos} ({e})")
}

/// ER_REPLICA_HAS_MORE_GTIDS_THAN_SOURCE (MySQL 8.0 `share/messages_to_clients.txt`).
const REPLICA_HAS_MORE_GTIDS: &str = "Replica has more GTIDs than the source has, using the \
    source's SERVER_UUID. This may indicate that the end of the binary log was truncated or \
    that the last binary log file was lost, e.g., after a power or disk failure when \
    sync_binlog != 1. The source may or may not have rolled back transactions that were \
    already replicated to the replica. Suggest to replicate any transactions that source has \
    rolled back from replica to source, and/or commit empty transactions on source to account \
    for transactions that have been committed on source but are not included in GTID_EXECUTED.";

/// ER_SOURCE_HAS_PURGED_REQUIRED_GTIDS, as MySQL 8.0 words it.
fn purged_message(replica: &GtidSet, missing: &GtidSet) -> String {
    format!(
        "Cannot replicate because the source purged required binary logs. Replicate the \
         missing transactions from elsewhere, or provision a new replica from backup. Consider \
         increasing the source's binary log expiration period. The GTID set sent by the \
         replica is '{replica}', and the missing transactions are '{missing}'"
    )
}

fn client_checksum(value: Option<&str>) -> ClientChecksum {
    match value {
        None => ClientChecksum::Undefined,
        Some(v) if v.trim().eq_ignore_ascii_case("CRC32") => ClientChecksum::Crc32,
        Some(_) => ClientChecksum::Other,
    }
}

/// The FORMAT_DESCRIPTION as sent: in-use flag cleared, and with `clear_log_pos` its `log_pos`
/// and `created` zeroed; the CRC recomputed. Returns it and whether the file's events carry a
/// checksum.
fn prepare_fde(bytes: &[u8], clear_log_pos: bool) -> Result<(Vec<u8>, bool), String> {
    let event =
        decode_event(bytes, &FormatContext::default(), HEADER_SIZE).map_err(|e| e.to_string())?;
    let EventBody::FormatDescription(mut fde) = event.body else {
        return Err("not a FORMAT_DESCRIPTION".to_string());
    };
    let checksum =
        fde.checksum(HEADER_SIZE).map_err(|e| e.to_string())? == binlog::event::ChecksumAlg::Crc32;
    let mut header = event.header;
    header.flags &= !flags::LOG_EVENT_BINLOG_IN_USE_F;
    let log_pos = if clear_log_pos {
        fde.create_timestamp = 0;
        0
    } else {
        header.log_pos
    };
    let mut out = Vec::with_capacity(bytes.len());
    binlog::event::Event::new(header, EventBody::FormatDescription(fde))
        .encode_with_log_pos(&FormatContext::default(), log_pos, &mut out)
        .map_err(|e| e.to_string())?;
    debug_assert!(out.len() == bytes.len() && out.len() > FDE_CREATED_OFFSET);
    Ok((out, checksum))
}

fn checksum_ctx(checksum: bool) -> FormatContext {
    FormatContext {
        checksum: if checksum {
            binlog::event::ChecksumAlg::Crc32
        } else {
            binlog::event::ChecksumAlg::None
        },
    }
}

/// mysqld's fake ROTATE: timestamp 0, `log_pos` 0, LOG_EVENT_ARTIFICIAL_F.
// Format: header | position u64 | file name (no NUL) | [crc32]
fn fake_rotate(server_id: u32, file: &str, pos: u64, checksum: bool) -> Vec<u8> {
    let header = EventHeader::new(0, server_id, flags::LOG_EVENT_ARTIFICIAL_F);
    let body =
        EventBody::Rotate(RotateEvent { position: pos, next_file: file.as_bytes().to_vec() });
    let mut out = Vec::new();
    binlog::event::Event::new(header, body)
        .encode_with_log_pos(&checksum_ctx(checksum), 0, &mut out)
        .expect("a ROTATE with a binlog file name always encodes");
    out
}

/// HEARTBEAT_LOG_EVENT (v1): timestamp 0, `log_pos` the position reached (as u32), the file.
// Format: header | file name | [crc32]
fn heartbeat(server_id: u32, file: &str, pos: u64, checksum: bool) -> Vec<u8> {
    let header = EventHeader::new(0, server_id, 0);
    let body = EventBody::Heartbeat(HeartbeatEvent { log_file: file.as_bytes().to_vec() });
    let mut out = Vec::new();
    binlog::event::Event::new(header, body)
        .encode_with_log_pos(&checksum_ctx(checksum), pos as u32, &mut out)
        .expect("a HEARTBEAT with a binlog file name always encodes");
    out
}

/// OK after COM_REGISTER_SLAVE.
// Format: 0x00 | affected_rows lenenc (0) | last_insert_id lenenc (0) | status u16 | warnings u16
fn write_ok(out: &mut PacketWriter<'_>, _capabilities: CapabilityFlags) {
    out.write_packet(&[0x00, 0x00, 0x00, 0x02, 0x00, 0x00, 0x00]);
}

/// The EOF ending a non-blocking dump (mysqld's `my_eof`): an OK with the 0xFE header under
/// CLIENT_DEPRECATE_EOF, else a classic EOF.
fn write_eof(out: &mut PacketWriter<'_>, capabilities: CapabilityFlags) {
    if capabilities.contains(CapabilityFlags::CLIENT_DEPRECATE_EOF) {
        // Format: 0xFE | affected_rows 0 | last_insert_id 0 | status u16 | warnings u16
        out.write_packet(&[0xFE, 0x00, 0x00, 0x02, 0x00, 0x00, 0x00]);
    } else {
        // Format: 0xFE | warnings u16 | status u16
        out.write_packet(&[0xFE, 0x00, 0x00, 0x02, 0x00]);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    use mysql_common::packets::{ComBinlogDumpGtid, GnoInterval, Sid as WireSid, Tag};
    use mysql_common::proto::MySerialize;

    const UUID: [u8; 16] = [
        0x3e, 0x11, 0xfa, 0x47, 0x71, 0xca, 0x11, 0xe1, 0x9e, 0x33, 0xc8, 0x0a, 0xa9, 0x42, 0x95,
        0x62,
    ];

    fn dump_gtid(sids: Vec<WireSid<'static>>) -> Vec<u8> {
        let dump = ComBinlogDumpGtid::new(5)
            .with_filename(&b"binlog.000001"[..])
            .with_pos(4)
            .with_flags(BinlogDumpFlags::BINLOG_THROUGH_GTID)
            .with_sids(sids);
        let mut buf = Vec::new();
        dump.serialize(&mut buf);
        buf
    }

    fn code(r: protocol::Result<DumpRequest>) -> u16 {
        r.expect_err("refused").to_sql_error().expect("answered with an ERR").code
    }

    /// A COM_BINLOG_DUMP_GTID as a replica sends it parses to its set.
    #[test]
    fn dump_gtid_request_parses() {
        let packet = dump_gtid(vec![WireSid::new(UUID)
            .with_interval(GnoInterval::new(1, 6))
            .with_interval(GnoInterval::new(9, 10))]);
        let request = parse_request(ReplicationCommand::BinlogDumpGtid, &packet).expect("valid");
        assert_eq!(
            (request.server_id, request.file.as_str(), request.pos),
            (5, "binlog.000001", 4)
        );
        assert_eq!(
            request.gtids.expect("set").to_string(),
            "3e11fa47-71ca-11e1-9e33-c80aa9429562:1-5:9"
        );
        // An 8.4 replica with no tags sends the tagged format only when it has tags; an
        // untagged sid in the tagged format is accepted, a tagged one is 1236.
        let tagged = dump_gtid(vec![WireSid::new(UUID)
            .with_tag(Tag::new("blue").expect("tag"))
            .with_interval(GnoInterval::new(1, 2))]);
        assert_eq!(code(parse_request(ReplicationCommand::BinlogDumpGtid, &tagged)), 1236);
    }

    /// One packet with a huge interval or sid count aborted the process (mysql_common's parser
    /// allocated 2^45 × 16 bytes, or panicked with "capacity overflow" for 2^62): counts are
    /// checked against the bytes present, and the answer is mysqld's error.
    #[test]
    fn huge_counts_in_a_dump_request_are_errors_not_allocations() {
        let valid = dump_gtid(vec![WireSid::new(UUID).with_interval(GnoInterval::new(1, 6))]);
        // Offsets: 0x1e(1) flags(2) server_id(4) name_size(4) name(13) pos(8) data_size(4).
        let block = 1 + 2 + 4 + 4 + 13 + 8 + 4;
        for count in [1u64 << 45, 1 << 62, u64::MAX, 2] {
            let mut intervals = valid.clone();
            intervals[block + 8 + 16..block + 8 + 24].copy_from_slice(&count.to_le_bytes());
            assert_eq!(code(parse_request(ReplicationCommand::BinlogDumpGtid, &intervals)), 1773);
            let mut sids = valid.clone();
            sids[block..block + 8].copy_from_slice(&count.to_le_bytes());
            assert_eq!(code(parse_request(ReplicationCommand::BinlogDumpGtid, &sids)), 1773);
        }
        // data_size and name_size larger than the packet: ER_MALFORMED_PACKET, as mysqld's
        // CHECK_PACKET_SIZE.
        let mut data_size = valid.clone();
        data_size[block - 4..block].copy_from_slice(&u32::MAX.to_le_bytes());
        assert_eq!(code(parse_request(ReplicationCommand::BinlogDumpGtid, &data_size)), 1835);
        let mut name_size = valid.clone();
        name_size[7..11].copy_from_slice(&u32::MAX.to_le_bytes());
        assert_eq!(code(parse_request(ReplicationCommand::BinlogDumpGtid, &name_size)), 1835);
        for cut in 0..block - 4 {
            assert_eq!(
                code(parse_request(ReplicationCommand::BinlogDumpGtid, &valid[..cut])),
                1835
            );
        }
        // Trailing garbage inside the block, and intervals out of order: 1773.
        let mut unordered = dump_gtid(vec![WireSid::new(UUID)
            .with_interval(GnoInterval::new(9, 10))
            .with_interval(GnoInterval::new(1, 6))]);
        assert_eq!(code(parse_request(ReplicationCommand::BinlogDumpGtid, &unordered)), 1773);
        unordered.truncate(unordered.len() - 1);
        assert_eq!(code(parse_request(ReplicationCommand::BinlogDumpGtid, &unordered)), 1835);
    }

    #[test]
    fn fake_rotate_and_heartbeat_decode_as_mysql_frames_them() {
        for checksum in [false, true] {
            let ctx = checksum_ctx(checksum);
            let rotate = fake_rotate(7, "binlog.000002", 4, checksum);
            let event = decode_event(&rotate, &ctx, 0).expect("decode rotate");
            assert_eq!(event.header.timestamp, 0);
            assert_eq!(event.header.log_pos, 0);
            assert_eq!(event.header.flags, flags::LOG_EVENT_ARTIFICIAL_F);
            assert_eq!(event.header.server_id, 7);
            let EventBody::Rotate(r) = event.body else { panic!("not a rotate") };
            assert_eq!((r.position, r.next_file.as_slice()), (4, &b"binlog.000002"[..]));

            let beat = heartbeat(7, "binlog.000003", 1234, checksum);
            let event = decode_event(&beat, &ctx, 0).expect("decode heartbeat");
            assert_eq!(event.header.log_pos, 1234);
            let EventBody::Heartbeat(h) = event.body else { panic!("not a heartbeat") };
            assert_eq!(h.log_file, b"binlog.000003");
        }
    }

    #[test]
    fn client_checksum_follows_mysqlds_typelib_lookup() {
        assert_eq!(client_checksum(None), ClientChecksum::Undefined);
        assert_eq!(client_checksum(Some("crc32")), ClientChecksum::Crc32);
        assert_eq!(client_checksum(Some("NONE")), ClientChecksum::Other);
        assert_eq!(client_checksum(Some("ALL")), ClientChecksum::Other);
    }

    #[test]
    fn the_fde_loses_its_in_use_flag_and_optionally_its_position() {
        let fde = binlog::event::FormatDescription::mysql80(
            "8.0.40-binlogd",
            1_700_000_000,
            binlog::event::ChecksumAlg::Crc32,
        )
        .expect("an 8.0 version fits");
        let mut header = EventHeader::new(1_700_000_000, 1, flags::LOG_EVENT_BINLOG_IN_USE_F);
        header.log_pos = 0;
        let mut bytes = Vec::new();
        binlog::event::Event::new(header, EventBody::FormatDescription(fde))
            .encode(&FormatContext::default(), 4, &mut bytes)
            .expect("encode");
        let (kept, checksum) = prepare_fde(&bytes, false).expect("prepare");
        assert!(checksum);
        let event = decode_event(&kept, &FormatContext::default(), 4).expect("decode");
        assert_eq!(event.header.flags & flags::LOG_EVENT_BINLOG_IN_USE_F, 0);
        assert_eq!(u64::from(event.header.log_pos), 4 + bytes.len() as u64);
        let (cleared, _) = prepare_fde(&bytes, true).expect("prepare");
        let event = decode_event(&cleared, &FormatContext::default(), 4).expect("decode");
        assert_eq!(event.header.log_pos, 0);
        let EventBody::FormatDescription(f) = event.body else { panic!("not an FDE") };
        assert_eq!(f.create_timestamp, 0);
    }
}
