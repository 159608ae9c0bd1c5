//! The connection registry behind `SHOW [FULL] PROCESSLIST`, `information_schema.PROCESSLIST`,
//! COM_PROCESS_INFO and `KILL [CONNECTION | QUERY] id` / COM_PROCESS_KILL.
//!
//! Every authenticated connection has one [`Process`]: its id (the handshake's connection id,
//! which `CONNECTION_ID()` returns), user, `ip:port`, default database, the command it runs
//! and since when, the statement text, and a kill flag. Cost on the hot path: the connection's
//! own task updates its entry with relaxed atomic stores and one uncontended per-connection
//! mutex (the statement text) per command; nothing global is touched per statement. The map
//! from id to entry ([`ProcessList`]) is sharded and only locked at connect, at disconnect, and
//! by the readers (SHOW PROCESSLIST, KILL).
//!
//! Killing follows mysqld (`sql/sql_parse.cc` `kill_one_thread`, `sql/sql_class.cc`
//! `THD::awake` / `THD::send_kill_message`): the killer sets the target's flag and wakes it.
//! - `KILL QUERY`: the running statement ends with 1317 ER_QUERY_INTERRUPTED where it waits
//!   (a row-lock wait on the connection's task, a binlog dump); the flag is cleared when the
//!   next command starts, so killing an idle connection's query does nothing (as mysqld's
//!   `do_command`, which resets `KILL_QUERY` before each command).
//! - `KILL CONNECTION`: an idle connection is closed at once, without a packet (the client
//!   sees "Lost connection" on its next command); a statement waiting where it can be woken
//!   ends with 1317 (mysqld 8 turns `KILL_CONNECTION` into `KILL_QUERY` for the message) and
//!   the connection is closed after that answer. The session's open transaction rolls back
//!   when the session is dropped.
//! - A statement in the engine's blocking waits (a row lock past the first async wait or
//!   inside a transaction, a table's DDL) polls the kill flag every 50 ms
//!   (`engine::interruptible`) and ends with 1317. Work that is not a wait (a running DDL, a
//!   group commit's fsyncs) is not interrupted: the kill takes effect when the statement ends.

use std::collections::HashMap;
use std::sync::atomic::{AtomicU64, AtomicU8, Ordering};
use std::sync::Arc;
use std::time::Instant;

use futures_util::task::AtomicWaker;
use parking_lot::Mutex;

/// Kill levels, in increasing strength.
pub const NOT_KILLED: u8 = 0;
/// `KILL QUERY`.
pub const KILL_QUERY: u8 = 1;
/// `KILL [CONNECTION]`.
pub const KILL_CONNECTION: u8 = 2;

/// COM_SLEEP: the command byte an idle connection shows.
pub const COM_SLEEP: u8 = 0x00;

/// mysqld's `command_name[]` (`sql/sql_parse.cc`), indexed by the command byte: the Command
/// column of SHOW PROCESSLIST.
const COMMAND_NAMES: [&str; 32] = [
    "Sleep",
    "Quit",
    "Init DB",
    "Query",
    "Field List",
    "Create DB",
    "Drop DB",
    "Refresh",
    "Shutdown",
    "Statistics",
    "Processlist",
    "Connect",
    "Kill",
    "Debug",
    "Ping",
    "Time",
    "Delayed insert",
    "Change user",
    "Binlog Dump",
    "Table Dump",
    "Connect Out",
    "Register Replica",
    "Prepare",
    "Execute",
    "Long Data",
    "Close stmt",
    "Reset stmt",
    "Set option",
    "Fetch",
    "Daemon",
    "Binlog Dump GTID",
    "Reset Connection",
];

/// Number of shards of the id map (a power of two).
const SHARDS: usize = 16;

/// All registered connections.
#[derive(Debug)]
pub struct ProcessList {
    shards: [Mutex<HashMap<u32, Arc<Process>>>; SHARDS],
}

impl Default for ProcessList {
    fn default() -> Self {
        Self { shards: std::array::from_fn(|_| Mutex::default()) }
    }
}

impl ProcessList {
    fn shard(&self, id: u32) -> &Mutex<HashMap<u32, Arc<Process>>> {
        &self.shards[id as usize % SHARDS]
    }

    /// Registers connection `id`; it is listed until the returned guard is dropped.
    pub fn register(
        self: &Arc<Self>,
        id: u32,
        user: &str,
        host: String,
        db: Option<String>,
    ) -> Registration {
        let process = Arc::new(Process {
            id,
            user: Mutex::new(user.to_string()),
            host,
            since_ms: AtomicU64::new(coarse_now_ms()),
            command: AtomicU8::new(COM_SLEEP),
            killed: AtomicU8::new(NOT_KILLED),
            db: Mutex::new(db),
            info: Mutex::new(Info::default()),
            wake: AtomicWaker::new(),
        });
        self.shard(id).lock().insert(id, process.clone());
        Registration { list: self.clone(), process }
    }

    /// The connection with id `id`, if it is registered.
    pub fn get(&self, id: u32) -> Option<Arc<Process>> {
        self.shard(id).lock().get(&id).cloned()
    }

    /// Every registered connection, by id.
    pub fn snapshot(&self) -> Vec<Arc<Process>> {
        let mut all: Vec<Arc<Process>> = self
            .shards
            .iter()
            .flat_map(|s| s.lock().values().cloned().collect::<Vec<_>>())
            .collect();
        all.sort_by_key(|p| p.id);
        all
    }
}

/// How often the coarse clock ticks: SHOW PROCESSLIST's Time is in seconds.
const TICK: std::time::Duration = std::time::Duration::from_millis(100);
/// Milliseconds since [`EPOCH`], as of the last tick.
static COARSE_MS: AtomicU64 = AtomicU64::new(0);
static EPOCH: std::sync::OnceLock<Instant> = std::sync::OnceLock::new();

/// A clock good to [`TICK`], read with one atomic load: commands stamp their start with it.
/// (`Instant::now()` twice per command cost ~270 ns on the test VM, whose clock source makes
/// `clock_gettime` a system call.) A thread started with the first call ticks it.
fn coarse_now_ms() -> u64 {
    EPOCH.get_or_init(|| {
        let epoch = Instant::now();
        let ticker =
            std::thread::Builder::new().name("processlist-clock".into()).spawn(move || loop {
                std::thread::sleep(TICK);
                let ms = u64::try_from(epoch.elapsed().as_millis()).unwrap_or(u64::MAX);
                COARSE_MS.store(ms, Ordering::Relaxed);
            });
        if let Err(e) = ticker {
            log::warn!("processlist clock thread: {e}; Time stays 0");
        }
        epoch
    });
    COARSE_MS.load(Ordering::Relaxed)
}

/// The statement text of the running command; its buffer is kept between commands (no
/// allocation per statement once it is as long as the connection's statements).
#[derive(Debug, Default)]
struct Info {
    set: bool,
    text: String,
}

/// Longest statement text buffer a connection keeps while idle.
const INFO_KEEP: usize = 64 * 1024;

/// Keeps a connection listed; dropping it removes the entry.
#[derive(Debug)]
pub struct Registration {
    list: Arc<ProcessList>,
    process: Arc<Process>,
}

impl Registration {
    /// The registered entry.
    pub fn process(&self) -> &Arc<Process> {
        &self.process
    }
}

impl Drop for Registration {
    fn drop(&mut self) {
        self.list.shard(self.process.id).lock().remove(&self.process.id);
    }
}

/// One connection's entry.
#[derive(Debug)]
pub struct Process {
    id: u32,
    /// Changed by COM_CHANGE_USER.
    user: Mutex<String>,
    /// `ip:port` of a TCP client, `localhost` over the Unix socket, as mysqld lists them.
    host: String,
    /// When the current command (or the idle period) started, ms after `epoch`.
    since_ms: AtomicU64,
    command: AtomicU8,
    killed: AtomicU8,
    db: Mutex<Option<String>>,
    info: Mutex<Info>,
    /// The connection's task while it awaits something a kill ends (only that task waits,
    /// one thing at a time: the socket read, a row lock, a dump), so one waker slot does.
    wake: AtomicWaker,
}

/// What SHOW PROCESSLIST prints of one connection.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ProcessRow {
    /// Connection id.
    pub id: u32,
    /// User name.
    pub user: String,
    /// `ip:port`, or `localhost` over the Unix socket.
    pub host: String,
    /// Default database.
    pub db: Option<String>,
    /// mysqld's command name (`Sleep`, `Query`, `Binlog Dump`, ..., `Killed`).
    pub command: &'static str,
    /// Seconds in the current command (or idle).
    pub time: u64,
    /// `executing` while a command runs, empty while idle.
    pub state: &'static str,
    /// The statement text, while one runs.
    pub info: Option<String>,
}

impl Process {
    /// The connection id.
    pub fn id(&self) -> u32 {
        self.id
    }

    /// The user name the connection logged in with (or changed to with COM_CHANGE_USER).
    pub fn user(&self) -> String {
        self.user.lock().clone()
    }

    /// COM_CHANGE_USER authenticated the connection as `user`.
    pub fn set_user(&self, user: &str) {
        *self.user.lock() = user.to_string();
    }

    /// A command starts (`info`: its statement text, if it has one, stored with its passwords
    /// replaced by `<secret>`: [`crate::rewrite::hide_passwords`]). Clears a `KILL QUERY` that
    /// arrived while the connection was idle.
    pub fn begin_command(&self, command: u8, info: Option<&str>) {
        let _ = self.killed.compare_exchange(
            KILL_QUERY,
            NOT_KILLED,
            Ordering::AcqRel,
            Ordering::Relaxed,
        );
        self.since_ms.store(coarse_now_ms(), Ordering::Relaxed);
        self.command.store(command, Ordering::Relaxed);
        if let Some(text) = info {
            let mut info = self.info.lock();
            info.text.clear();
            info.text.push_str(&crate::rewrite::hide_passwords(text));
            info.set = true;
        }
    }

    /// The command ended: the connection is idle.
    pub fn end_command(&self) {
        self.since_ms.store(coarse_now_ms(), Ordering::Relaxed);
        self.command.store(COM_SLEEP, Ordering::Relaxed);
        let mut info = self.info.lock();
        if info.set {
            info.set = false;
            if info.text.capacity() > INFO_KEEP {
                info.text = String::new();
            }
        }
    }

    /// The session's default database changed.
    pub fn set_db(&self, db: Option<&str>) {
        let mut current = self.db.lock();
        if current.as_deref() != db {
            *current = db.map(str::to_string);
        }
    }

    /// The kill level set on this connection ([`NOT_KILLED`], [`KILL_QUERY`],
    /// [`KILL_CONNECTION`]).
    pub fn killed(&self) -> u8 {
        self.killed.load(Ordering::Acquire)
    }

    /// Sets the kill flag (never lowering it) and wakes whatever the connection awaits.
    pub fn kill(&self, level: u8) {
        self.killed.fetch_max(level, Ordering::AcqRel);
        self.wake.wake();
    }

    /// Resolves once the kill flag is at least `level`. Only the connection's own task may
    /// await it (see `wake`).
    pub fn wait_killed(&self, level: u8) -> impl std::future::Future<Output = ()> + '_ {
        std::future::poll_fn(move |cx| {
            if self.killed() >= level {
                return std::task::Poll::Ready(());
            }
            // Registered before the flag is read again, so a kill between the two wakes it.
            self.wake.register(cx.waker());
            if self.killed() >= level {
                std::task::Poll::Ready(())
            } else {
                std::task::Poll::Pending
            }
        })
    }

    /// The row SHOW PROCESSLIST prints.
    pub fn row(&self) -> ProcessRow {
        let command = self.command.load(Ordering::Relaxed);
        let since = self.since_ms.load(Ordering::Relaxed);
        let killed = self.killed() == KILL_CONNECTION;
        ProcessRow {
            id: self.id,
            user: self.user.lock().clone(),
            host: self.host.clone(),
            db: self.db.lock().clone(),
            command: if killed {
                "Killed"
            } else {
                COMMAND_NAMES.get(usize::from(command)).copied().unwrap_or("Error")
            },
            time: coarse_now_ms().saturating_sub(since) / 1000,
            state: if command == COM_SLEEP { "" } else { "executing" },
            info: {
                let info = self.info.lock();
                info.set.then(|| info.text.clone())
            },
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn registration_lists_and_unlists() {
        let list = Arc::new(ProcessList::default());
        let a = list.register(7, "app", "127.0.0.1:5000".into(), Some("db".into()));
        let b = list.register(23, "root", "127.0.0.1:5001".into(), None);
        assert_eq!(list.snapshot().iter().map(|p| p.id()).collect::<Vec<_>>(), [7, 23]);
        a.process().begin_command(3, Some("SELECT 1"));
        let row = list.get(7).expect("registered").row();
        assert_eq!(
            (row.command, row.state, row.info.as_deref()),
            ("Query", "executing", Some("SELECT 1"))
        );
        a.process().end_command();
        let row = a.process().row();
        assert_eq!((row.command, row.state, row.info), ("Sleep", "", None));
        drop(b);
        assert!(list.get(23).is_none());
        assert_eq!(list.snapshot().len(), 1);
    }

    #[test]
    fn statement_text_is_stored_without_passwords() {
        let list = Arc::new(ProcessList::default());
        let a = list.register(8, "app", "127.0.0.1:5000".into(), None);
        a.process().begin_command(3, Some("SET PASSWORD = 'clear-text-pw'"));
        let row = a.process().row();
        assert_eq!(row.info.as_deref(), Some("SET PASSWORD = <secret>"));
        a.process().begin_command(3, Some("CREATE USER u IDENTIFIED BY 'pw2'"));
        assert_eq!(a.process().row().info.as_deref(), Some("CREATE USER u IDENTIFIED BY <secret>"));
    }

    #[test]
    fn kill_query_is_cleared_by_the_next_command_but_kill_connection_is_not() {
        let list = Arc::new(ProcessList::default());
        let r = list.register(1, "u", "h:1".into(), None);
        let p = r.process();
        p.kill(KILL_QUERY);
        p.begin_command(3, None);
        assert_eq!(p.killed(), NOT_KILLED);
        p.kill(KILL_CONNECTION);
        p.kill(KILL_QUERY);
        p.begin_command(3, None);
        assert_eq!(p.killed(), KILL_CONNECTION);
        assert_eq!(p.row().command, "Killed");
    }

    /// What the registry adds to every command on the connection's task: the command's start
    /// (statement text copied into the entry's kept buffer), the kill future polled once beside the
    /// socket read and dropped, the command's end. Run by hand (timing on a shared machine):
    /// `cargo test --release -p binlogd --lib per_command_cost -- --ignored --nocapture`.
    #[test]
    #[ignore = "timing; run by hand"]
    fn per_command_cost() {
        use std::future::Future;
        let list = Arc::new(ProcessList::default());
        let r = list.register(1, "u", "h:1".into(), None);
        let p = r.process();
        let sql = "SELECT c FROM sbtest1 WHERE id=?";
        coarse_now_ms();
        let mut cx = std::task::Context::from_waker(std::task::Waker::noop());
        let rounds = 2_000_000u32;
        let start = Instant::now();
        for _ in 0..rounds {
            {
                let kill = p.wait_killed(KILL_CONNECTION);
                let mut kill = std::pin::pin!(kill);
                assert!(kill.as_mut().poll(&mut cx).is_pending());
            }
            p.begin_command(3, Some(std::hint::black_box(sql)));
            p.end_command();
        }
        let ns = start.elapsed().as_nanos() / u128::from(rounds);
        println!("registry cost per command: {ns} ns");
        assert!(ns < 2_000, "{ns} ns per command");
    }

    #[test]
    fn a_kill_wakes_a_waiter() {
        let rt = tokio::runtime::Builder::new_current_thread().enable_all().build().expect("rt");
        let list = Arc::new(ProcessList::default());
        let r = list.register(1, "u", "h:1".into(), None);
        let p = r.process().clone();
        rt.block_on(async {
            let waiter = tokio::spawn({
                let p = p.clone();
                async move { p.wait_killed(KILL_CONNECTION).await }
            });
            tokio::task::yield_now().await;
            p.kill(KILL_QUERY);
            tokio::task::yield_now().await;
            assert!(!waiter.is_finished());
            p.kill(KILL_CONNECTION);
            tokio::time::timeout(std::time::Duration::from_secs(5), waiter)
                .await
                .expect("woken")
                .expect("joined");
        });
    }
}
