//! The shared tail of the binlog: the newly synced bytes read once for every dump that is
//! caught up.
//!
//! Without it, each dump thread woke for every group (or every [`COALESCE`]), read the new
//! events from the page cache, checked their CRC, copied each into its own packet and handed
//! the batch to its connection's task: ~4.5 µs of server CPU per transaction per reader on a
//! 2-core machine (bench/RESULTS.md, "Dump threads vs commit rate"), so 32 readers cost more
//! than the commits. mysqld's `Binlog_sender` (`sql/rpl_binlog_sender.cc`) also reads the file
//! with its own reader and buffer per dump thread, as MariaDB's dump threads do. Here the
//! reading is done once for all the dumps that are caught up:
//!
//! - One thread (`binlog-tail`) follows the synced end with a [`BinlogReader`] (so the bytes
//!   are durable and their frames and CRCs are checked once), waits [`coalesce_window`] after
//!   a wake-up for more groups, and publishes what it read as an immutable [`Segment`]: one
//!   `Bytes` buffer (reference-counted: every reader sends slices of the same memory) holding
//!   each event behind its packet's `0x00` OK byte, the event offsets and the GTIDs of its
//!   transactions (parsed once, for GTID dumps). A segment never spans two files and always
//!   starts and ends at a synced end (a group boundary).
//! - Every segment costs every caught-up dump one socket write, and on loopback the write also
//!   runs the receiving side's TCP processing and wakes the reader (`perf`: ~18% of the
//!   server's samples in `sendto` with 32 readers, a segment every 2 ms).
//!   That cost is per write, not per byte, so the window grows with the number of
//!   subscribers: the caught-up dumps together make at most about [`SENDS_PER_SEC`] writes a
//!   second, and no dump waits more than [`MAX_COALESCE`] for a durable transaction.
//! - Segments form a contiguous ring (at most [`RING_BYTES`]).
//! - The tail thread writes the caught-up dumps' sockets itself, right after publishing
//!   ([`Follower`], implemented by `source::Attached`): a dump whose task finds nothing more to
//!   send [`Tail::attach`]es with a second handle on its connection's socket (a `dup` of the fd;
//!   TCP or the Unix socket, not TLS), its position and its packet sequence number. For each
//!   follower the thread writes every segment published since its last send as packets with one
//!   non-blocking `writev`. A packet header holds the connection's sequence id, so a framing is
//!   per id, not per dump: [`Segment::framed`] frames the segment once for the first follower's
//!   id, every follower at the same id writes those same bytes (no copy in user space), and one
//!   at another id gets a copy with only the headers' id bytes changed. (Framing every event
//!   into each dump's own buffer, and reading each event into a new `Vec` with its file's name
//!   formatted, was half of this thread's CPU with 32 readers: bench/RESULTS.md,
//!   "reader-cost".) Segments that need per-event work (a new file's fake ROTATE and
//!   FORMAT_DESCRIPTION, GTIDs the replica already has) go through the same per-event code as the
//!   file path, reading from the segment instead of the file. The connection's task meanwhile only
//!   waits (for the client, a heartbeat's time, shutdown, or the dump coming back): no task on the
//!   sessions' tokio workers is woken per segment. With 32 caught-up readers on the 2-core machine,
//!   commits kept 0.76 of their 0-reader rate (median of 14 runs) against 0.51–0.59 when each
//!   dump's task wrote (bench/RESULTS.md).
//! - The dump goes back to its task, which writes the rest with its own (waiting) write and
//!   attaches again once caught up, when the socket is full (a slow client never blocks the
//!   thread or the other dumps), when the ring no longer holds its place or the tail stops, to
//!   send a heartbeat, and on an error (ERR 1236) or a failed write. Over TLS, or with
//!   `BINLOGD_DUMP_SENDER=0`, the task sends the segments itself, woken by a `watch` channel
//!   once per segment.
//! - `BINLOGD_TAIL_NICE=N` runs the thread at that nice level, for measurements only: it did
//!   not help free-running readers and lengthened the replication delay's tail under load
//!   (bench/RESULTS.md, "the tail thread writes the caught-up dumps' sockets").
//! - A dump that is behind (or falls out of the ring) reads the files on its own thread, as
//!   before, and joins the tail once it reaches the synced end.
//!
//! The thread starts with the first subscriber and stops when none was left for [`IDLE`].

use std::collections::VecDeque;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use binlog::event::{decode_event, EventBody, EventType, FormatContext, TYPE_OFFSET};
use binlog::files::{BinlogFiles, BinlogPosition, BinlogReader, Next, NextRef};
use binlog::gtid::{Gtid, GtidSet};
use bytes::{Bytes, BytesMut};
use mysql_common::proto::codec::packet_to_chunks;
use parking_lot::Mutex;
use tokio::sync::watch;

/// How long the tail waits at least, once woken by a new synced end, for more groups before
/// it publishes: every segment costs every caught-up dump a socket write (and its reader a
/// wake-up), so this bounds the writes per reader to one per [`COALESCE`]; replication is at
/// most this much later.
pub(crate) const COALESCE: Duration = Duration::from_millis(2);
/// The socket writes per second all caught-up dumps together should not exceed. A write cost
/// the server ~20 µs all told when each dump's task made it (the task's wake-up, framing,
/// `sendto` with the loopback's receive side: 2.4 µs per transaction per reader at ~3 400 TPS
/// with up to ~450 segments/s, bench/RESULTS.md), so 4 000 writes take under a tenth of a core
/// however many readers; from the tail thread the wake-ups are gone.
const SENDS_PER_SEC: u32 = 4_000;
/// The longest the tail waits for more groups, however many dumps follow it.
const MAX_COALESCE: Duration = Duration::from_millis(10);
/// The most bytes the ring keeps; a dump further behind reads the file itself.
const RING_BYTES: usize = 16 << 20;
/// The tail thread stops after this long without subscribers.
const IDLE: Duration = Duration::from_secs(1);
/// How often the tail thread checks for shutdown and subscribers while the binlog is idle.
const POLL: Duration = Duration::from_millis(200);
/// The magic at the start of every binlog file: the first event is at 4.
const HEADER_SIZE: u64 = 4;

/// Synced events of one file, read once and shared by every caught-up dump.
#[derive(Debug)]
pub(crate) struct Segment {
    /// The file and its sequence number (the suffix of its name).
    pub file: String,
    pub seq: u64,
    /// The offset in the file of the first event.
    pub start: u64,
    // Format: per event: 0x00 (the packet's OK byte) | the event as in the file
    /// The packets' payloads: each event behind its `0x00`, so a packet is one slice.
    pub bytes: Bytes,
    /// Where each event starts in the file, relative to `start`.
    pub offsets: Vec<u32>,
    /// The GTIDs of the transactions in the segment.
    pub gtids: Vec<Gtid>,
    /// The segment framed as packets for the tail thread's followers, by the connection's
    /// sequence id at its first packet (see [`Segment::framed`]); emptied once the followers
    /// were sent the segment, so that the ring holds each segment's bytes once.
    framed: Mutex<Framings>,
}

/// A segment's packets framed for the followers: the first framing and the sequence ids it
/// started at, where its headers' sequence bytes are, and the framings made from it.
#[derive(Debug, Default)]
struct Framings {
    first: Option<(u8, Bytes, Vec<u32>)>,
    others: Vec<(u8, Bytes)>,
}

/// A segment's packets, framed for a connection.
#[derive(Debug, Clone)]
pub(crate) struct Framed {
    /// Every event of the segment as packets (4-byte header, `0x00`, the event).
    pub bytes: Bytes,
    /// The connection's sequence id after them.
    pub next_seq: u8,
}

impl Segment {
    /// The offset in the file just past the segment.
    pub fn end(&self) -> u64 {
        self.start + (self.bytes.len() - self.offsets.len()) as u64
    }

    /// Event `i`'s packet payload (`0x00` + the event) in `bytes`: every event before it
    /// has one byte more than in the file.
    pub fn packet_range(&self, i: usize) -> std::ops::Range<usize> {
        let from = self.offsets[i] as usize + i;
        let to = self.offsets.get(i + 1).map_or(self.bytes.len(), |&o| o as usize + i + 1);
        from..to
    }

    /// Event `i`: its offset in the file and its bytes.
    pub fn event(&self, i: usize) -> (u64, Bytes) {
        let range = self.packet_range(i);
        (self.start + u64::from(self.offsets[i]), self.bytes.slice(range.start + 1..range.end))
    }

    /// Event `i`'s type code.
    pub fn event_type(&self, i: usize) -> u8 {
        self.bytes.get(self.packet_range(i).start + 1 + TYPE_OFFSET).copied().unwrap_or(0)
    }

    /// The whole segment framed as packets for a connection whose next sequence id is `seq`.
    /// A packet's header holds the connection's sequence id, so the framing is per
    /// connection; but dumps at the same id (such as replicas that started together) share
    /// one, which the tail thread writes to all of their sockets without copying it, and a
    /// dump at another id gets a copy with only the headers' sequence bytes changed (one
    /// `memcpy` instead of framing every event again). Built on first use by the tail
    /// thread; [`Segment::forget_framings`] drops them.
    pub fn framed(&self, seq: u8) -> Framed {
        let mut guard = self.framed.lock();
        let f = &mut *guard;
        let (first_seq, first, seq_at) = f.first.get_or_insert_with(|| {
            let mut buf = BytesMut::with_capacity(self.bytes.len() + 4 * self.offsets.len());
            let mut next = seq;
            for i in 0..self.offsets.len() {
                let mut payload = &self.bytes[self.packet_range(i)];
                next = packet_to_chunks(next, &mut payload, &mut buf);
            }
            let seq_at = header_seq_offsets(&buf);
            (seq, buf.freeze(), seq_at)
        });
        // Each packet advances the id (an event of 16 MiB or more takes more than one).
        let next_seq = seq.wrapping_add(seq_at.len() as u8);
        if *first_seq == seq {
            return Framed { bytes: first.clone(), next_seq };
        }
        if let Some((_, bytes)) = f.others.iter().find(|(s, _)| *s == seq) {
            return Framed { bytes: bytes.clone(), next_seq };
        }
        let mut copy = BytesMut::from(&first[..]);
        let shift = seq.wrapping_sub(*first_seq);
        for &at in seq_at.iter() {
            copy[at as usize] = copy[at as usize].wrapping_add(shift);
        }
        let bytes = copy.freeze();
        f.others.push((seq, bytes.clone()));
        Framed { bytes, next_seq }
    }

    /// Drops the framings made by [`Segment::framed`].
    pub fn forget_framings(&self) {
        *self.framed.lock() = Framings::default();
    }

    /// Whether a transaction of the segment is one `exclude` has.
    pub fn has_any_of(&self, exclude: &GtidSet) -> bool {
        self.gtids.iter().any(|g| exclude.contains(g))
    }
}

/// Where a dump at a position stands against the ring.
pub(crate) enum Located {
    /// The segment holding the next event, and that event's index in it.
    Found(Arc<Segment>, usize),
    /// The tail has not read that far yet: wait for the next segment.
    NotYet,
    /// The position is older than the ring (or the tail failed): read the file.
    Gone,
    /// The binlog closed (server shutdown): a blocking dump ends.
    Ended,
}

#[derive(Debug, Default)]
struct State {
    ring: VecDeque<Arc<Segment>>,
    ring_bytes: usize,
    /// Connection tasks following the tail.
    subscribers: usize,
    running: bool,
    /// The writer closed: nothing more will come.
    ended: bool,
    /// Reading failed (the dumps' own readers will report why).
    failed: bool,
}

/// A caught-up dump whose socket the tail thread writes itself (see the module doc).
pub(crate) trait Follower: Send + Sync {
    /// Sends what was published since the follower's last send, on the tail thread right
    /// after a publish (or the thread's stop). `false`: the follower went back to its task
    /// (or was taken back) and leaves the list.
    fn send(&self, tail: &Tail, now: Instant) -> bool;
    /// Whether the follower is (still or again) attached.
    fn attached(&self) -> bool;
}

/// The shared tail (see the module doc).
pub(crate) struct Tail {
    files: BinlogFiles,
    stopping: Arc<AtomicBool>,
    state: Mutex<State>,
    /// Dumps the tail thread sends to (taken after `state` when both are held).
    followers: Mutex<Vec<Arc<dyn Follower>>>,
    /// Bumped after every published segment and state change.
    version: watch::Sender<u64>,
}

/// A subscription: keeps the tail thread running while it lives.
pub(crate) struct Subscription {
    tail: Arc<Tail>,
    pub changed: watch::Receiver<u64>,
}

impl Drop for Subscription {
    fn drop(&mut self) {
        self.tail.state.lock().subscribers -= 1;
    }
}

impl Tail {
    pub fn new(files: BinlogFiles, stopping: Arc<AtomicBool>) -> Arc<Tail> {
        Arc::new(Tail {
            files,
            stopping,
            state: Mutex::new(State::default()),
            followers: Mutex::new(Vec::new()),
            version: watch::channel(0).0,
        })
    }

    /// Subscribes a dump task, starting the tail thread at the current synced end if it is
    /// not running.
    pub fn subscribe(self: &Arc<Tail>) -> Subscription {
        let changed = self.version.subscribe();
        let mut st = self.state.lock();
        st.subscribers += 1;
        if !st.running && !st.ended && !st.failed {
            match self.start() {
                Ok(()) => st.running = true,
                Err(e) => {
                    log::warn!("binlog tail not started: {e}");
                    st.failed = true;
                }
            }
        }
        drop(st);
        Subscription { tail: self.clone(), changed }
    }

    fn start(self: &Arc<Tail>) -> Result<(), String> {
        let end = self.files.synced_end();
        let ctx = file_context(&self.files, &end.file)?;
        let reader = self.files.reader_at(&end.file, end.pos).map_err(|e| e.to_string())?;
        let tail = self.clone();
        let nice = std::env::var("BINLOGD_TAIL_NICE").ok().and_then(|v| v.trim().parse().ok());
        // A fixed coalescing window instead of [`coalesce_window`]'s (measurements only).
        let window = std::env::var("BINLOGD_TAIL_WINDOW_MS")
            .ok()
            .and_then(|v| v.trim().parse().ok())
            .map(Duration::from_millis);
        std::thread::Builder::new()
            .name("binlog-tail".to_string())
            .spawn(move || {
                if let Some(nice) = nice {
                    // Linux: a thread id names that thread alone.
                    let tid = rustix::thread::gettid();
                    if let Err(e) = rustix::process::setpriority_process(Some(tid), nice) {
                        log::warn!("binlog tail: nice {nice} not set: {e}");
                    }
                }
                tail.run(reader, ctx, window)
            })
            .map(|_| ())
            .map_err(|e| e.to_string())
    }

    /// Whether dumps should join the tail (it has not failed and the binlog is open).
    pub fn usable(&self) -> bool {
        let st = self.state.lock();
        !st.failed && !st.ended
    }

    /// Finds the segment holding the event at `pos` (an event boundary a dump reached).
    pub fn locate(&self, pos: &BinlogPosition) -> Located {
        locate_in(&self.state.lock(), pos)
    }

    /// Hands a dump caught up at `pos` to the tail thread, which then sends it every segment
    /// right after publishing it. Refused (`false`) unless the tail is running and has
    /// published nothing past `pos`: checked under the lock `publish` takes, so no segment
    /// can fall between the dump's last send and its first from the thread.
    pub fn attach(&self, pos: &BinlogPosition, follower: Arc<dyn Follower>) -> bool {
        let st = self.state.lock();
        if !st.running || !matches!(locate_in(&st, pos), Located::NotYet) {
            return false;
        }
        let mut followers = self.followers.lock();
        // Taken back and attached again before the thread dropped it from the list.
        if !followers.iter().any(|f| Arc::ptr_eq(f, &follower)) {
            followers.push(follower);
        }
        true
    }

    /// Lets every follower send what was just published; drops those that went back.
    fn send_followers(&self) {
        let list = self.followers.lock().clone();
        if list.is_empty() {
            return;
        }
        let now = Instant::now();
        if list.iter().map(|f| f.send(self, now)).fold(true, |all, kept| all & kept) {
            return;
        }
        // Under the list's lock: a follower attached again in the meantime stays.
        self.followers.lock().retain(|f| f.attached());
    }

    /// Adds a segment to the ring, wakes the dumps' tasks that follow the tail themselves and
    /// sends to the attached ones.
    fn publish(&self, segment: Segment) {
        let segment = Arc::new(segment);
        let mut st = self.state.lock();
        st.ring_bytes += segment.bytes.len();
        st.ring.push_back(segment.clone());
        while st.ring_bytes > RING_BYTES && st.ring.len() > 1 {
            let old = st.ring.pop_front().expect("more than one segment");
            st.ring_bytes -= old.bytes.len();
        }
        drop(st);
        self.version.send_modify(|v| *v += 1);
        self.send_followers();
        // The followers have it now (or went back to their tasks, which frame it
        // themselves): the ring keeps only its bytes. A follower attaches only when caught
        // up with the ring (`attach`), so a publish's sends frame only this segment.
        segment.forget_framings();
    }

    /// Marks the thread stopped (`ended`: the writer closed; `failed`: a read failed).
    fn stop(&self, ended: bool, failed: bool) {
        stopped(&mut self.state.lock(), ended, failed);
        self.version.send_modify(|v| *v += 1);
        // The followers find the ring gone (or ended) and go back to their tasks.
        self.send_followers();
    }

    fn run(
        self: Arc<Tail>,
        mut reader: BinlogReader,
        mut ctx: FormatContext,
        window: Option<Duration>,
    ) {
        let mut building: Option<Builder> = None;
        // The current file's name, by sequence number (the reader reports events by number).
        let mut file = (u64::MAX, String::new());
        let mut idle_since: Option<Instant> = None;
        let mut wait = false;
        loop {
            // Borrowed from the reader's buffer: no allocation per event.
            let next = reader.next_ref(Some(if wait { POLL } else { Duration::ZERO }));
            match next {
                Ok(NextRef::Event { seq, pos, bytes }) => {
                    if building.as_ref().is_some_and(|b| b.seq != seq) {
                        self.publish(building.take().expect("checked").finish());
                    }
                    if file.0 != seq {
                        file = (seq, self.files.file_name(seq));
                    }
                    let b = building.get_or_insert_with(|| Builder::new(&file.1, seq, pos));
                    let event_type = bytes.get(TYPE_OFFSET).copied().unwrap_or(0);
                    if event_type == EventType::FORMAT_DESCRIPTION.0 {
                        match fde_context(bytes) {
                            Ok(c) => ctx = c,
                            Err(e) => {
                                log::warn!("binlog tail stopped: {e}");
                                return self.stop(false, true);
                            }
                        }
                    } else if event_type == EventType::GTID.0 {
                        match decode_event(bytes, &ctx, pos).map(|e| e.body) {
                            Ok(EventBody::Gtid(g)) => b.gtids.push(g.gtid()),
                            Ok(_) => {}
                            Err(e) => {
                                log::warn!("binlog tail stopped: {e}");
                                return self.stop(false, true);
                            }
                        }
                    }
                    b.push(bytes);
                    if wait {
                        // Woken by a new synced end: let more groups come (see the module doc).
                        std::thread::sleep(
                            window
                                .unwrap_or_else(|| coalesce_window(self.state.lock().subscribers)),
                        );
                        wait = false;
                    }
                }
                Ok(NextRef::TimedOut) => {
                    if let Some(b) = building.take() {
                        self.publish(b.finish());
                    }
                    if self.stopping.load(Ordering::Acquire) {
                        return self.stop(true, false);
                    }
                    let subscribers = self.state.lock().subscribers;
                    if subscribers == 0 {
                        let since = *idle_since.get_or_insert_with(Instant::now);
                        if since.elapsed() >= IDLE {
                            // Under the lock: a subscriber arriving now sees `running` false
                            // and starts a new thread.
                            let mut st = self.state.lock();
                            if st.subscribers == 0 {
                                stopped(&mut st, false, false);
                                drop(st);
                                self.version.send_modify(|v| *v += 1);
                                return;
                            }
                        }
                    } else {
                        idle_since = None;
                    }
                    wait = true;
                }
                Ok(NextRef::Ended) => {
                    if let Some(b) = building.take() {
                        self.publish(b.finish());
                    }
                    return self.stop(true, false);
                }
                Err(e) => {
                    log::warn!("binlog tail stopped: {e}");
                    return self.stop(false, true);
                }
            }
        }
    }
}

/// [`Tail::locate`] under the lock.
fn locate_in(st: &State, pos: &BinlogPosition) -> Located {
    let seq = file_seq(&pos.file);
    let key = (seq, pos.pos);
    // The oldest segment ending past `pos`; caught-up dumps want one of the newest.
    let mut found = None;
    for (i, s) in st.ring.iter().enumerate().rev() {
        if (s.seq, s.end()) > key {
            found = Some(i);
        } else {
            break;
        }
    }
    let Some(i) = found else {
        return if st.failed || (!st.running && !st.ended) {
            Located::Gone
        } else if st.ended && !st.running {
            Located::Ended
        } else {
            Located::NotYet
        };
    };
    let s = &st.ring[i];
    if s.seq == seq && s.start <= pos.pos {
        return match s.offsets.binary_search(&((pos.pos - s.start) as u32)) {
            Ok(idx) => Located::Found(s.clone(), idx),
            Err(_) => Located::Gone,
        };
    }
    // The first segment of the next file, right after the end of `pos`'s file.
    let follows = i > 0 && {
        let prev = &st.ring[i - 1];
        prev.seq == seq && prev.end() == pos.pos
    };
    if s.seq > seq && s.start == HEADER_SIZE && follows {
        return Located::Found(s.clone(), 0);
    }
    Located::Gone
}

fn stopped(st: &mut State, ended: bool, failed: bool) {
    st.running = false;
    st.ended |= ended;
    st.failed |= failed;
    // A later thread starts at a later synced end: the ring must stay contiguous.
    st.ring.clear();
    st.ring_bytes = 0;
}

/// A segment being read.
struct Builder {
    file: String,
    seq: u64,
    start: u64,
    bytes: BytesMut,
    offsets: Vec<u32>,
    gtids: Vec<Gtid>,
}

impl Builder {
    fn new(file: &str, seq: u64, start: u64) -> Builder {
        Builder {
            file: file.to_string(),
            seq,
            start,
            bytes: BytesMut::with_capacity(64 * 1024),
            offsets: Vec::new(),
            gtids: Vec::new(),
        }
    }

    fn push(&mut self, event: &[u8]) {
        self.offsets.push((self.bytes.len() - self.offsets.len()) as u32);
        self.bytes.reserve(event.len() + 1);
        self.bytes.extend_from_slice(&[0x00]);
        self.bytes.extend_from_slice(event);
    }

    fn finish(self) -> Segment {
        Segment {
            seq: self.seq,
            file: self.file,
            start: self.start,
            bytes: self.bytes.freeze(),
            offsets: self.offsets,
            gtids: self.gtids,
            framed: Mutex::new(Framings::default()),
        }
    }
}

/// Where the sequence byte of each packet header is in `framed` (whole packets).
fn header_seq_offsets(framed: &[u8]) -> Vec<u32> {
    let mut at = 0;
    let mut offsets = Vec::new();
    while at + 4 <= framed.len() {
        offsets.push((at + 3) as u32);
        let len = usize::from(framed[at])
            | usize::from(framed[at + 1]) << 8
            | usize::from(framed[at + 2]) << 16;
        at += 4 + len;
    }
    offsets
}

/// How long the tail lets groups gather before publishing, with `subscribers` dumps on it:
/// [`COALESCE`] for a few, longer for many, so that they make about [`SENDS_PER_SEC`] socket
/// writes a second together, at most [`MAX_COALESCE`].
pub(crate) fn coalesce_window(subscribers: usize) -> Duration {
    let subscribers = u32::try_from(subscribers).unwrap_or(u32::MAX);
    (Duration::from_secs(1) / SENDS_PER_SEC)
        .saturating_mul(subscribers)
        .clamp(COALESCE, MAX_COALESCE)
}

/// The sequence number in a binlog file name (`binlog.000012` → 12).
pub(crate) fn file_seq(name: &str) -> u64 {
    name.rsplit('.').next().and_then(|s| s.parse().ok()).unwrap_or(0)
}

/// How the events after a FORMAT_DESCRIPTION are framed.
fn fde_context(bytes: &[u8]) -> Result<FormatContext, String> {
    let event =
        decode_event(bytes, &FormatContext::default(), HEADER_SIZE).map_err(|e| e.to_string())?;
    match event.body {
        EventBody::FormatDescription(f) => {
            FormatContext::from_fde(&f, HEADER_SIZE).map_err(|e| e.to_string())
        }
        _ => Err("not a FORMAT_DESCRIPTION".to_string()),
    }
}

/// The framing of a file's events, from its FORMAT_DESCRIPTION.
fn file_context(files: &BinlogFiles, name: &str) -> Result<FormatContext, String> {
    let mut reader = files.reader_at(name, HEADER_SIZE).map_err(|e| e.to_string())?;
    match reader.next(Some(Duration::ZERO)) {
        Ok(Next::Event(ev)) => fde_context(&ev.bytes),
        Ok(_) => Err(format!("no FORMAT_DESCRIPTION in {name}")),
        Err(e) => Err(e.to_string()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn segments_keep_file_offsets_and_packet_payloads_apart() {
        let mut b = Builder::new("binlog.000003", 3, 120);
        let events: [&[u8]; 3] = [&[1; 30], &[2; 19], &[3; 45]];
        for e in events {
            b.push(e);
        }
        let s = b.finish();
        assert_eq!((s.seq, s.start, s.end()), (3, 120, 120 + 30 + 19 + 45));
        assert_eq!(s.offsets, [0, 30, 49]);
        for (i, e) in events.iter().enumerate() {
            let packet = &s.bytes[s.packet_range(i)];
            assert_eq!((packet[0], &packet[1..]), (0x00, *e));
            let (pos, bytes) = s.event(i);
            assert_eq!((pos, &bytes[..]), (120 + u64::from(s.offsets[i]), *e));
        }
        assert_eq!(s.event_type(1), 2);
    }

    /// Frames `s`'s events one by one from `seq`, as a connection's own buffer would.
    fn framed_one_by_one(s: &Segment, seq: u8) -> (Vec<u8>, u8) {
        let mut buf = BytesMut::new();
        let mut next = seq;
        for i in 0..s.offsets.len() {
            let mut payload = &s.bytes[s.packet_range(i)];
            next = packet_to_chunks(next, &mut payload, &mut buf);
        }
        (buf.to_vec(), next)
    }

    #[test]
    fn framings_at_other_sequence_ids_change_only_the_ids_and_are_shared() {
        let mut b = Builder::new("binlog.000001", 1, 4);
        for i in 0..300u32 {
            b.push(&vec![i as u8; 19 + (i as usize % 50)]);
        }
        let s = b.finish();
        // The first framing is made at 250; the others (across the wrap at 255) from it.
        for seq in [250u8, 3, 250, 0, 255, 3] {
            let f = s.framed(seq);
            let (want, next) = framed_one_by_one(&s, seq);
            assert!(f.bytes[..] == want[..], "framing at {seq}");
            assert_eq!(f.next_seq, next);
            assert_eq!(f.next_seq, seq.wrapping_add(300u32 as u8));
        }
        // Dumps at the same id share the bytes.
        assert_eq!(s.framed(3).bytes.as_ptr(), s.framed(3).bytes.as_ptr());
        assert_eq!(s.framed(250).bytes.as_ptr(), s.framed(250).bytes.as_ptr());
        s.forget_framings();
        assert!(s.framed.lock().first.is_none() && s.framed.lock().others.is_empty());
        assert!(s.framed(7).bytes[..] == framed_one_by_one(&s, 7).0[..]);
    }

    #[test]
    fn an_event_of_16_mib_takes_several_packets_in_every_framing() {
        // `0x00` + the event is exactly 2^24 - 1 bytes: a full packet and an empty one.
        let mut b = Builder::new("binlog.000001", 1, 4);
        b.push(&[7; 40]);
        b.push(&vec![9; 0xFF_FFFE]);
        b.push(&[8; 30]);
        let s = b.finish();
        for seq in [1u8, 200] {
            let f = s.framed(seq);
            let (want, next) = framed_one_by_one(&s, seq);
            assert!(f.bytes[..] == want[..], "framing at {seq}");
            assert_eq!((f.next_seq, next), (seq.wrapping_add(4), seq.wrapping_add(4)));
        }
        assert_eq!(header_seq_offsets(&s.framed(1).bytes).len(), 4);
    }

    #[test]
    fn the_window_grows_with_subscribers_within_its_bounds() {
        assert_eq!(coalesce_window(0), COALESCE);
        assert_eq!(coalesce_window(8), COALESCE);
        assert_eq!(coalesce_window(16), Duration::from_millis(4));
        assert_eq!(coalesce_window(32), Duration::from_millis(8));
        assert_eq!(coalesce_window(1_000), MAX_COALESCE);
        assert_eq!(coalesce_window(usize::MAX), MAX_COALESCE);
    }
}
