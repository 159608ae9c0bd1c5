//! The error log: a [`log`] logger writing mysqld-style lines to stderr or the `--log-error`
//! file.
//!
//! ```text
//! 2024-05-01T12:34:56.123456Z [Note] [binlogd::serve] ready for connections, port: 3306
//! ```
//!
//! Levels map to mysqld's labels: error → `[ERROR]`, warn → `[Warning]`, info → `[Note]`,
//! debug/trace → `[Debug]`. `log_error_verbosity` chooses how much is written, as in mysqld
//! (1 errors, 2 also warnings, 3 also notes). Libraries other than binlogd's own crates are held
//! to warnings and errors, so a TLS library's chatter never floods the log.
//!
//! Each line is written with one `write_all` under a mutex and the file is opened in append
//! mode, so lines from many threads never interleave and a log shared with an earlier run is
//! extended, not overwritten. Timestamps are UTC with microseconds (mysqld's `log_timestamps`
//! default).

use std::fs::OpenOptions;
use std::io::Write;
use std::os::unix::fs::OpenOptionsExt;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::OnceLock;
use std::time::{SystemTime, UNIX_EPOCH};

use log::{Level, LevelFilter, Log, Metadata, Record};
use parking_lot::Mutex;

/// The logger could not be installed.
#[derive(Debug, thiserror::Error)]
pub enum LogError {
    /// The `--log-error` file could not be opened.
    #[error("cannot open error log {}", path.display())]
    Open {
        /// The file.
        path: PathBuf,
        /// Why.
        #[source]
        source: std::io::Error,
    },
    /// Another logger was installed first.
    #[error("a logger is already installed")]
    AlreadySet,
}

/// binlogd's crates, whose notes are logged; other crates log only warnings and errors.
const OWN_CRATES: [&str; 10] = [
    "binlogd",
    "tools",
    "replication",
    "sql",
    "accounts",
    "protocol",
    "commit",
    "engine",
    "binlog",
    "vfs",
];

/// A logger for the `log` crate.
pub struct Logger {
    out: Mutex<Box<dyn Write + Send>>,
    /// The `LevelFilter` of `log_error_verbosity`, as its `usize`; `SET GLOBAL` changes it.
    level: AtomicUsize,
}

/// The installed logger, for `SET GLOBAL log_error_verbosity` ([`set_verbosity`]).
static INSTALLED: OnceLock<&'static Logger> = OnceLock::new();

/// mysqld's `log_error_verbosity`: 1 errors, 2 also warnings, 3 also notes.
fn level_of(verbosity: u8) -> LevelFilter {
    match verbosity {
        0 | 1 => LevelFilter::Error,
        2 => LevelFilter::Warn,
        _ => LevelFilter::Info,
    }
}

/// `SET GLOBAL log_error_verbosity`: the installed logger writes at the new level from now on
/// (nothing to do before one is installed, as in the embedded SQL layer's tests).
pub fn set_verbosity(verbosity: u8) {
    if let Some(logger) = INSTALLED.get() {
        let level = level_of(verbosity);
        logger.level.store(level as usize, Ordering::Relaxed);
        log::set_max_level(level);
    }
}

impl Logger {
    /// A logger writing to `out` at `log_error_verbosity` (1, 2 or 3).
    pub fn new(out: Box<dyn Write + Send>, verbosity: u8) -> Self {
        Self { out: Mutex::new(out), level: AtomicUsize::new(level_of(verbosity) as usize) }
    }

    fn level(&self) -> LevelFilter {
        match self.level.load(Ordering::Relaxed) {
            0 => LevelFilter::Off,
            1 => LevelFilter::Error,
            2 => LevelFilter::Warn,
            3 => LevelFilter::Info,
            4 => LevelFilter::Debug,
            _ => LevelFilter::Trace,
        }
    }

    /// A logger writing to the file `path` (appended, made with mode 0640), or to stderr.
    pub fn to_file_or_stderr(path: Option<&Path>, verbosity: u8) -> Result<Self, LogError> {
        let out: Box<dyn Write + Send> = match path {
            Some(path) => Box::new(
                OpenOptions::new()
                    .create(true)
                    .append(true)
                    .mode(0o640)
                    .open(path)
                    .map_err(|source| LogError::Open { path: path.to_path_buf(), source })?,
            ),
            None => Box::new(std::io::stderr()),
        };
        Ok(Self::new(out, verbosity))
    }

    /// Installs this logger for the whole process.
    pub fn install(self) -> Result<(), LogError> {
        let level = self.level();
        // The logger lives as long as the process: leaking it is how `log` holds one without
        // its `std` feature.
        let logger: &'static Logger = Box::leak(Box::new(self));
        log::set_logger(logger).map_err(|_| LogError::AlreadySet)?;
        let _ = INSTALLED.set(logger);
        log::set_max_level(level);
        Ok(())
    }
}

impl Log for Logger {
    fn enabled(&self, metadata: &Metadata<'_>) -> bool {
        if metadata.level() > self.level() {
            return false;
        }
        let krate = metadata.target().split("::").next().unwrap_or_default();
        OWN_CRATES.contains(&krate) || metadata.level() <= Level::Warn
    }

    fn log(&self, record: &Record<'_>) {
        if !self.enabled(record.metadata()) {
            return;
        }
        let line = format_line(SystemTime::now(), record.level(), record.target(), record.args());
        // A log that cannot be written has nowhere to report that; the server goes on.
        let _ = self.out.lock().write_all(line.as_bytes());
    }

    fn flush(&self) {
        let _ = self.out.lock().flush();
    }
}

/// One log line, newline included.
pub fn format_line(
    now: SystemTime,
    level: Level,
    target: &str,
    message: &std::fmt::Arguments<'_>,
) -> String {
    let label = match level {
        Level::Error => "ERROR",
        Level::Warn => "Warning",
        Level::Info => "Note",
        Level::Debug | Level::Trace => "Debug",
    };
    format!("{} [{label}] [{target}] {message}\n", utc_timestamp(now))
}

/// `YYYY-MM-DDThh:mm:ss.uuuuuuZ`.
pub fn utc_timestamp(now: SystemTime) -> String {
    // Before 1970 only with a broken clock; show the epoch rather than fail to log.
    let since = now.duration_since(UNIX_EPOCH).unwrap_or_default();
    let secs = since.as_secs();
    let (year, month, day) = civil_from_days((secs / 86_400) as i64);
    let rem = secs % 86_400;
    format!(
        "{year:04}-{month:02}-{day:02}T{:02}:{:02}:{:02}.{:06}Z",
        rem / 3600,
        rem / 60 % 60,
        rem % 60,
        since.subsec_micros()
    )
}

/// Year, month, day of the proleptic Gregorian calendar for days since 1970-01-01
/// (Howard Hinnant's `civil_from_days`).
fn civil_from_days(days: i64) -> (i64, u32, u32) {
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z.rem_euclid(146_097);
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let day = (doy - (153 * mp + 2) / 5 + 1) as u32;
    let month = if mp < 10 { mp + 3 } else { mp - 9 } as u32;
    let year = yoe + era * 400 + i64::from(month <= 2);
    (year, month, day)
}

#[cfg(test)]
mod tests {
    use std::sync::Arc;
    use std::time::Duration;

    use super::*;

    #[test]
    fn timestamps_are_utc_with_microseconds() {
        assert_eq!(utc_timestamp(UNIX_EPOCH), "1970-01-01T00:00:00.000000Z");
        // 2024-02-29T23:59:59.123456Z, a leap day.
        let t = UNIX_EPOCH + Duration::new(1_709_251_199, 123_456_000);
        assert_eq!(utc_timestamp(t), "2024-02-29T23:59:59.123456Z");
        let t = UNIX_EPOCH + Duration::from_secs(951_782_400); // 2000-02-29
        assert_eq!(utc_timestamp(t), "2000-02-29T00:00:00.000000Z");
        let t = UNIX_EPOCH + Duration::from_secs(4_102_444_800); // 2100-01-01
        assert_eq!(utc_timestamp(t), "2100-01-01T00:00:00.000000Z");
    }

    #[test]
    fn lines_carry_mysqld_labels() {
        let line =
            format_line(UNIX_EPOCH, Level::Warn, "binlogd::users", &format_args!("hi {}", 1));
        assert_eq!(line, "1970-01-01T00:00:00.000000Z [Warning] [binlogd::users] hi 1\n");
        let line = format_line(UNIX_EPOCH, Level::Info, "engine", &format_args!("x"));
        assert!(line.contains("[Note] [engine] x"));
        let line = format_line(UNIX_EPOCH, Level::Error, "t", &format_args!("x"));
        assert!(line.contains("[ERROR]"));
    }

    #[derive(Clone, Default)]
    struct Sink(Arc<Mutex<Vec<u8>>>);

    impl Write for Sink {
        fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
            self.0.lock().extend_from_slice(buf);
            Ok(buf.len())
        }
        fn flush(&mut self) -> std::io::Result<()> {
            Ok(())
        }
    }

    fn log_at(logger: &Logger, level: Level, target: &str) {
        logger.log(&Record::builder().level(level).target(target).args(format_args!("m")).build());
    }

    #[test]
    fn verbosity_and_foreign_crates() {
        let sink = Sink::default();
        let logger = Logger::new(Box::new(sink.clone()), 2);
        log_at(&logger, Level::Info, "binlogd::serve");
        log_at(&logger, Level::Warn, "binlogd::serve");
        let logger = Logger::new(Box::new(sink.clone()), 3);
        log_at(&logger, Level::Info, "rustls::server");
        log_at(&logger, Level::Info, "engine::redo");
        log_at(&logger, Level::Debug, "binlogd");
        let text = String::from_utf8(sink.0.lock().clone()).expect("utf8");
        let lines: Vec<&str> = text.lines().collect();
        assert_eq!(lines.len(), 2, "{text}");
        assert!(lines[0].contains("[Warning] [binlogd::serve]"));
        assert!(lines[1].contains("[Note] [engine::redo]"));
    }

    #[test]
    fn file_is_appended() {
        let dir = tempfile::tempdir().expect("tempdir");
        let path = dir.path().join("e.log");
        std::fs::write(&path, "earlier run\n").expect("write");
        let logger = Logger::to_file_or_stderr(Some(&path), 3).expect("open");
        log_at(&logger, Level::Error, "binlogd");
        logger.flush();
        let text = std::fs::read_to_string(&path).expect("read");
        assert!(text.starts_with("earlier run\n"));
        assert!(text.lines().nth(1).is_some_and(|l| l.ends_with("[ERROR] [binlogd] m")), "{text}");
        let missing = dir.path().join("no/such/dir/e.log");
        assert!(matches!(Logger::to_file_or_stderr(Some(&missing), 3), Err(LogError::Open { .. })));
    }
}
