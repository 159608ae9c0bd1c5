//! The receiver ("I/O thread"): connects to the source with `mysql_async`, asks for the
//! transactions it lacks with COM_BINLOG_DUMP_GTID (auto-position: the replica's
//! `gtid_executed` ∪ the relay log's GTIDs), and appends the stream to the relay log.
//!
//! Protocol and invariants:
//! - Every event's CRC32 is checked against the one the source sent (the driver recomputes
//!   its own, so a mismatch means the bytes changed on the way: MySQL's
//!   ER_NETWORK_READ_EVENT_CHECKSUM_FAILURE) and decoded with the binlog crate before use.
//! - Only whole transactions reach the relay log (GTID … XID, or GTID + DDL): the events of a
//!   transaction are buffered and appended with one write, so the relay log's GTID set is
//!   exactly the set of complete transactions received ("Retrieved_Gtid_Set"), and a
//!   reconnection that drops a partial transaction asks for it again.
//! - Relay events are repositioned (`log_pos` = their end in the relay file, CRC32 redone),
//!   because the file machinery checks that every event sits where its header says. The
//!   source's file and position are kept in memory for SHOW REPLICA STATUS.
//! - The source's ROTATE events (the artificial one at the start of each dump and the real
//!   one at each source file switch) are written to the relay log too: they tell the applier
//!   that the source's logical clock restarts (their server id is the source's, unlike the
//!   relay log's own ROTATE at its rotation).
//! - After a network error it reconnects with exponential backoff (100 ms doubling up to
//!   SOURCE_CONNECT_RETRY seconds, back to 100 ms once a dump has started again), at most
//!   SOURCE_RETRY_COUNT times in a row; an error the source
//!   reports for the dump (1236: purged, errant GTIDs) or equal server ids/UUIDs stop it, as
//!   they stop MySQL's I/O thread.

use std::sync::atomic::Ordering;
use std::sync::Arc;
use std::time::{Duration, Instant};

use binlog::event::{
    decode_event, patch_log_pos, ChecksumAlg, EventBody, EventType, FormatContext,
};
use binlog::files::BinlogWriter;
use binlog::gtid::{Gtid, GtidSet};
use futures_util::StreamExt;
use mysql_async::prelude::Queryable;
use mysql_async::{BinlogStreamRequest, Conn, GnoInterval, OptsBuilder, Sid};

use super::settings::Settings;
use super::{IoState, Shared};

/// The longest a received transaction waits for the relay log sync that hands it to the
/// applier while the stream keeps delivering.
const RELAY_SYNC_MAX_DELAY: Duration = Duration::from_millis(50);

/// Offsets in the v4 event header (MySQL's `log_event.h`).
const EVENT_SIZE_OFFSET: usize = 9;
const HEADER_LEN: usize = 19;

/// What the receiver needs.
pub(crate) struct Receiver {
    pub shared: Arc<Shared>,
    pub settings: Settings,
    pub coordinator: Arc<commit::Coordinator<engine::Engine>>,
    pub relay: BinlogWriter,
    pub server_id: u32,
    pub server_uuid: String,
}

/// Why a dump session ended.
enum SessionEnd {
    /// STOP REPLICA.
    Stopped,
    /// Worth retrying (network, the source restarting, authentication while it is set up).
    Retry { code: u16, message: String },
    /// The I/O thread stops (MySQL's fatal errors).
    Fatal { code: u16, message: String },
}

impl Receiver {
    /// Runs until STOP REPLICA or a fatal error (on its own thread: it has its own runtime).
    pub fn run(mut self) {
        let runtime = match tokio::runtime::Builder::new_current_thread().enable_all().build() {
            Ok(r) => r,
            Err(e) => {
                self.shared.io_error(2003, &format!("cannot start the receiver runtime: {e}"));
                self.shared.set_io_state(IoState::No);
                return;
            }
        };
        let mut attempts: u64 = 0;
        let mut backoff = Duration::from_millis(100);
        loop {
            self.shared.set_io_state(IoState::Connecting);
            let end = runtime.block_on(self.session(&mut attempts));
            match end {
                SessionEnd::Stopped => break,
                SessionEnd::Fatal { code, message } => {
                    self.shared.io_error(code, &message);
                    log::error!("replica receiver stopped: {message}");
                    break;
                }
                SessionEnd::Retry { code, message } => {
                    // A session that got as far as the dump reset `attempts`: the source was
                    // there, so the next attempt starts from the shortest wait again (as
                    // mysqld's first reconnection attempt is immediate) instead of keeping
                    // the backoff earlier outages built up.
                    if attempts == 0 {
                        backoff = Duration::from_millis(100);
                    }
                    attempts += 1;
                    let s = &self.settings;
                    let full = format!(
                        "error connecting to source '{}@{}:{}' - retry-time: {}  retries: {} \
                         message: {message}",
                        s.user, s.host, s.port, s.connect_retry_s, attempts
                    );
                    self.shared.io_error(code, &full);
                    log::warn!("replica receiver: {full}");
                    if attempts > s.retry_count {
                        break;
                    }
                    if !self.sleep(backoff) {
                        break;
                    }
                    let cap = Duration::from_secs(u64::from(s.connect_retry_s.max(1)));
                    backoff = (backoff * 2).min(cap);
                }
            }
        }
        self.shared.set_io_state(IoState::No);
        // A clean close; START REPLICA discards the relay log anyway.
        if let Err(e) = self.relay.close() {
            log::warn!("replica receiver: closing the relay log: {e}");
        }
    }

    /// Sleeps `d` unless STOP REPLICA comes first; false if it did.
    fn sleep(&self, d: Duration) -> bool {
        let until = Instant::now() + d;
        while Instant::now() < until {
            if self.shared.stop_io.load(Ordering::Acquire) {
                return false;
            }
            std::thread::sleep(Duration::from_millis(20).min(until - Instant::now()));
        }
        !self.shared.stop_io.load(Ordering::Acquire)
    }

    fn stopping(&self) -> bool {
        self.shared.stop_io.load(Ordering::Acquire)
    }

    async fn session(&mut self, attempts: &mut u64) -> SessionEnd {
        let s = self.settings.clone();
        let opts = OptsBuilder::default()
            .ip_or_hostname(s.host.clone())
            .tcp_port(s.port)
            .user(Some(s.user.clone()))
            .pass(Some(s.password.clone()))
            .prefer_socket(false);
        let connect = tokio::time::timeout(Duration::from_secs(10), Conn::new(opts));
        let mut conn = match connect.await {
            Ok(Ok(c)) => c,
            Ok(Err(e)) => return retry(&e, 2003),
            Err(_) => return SessionEnd::Retry { code: 2003, message: "connect timed out".into() },
        };
        if self.stopping() {
            return SessionEnd::Stopped;
        }
        // Who the source is (SHOW REPLICA STATUS), and MySQL's refusal of a source with this
        // server's own id or UUID (`get_master_uuid`, `get_master_version_and_clock`).
        let who: Result<Option<(u32, String)>, _> =
            conn.query_first("SELECT @@GLOBAL.SERVER_ID, @@GLOBAL.SERVER_UUID").await;
        let (source_id, source_uuid) = match who {
            Ok(Some(pair)) => pair,
            Ok(None) => (0, String::new()),
            Err(e) => return retry(&e, 2013),
        };
        if source_id == self.server_id {
            return SessionEnd::Fatal {
                code: 13117,
                message: "Fatal error: The replica I/O thread stops because source and replica \
                          have equal MySQL server ids; these ids must be different for \
                          replication to work"
                    .into(),
            };
        }
        if source_uuid.eq_ignore_ascii_case(&self.server_uuid) {
            return SessionEnd::Fatal {
                code: 13117,
                message: "Fatal error: The replica I/O thread stops because source and replica \
                          have equal MySQL server UUIDs; these UUIDs must be different for \
                          replication to work."
                    .into(),
            };
        }
        {
            let mut st = self.shared.status.lock();
            st.source_server_id = source_id;
            st.source_uuid = source_uuid;
        }
        // Heartbeats (ns, as MySQL's I/O thread sends them) and our UUID for SHOW REPLICAS.
        // A source that does not know these variables still serves the dump.
        let period_ns = (s.heartbeat_period_s * 1e9) as u64;
        let _ = conn.query_drop(format!("SET @master_heartbeat_period = {period_ns}")).await;
        let _ = conn.query_drop(format!("SET @replica_uuid = '{}'", self.server_uuid)).await;
        let _ = conn.query_drop(format!("SET @slave_uuid = '{}'", self.server_uuid)).await;

        let mut have = self.coordinator.gtid_executed();
        have.union_with(self.relay.executed_gtids());
        let sids = to_sids(&have);
        let request = BinlogStreamRequest::new(self.server_id).with_gtid().with_gtid_set(sids);
        let mut stream = match conn.get_binlog_stream(request).await {
            Ok(s) => s,
            Err(e) => return dump_error(&e),
        };
        *attempts = 0;
        self.shared.connected();
        log::info!(
            "replica receiver connected to {}:{} (server_id {source_id}), asking for all but {have}",
            s.host,
            s.port
        );

        let net_timeout = if s.heartbeat_period_s > 0.0 {
            Duration::from_secs_f64((s.heartbeat_period_s * 2.0).max(5.0))
        } else {
            Duration::from_secs(60)
        };
        let mut ctx = FormatContext::mysql80();
        let mut seen_fde = false;
        let mut pending = Pending::default();
        // When the first transaction not yet synced was appended.
        let mut unsynced: Option<Instant> = None;
        let mut last_event = Instant::now();
        loop {
            if self.stopping() {
                return self.sync_relay().map_or_else(|e| e, |()| SessionEnd::Stopped);
            }
            // Sync the relay log (and so hand it to the applier) when the stream has nothing
            // more ready right now: one fsync per burst, not per transaction. A stream that is
            // never idle (catching up on a backlog under load) is synced every
            // RELAY_SYNC_MAX_DELAY, so the applier works while the receiver still receives.
            if unsynced.is_some_and(|t| t.elapsed() >= RELAY_SYNC_MAX_DELAY) {
                if let Err(end) = self.sync_relay() {
                    return end;
                }
                unsynced = None;
            }
            let wait = if unsynced.is_some() { Duration::ZERO } else { Duration::from_millis(100) };
            let next = match tokio::time::timeout(wait, stream.next()).await {
                Ok(n) => n,
                Err(_) => {
                    if unsynced.is_some() {
                        if let Err(end) = self.sync_relay() {
                            return end;
                        }
                        unsynced = None;
                    } else if last_event.elapsed() > net_timeout {
                        return SessionEnd::Retry {
                            code: 2013,
                            message: "no event or heartbeat from the source within the \
                                      network timeout"
                                .into(),
                        };
                    }
                    continue;
                }
            };
            last_event = Instant::now();
            let event = match next {
                None => {
                    return SessionEnd::Retry {
                        code: 2013,
                        message: "the source ended the binlog stream".into(),
                    }
                }
                Some(Err(e)) => return dump_error(&e),
                Some(Ok(e)) => e,
            };
            let mut bytes = Vec::new();
            if let Err(e) = event.write(mysql_async::binlog::BinlogVersion::Version4, &mut bytes) {
                return fatal_event(&format!("cannot re-serialize an event: {e}"));
            }
            // The driver recomputed the CRC32 from the bytes it received; the source's must
            // match it.
            if let Some(sent) = event.checksum() {
                let is_fde = bytes.get(4) == Some(&EventType::FORMAT_DESCRIPTION.0);
                if (ctx.checksum == ChecksumAlg::Crc32 || is_fde)
                    && bytes.len() >= 4
                    && bytes[bytes.len() - 4..] != sent
                {
                    return SessionEnd::Fatal {
                        code: 13115,
                        message: "Relay log write failure: could not queue event from source \
                                  (ER_NETWORK_READ_EVENT_CHECKSUM_FAILURE: Replication event \
                                  checksum verification failed while reading from network.)"
                            .into(),
                    };
                }
            }
            // Before the first FORMAT_DESCRIPTION (the artificial ROTATE) the stream's
            // checksum setting is not known yet: MySQL sends that event with a CRC32 to a
            // checksum-aware replica, other sources without one; accept either.
            let mut event_alg = ctx.checksum;
            let decoded = match decode_event(&bytes, &ctx, 0) {
                Ok(d) => d,
                Err(_) if !seen_fde && ctx.checksum == ChecksumAlg::Crc32 => {
                    event_alg = ChecksumAlg::None;
                    match decode_event(&bytes, &FormatContext { checksum: event_alg }, 0) {
                        Ok(d) => d,
                        Err(e) => {
                            return fatal_event(&format!("undecodable event from source: {e}"))
                        }
                    }
                }
                Err(e) => return fatal_event(&format!("undecodable event from source: {e}")),
            };
            if decoded.header.log_pos != 0 {
                self.shared.status.lock().read_source_log_pos = u64::from(decoded.header.log_pos);
            }
            match &decoded.body {
                EventBody::FormatDescription(fde) => match FormatContext::from_fde(fde, 0) {
                    Ok(c) => {
                        ctx = c;
                        seen_fde = true;
                    }
                    Err(e) => return fatal_event(&format!("bad FORMAT_DESCRIPTION: {e}")),
                },
                EventBody::Rotate(r) => {
                    {
                        let mut st = self.shared.status.lock();
                        st.source_log_file = String::from_utf8_lossy(&r.next_file).into_owned();
                        st.read_source_log_pos = r.position;
                    }
                    // A clock boundary for the applier, whole (outside any transaction).
                    if pending.gtid.is_none() {
                        if let Err(end) = self.append(&[relay_event(&bytes, event_alg)], None) {
                            return end;
                        }
                        unsynced.get_or_insert_with(Instant::now);
                    }
                }
                EventBody::Gtid(g) => {
                    pending = Pending { gtid: Some(g.gtid()), events: Vec::new() };
                    pending.events.push(relay_event(&bytes, ctx.checksum));
                }
                EventBody::Query(q) if pending.gtid.is_some() => {
                    pending.events.push(relay_event(&bytes, ctx.checksum));
                    let query = q.query.as_slice();
                    // BEGIN (or CREATE ... START TRANSACTION) opens a row transaction; anything else after a GTID is DDL (or
                    // a COMMIT ending a transaction logged as statements): complete.
                    let opens = query.eq_ignore_ascii_case(b"BEGIN")
                        || binlog::event::ddl_opens_transaction(query);
                    if !opens {
                        if let Err(end) = self.finish(&mut pending, &decoded.header) {
                            return end;
                        }
                        unsynced.get_or_insert_with(Instant::now);
                    }
                }
                EventBody::TableMap(_) | EventBody::Rows(_) if pending.gtid.is_some() => {
                    pending.events.push(relay_event(&bytes, ctx.checksum));
                }
                EventBody::Xid(_) if pending.gtid.is_some() => {
                    pending.events.push(relay_event(&bytes, ctx.checksum));
                    if let Err(end) = self.finish(&mut pending, &decoded.header) {
                        return end;
                    }
                    unsynced.get_or_insert_with(Instant::now);
                }
                EventBody::AnonymousGtid(_) => {
                    return SessionEnd::Fatal {
                        code: 13114,
                        message: "Got fatal error 1236 from source when reading data from \
                                  binary log: 'cannot replicate anonymous transaction when \
                                  AUTO_POSITION = 1'"
                            .into(),
                    }
                }
                // PREVIOUS_GTIDS, heartbeats, STOP and events outside transactions carry
                // nothing to apply.
                _ => {}
            }
        }
    }

    /// Appends the buffered transaction to the relay log.
    fn finish(
        &mut self,
        pending: &mut Pending,
        header: &binlog::event::EventHeader,
    ) -> Result<(), SessionEnd> {
        let Some(gtid) = pending.gtid.take() else { return Ok(()) };
        let events = std::mem::take(&mut pending.events);
        self.append(&events, Some(gtid))?;
        let mut st = self.shared.status.lock();
        st.retrieved.add(gtid);
        let file = st.source_log_file.clone();
        st.source_positions.insert(gtid, (file, u64::from(header.log_pos)));
        Ok(())
    }

    /// Writes events (already relay-framed, positions still to be set) as one group.
    fn append(&mut self, events: &[Vec<u8>], gtid: Option<Gtid>) -> Result<(), SessionEnd> {
        let mut pos = self.relay.write_pos();
        let mut group = Vec::with_capacity(events.iter().map(Vec::len).sum());
        for ev in events {
            let mut ev = ev.clone();
            pos += ev.len() as u64;
            let Ok(end) = u32::try_from(pos) else {
                return Err(fatal_relay("relay log position beyond 4 GiB"));
            };
            patch_log_pos(&mut ev, end, ChecksumAlg::Crc32);
            group.extend_from_slice(&ev);
        }
        let gtids: Vec<Gtid> = gtid.into_iter().collect();
        self.relay.append(&group, &gtids).map_err(|e| fatal_relay(&e.to_string()))?;
        Ok(())
    }

    /// Makes the relay log durable up to its end (the applier reads only that far), rotates
    /// it when due and purges the files the applier is done with.
    fn sync_relay(&mut self) -> Result<(), SessionEnd> {
        self.relay.sync().map_err(|e| fatal_relay(&e.to_string()))?;
        if self.relay.rotate_if_due().map_err(|e| fatal_relay(&e.to_string()))? {
            let applier_file = self.shared.status.lock().relay_log_file.clone();
            if !applier_file.is_empty() {
                let _ = self.relay.purge_to(&applier_file);
            }
        }
        Ok(())
    }
}

/// The events of the transaction being received.
#[derive(Default)]
struct Pending {
    gtid: Option<Gtid>,
    events: Vec<Vec<u8>>,
}

/// The event re-framed for the relay log: the source's checksum trailer (if any) replaced by
/// room for a CRC32, which `patch_log_pos` fills in.
fn relay_event(bytes: &[u8], source: ChecksumAlg) -> Vec<u8> {
    let body_end = bytes.len() - source.len().min(bytes.len());
    let mut ev = bytes[..body_end].to_vec();
    ev.extend_from_slice(&[0; 4]);
    let size = ev.len() as u32;
    if ev.len() >= HEADER_LEN {
        ev[EVENT_SIZE_OFFSET..EVENT_SIZE_OFFSET + 4].copy_from_slice(&size.to_le_bytes());
    }
    ev
}

fn to_sids(set: &GtidSet) -> Vec<Sid<'static>> {
    set.iter()
        .map(|(sid, intervals)| {
            Sid::new(sid.0).with_intervals(
                intervals.iter().map(|iv| GnoInterval::new(iv.start, iv.end)).collect(),
            )
        })
        .collect()
}

fn retry(e: &mysql_async::Error, io_code: u16) -> SessionEnd {
    match e {
        mysql_async::Error::Server(s) => {
            SessionEnd::Retry { code: s.code, message: s.message.clone() }
        }
        other => SessionEnd::Retry { code: io_code, message: other.to_string() },
    }
}

/// An error of the dump itself: the source's refusal is fatal (MySQL's
/// ER_SERVER_SOURCE_FATAL_ERROR_READING_BINLOG, 13114); a network error is retried.
fn dump_error(e: &mysql_async::Error) -> SessionEnd {
    match e {
        mysql_async::Error::Server(s) if s.code == 1236 => SessionEnd::Fatal {
            code: 13114,
            message: format!(
                "Got fatal error 1236 from source when reading data from binary log: '{}'",
                s.message
            ),
        },
        other => retry(other, 2013),
    }
}

fn fatal_event(message: &str) -> SessionEnd {
    SessionEnd::Fatal { code: 13122, message: format!("Relay log read failure: {message}") }
}

fn fatal_relay(message: &str) -> SessionEnd {
    SessionEnd::Fatal { code: 13115, message: format!("Relay log write failure: {message}") }
}
