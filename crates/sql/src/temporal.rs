//! Dates and times as mysqld handles them (issue 19): the statement's time context (time
//! zone, sql_mode, start time, warnings), text and number conversion to DATE / TIME /
//! DATETIME / TIMESTAMP / YEAR / FLOAT columns with sql_mode's checks and fractional-second
//! rounding, and the date and time functions with their result types.
//!
//! mysqld functions followed: `str_to_datetime`, `str_to_time`, `number_to_datetime`,
//! `check_date` (sql-common/my_time.cc); `Field_temporal::store`, `Field_year::store`
//! (field.cc); `date_add_interval`, `calc_week`, `calc_daynr`, `get_interval_value`,
//! `make_date_time` (DATE_FORMAT), `extract_date_time` (STR_TO_DATE) (sql/item_timefunc.cc,
//! sql-common/my_time.cc); `Time_zone_db::TIME_to_gmt_sec` (sql/tztime.cc).
//!
//! Why a thread-local statement context: mysqld reads the time zone, sql_mode and the
//! statement's start time from `current_thd` (itself thread-local) deep inside conversions;
//! the conversions here are called from the evaluator and the column conversion, which other
//! types share, so the context travels the same way instead of through every signature.
//! [`begin`] installs it when a statement starts (`Session::begin_statement`), on the thread
//! that then parses and runs the whole statement synchronously; [`take_warnings`] hands the
//! warnings it collected to the session's diagnostics.
//!
//! Time zones: `SYSTEM` is the process's local zone (`TZ` or /etc/localtime; UTC without
//! one; `@@system_time_zone` its abbreviation), `+hh:mm` offsets,
//! and named zones read from the system's tz database (/usr/share/zoneinfo) with the `tz-rs`
//! crate, which parses TZif files and their POSIX footer (what the files of recent tzdata
//! releases need for dates after their last transition); writing that by hand would copy a
//! well-kept parser. A local time inside a DST gap moves forward by the gap (as
//! `TIME_to_gmt_sec`); one in an overlap takes the earlier offset.
//!
//! Invariants: values leaving [`store`] are what the engine accepts for the column (see
//! `engine::temporal`); TIMESTAMP values are converted to UTC exactly once, on store, and back
//! exactly once, when the binder reads the column (`TimeFn::FromUtc`).

use std::cell::RefCell;
use std::collections::HashMap;
use std::sync::{Arc, Mutex, OnceLock};

use engine::temporal::{TIMESTAMP_MAX, TIMESTAMP_MIN, TIME_MAX_MICROS};
use engine::{Column, ColumnType, DateTime, Decimal, Value};

use super::ast::Expr;
use super::error::{Result, SqlError};
use super::output::MysqlType;
use super::timefn::{CastTo, TimeFn, Unit};

const US_PER_SEC: i64 = 1_000_000;
const US_PER_DAY: i64 = 86_400 * US_PER_SEC;

// ---- sql_mode ---------------------------------------------------------------------------------

/// The parts of sql_mode that temporal and FLOAT conversions read.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Mode {
    pub strict: bool,
    pub no_zero_date: bool,
    pub no_zero_in_date: bool,
    pub allow_invalid_dates: bool,
    pub truncate_fractional: bool,
    pub real_as_float: bool,
    /// ERROR_FOR_DIVISION_BY_ZERO: a division by zero warns (1365), and is an error in a
    /// strict INSERT/UPDATE.
    pub error_for_division_by_zero: bool,
}

impl Mode {
    /// mysqld 8.0's default sql_mode.
    pub const DEFAULT: Mode = Mode {
        strict: true,
        no_zero_date: true,
        no_zero_in_date: true,
        allow_invalid_dates: false,
        truncate_fractional: false,
        real_as_float: false,
        error_for_division_by_zero: true,
    };

    /// Reads a sql_mode text (names and the combination modes ANSI and TRADITIONAL).
    pub fn parse(text: &str) -> Mode {
        let mut m = Mode {
            strict: false,
            no_zero_date: false,
            no_zero_in_date: false,
            allow_invalid_dates: false,
            truncate_fractional: false,
            real_as_float: false,
            error_for_division_by_zero: false,
        };
        for name in text.split(',').map(|s| s.trim().to_ascii_uppercase()) {
            match name.as_str() {
                "STRICT_TRANS_TABLES" | "STRICT_ALL_TABLES" => m.strict = true,
                "NO_ZERO_DATE" => m.no_zero_date = true,
                "NO_ZERO_IN_DATE" => m.no_zero_in_date = true,
                "ALLOW_INVALID_DATES" => m.allow_invalid_dates = true,
                "TIME_TRUNCATE_FRACTIONAL" => m.truncate_fractional = true,
                "REAL_AS_FLOAT" => m.real_as_float = true,
                "ERROR_FOR_DIVISION_BY_ZERO" => m.error_for_division_by_zero = true,
                "ANSI" => m.real_as_float = true,
                "TRADITIONAL" => {
                    m.strict = true;
                    m.no_zero_date = true;
                    m.no_zero_in_date = true;
                    m.error_for_division_by_zero = true;
                }
                _ => {}
            }
        }
        m
    }
}

// ---- time zones -------------------------------------------------------------------------------

/// A session `time_zone`.
#[derive(Clone)]
pub enum Zone {
    /// `SYSTEM`: the server process's local zone ([`system_zone`]).
    System,
    /// `+hh:mm`: seconds east of UTC.
    Offset(i32),
    /// A named zone of the tz database.
    Named(Arc<tz::TimeZone>),
}

impl std::fmt::Debug for Zone {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Zone::System => f.write_str("SYSTEM"),
            Zone::Offset(o) => write!(f, "{o:+}s"),
            Zone::Named(_) => f.write_str("named"),
        }
    }
}

fn unknown_zone(text: &str) -> SqlError {
    SqlError::Other {
        code: 1298,
        sqlstate: "HY000",
        message: format!("Unknown or incorrect time zone: '{text}'"),
    }
}

/// The zone a `time_zone` value names (1298 if none), as mysqld's `my_tz_find`.
pub fn parse_zone(text: &str) -> Result<Zone> {
    let t = text.trim();
    if t.eq_ignore_ascii_case("SYSTEM") {
        return Ok(Zone::System);
    }
    if let Some(rest) = t.strip_prefix(['+', '-']) {
        // mysqld: [+-]h[h]:mm, -13:59 .. +14:00.
        let (h, m) = rest.split_once(':').ok_or_else(|| unknown_zone(t))?;
        let ok = |s: &str| !s.is_empty() && s.len() <= 2 && s.bytes().all(|c| c.is_ascii_digit());
        if !ok(h) || m.len() != 2 || !ok(m) {
            return Err(unknown_zone(t));
        }
        let (h, m): (i32, i32) = (h.parse().unwrap_or(99), m.parse().unwrap_or(99));
        let secs = h * 3600 + m * 60;
        let secs = if t.starts_with('-') { -secs } else { secs };
        if m > 59 || !(-(13 * 3600 + 59 * 60)..=14 * 3600).contains(&secs) {
            return Err(unknown_zone(t));
        }
        return Ok(Zone::Offset(secs));
    }
    named_zone(t).map(Zone::Named).ok_or_else(|| unknown_zone(t))
}

/// The tz database's zone `name`, read once and kept. Only plain names below the zoneinfo
/// directory are looked up (no absolute paths, no `..`).
fn named_zone(name: &str) -> Option<Arc<tz::TimeZone>> {
    static CACHE: OnceLock<Mutex<HashMap<String, Arc<tz::TimeZone>>>> = OnceLock::new();
    let plain = !name.is_empty()
        && name.len() <= 64
        && !name.starts_with('/')
        && !name.split('/').any(|p| p.is_empty() || p == "." || p == "..")
        && name.bytes().all(|c| c.is_ascii_alphanumeric() || b"_+-/".contains(&c));
    if !plain {
        return None;
    }
    let cache = CACHE.get_or_init(|| Mutex::new(HashMap::new()));
    let key = name.to_ascii_lowercase();
    if let Some(z) = cache.lock().ok()?.get(&key) {
        return Some(z.clone());
    }
    let bytes = std::fs::read(format!("/usr/share/zoneinfo/{name}")).ok()?;
    let zone = Arc::new(tz::TimeZone::from_tz_data(&bytes).ok()?);
    cache.lock().ok()?.insert(key, zone.clone());
    Some(zone)
}

/// The server's own zone (`time_zone = SYSTEM`): the process's local zone from the `TZ`
/// variable or /etc/localtime (tz-rs `TimeZone::local`, as mysqld's `localtime_r` reads it at
/// start-up), read once; None (UTC) when there is none.
fn system_zone() -> Option<&'static tz::TimeZone> {
    static ZONE: OnceLock<Option<tz::TimeZone>> = OnceLock::new();
    ZONE.get_or_init(|| {
        // tz-rs's `TimeZone::local` reads /etc/localtime only; libc's tzset reads TZ first (a
        // zone file name, `:name`, or a POSIX rule such as `EST5EDT`).
        match std::env::var("TZ") {
            Ok(tz) if !tz.trim().is_empty() => tz::TimeZone::from_posix_tz(tz.trim()).ok(),
            _ => tz::TimeZone::local().ok(),
        }
    })
    .as_ref()
}

/// `@@system_time_zone`: the system zone's abbreviation now (mysqld takes it from `tzname` at
/// start-up), `UTC` without a zone.
pub fn system_time_zone_name() -> String {
    let now = now_micros().div_euclid(US_PER_SEC);
    system_zone()
        .and_then(|z| z.find_local_time_type(now).ok())
        .map(|t| t.time_zone_designation().to_string())
        .filter(|n| !n.is_empty())
        .unwrap_or_else(|| "UTC".into())
}

impl Zone {
    /// Seconds east of UTC at the UTC instant `secs`.
    fn offset_at(&self, secs: i64) -> i64 {
        match self {
            Zone::System => system_zone()
                .and_then(|z| z.find_local_time_type(secs).ok())
                .map_or(0, |t| i64::from(t.ut_offset())),
            Zone::Offset(o) => i64::from(*o),
            Zone::Named(z) => z.find_local_time_type(secs).map_or(0, |t| i64::from(t.ut_offset())),
        }
    }

    /// Local microseconds (since 1970-01-01 local) of UTC microseconds.
    pub fn utc_to_local(&self, us: i64) -> i64 {
        us + self.offset_at(us.div_euclid(US_PER_SEC)) * US_PER_SEC
    }

    /// UTC microseconds of local microseconds.
    pub fn local_to_utc(&self, us: i64) -> i64 {
        let secs = us.div_euclid(US_PER_SEC);
        // The offset before the local time, then the one at the resulting instant: equal
        // outside transitions; in a gap the second is the later one and the time moves on.
        let first = self.offset_at(secs - self.offset_at(secs));
        let second = self.offset_at(secs - first);
        let off = if self.offset_at(secs - second) == second { second } else { first.max(second) };
        us - off * US_PER_SEC
    }
}

// ---- the statement context ----------------------------------------------------------------------

struct Ctx {
    zone: Zone,
    mode: Mode,
    /// The statement's start, UTC microseconds since the epoch.
    now: i64,
    /// (code, message) warnings raised by conversions and functions.
    warnings: Vec<(u16, String)>,
    /// A strict INSERT/UPDATE without IGNORE is running: mysqld's `thd->abort_on_warning`
    /// (a division by zero is then error 1365).
    abort_on_warning: bool,
}

thread_local! {
    static CTX: RefCell<Option<Ctx>> = const { RefCell::new(None) };
}

/// Microseconds since the epoch, now.
pub fn now_micros() -> i64 {
    let d = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).unwrap_or_default();
    d.as_micros() as i64
}

/// Installs the context of the statement that starts on this thread.
pub fn begin(zone: Zone, mode: Mode, now: i64) {
    CTX.with(|c| {
        *c.borrow_mut() =
            Some(Ctx { zone, mode, now, warnings: Vec::new(), abort_on_warning: false })
    });
}

/// Marks the running statement as a write that turns warnings into errors (a strict INSERT or
/// UPDATE without IGNORE, mysqld's `thd->abort_on_warning`); returns the previous setting.
pub fn set_abort_on_warning(on: bool) -> bool {
    CTX.with(|c| {
        c.borrow_mut().as_mut().is_some_and(|c| std::mem::replace(&mut c.abort_on_warning, on))
    })
}

/// Holds [`set_abort_on_warning`] for a write statement's run and restores it when dropped.
/// `on` false is an INSERT/UPDATE IGNORE: a value the column refuses is then stored as the
/// type's zero with its warning even under a strict sql_mode (mysqld's IGNORE clears
/// `abort_on_warning`), where other writes (ALTER, CREATE ... SELECT) keep the strict error.
pub struct AbortOnWarning(bool, bool);

thread_local! {
    static IGNORING: std::cell::Cell<bool> = const { std::cell::Cell::new(false) };
}

impl AbortOnWarning {
    pub fn new(on: bool) -> AbortOnWarning {
        let ignoring = IGNORING.with(|c| c.replace(!on));
        AbortOnWarning(set_abort_on_warning(on), ignoring)
    }
}

impl Drop for AbortOnWarning {
    fn drop(&mut self) {
        set_abort_on_warning(self.0);
        IGNORING.with(|c| c.set(self.1));
    }
}

/// Whether the running write is an INSERT/UPDATE IGNORE (see [`AbortOnWarning`]).
fn ignoring() -> bool {
    IGNORING.with(std::cell::Cell::get)
}

/// A division (or DIV, MOD) by zero: mysqld's `Item_func::signal_divide_by_null`. Without
/// ERROR_FOR_DIVISION_BY_ZERO nothing is said; with it a warning 1365, which a strict
/// INSERT/UPDATE turns into the error. The result is NULL either way.
pub fn division_by_zero() -> std::result::Result<(), super::error::SqlError> {
    let (warn_it, abort) =
        with_ctx(|c| (c.mode.error_for_division_by_zero, c.abort_on_warning && c.mode.strict));
    if !warn_it {
        return Ok(());
    }
    if abort {
        return Err(super::error::SqlError::Other {
            code: 1365,
            sqlstate: "22012",
            message: "Division by 0".into(),
        });
    }
    warn(1365, "Division by 0".into());
    Ok(())
}

/// The warnings raised since [`begin`] (taken: a second call returns none).
pub fn take_warnings() -> Vec<(u16, String)> {
    CTX.with(|c| {
        c.borrow_mut().as_mut().map(|c| std::mem::take(&mut c.warnings)).unwrap_or_default()
    })
}

fn with_ctx<R>(f: impl FnOnce(&Ctx) -> R) -> R {
    CTX.with(|c| match c.borrow().as_ref() {
        Some(ctx) => f(ctx),
        None => f(&Ctx {
            zone: Zone::System,
            mode: Mode::DEFAULT,
            now: now_micros(),
            warnings: Vec::new(),
            abort_on_warning: false,
        }),
    })
}

fn zone() -> Zone {
    with_ctx(|c| c.zone.clone())
}

fn mode() -> Mode {
    with_ctx(|c| c.mode)
}

/// Whether sql_mode has STRICT_TRANS_TABLES or STRICT_ALL_TABLES.
pub fn strict_mode() -> bool {
    mode().strict
}

/// Whether sql_mode has REAL_AS_FLOAT (REAL columns are FLOAT).
pub fn real_as_float() -> bool {
    mode().real_as_float
}

fn statement_now() -> i64 {
    with_ctx(|c| c.now)
}

/// Records a warning of the running statement.
pub fn warn(code: u16, message: String) {
    CTX.with(|c| {
        if let Some(c) = c.borrow_mut().as_mut() {
            if c.warnings.len() < 65_535 {
                c.warnings.push((code, message));
            }
        }
    });
}

// ---- calendar ---------------------------------------------------------------------------------

/// Days since 1970-01-01 of a proleptic Gregorian date (Howard Hinnant's algorithm).
pub fn days_from_civil(y: i64, m: i64, d: i64) -> i64 {
    let y = if m <= 2 { y - 1 } else { y };
    let era = y.div_euclid(400);
    let yoe = y - era * 400;
    let mp = (m + 9) % 12;
    let doy = (153 * mp + 2) / 5 + d - 1;
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    era * 146_097 + doe - 719_468
}

/// The date of a day number since 1970-01-01.
pub fn civil_from_days(z: i64) -> (i64, u8, u8) {
    let z = z + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = (doy - (153 * mp + 2) / 5 + 1) as u8;
    let m = if mp < 10 { mp + 3 } else { mp - 9 } as u8;
    (if m <= 2 { yoe + era * 400 + 1 } else { yoe + era * 400 }, m, d)
}

fn is_leap(y: i64) -> bool {
    (y % 4 == 0 && y % 100 != 0) || y % 400 == 0
}

/// Days in month `m` of year `y`.
pub fn days_in_month(y: i64, m: u8) -> u8 {
    match m {
        2 if is_leap(y) => 29,
        2 => 28,
        4 | 6 | 9 | 11 => 30,
        _ => 31,
    }
}

/// Microseconds since 1970-01-01 00:00:00 of a date and time with real calendar fields.
pub fn to_micros(t: &DateTime) -> i64 {
    days_from_civil(i64::from(t.year), i64::from(t.month), i64::from(t.day)) * US_PER_DAY
        + ((i64::from(t.hour) * 60 + i64::from(t.minute)) * 60 + i64::from(t.second)) * US_PER_SEC
        + i64::from(t.micros)
}

/// The date and time of microseconds since 1970-01-01 (None outside years 0..=9999).
pub fn from_micros(us: i64) -> Option<DateTime> {
    let days = us.div_euclid(US_PER_DAY);
    let rest = us.rem_euclid(US_PER_DAY);
    let (y, month, day) = civil_from_days(days);
    if !(0..=9999).contains(&y) {
        return None;
    }
    let secs = rest / US_PER_SEC;
    Some(DateTime {
        year: y as u16,
        month,
        day,
        hour: (secs / 3600) as u8,
        minute: (secs / 60 % 60) as u8,
        second: (secs % 60) as u8,
        micros: (rest % US_PER_SEC) as u32,
    })
}

fn date_part(t: DateTime) -> DateTime {
    DateTime { hour: 0, minute: 0, second: 0, micros: 0, ..t }
}

fn time_of_day(t: &DateTime) -> i64 {
    ((i64::from(t.hour) * 60 + i64::from(t.minute)) * 60 + i64::from(t.second)) * US_PER_SEC
        + i64::from(t.micros)
}

fn has_zero_part(t: &DateTime) -> bool {
    t.month == 0 || t.day == 0
}

/// mysqld's `check_date` under the session's sql_mode: None if the date is acceptable, else
/// whether it fails (true).
fn date_refused(t: &DateTime, m: Mode) -> bool {
    if !t.is_valid() {
        return true;
    }
    if *t == DateTime::ZERO || date_part(*t) == DateTime::ZERO {
        return m.no_zero_date && date_part(*t) == DateTime::ZERO;
    }
    if has_zero_part(t) {
        return m.no_zero_in_date;
    }
    if !m.allow_invalid_dates && t.day > days_in_month(i64::from(t.year), t.month) {
        return true;
    }
    false
}

/// Whether the date is a real calendar date (no zero parts), as arithmetic needs.
fn is_real_date(t: &DateTime) -> bool {
    t.is_valid() && t.month >= 1 && t.day >= 1 && t.day <= days_in_month(i64::from(t.year), t.month)
}

// ---- rounding ---------------------------------------------------------------------------------

/// Microseconds rounded (or truncated under TIME_TRUNCATE_FRACTIONAL) to `fsp` digits.
fn round_us(us: i64, fsp: u8, truncate: bool) -> i64 {
    let unit = 10i64.pow(6 - u32::from(fsp.min(6)));
    if unit == 1 {
        return us;
    }
    let q = us.div_euclid(unit) * unit;
    if truncate {
        // Truncation is toward zero for negative times too.
        return if us < 0 { -((-us).div_euclid(unit) * unit) } else { q };
    }
    // Half away from zero.
    let abs = us.abs();
    let r = (abs + unit / 2) / unit * unit;
    if us < 0 {
        -r
    } else {
        r
    }
}

/// A datetime rounded to `fsp` fraction digits (a carry may reach the next day); None on
/// overflow past 9999-12-31.
fn round_datetime(t: DateTime, fsp: u8, truncate: bool) -> Option<DateTime> {
    let r = round_us(i64::from(t.micros), fsp, truncate);
    if r == i64::from(t.micros) {
        return Some(t);
    }
    if r < US_PER_SEC {
        return Some(DateTime { micros: r as u32, ..t });
    }
    if !is_real_date(&t) {
        // A date with zero parts cannot carry into the next day; keep the second.
        return Some(DateTime { micros: 0, ..t }.with_next_second());
    }
    from_micros(to_micros(&DateTime { micros: 0, ..t }) + US_PER_SEC)
}

trait NextSecond {
    fn with_next_second(self) -> DateTime;
}

impl NextSecond for DateTime {
    fn with_next_second(self) -> DateTime {
        if self.second < 59 {
            DateTime { second: self.second + 1, ..self }
        } else {
            self
        }
    }
}

// ---- parsing text and numbers -----------------------------------------------------------------

/// A datetime read from text: the value, whether the text had a time part, whether text was
/// left over (mysqld's MYSQL_TIME_WARN_TRUNCATED), and the rounding carry of digits beyond 6.
#[derive(Debug, Clone, Copy)]
struct ParsedDt {
    t: DateTime,
    has_time: bool,
    trailing: bool,
    round_up: bool,
}

fn two_digit_year(y: u32, digits: usize) -> u32 {
    if digits <= 2 {
        if y < 70 {
            y + 2000
        } else {
            y + 1900
        }
    } else {
        y
    }
}

/// mysqld's `str_to_datetime`, for the formats applications use: delimited
/// `Y-M-D[( |T)h:m[:s[.f]]]` (any punctuation as delimiter, 2-digit years 70-99 → 19xx,
/// 00-69 → 20xx) and the compact digit forms YYYYMMDD[hhmmss[.f]] / YYMMDD[hhmmss].
fn parse_dt(text: &[u8]) -> Option<ParsedDt> {
    let s = std::str::from_utf8(text).ok()?.trim_matches(|c: char| c.is_ascii_whitespace());
    let b = s.as_bytes();
    if b.is_empty() || !b[0].is_ascii_digit() {
        return None;
    }
    let int_len = b.iter().take_while(|c| c.is_ascii_digit()).count();
    let mut groups: Vec<(u32, usize)> = Vec::new();
    let mut frac: Option<&[u8]> = None;
    let mut has_time = false;
    let mut pos;
    if int_len == b.len() || (b.get(int_len) == Some(&b'.') && int_len >= 6) {
        // Compact form.
        let d = &b[..int_len];
        let num = |r: std::ops::Range<usize>| -> u32 {
            d[r].iter().fold(0u32, |a, c| a * 10 + u32::from(c - b'0'))
        };
        let (ylen, rest) = match int_len {
            14 | 8 => (4, int_len - 4),
            12 | 6 => (2, int_len - 2),
            // mysqld reads 10 digits as YYMMDDhhmm and 11/13 as ... rarely used; refuse.
            _ => return None,
        };
        groups.push((two_digit_year(num(0..ylen), ylen), ylen));
        let mut p = ylen;
        while p < ylen + rest {
            groups.push((num(p..p + 2), 2));
            p += 2;
        }
        has_time = groups.len() > 3;
        pos = int_len;
        if b.get(pos) == Some(&b'.') {
            let f = &b[pos + 1..];
            let n = f.iter().take_while(|c| c.is_ascii_digit()).count();
            frac = Some(&f[..n]);
            pos += 1 + n;
        }
    } else {
        pos = 0;
        let mut field = 0;
        while pos < b.len() && field < 6 {
            let start = pos;
            while pos < b.len() && b[pos].is_ascii_digit() {
                pos += 1;
            }
            if pos == start {
                break;
            }
            let digits = &b[start..pos];
            if digits.len() > 9 {
                return None;
            }
            let v = digits.iter().fold(0u32, |a, c| a * 10 + u32::from(c - b'0'));
            groups
                .push((if field == 0 { two_digit_year(v, digits.len()) } else { v }, digits.len()));
            field += 1;
            if field == 6 || pos >= b.len() {
                break;
            }
            let sep = b[pos];
            if field == 3 {
                // Date and time are separated by blanks or a 'T'.
                if sep == b'T' || sep.is_ascii_whitespace() {
                    while pos < b.len() && (b[pos] == b'T' || b[pos].is_ascii_whitespace()) {
                        pos += 1;
                    }
                    has_time = true;
                    continue;
                }
                break;
            }
            if sep.is_ascii_punctuation() {
                pos += 1;
                if pos < b.len() && !b[pos].is_ascii_digit() {
                    pos -= 1;
                    break;
                }
            } else {
                break;
            }
        }
        if groups.len() < 3 {
            return None;
        }
        if groups.len() == 6 && b.get(pos) == Some(&b'.') {
            let f = &b[pos + 1..];
            let n = f.iter().take_while(|c| c.is_ascii_digit()).count();
            frac = Some(&f[..n]);
            pos += 1 + n;
        }
        if groups.len() > 3 && groups.len() < 5 {
            // A time part needs at least hours and minutes.
            return None;
        }
        has_time = has_time && groups.len() > 3;
    }
    let g = |i: usize| groups.get(i).map_or(0, |x| x.0);
    let (mut micros, mut round_up) = (0u32, false);
    if let Some(f) = frac {
        for i in 0..6 {
            micros = micros * 10 + f.get(i).map_or(0, |c| u32::from(c - b'0'));
        }
        round_up = f.get(6).is_some_and(|c| *c >= b'5');
    }
    let trailing = b[pos..].iter().any(|c| !c.is_ascii_whitespace());
    let (y, mo, d, h, mi, se) = (g(0), g(1), g(2), g(3), g(4), g(5));
    if y > 9999 || mo > 12 || d > 31 || h > 23 || mi > 59 || se > 59 {
        return None;
    }
    Some(ParsedDt {
        t: DateTime {
            year: y as u16,
            month: mo as u8,
            day: d as u8,
            hour: h as u8,
            minute: mi as u8,
            second: se as u8,
            micros,
        },
        has_time,
        trailing,
        round_up,
    })
}

/// mysqld's `number_to_datetime`: YYYYMMDDhhmmss, YYMMDDhhmmss, YYYYMMDD, YYMMDD.
fn number_to_datetime(n: i64) -> Option<(DateTime, bool)> {
    if n == 0 {
        return Some((DateTime::ZERO, false));
    }
    let (full, has_time) = match n {
        _ if n < 0 => return None,
        _ if n < 101 => return None,
        _ if n <= 691_231 => ((n + 20_000_000) * 1_000_000, false),
        _ if n < 700_101 => return None,
        _ if n <= 991_231 => ((n + 19_000_000) * 1_000_000, false),
        _ if n < 10_000_101 => return None,
        _ if n <= 99_991_231 => (n * 1_000_000, false),
        _ if n < 101_000_000 => return None,
        _ if n <= 691_231_235_959 => (n + 20_000_000_000_000, true),
        _ if n < 700_101_000_000 => return None,
        _ if n <= 991_231_235_959 => (n + 19_000_000_000_000, true),
        _ if n <= 99_991_231_235_959 => (n, true),
        _ => return None,
    };
    let t = DateTime {
        year: (full / 10_000_000_000) as u16,
        month: (full / 100_000_000 % 100) as u8,
        day: (full / 1_000_000 % 100) as u8,
        hour: (full / 10_000 % 100) as u8,
        minute: (full / 100 % 100) as u8,
        second: (full % 100) as u8,
        micros: 0,
    };
    if t.month > 12 || t.day > 31 || t.hour > 23 || t.minute > 59 || t.second > 59 {
        return None;
    }
    Some((t, has_time))
}

/// mysqld's `str_to_time`: `[-][D ]h[h...]:mm[:ss[.f]]`, `[-]hhmmss[.f]`, `mmss`, `ss`, or a
/// datetime text (its time part). Returns microseconds (not yet range-checked) and whether
/// text was left over.
fn parse_time(text: &[u8]) -> Option<(i64, bool)> {
    let s = std::str::from_utf8(text).ok()?.trim_matches(|c: char| c.is_ascii_whitespace());
    if let Some(p) = parse_dt(s.as_bytes()) {
        if p.has_time && s.len() >= 12 {
            let us = time_of_day(&p.t) + i64::from(p.round_up);
            return Some((us, p.trailing));
        }
    }
    let (neg, body) = match s.strip_prefix('-') {
        Some(r) => (true, r),
        None => (false, s),
    };
    let b = body.as_bytes();
    if b.is_empty() || !b[0].is_ascii_digit() {
        return None;
    }
    let read_num = |p: &mut usize| -> Option<(i64, usize)> {
        let start = *p;
        while *p < b.len() && b[*p].is_ascii_digit() {
            *p += 1;
        }
        if *p == start || *p - start > 12 {
            return None;
        }
        Some((body[start..*p].parse().ok()?, *p - start))
    };
    let mut p = 0;
    let (first, flen) = read_num(&mut p)?;
    let (mut days, mut m, mut sec) = (0i64, 0i64, 0i64);
    let h: i64;
    if p < b.len() && b[p] == b' ' && b.get(p + 1).is_some_and(|c| c.is_ascii_digit()) {
        days = first;
        p += 1;
        let (hh, _) = read_num(&mut p)?;
        h = hh;
        if p < b.len() && b[p] == b':' {
            p += 1;
            m = read_num(&mut p)?.0;
            if p < b.len() && b[p] == b':' {
                p += 1;
                sec = read_num(&mut p)?.0;
            }
        }
    } else if p < b.len() && b[p] == b':' {
        h = first;
        p += 1;
        m = read_num(&mut p)?.0;
        if p < b.len() && b[p] == b':' {
            p += 1;
            sec = read_num(&mut p)?.0;
        }
    } else {
        // hhmmss / mmss / ss.
        let _ = flen;
        h = first / 10_000;
        m = first / 100 % 100;
        sec = first % 100;
    }
    if m > 59 || sec > 59 {
        return None;
    }
    let mut micros = 0i64;
    let mut round_up = false;
    if p < b.len() && b[p] == b'.' {
        p += 1;
        let start = p;
        while p < b.len() && b[p].is_ascii_digit() {
            p += 1;
        }
        let f = &b[start..p];
        for i in 0..6 {
            micros = micros * 10 + f.get(i).map_or(0, |c| i64::from(c - b'0'));
        }
        round_up = f.get(6).is_some_and(|c| *c >= b'5');
    }
    // `str_to_time` refuses an exponent after the number (`-7.5e2x`, as `%g` would print a
    // time): E and a digit, or E, a sign and a digit.
    let rest = &b[p..];
    let digit_at = |i: usize| rest.get(i).is_some_and(u8::is_ascii_digit);
    if matches!(rest.first(), Some(b'e' | b'E'))
        && (digit_at(1) || (matches!(rest.get(1), Some(b'-' | b'+')) && digit_at(2)))
    {
        return None;
    }
    let trailing = rest.iter().any(|c| !c.is_ascii_whitespace());
    let total = (((days * 24 + h) * 60 + m) * 60 + sec)
        .checked_mul(US_PER_SEC)?
        .checked_add(micros + i64::from(round_up))?;
    Some((if neg { -total } else { total }, trailing))
}

/// TIME_MAX_VALUE: 838:59:59 as the number hhmmss.
const TIME_MAX_HHMMSS: u64 = 8_385_959;

/// mysqld's `number_to_time`: [-]hhmmss (minutes and seconds below 60).
fn number_to_time(n: i64, micros: i64) -> Option<i64> {
    let a = n.unsigned_abs() as i64;
    let (h, m, s) = (a / 10_000, a / 100 % 100, a % 100);
    if m > 59 || s > 59 {
        return None;
    }
    // The fraction has the number's sign (`-2.5` is -00:00:02.5, lldiv_t_to_time).
    let us = ((h * 60 + m) * 60 + s).checked_mul(US_PER_SEC)? + micros.abs();
    Some(if n < 0 || micros < 0 { -us } else { us })
}

/// TIME's range: clamps to ±838:59:59 and says whether it had to.
fn clamp_time(us: i64) -> (i64, bool) {
    if us > TIME_MAX_MICROS {
        (TIME_MAX_MICROS, true)
    } else if us < -TIME_MAX_MICROS {
        (-TIME_MAX_MICROS, true)
    } else {
        (us, false)
    }
}

fn text_of(v: &Value) -> String {
    match v {
        Value::Bytes(b) => String::from_utf8_lossy(b).into_owned(),
        v => v.to_string(),
    }
}

/// Integer and fraction (µs) parts of a number value.
/// [`number_parts`], with a date or time read as its number (`YYYYMMDD`, `hhmmss`): the
/// integer arguments of FROM_UNIXTIME, SEC_TO_TIME and FROM_DAYS (`val_int`/`val_decimal` of
/// a temporal item).
fn numeric_parts(v: &Value) -> Option<(i64, i64)> {
    match v {
        Value::Date(_) | Value::DateTime(_) | Value::Time(_) => number_parts(&numeric(v)?),
        v => number_parts(v),
    }
}

fn number_parts(v: &Value) -> Option<(i64, i64)> {
    match v {
        Value::Int(i) => Some((*i, 0)),
        Value::UInt(u) => Some((i64::try_from(*u).ok()?, 0)),
        Value::Decimal(d) => {
            let r = d.rescale(6)?.mantissa_i128()?;
            let int = r / 1_000_000;
            Some((i64::try_from(int).ok()?, i64::try_from(r % 1_000_000).ok()?))
        }
        Value::Double(_) | Value::Float(_) => {
            let d = match v {
                Value::Double(d) => *d,
                Value::Float(f) => f64::from(*f),
                _ => 0.0,
            };
            if !d.is_finite() || d.abs() > 9.2e18 {
                return None;
            }
            let us = (d * 1e6).round();
            Some(((us / 1e6).trunc() as i64, (us % 1e6) as i64))
        }
        _ => None,
    }
}

// ---- values as datetimes / times (function arguments) -----------------------------------------

/// What a value is, as a temporal argument.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Kind {
    Date,
    DateTime,
    Time,
}

/// A value as a date/datetime (mysqld's `get_date`); a TIME is taken on the current date.
/// Text that is no datetime is None (the caller warns).
fn as_datetime(v: &Value) -> Option<(DateTime, Kind)> {
    match v {
        Value::Null => None,
        Value::DateTime(t) => Some((*t, Kind::DateTime)),
        Value::Date(d) => Some((*d, Kind::Date)),
        Value::Time(us) => {
            let today = to_micros(&date_part(local_now()));
            from_micros(today + us).map(|t| (t, Kind::DateTime))
        }
        Value::Bytes(b) => {
            let p = parse_dt(b)?;
            if p.trailing {
                warn(1292, format!("Truncated incorrect datetime value: '{}'", text_of(v)));
            }
            let t = if p.round_up {
                round_datetime(DateTime { micros: p.t.micros, ..p.t }, 5, false).unwrap_or(p.t)
            } else {
                p.t
            };
            Some((t, if p.has_time { Kind::DateTime } else { Kind::Date }))
        }
        _ => {
            let (n, us) = number_parts(v)?;
            let (t, has_time) = number_to_datetime(n)?;
            Some((
                DateTime { micros: us.unsigned_abs() as u32, ..t },
                if has_time || us != 0 { Kind::DateTime } else { Kind::Date },
            ))
        }
    }
}

/// A value as a date for functions: real calendar dates only unless `fuzzy` (zero parts
/// allowed, as YEAR()/MONTH()/DAY() read them); warns 1292 and gives None otherwise.
fn arg_datetime(v: &Value, fuzzy: bool) -> Option<(DateTime, Kind)> {
    if *v == Value::Null {
        return None;
    }
    let r = as_datetime(v).filter(|(t, _)| {
        t.is_valid()
            && (if fuzzy {
                t.month == 0 || t.day == 0 || t.day <= days_in_month(i64::from(t.year), t.month)
            } else {
                is_real_date(t)
            })
    });
    if r.is_none() {
        warn(1292, format!("Incorrect datetime value: '{}'", text_of(v)));
    }
    r
}

/// A value as a TIME (mysqld's `get_time`): datetimes give their time of day.
fn as_time(v: &Value) -> Option<i64> {
    match v {
        Value::Null => None,
        Value::Time(us) => Some(*us),
        Value::DateTime(t) => Some(time_of_day(t)),
        Value::Date(_) => Some(0),
        Value::Bytes(b) => {
            let (us, trailing) = parse_time(b)?;
            if trailing {
                warn(1292, format!("Truncated incorrect time value: '{}'", text_of(v)));
            }
            Some(us)
        }
        _ => {
            // `Item::get_time_from_int` reads `val_int()`: a BIGINT UNSIGNED past BIGINT's
            // maximum is its two's complement, 18446744073709551615 being -1 (-00:00:01).
            let (n, us) = match v {
                Value::UInt(u) => (*u as i64, 0),
                v => number_parts(v)?,
            };
            if let Some((t, true)) = number_to_datetime(n).filter(|_| n.abs() >= 1_000_000_000) {
                return Some(time_of_day(&t) + us);
            }
            // mysqld 8.0's `number_to_time` fails past TIME_MAX_VALUE (838:59:59 as hhmmss):
            // a function's argument is then NULL with warning 1292 (`lldiv_t_to_time`), where
            // only a stored value is clipped (MariaDB clips both).
            if n.unsigned_abs() > TIME_MAX_HHMMSS {
                return None;
            }
            number_to_time(n, us)
        }
    }
}

fn arg_time(v: &Value) -> Option<i64> {
    if *v == Value::Null {
        return None;
    }
    match as_time(v) {
        Some(us) => {
            let (c, clamped) = clamp_time(us);
            if clamped {
                warn(1292, format!("Truncated incorrect time value: '{}'", text_of(v)));
            }
            Some(c)
        }
        None => {
            warn(1292, format!("Truncated incorrect time value: '{}'", text_of(v)));
            None
        }
    }
}

// ---- storing into a column ----------------------------------------------------------------------

/// Whether `ty` is one of the types this module stores.
pub fn handles(ty: ColumnType) -> bool {
    matches!(
        ty,
        ColumnType::DateTime { .. }
            | ColumnType::Timestamp { .. }
            | ColumnType::Date
            | ColumnType::Time { .. }
            | ColumnType::Year
            | ColumnType::Float
    )
}

fn incorrect(kind: &'static str, v: &Value, col: &Column, row: u64) -> SqlError {
    SqlError::IncorrectValue { kind, value: text_of(v), column: col.name.clone(), row }
}

/// The refusal of a value, or in non-strict mode the warning and the value stored instead
/// (mysqld's `Field::set_datetime_warning`, then the zero value).
fn refuse(kind: &'static str, v: &Value, col: &Column, row: u64, zero: Value) -> Result<Value> {
    let e = incorrect(kind, v, col, row);
    if mode().strict && !ignoring() {
        return Err(e);
    }
    warn(e.code(), e.to_string());
    Ok(zero)
}

/// Converts `v` for storage in a column of one of this module's types (see [`handles`]):
/// sql_mode's date checks, rounding to the column's fsp, TIMESTAMP to UTC.
pub fn store(v: Value, col: &Column, row: u64) -> Result<Value> {
    if v == Value::Null {
        return Ok(v);
    }
    let m = mode();
    match col.ty {
        ColumnType::Float => {
            let d = match &v {
                Value::Float(f) => return Ok(Value::Float(*f)),
                Value::Bytes(b) | Value::Json(b) => {
                    let s = String::from_utf8_lossy(b);
                    match s.trim().parse::<f64>() {
                        Ok(d) => d,
                        Err(_) => return refuse("double", &v, col, row, Value::Float(0.0)),
                    }
                }
                Value::Double(d) => *d,
                Value::Int(i) => *i as f64,
                Value::UInt(u) => *u as f64,
                Value::Decimal(d) => d.to_string().parse().unwrap_or(0.0),
                Value::DateTime(t) => datetime_number(t) as f64,
                Value::Date(t) => date_number(t) as f64,
                Value::Time(us) => time_number(*us) as f64,
                Value::Null => return Ok(Value::Null),
            };
            if !d.is_finite() || !(d as f32).is_finite() {
                return Err(SqlError::OutOfRange { column: col.name.clone(), row });
            }
            Ok(Value::Float(d as f32))
        }
        ColumnType::Year => store_year(v, col, row),
        ColumnType::Time { fsp } => {
            let us = match &v {
                Value::Bytes(b) => match parse_time(b) {
                    Some((us, false)) => us,
                    _ => return refuse("time", &v, col, row, Value::Time(0)),
                },
                Value::Time(us) => *us,
                Value::DateTime(t) => time_of_day(t),
                Value::Date(_) => 0,
                other => match number_parts(other).and_then(|(n, us)| number_to_time(n, us)) {
                    Some(us) => us,
                    None => return refuse("time", &v, col, row, Value::Time(0)),
                },
            };
            let (c, clamped) = clamp_time(round_us(us, fsp, m.truncate_fractional));
            if clamped {
                if m.strict && !ignoring() {
                    return Err(incorrect("time", &v, col, row));
                }
                warn(1264, format!("Out of range value for column '{}' at row {row}", col.name));
            }
            Ok(Value::Time(c))
        }
        ColumnType::Date | ColumnType::DateTime { .. } | ColumnType::Timestamp { .. } => {
            let kind = match col.ty {
                ColumnType::Date => "date",
                _ => "datetime",
            };
            let zero = if col.ty == ColumnType::Date {
                Value::Date(DateTime::ZERO)
            } else {
                Value::DateTime(DateTime::ZERO)
            };
            let fsp = match col.ty {
                ColumnType::DateTime { fsp } | ColumnType::Timestamp { fsp } => fsp,
                _ => 0,
            };
            let t = match &v {
                Value::DateTime(t) | Value::Date(t) => Some(*t),
                Value::Time(us) => from_micros(to_micros(&date_part(local_now())) + us),
                Value::Bytes(b) => match parse_dt(b) {
                    Some(p) if !p.trailing => {
                        let t = p.t;
                        if p.round_up && !m.truncate_fractional {
                            // The 7th digit rounds the microseconds first.
                            let us = to_micros(&t) + 1;
                            if is_real_date(&t) {
                                from_micros(us)
                            } else {
                                Some(t)
                            }
                        } else {
                            Some(t)
                        }
                    }
                    _ => None,
                },
                other => number_parts(other).and_then(|(n, us)| {
                    number_to_datetime(n)
                        .map(|(t, _)| DateTime { micros: us.unsigned_abs() as u32, ..t })
                }),
            };
            let Some(t) = t else { return refuse(kind, &v, col, row, zero) };
            if date_refused(&t, m) {
                return refuse(kind, &v, col, row, zero);
            }
            let t = if col.ty == ColumnType::Date {
                date_part(t)
            } else {
                match round_datetime(t, fsp, m.truncate_fractional) {
                    Some(t) => t,
                    None => return refuse(kind, &v, col, row, zero),
                }
            };
            match col.ty {
                ColumnType::Date => Ok(Value::Date(t)),
                ColumnType::Timestamp { .. } => {
                    if t == DateTime::ZERO || has_zero_part(&t) {
                        return if t == DateTime::ZERO {
                            Ok(Value::DateTime(t))
                        } else {
                            refuse(kind, &v, col, row, zero)
                        };
                    }
                    let utc = from_micros(zone().local_to_utc(to_micros(&t)));
                    match utc {
                        Some(u) if (TIMESTAMP_MIN..=TIMESTAMP_MAX).contains(&u) => {
                            Ok(Value::DateTime(u))
                        }
                        _ => refuse(kind, &v, col, row, zero),
                    }
                }
                _ => Ok(Value::DateTime(t)),
            }
        }
        _ => Err(incorrect("value", &v, col, row)),
    }
}

fn store_year(v: Value, col: &Column, row: u64) -> Result<Value> {
    let out_of_range = || SqlError::OutOfRange { column: col.name.clone(), row };
    let year = |n: i64, from_text_zero: bool| -> Result<Value> {
        let y = match n {
            0 if from_text_zero => 2000,
            0 => 0,
            1..=69 => 2000 + n,
            70..=99 => 1900 + n,
            1901..=2155 => n,
            _ => return Err(out_of_range()),
        };
        Ok(Value::UInt(y as u64))
    };
    match &v {
        Value::Int(i) => year(*i, false),
        Value::UInt(u) => year(i64::try_from(*u).unwrap_or(i64::MAX), false),
        Value::Double(_) | Value::Float(_) | Value::Decimal(_) => {
            let (n, us) = number_parts(&v).ok_or_else(out_of_range)?;
            year(if us >= 500_000 { n + 1 } else { n }, false)
        }
        Value::Bytes(b) | Value::Json(b) => {
            let s = String::from_utf8_lossy(b);
            let t = s.trim();
            match t.parse::<i64>() {
                // '0' and '00' are 2000, '0000' is 0 (Field_year::store).
                Ok(n) => year(n, n == 0 && t.len() < 4),
                Err(_) => match t.parse::<f64>() {
                    Ok(d) if d.is_finite() => year(d.round() as i64, false),
                    _ => Err(incorrect("integer", &v, col, row)),
                },
            }
        }
        Value::DateTime(t) | Value::Date(t) => year(i64::from(t.year), false),
        Value::Time(_) => year(i64::from(local_now().year), false),
        Value::Null => Ok(Value::Null),
    }
}

/// The value of a TIMESTAMP column's stored UTC value in the session's time zone.
pub fn from_utc(v: Value) -> Value {
    match v {
        Value::DateTime(t) if t != DateTime::ZERO && is_real_date(&t) => {
            from_micros(zone().utc_to_local(to_micros(&t)))
                .map_or(Value::DateTime(t), Value::DateTime)
        }
        v => v,
    }
}

/// A column's `DEFAULT CURRENT_TIMESTAMP` / `ON UPDATE` value: the statement's time at the
/// column's precision, in the session's zone (converted back to UTC by [`store`]).
pub fn current_for(col: &Column, row: u64) -> Result<Value> {
    let fsp = match col.ty {
        ColumnType::DateTime { fsp } | ColumnType::Timestamp { fsp } => fsp,
        _ => 0,
    };
    store(Value::DateTime(now_value(fsp)), col, row)
}

/// `ON UPDATE CURRENT_TIMESTAMP`: a changed row's columns that have it and were not assigned
/// by the statement get the statement's time (mysqld's `Table::update_default_value`... via
/// `set_function_defaults` on update).
pub fn touch_on_update(
    columns: &[Column],
    new: &mut [Value],
    assigned: &dyn Fn(usize) -> bool,
    row: u64,
) -> Result<()> {
    for (i, c) in columns.iter().enumerate() {
        if c.on_update_now && !assigned(i) {
            if let Some(slot) = new.get_mut(i) {
                *slot = current_for(c, row)?;
            }
        }
    }
    Ok(())
}

fn local_now() -> DateTime {
    let now = statement_now();
    from_micros(zone().utc_to_local(now)).unwrap_or(DateTime::ZERO)
}

/// NOW(fsp): the statement's start in the session's zone, truncated to fsp digits.
fn now_value(fsp: u8) -> DateTime {
    let t = local_now();
    DateTime { micros: round_us(i64::from(t.micros), fsp, true) as u32, ..t }
}

fn utc_now(fsp: u8) -> DateTime {
    let t = from_micros(statement_now()).unwrap_or(DateTime::ZERO);
    DateTime { micros: round_us(i64::from(t.micros), fsp, true) as u32, ..t }
}

// ---- numbers of temporal values -----------------------------------------------------------------

/// `YYYYMMDDhhmmss`.
pub fn datetime_number(t: &DateTime) -> u64 {
    date_number(t) * 1_000_000
        + (u64::from(t.hour) * 100 + u64::from(t.minute)) * 100
        + u64::from(t.second)
}

/// `YYYYMMDD`.
pub fn date_number(t: &DateTime) -> u64 {
    (u64::from(t.year) * 100 + u64::from(t.month)) * 100 + u64::from(t.day)
}

/// `[-]hhmmss`.
pub fn time_number(us: i64) -> i64 {
    let s = us.unsigned_abs() / 1_000_000;
    let n = ((s / 3600) * 100 + s / 60 % 60) * 100 + s % 60;
    if us < 0 {
        -(n as i64)
    } else {
        n as i64
    }
}

/// A temporal value in numeric context (`dt + 0`): an integer, or a DECIMAL with six digits
/// when it has a fraction.
pub fn numeric(v: &Value) -> Option<Value> {
    let (int, micros): (i128, i64) = match v {
        Value::DateTime(t) => (i128::from(datetime_number(t)), i64::from(t.micros)),
        Value::Date(t) => (i128::from(date_number(t)), 0),
        Value::Time(us) => (i128::from(time_number(*us)), us % US_PER_SEC),
        _ => return None,
    };
    if micros == 0 {
        return Some(Value::Int(int as i64));
    }
    let sign = if micros < 0 || int < 0 { -1 } else { 1 };
    Some(Value::Decimal(Decimal::new(sign * (int.abs() * 1_000_000 + i128::from(micros.abs())), 6)))
}

/// Comparison of a temporal value with another value, where one side is temporal: as
/// datetimes (a string or number side is read as one), or as times between TIMEs.
pub fn compare(a: &Value, b: &Value) -> Option<Option<std::cmp::Ordering>> {
    let temporal = |v: &Value| matches!(v, Value::DateTime(_) | Value::Date(_) | Value::Time(_));
    if !temporal(a) && !temporal(b) {
        return None;
    }
    if *a == Value::Null || *b == Value::Null {
        return Some(None);
    }
    let is_time = |v: &Value| matches!(v, Value::Time(_));
    if is_time(a) || is_time(b) {
        let other_dt = |v: &Value| matches!(v, Value::DateTime(_) | Value::Date(_));
        if !(other_dt(a) || other_dt(b)) {
            return Some(as_time(a).zip(as_time(b)).map(|(x, y)| x.cmp(&y)));
        }
    }
    let (x, y) = (as_datetime(a), as_datetime(b));
    Some(match (x, y) {
        (Some((x, _)), Some((y, _))) => Some(x.cmp(&y)),
        // Text that is no datetime compares as text, as mysqld falls back to.
        _ => Some(text_of(a).as_bytes().cmp(text_of(b).as_bytes())),
    })
}

// ---- intervals ----------------------------------------------------------------------------------

/// A parsed interval: months and microseconds, signed.
#[derive(Debug, Clone, Copy, Default)]
struct Interval {
    months: i64,
    micros: i64,
}

/// mysqld's `get_interval_value`: a number for the simple units (SECOND may have a
/// fraction), right-aligned digit groups of a string for the compound ones.
fn interval_of(v: &Value, unit: Unit) -> Option<Interval> {
    use Unit::*;
    let simple = |n: i64| -> Option<Interval> {
        Some(match unit {
            Year => Interval { months: n.checked_mul(12)?, micros: 0 },
            Quarter => Interval { months: n.checked_mul(3)?, micros: 0 },
            Month => Interval { months: n, micros: 0 },
            Week => Interval { months: 0, micros: n.checked_mul(7 * US_PER_DAY)? },
            Day => Interval { months: 0, micros: n.checked_mul(US_PER_DAY)? },
            Hour => Interval { months: 0, micros: n.checked_mul(3600 * US_PER_SEC)? },
            Minute => Interval { months: 0, micros: n.checked_mul(60 * US_PER_SEC)? },
            Second => Interval { months: 0, micros: n.checked_mul(US_PER_SEC)? },
            Microsecond => Interval { months: 0, micros: n },
            _ => return None,
        })
    };
    let compound =
        !matches!(unit, Year | Quarter | Month | Week | Day | Hour | Minute | Second | Microsecond);
    if !compound {
        if unit == Second {
            let (n, us) = match v {
                Value::Bytes(b) => {
                    let d = super_str_to_f64(b);
                    number_parts(&Value::Double(d))?
                }
                v => number_parts(v)?,
            };
            return Some(Interval {
                months: 0,
                micros: n.checked_mul(US_PER_SEC)?.checked_add(us)?,
            });
        }
        let n = match v {
            Value::Bytes(b) | Value::Json(b) => super_str_to_f64(b).round() as i64,
            Value::Double(d) => d.round() as i64,
            Value::Float(f) => f64::from(*f).round() as i64,
            Value::Decimal(d) => i64::try_from(d.rescale(0)?.mantissa_i128()?).ok()?,
            Value::Int(i) => *i,
            Value::UInt(u) => i64::try_from(*u).ok()?,
            Value::DateTime(t) => datetime_number(t) as i64,
            Value::Date(t) => date_number(t) as i64,
            Value::Time(us) => time_number(*us),
            Value::Null => return None,
        };
        return simple(n);
    }
    let text = text_of(v);
    let t = text.trim();
    let (neg, body) = match t.strip_prefix('-') {
        Some(r) => (true, r),
        None => (false, t),
    };
    let mut groups: Vec<(i64, usize)> = Vec::new();
    let mut cur = String::new();
    for c in body.chars() {
        if c.is_ascii_digit() {
            cur.push(c);
        } else if !cur.is_empty() {
            groups.push((cur.parse().ok()?, cur.len()));
            cur.clear();
        }
    }
    if !cur.is_empty() {
        groups.push((cur.parse().ok()?, cur.len()));
    }
    let fields: &[i64] = match unit {
        YearMonth => &[12, 1],
        DayHour => &[US_PER_DAY, 3600 * US_PER_SEC],
        DayMinute => &[US_PER_DAY, 3600 * US_PER_SEC, 60 * US_PER_SEC],
        DaySecond => &[US_PER_DAY, 3600 * US_PER_SEC, 60 * US_PER_SEC, US_PER_SEC],
        HourMinute => &[3600 * US_PER_SEC, 60 * US_PER_SEC],
        HourSecond => &[3600 * US_PER_SEC, 60 * US_PER_SEC, US_PER_SEC],
        MinuteSecond => &[60 * US_PER_SEC, US_PER_SEC],
        DayMicrosecond => &[US_PER_DAY, 3600 * US_PER_SEC, 60 * US_PER_SEC, US_PER_SEC, 1],
        HourMicrosecond => &[3600 * US_PER_SEC, 60 * US_PER_SEC, US_PER_SEC, 1],
        MinuteMicrosecond => &[60 * US_PER_SEC, US_PER_SEC, 1],
        SecondMicrosecond => &[US_PER_SEC, 1],
        _ => return None,
    };
    if groups.is_empty() || groups.len() > fields.len() {
        return None;
    }
    // Too few groups: the leftmost fields were left out.
    let skip = fields.len() - groups.len();
    let mut iv = Interval::default();
    for (i, (g, len)) in groups.iter().enumerate() {
        let f = fields[skip + i];
        let mut g = *g;
        if f == 1 && unit.has_micros() && *len < 6 {
            // The microsecond part is a fraction: '1.5' is 500000 µs.
            g *= 10i64.pow(6 - *len as u32);
        }
        if unit == YearMonth {
            iv.months = iv.months.checked_add(g.checked_mul(f)?)?;
        } else {
            iv.micros = iv.micros.checked_add(g.checked_mul(f)?)?;
        }
    }
    if neg {
        iv.months = -iv.months;
        iv.micros = -iv.micros;
    }
    Some(iv)
}

fn super_str_to_f64(b: &[u8]) -> f64 {
    // The numeric prefix, as mysqld reads a string in numeric context.
    let s = String::from_utf8_lossy(b);
    let s = s.trim();
    let mut end = 0;
    let bytes = s.as_bytes();
    while end < bytes.len() {
        let c = bytes[end];
        let ok = c.is_ascii_digit()
            || (c == b'.' && !s[..end].contains('.'))
            || ((c == b'-' || c == b'+') && end == 0);
        if !ok {
            break;
        }
        end += 1;
    }
    // An exponent with at least one digit belongs to the number (`my_strtod`,
    // `my_strntoull10rnd`); `1e` alone does not.
    if end > 0 && matches!(bytes.get(end), Some(b'e' | b'E')) {
        let mut k = end + 1;
        if matches!(bytes.get(k), Some(b'-' | b'+')) {
            k += 1;
        }
        let digits = bytes[k.min(bytes.len())..].iter().take_while(|c| c.is_ascii_digit()).count();
        if digits > 0 {
            end = k + digits;
        }
    }
    s[..end].parse().unwrap_or(0.0)
}

fn overflow_warning() {
    warn(1441, "Datetime function: datetime field overflow".into());
}

/// mysqld's `date_add_interval`: months clamp the day to the month's end; a result outside
/// years 0..9999 is NULL with warning 1441.
fn add_interval(t: DateTime, iv: Interval) -> Option<DateTime> {
    if iv.months != 0 {
        let total = i64::from(t.year) * 12 + i64::from(t.month) - 1 + iv.months;
        let (y, m) = (total.div_euclid(12), (total.rem_euclid(12) + 1) as u8);
        if !(0..=9999).contains(&y) {
            overflow_warning();
            return None;
        }
        let d = t.day.min(days_in_month(y, m));
        let r = DateTime { year: y as u16, month: m, day: d, ..t };
        return if iv.micros == 0 {
            Some(r)
        } else {
            add_interval(r, Interval { months: 0, micros: iv.micros })
        };
    }
    let us = to_micros(&t).checked_add(iv.micros)?;
    let r = from_micros(us);
    if r.is_none() {
        overflow_warning();
    }
    r
}

// ---- week numbers (calc_week) -------------------------------------------------------------------

/// mysqld's `calc_daynr`: days since year 0.
fn daynr(y: i64, m: u8, d: u8) -> i64 {
    days_from_civil(y, i64::from(m), i64::from(d)) + 719_528
}

/// 0 = Monday .. 6 = Sunday (`calc_weekday(daynr, false)`), or 0 = Sunday with `sunday_first`.
fn weekday(daynr: i64, sunday_first: bool) -> i64 {
    (daynr + 5 + i64::from(sunday_first)).rem_euclid(7)
}

fn days_in_year(y: i64) -> i64 {
    if is_leap(y) {
        366
    } else {
        365
    }
}

/// mysqld's `calc_week` with its `week_mode` bits (1 Monday first, 2 year mode, 4 first
/// weekday); returns (week, year).
fn calc_week(t: &DateTime, week_mode: u32) -> (i64, i64) {
    let monday_first = week_mode & 1 != 0;
    let mut week_year = week_mode & 2 != 0;
    let first_weekday = week_mode & 4 != 0;
    let (mut year, m, d) = (i64::from(t.year), t.month, t.day);
    let day_nr = daynr(year, m, d);
    let mut first_daynr = daynr(year, 1, 1);
    let mut wd = weekday(first_daynr, !monday_first);
    if m == 1 && i64::from(d) <= 7 - wd {
        if !week_year && ((first_weekday && wd != 0) || (!first_weekday && wd >= 4)) {
            return (0, year);
        }
        week_year = true;
        year -= 1;
        let dy = days_in_year(year);
        first_daynr -= dy;
        wd = (wd + 53 * 7 - dy).rem_euclid(7);
    }
    let days = if (first_weekday && wd != 0) || (!first_weekday && wd >= 4) {
        day_nr - (first_daynr + (7 - wd))
    } else {
        day_nr - (first_daynr - wd)
    };
    if week_year && days >= 52 * 7 {
        let wd2 = (wd + days_in_year(year)).rem_euclid(7);
        if (!first_weekday && wd2 < 4) || (first_weekday && wd2 == 0) {
            return (1, year + 1);
        }
    }
    (days / 7 + 1, year)
}

/// WEEK()'s mode argument as `calc_week`'s bits (`week_mode`).
fn week_mode(mode: i64) -> u32 {
    let mut m = (mode & 7) as u32;
    if m & 1 == 0 {
        m ^= 4;
    }
    m
}

// ---- DATE_FORMAT / STR_TO_DATE ------------------------------------------------------------------

const MONTHS: [&str; 12] = [
    "January",
    "February",
    "March",
    "April",
    "May",
    "June",
    "July",
    "August",
    "September",
    "October",
    "November",
    "December",
];
const DAYS: [&str; 7] =
    ["Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday", "Sunday"];

/// mysqld's `make_date_time`: DATE_FORMAT (and TIME_FORMAT with `time`, where hours may
/// exceed 23 and date specifiers give NULL).
fn format(t: &DateTime, neg_time: Option<(bool, i64)>, fmt: &[u8]) -> Option<Vec<u8>> {
    use std::io::Write;
    let mut out = Vec::with_capacity(fmt.len() * 2);
    let hours: i64 = neg_time.map_or(i64::from(t.hour), |(_, h)| h);
    let mut it = fmt.iter();
    let wd = || weekday(daynr(i64::from(t.year), t.month, t.day), false) as usize;
    while let Some(&c) = it.next() {
        if c != b'%' {
            out.push(c);
            continue;
        }
        let Some(&s) = it.next() else { break };
        let date_spec = b"aDbcdeEjMmUuVvWwXxYy".contains(&s);
        if date_spec && neg_time.is_some() {
            return None;
        }
        let needs_real = b"aWwUuVvXxj".contains(&s);
        if needs_real && !is_real_date(t) {
            return None;
        }
        let _ = match s {
            b'a' => write!(out, "{}", &DAYS[wd()][..3]),
            b'W' => write!(out, "{}", DAYS[wd()]),
            b'b' if t.month == 0 => return None,
            b'b' => write!(out, "{}", &MONTHS[usize::from(t.month) - 1][..3]),
            b'M' if t.month == 0 => return None,
            b'M' => write!(out, "{}", MONTHS[usize::from(t.month) - 1]),
            b'c' => write!(out, "{}", t.month),
            b'm' => write!(out, "{:02}", t.month),
            b'D' => {
                let d = t.day;
                let suffix = match (d % 10, d / 10 % 10) {
                    (_, 1) => "th",
                    (1, _) => "st",
                    (2, _) => "nd",
                    (3, _) => "rd",
                    _ => "th",
                };
                write!(out, "{d}{suffix}")
            }
            b'd' => write!(out, "{:02}", t.day),
            b'e' => write!(out, "{}", t.day),
            b'Y' => write!(out, "{:04}", t.year),
            b'y' => write!(out, "{:02}", t.year % 100),
            b'j' => {
                let doy =
                    daynr(i64::from(t.year), t.month, t.day) - daynr(i64::from(t.year), 1, 1) + 1;
                write!(out, "{doy:03}")
            }
            b'H' => write!(out, "{hours:02}"),
            b'k' => write!(out, "{hours}"),
            b'h' | b'I' => write!(out, "{:02}", (hours % 12 + 11) % 12 + 1),
            b'l' => write!(out, "{}", (hours % 12 + 11) % 12 + 1),
            b'i' => write!(out, "{:02}", t.minute),
            b'S' | b's' => write!(out, "{:02}", t.second),
            b'f' => write!(out, "{:06}", t.micros),
            b'p' => write!(out, "{}", if hours % 24 < 12 { "AM" } else { "PM" }),
            b'r' => write!(
                out,
                "{:02}:{:02}:{:02} {}",
                (hours % 12 + 11) % 12 + 1,
                t.minute,
                t.second,
                if hours % 24 < 12 { "AM" } else { "PM" }
            ),
            b'T' => write!(out, "{:02}:{:02}:{:02}", hours, t.minute, t.second),
            // make_date_time's week modes: %U WEEK_FIRST_WEEKDAY (4), %u WEEK_MONDAY_FIRST
            // (1), %V/%X WEEK_YEAR | WEEK_FIRST_WEEKDAY (6), %v/%x WEEK_MONDAY_FIRST |
            // WEEK_YEAR (3).
            b'U' => write!(out, "{:02}", calc_week(t, 4).0),
            b'u' => write!(out, "{:02}", calc_week(t, 1).0),
            b'V' => write!(out, "{:02}", calc_week(t, 6).0),
            b'v' => write!(out, "{:02}", calc_week(t, 3).0),
            b'X' => write!(out, "{:04}", calc_week(t, 6).1),
            b'x' => write!(out, "{:04}", calc_week(t, 3).1),
            b'w' => write!(out, "{}", weekday(daynr(i64::from(t.year), t.month, t.day), true)),
            other => write!(out, "{}", other as char),
        };
    }
    if let Some((true, _)) = neg_time {
        out.insert(0, b'-');
    }
    Some(out)
}

/// What a STR_TO_DATE format produces: date parts, time parts, both.
fn format_kind(fmt: &[u8]) -> Kind {
    let (mut date, mut time, mut frac) = (false, false, false);
    let mut it = fmt.iter();
    while let Some(&c) = it.next() {
        if c == b'%' {
            match it.next() {
                Some(
                    b'a' | b'b' | b'c' | b'D' | b'd' | b'e' | b'j' | b'M' | b'm' | b'U' | b'u'
                    | b'V' | b'v' | b'W' | b'w' | b'X' | b'x' | b'Y' | b'y',
                ) => date = true,
                Some(b'f') => {
                    frac = true;
                    time = true
                }
                Some(
                    b'H' | b'h' | b'I' | b'i' | b'k' | b'l' | b'p' | b'r' | b'S' | b's' | b'T',
                ) => time = true,
                _ => {}
            }
        }
    }
    let _ = frac;
    match (date, time) {
        (true, false) => Kind::Date,
        (false, true) => Kind::Time,
        _ => Kind::DateTime,
    }
}

fn format_has_frac(fmt: &[u8]) -> bool {
    fmt.windows(2).any(|w| w == b"%f")
}

/// mysqld's `extract_date_time` (STR_TO_DATE): reads `text` by `fmt`.
fn str_to_date(text: &[u8], fmt: &[u8]) -> Option<DateTime> {
    let mut t = DateTime::ZERO;
    let (mut pos, mut fi) = (0usize, 0usize);
    let mut pm: Option<bool> = None;
    let mut hour12 = false;
    let mut yday: Option<i64> = None;
    let skip_space = |pos: &mut usize| {
        while *pos < text.len() && text[*pos].is_ascii_whitespace() {
            *pos += 1;
        }
    };
    let num = |pos: &mut usize, max: usize| -> Option<i64> {
        let start = *pos;
        while *pos < text.len() && *pos - start < max && text[*pos].is_ascii_digit() {
            *pos += 1;
        }
        if *pos == start {
            return None;
        }
        std::str::from_utf8(&text[start..*pos]).ok()?.parse().ok()
    };
    while fi < fmt.len() {
        let c = fmt[fi];
        if c.is_ascii_whitespace() {
            fi += 1;
            skip_space(&mut pos);
            continue;
        }
        if c != b'%' || fi + 1 >= fmt.len() {
            skip_space(&mut pos);
            if pos >= text.len() || text[pos] != c {
                return None;
            }
            pos += 1;
            fi += 1;
            continue;
        }
        let s = fmt[fi + 1];
        fi += 2;
        skip_space(&mut pos);
        let word = |pos: &mut usize, names: &[&str], short: bool| -> Option<usize> {
            for (i, n) in names.iter().enumerate() {
                let n = if short { &n[..3] } else { n };
                if text.len() >= *pos + n.len()
                    && text[*pos..*pos + n.len()].eq_ignore_ascii_case(n.as_bytes())
                {
                    *pos += n.len();
                    return Some(i);
                }
            }
            None
        };
        match s {
            b'Y' => {
                let start = pos;
                let y = num(&mut pos, 4)?;
                t.year = two_digit_year(y as u32, pos - start) as u16;
            }
            b'y' => t.year = two_digit_year(num(&mut pos, 2)? as u32, 2) as u16,
            b'm' | b'c' => t.month = u8::try_from(num(&mut pos, 2)?).ok()?,
            b'M' => t.month = word(&mut pos, &MONTHS, false)? as u8 + 1,
            b'b' => t.month = word(&mut pos, &MONTHS, true)? as u8 + 1,
            b'd' | b'e' => t.day = u8::try_from(num(&mut pos, 2)?).ok()?,
            b'D' => {
                t.day = u8::try_from(num(&mut pos, 2)?).ok()?;
                pos = (pos + 2).min(text.len());
            }
            b'H' | b'k' => t.hour = u8::try_from(num(&mut pos, 2)?).ok()?,
            b'h' | b'I' | b'l' => {
                t.hour = u8::try_from(num(&mut pos, 2)?).ok()?;
                hour12 = true;
            }
            b'i' => t.minute = u8::try_from(num(&mut pos, 2)?).ok()?,
            b'S' | b's' => t.second = u8::try_from(num(&mut pos, 2)?).ok()?,
            b'f' => {
                let start = pos;
                let f = num(&mut pos, 6)?;
                t.micros = (f * 10i64.pow(6 - (pos - start) as u32)) as u32;
            }
            b'p' => {
                if text.len() < pos + 2 {
                    return None;
                }
                let w = &text[pos..pos + 2];
                pm = Some(if w.eq_ignore_ascii_case(b"PM") {
                    true
                } else if w.eq_ignore_ascii_case(b"AM") {
                    false
                } else {
                    return None;
                });
                pos += 2;
            }
            b'j' => yday = Some(num(&mut pos, 3)?),
            b'a' => {
                word(&mut pos, &DAYS, true)?;
            }
            b'W' => {
                word(&mut pos, &DAYS, false)?;
            }
            b'T' => {
                t.hour = u8::try_from(num(&mut pos, 2)?).ok()?;
                (pos < text.len() && text[pos] == b':').then_some(())?;
                pos += 1;
                t.minute = u8::try_from(num(&mut pos, 2)?).ok()?;
                (pos < text.len() && text[pos] == b':').then_some(())?;
                pos += 1;
                t.second = u8::try_from(num(&mut pos, 2)?).ok()?;
            }
            b'r' => {
                t.hour = u8::try_from(num(&mut pos, 2)?).ok()?;
                (pos < text.len() && text[pos] == b':').then_some(())?;
                pos += 1;
                t.minute = u8::try_from(num(&mut pos, 2)?).ok()?;
                (pos < text.len() && text[pos] == b':').then_some(())?;
                pos += 1;
                t.second = u8::try_from(num(&mut pos, 2)?).ok()?;
                skip_space(&mut pos);
                if text.len() >= pos + 2 {
                    pm = Some(text[pos..pos + 2].eq_ignore_ascii_case(b"PM"));
                    pos += 2;
                }
                hour12 = true;
            }
            b'%' => {
                (pos < text.len() && text[pos] == b'%').then_some(())?;
                pos += 1;
            }
            _ => return None,
        }
    }
    if hour12 {
        if t.hour > 12 || t.hour == 0 {
            return None;
        }
        t.hour %= 12;
    }
    if pm == Some(true) {
        t.hour += 12;
    }
    if let Some(j) = yday {
        if j < 1 || j > days_in_year(i64::from(t.year)) {
            return None;
        }
        let (y, m, d) = civil_from_days(days_from_civil(i64::from(t.year), 1, 1) + j - 1);
        t.year = y as u16;
        t.month = m;
        t.day = d;
    }
    if pos < text.len() && text[pos..].iter().any(|c| !c.is_ascii_whitespace()) {
        warn(
            1292,
            format!("Truncated incorrect datetime value: '{}'", String::from_utf8_lossy(text)),
        );
    }
    if t.hour > 23 || t.minute > 59 || t.second > 59 || !t.is_valid() {
        return None;
    }
    Some(t)
}

// ---- the functions ------------------------------------------------------------------------------

fn int_arg(v: &Value) -> Option<i64> {
    match v {
        Value::Null => None,
        Value::Int(i) => Some(*i),
        Value::UInt(u) => Some(i64::try_from(*u).unwrap_or(i64::MAX)),
        Value::Bytes(b) => Some(super_str_to_f64(b).round() as i64),
        other => match numeric_parts(other) {
            Some((n, us)) if us >= 500_000 => Some(n.saturating_add(1)),
            Some((n, us)) if us <= -500_000 => Some(n.saturating_sub(1)),
            Some((n, _)) => Some(n),
            // Past BIGINT: `val_int` saturates (`double2longlong`, `my_decimal2int`).
            None => match other {
                Value::Double(d) if !d.is_nan() => Some(if *d < 0.0 { i64::MIN } else { i64::MAX }),
                Value::Float(f) if !f.is_nan() => Some(if *f < 0.0 { i64::MIN } else { i64::MAX }),
                Value::Decimal(d) => Some(if d.is_negative() { i64::MIN } else { i64::MAX }),
                _ => None,
            },
        },
    }
}

fn fsp_arg(args: &[Value]) -> Result<u8> {
    match args.first() {
        None => Ok(0),
        Some(v) => match int_arg(v) {
            Some(n @ 0..=6) => Ok(n as u8),
            _ => Err(SqlError::Other {
                code: 1426,
                sqlstate: "42000",
                message: format!(
                    "Too-big precision {} specified for 'now'. Maximum is 6.",
                    text_of(v)
                ),
            }),
        },
    }
}

/// A datetime result in the type of its input: the value, or its text for a string input.
fn dt_result(t: DateTime, kind: Kind, input_was_text: bool) -> Value {
    let v = if kind == Kind::Date && t.hour == 0 && t.minute == 0 && t.second == 0 && t.micros == 0
    {
        Value::Date(t)
    } else {
        Value::DateTime(t)
    };
    if input_was_text {
        Value::Bytes(v.to_string().into_bytes())
    } else {
        v
    }
}

/// Evaluates a date or time function over its evaluated arguments.
pub fn call(f: TimeFn, a: &[Value]) -> Result<Value> {
    let arg = |i: usize| a.get(i).cloned().unwrap_or(Value::Null);
    let null_in = |n: usize| a.iter().take(n).any(|v| *v == Value::Null);
    Ok(match f {
        TimeFn::Now => Value::DateTime(now_value(fsp_arg(a)?)),
        TimeFn::SysDate => {
            let fsp = fsp_arg(a)?;
            let t = from_micros(zone().utc_to_local(now_micros())).unwrap_or(DateTime::ZERO);
            Value::DateTime(DateTime {
                micros: round_us(i64::from(t.micros), fsp, true) as u32,
                ..t
            })
        }
        TimeFn::CurDate => Value::Date(date_part(local_now())),
        TimeFn::CurTime => Value::Time(time_of_day(&now_value(fsp_arg(a)?))),
        TimeFn::UtcTimestamp => Value::DateTime(utc_now(fsp_arg(a)?)),
        TimeFn::UtcDate => Value::Date(date_part(utc_now(0))),
        TimeFn::UtcTime => Value::Time(time_of_day(&utc_now(fsp_arg(a)?))),
        TimeFn::FromUtc => from_utc(arg(0)),
        TimeFn::DateFormat => {
            if null_in(2) {
                return Ok(Value::Null);
            }
            let Some((t, _)) = arg_datetime(&arg(0), true) else { return Ok(Value::Null) };
            // `Item_func_date_format::val_str`: an empty format is NULL (`null_date`).
            let f = super_bytes(&arg(1));
            if f.is_empty() {
                return Ok(Value::Null);
            }
            format(&t, None, &f).map_or(Value::Null, Value::Bytes)
        }
        TimeFn::TimeFormat => {
            if null_in(2) {
                return Ok(Value::Null);
            }
            let Some(us) = arg_time(&arg(0)) else { return Ok(Value::Null) };
            let abs = us.abs();
            let secs = abs / US_PER_SEC;
            let t = DateTime {
                year: 0,
                month: 0,
                day: 0,
                hour: 0,
                minute: (secs / 60 % 60) as u8,
                second: (secs % 60) as u8,
                micros: (abs % US_PER_SEC) as u32,
            };
            format(&t, Some((us < 0, secs / 3600)), &super_bytes(&arg(1)))
                .map_or(Value::Null, Value::Bytes)
        }
        TimeFn::StrToDate => {
            if null_in(2) {
                return Ok(Value::Null);
            }
            let (text, fmt) = (super_bytes(&arg(0)), super_bytes(&arg(1)));
            let r = str_to_date(&text, &fmt).filter(|t| match format_kind(&fmt) {
                Kind::Time => true,
                _ => !date_refused(t, Mode { no_zero_date: false, ..mode() }),
            });
            match r {
                None => {
                    warn(
                        1411,
                        format!(
                            "Incorrect datetime value: '{}' for function str_to_date",
                            String::from_utf8_lossy(&text)
                        ),
                    );
                    Value::Null
                }
                Some(t) => match format_kind(&fmt) {
                    Kind::Date => Value::Date(date_part(t)),
                    Kind::Time => Value::Time(time_of_day(&t)),
                    Kind::DateTime => Value::DateTime(t),
                },
            }
        }
        TimeFn::AddInterval { unit, sub } => add_interval_fn(&arg(0), &arg(1), unit, sub),
        TimeFn::TimestampAdd(unit) => add_interval_fn(&arg(1), &arg(0), unit, false),
        TimeFn::DateDiff => {
            if null_in(2) {
                return Ok(Value::Null);
            }
            match (arg_datetime(&arg(0), false), arg_datetime(&arg(1), false)) {
                (Some((x, _)), Some((y, _))) => Value::Int(
                    daynr(i64::from(x.year), x.month, x.day)
                        - daynr(i64::from(y.year), y.month, y.day),
                ),
                _ => Value::Null,
            }
        }
        TimeFn::TimeDiff => {
            if null_in(2) {
                return Ok(Value::Null);
            }
            let (x, y) = (arg(0), arg(1));
            let time_like = |v: &Value| match v {
                Value::Time(_) => true,
                Value::Bytes(b) => parse_dt(b).is_none_or(|p| !p.has_time || b.len() < 12),
                Value::DateTime(_) | Value::Date(_) => false,
                _ => true,
            };
            let r = match (time_like(&x), time_like(&y)) {
                (true, true) => arg_time(&x).zip(arg_time(&y)).map(|(p, q)| p - q),
                (false, false) => arg_datetime(&x, false)
                    .zip(arg_datetime(&y, false))
                    .map(|((p, _), (q, _))| to_micros(&p) - to_micros(&q)),
                _ => None,
            };
            match r {
                Some(us) => {
                    let (c, clamped) = clamp_time(us);
                    if clamped {
                        warn(
                            1292,
                            format!(
                                "Truncated incorrect time value: '{}'",
                                engine::temporal::TimeText(us, None)
                            ),
                        );
                    }
                    Value::Time(c)
                }
                None => Value::Null,
            }
        }
        TimeFn::TimestampDiff(unit) => {
            if null_in(2) {
                return Ok(Value::Null);
            }
            match (arg_datetime(&arg(0), false), arg_datetime(&arg(1), false)) {
                (Some((x, _)), Some((y, _))) => Value::Int(timestamp_diff(unit, &x, &y)),
                _ => Value::Null,
            }
        }
        TimeFn::Extract(unit) => extract(unit, &arg(0)),
        TimeFn::Year | TimeFn::Month | TimeFn::Day | TimeFn::Quarter => {
            let Some((t, _)) = arg_datetime(&arg(0), true) else { return Ok(Value::Null) };
            Value::Int(match f {
                TimeFn::Year => i64::from(t.year),
                TimeFn::Month => i64::from(t.month),
                TimeFn::Day => i64::from(t.day),
                _ => (i64::from(t.month) + 2) / 3,
            })
        }
        TimeFn::Hour | TimeFn::Minute | TimeFn::Second | TimeFn::Microsecond => {
            let Some(us) = arg_time(&arg(0)) else { return Ok(Value::Null) };
            let abs = us.abs();
            let secs = abs / US_PER_SEC;
            Value::Int(match f {
                TimeFn::Hour => secs / 3600,
                TimeFn::Minute => secs / 60 % 60,
                TimeFn::Second => secs % 60,
                _ => abs % US_PER_SEC,
            })
        }
        TimeFn::DayOfWeek
        | TimeFn::WeekDay
        | TimeFn::DayOfYear
        | TimeFn::ToDays
        | TimeFn::DayName => {
            let Some((t, _)) = arg_datetime(&arg(0), false) else { return Ok(Value::Null) };
            let n = daynr(i64::from(t.year), t.month, t.day);
            match f {
                TimeFn::DayOfWeek => Value::Int(weekday(n, true) + 1),
                TimeFn::WeekDay => Value::Int(weekday(n, false)),
                TimeFn::DayOfYear => Value::Int(n - daynr(i64::from(t.year), 1, 1) + 1),
                TimeFn::ToDays => Value::Int(n),
                _ => Value::Bytes(DAYS[weekday(n, false) as usize].as_bytes().to_vec()),
            }
        }
        TimeFn::MonthName => {
            let Some((t, _)) = arg_datetime(&arg(0), true) else { return Ok(Value::Null) };
            if t.month == 0 {
                Value::Null
            } else {
                Value::Bytes(MONTHS[usize::from(t.month) - 1].as_bytes().to_vec())
            }
        }
        TimeFn::Week | TimeFn::WeekOfYear | TimeFn::YearWeek => {
            let Some((t, _)) = arg_datetime(&arg(0), false) else { return Ok(Value::Null) };
            let m = match (f, a.get(1)) {
                (TimeFn::WeekOfYear, _) => 3,
                (_, Some(Value::Null)) => return Ok(Value::Null),
                (_, Some(v)) => int_arg(v).unwrap_or(0),
                (_, None) => 0,
            };
            if f == TimeFn::YearWeek {
                let (w, y) = calc_week(&t, week_mode(m) | 2);
                Value::Int(y * 100 + w)
            } else {
                Value::Int(calc_week(&t, week_mode(m)).0)
            }
        }
        TimeFn::LastDay => {
            let Some((t, _)) = arg_datetime(&arg(0), true) else { return Ok(Value::Null) };
            if t.month == 0 {
                warn(1292, format!("Incorrect datetime value: '{}'", text_of(&arg(0))));
                return Ok(Value::Null);
            }
            Value::Date(DateTime { day: days_in_month(i64::from(t.year), t.month), ..date_part(t) })
        }
        TimeFn::MakeDate => {
            let (Some(y), Some(d)) = (int_arg(&arg(0)), int_arg(&arg(1))) else {
                return Ok(Value::Null);
            };
            if d <= 0 || !(0..=9999).contains(&y) {
                return Ok(Value::Null);
            }
            let y = if y < 100 { i64::from(two_digit_year(y as u32, 2)) } else { y };
            // A day count past the calendar (1e20 reads as BIGINT's maximum) is NULL.
            let micros = (days_from_civil(y, 1, 1).checked_add(d - 1))
                .and_then(|n| n.checked_mul(US_PER_DAY));
            micros.and_then(from_micros).map_or(Value::Null, |t| Value::Date(date_part(t)))
        }
        TimeFn::MakeTime => {
            if null_in(3) {
                return Ok(Value::Null);
            }
            let (Some(h), Some(m)) = (int_arg(&arg(0)), int_arg(&arg(1))) else {
                return Ok(Value::Null);
            };
            let Some((s, us)) = number_parts(&match arg(2) {
                Value::Bytes(b) => Value::Double(super_str_to_f64(&b)),
                v => v,
            }) else {
                return Ok(Value::Null);
            };
            if !(0..60).contains(&m) || !(0..60).contains(&s) || us < 0 {
                return Ok(Value::Null);
            }
            let total = (h.abs().min(10_000) * 3600 + m * 60 + s) * US_PER_SEC + us;
            let (c, clamped) = clamp_time(if h < 0 { -total } else { total });
            if clamped {
                warn(1292, format!("Truncated incorrect time value: '{h}:{m:02}:{s:02}'"));
            }
            Value::Time(c)
        }
        TimeFn::Date => {
            let Some((t, _)) = arg_datetime(&arg(0), true) else { return Ok(Value::Null) };
            Value::Date(date_part(t))
        }
        TimeFn::Time => match arg_time(&arg(0)) {
            Some(us) => Value::Time(us),
            None => Value::Null,
        },
        TimeFn::UnixTimestamp => match a.first() {
            None => Value::Int(statement_now().div_euclid(US_PER_SEC)),
            Some(Value::Null) => Value::Null,
            Some(v) => match arg_datetime(v, false) {
                Some((t, _)) => {
                    let utc = zone().local_to_utc(to_micros(&t));
                    // A text argument's result has the fraction digits the text has (the
                    // shape's decimals for a constant, `Item::datetime_precision`).
                    let digits = match v {
                        Value::Bytes(b) => Some(text_fraction_digits(b)),
                        _ => None,
                    };
                    let exact = Decimal::new(i128::from(utc), 6);
                    if utc < 0 || utc > to_micros(&TIMESTAMP_MAX) {
                        Value::Int(0)
                    } else if let Some(d @ 1..) = digits {
                        Value::Decimal(exact.rescale(d).unwrap_or(exact))
                    } else if t.micros != 0 && digits.is_none() {
                        Value::Decimal(exact)
                    } else {
                        Value::Int(utc / US_PER_SEC)
                    }
                }
                None => Value::Null,
            },
        },
        TimeFn::FromUnixtime => {
            let Some((n, us)) = (match arg(0) {
                Value::Null => None,
                Value::Bytes(b) => number_parts(&Value::Double(super_str_to_f64(&b))),
                v => numeric_parts(&v),
            }) else {
                return Ok(Value::Null);
            };
            let utc = n.checked_mul(US_PER_SEC).and_then(|x| x.checked_add(us));
            let Some(utc) = utc.filter(|u| (0..=32_536_771_199_999_999).contains(u)) else {
                return Ok(Value::Null);
            };
            let Some(t) = from_micros(zone().utc_to_local(utc)) else { return Ok(Value::Null) };
            match a.get(1) {
                None => Value::DateTime(t),
                Some(Value::Null) => Value::Null,
                Some(fmt) => format(&t, None, &super_bytes(fmt)).map_or(Value::Null, Value::Bytes),
            }
        }
        TimeFn::ConvertTz => {
            if null_in(3) {
                return Ok(Value::Null);
            }
            let Some((t, _)) = arg_datetime(&arg(0), false) else { return Ok(Value::Null) };
            let (Ok(from), Ok(to)) = (parse_zone(&text_of(&arg(1))), parse_zone(&text_of(&arg(2))))
            else {
                return Ok(Value::Null);
            };
            let utc = from.local_to_utc(to_micros(&t));
            // Outside TIMESTAMP's range mysqld converts nothing.
            if utc < to_micros(&TIMESTAMP_MIN) - US_PER_SEC || utc > to_micros(&TIMESTAMP_MAX) {
                return Ok(Value::DateTime(t));
            }
            from_micros(to.utc_to_local(utc)).map_or(Value::Null, Value::DateTime)
        }
        TimeFn::FromDays => {
            let Some(n) = int_arg(&arg(0)) else { return Ok(Value::Null) };
            // `get_date_from_daynr`: below day 366 or past MAX_DAY_NUMBER (9999-12-31) the
            // zero date.
            if !(366..=3_652_424).contains(&n) {
                return Ok(Value::Date(DateTime::ZERO));
            }
            from_micros((n - 719_528).saturating_mul(US_PER_DAY))
                .map_or(Value::Date(DateTime::ZERO), |t| Value::Date(date_part(t)))
        }
        // MySQL 8.0's `Item_func_time_to_sec` is an integer function: hours, minutes and
        // seconds, the fraction dropped (`val_int`; MariaDB answers a DECIMAL with it).
        TimeFn::TimeToSec => match arg_time(&arg(0)) {
            Some(us) => Value::Int(us / US_PER_SEC),
            None => Value::Null,
        },
        // `Item_func_sec_to_time::get_time`: the argument's `val_decimal` (a string's numeric
        // prefix, warning 1292 for the rest) split by `my_decimal2lldiv_t`; past BIGINT
        // (`set_max_time`) or past TIME's range (`sec_to_time`'s `set_max_hhmmss`) it is
        // ±838:59:59 with no fraction and warning 1292 (MariaDB keeps .999999).
        TimeFn::SecToTime => {
            let v = arg(0);
            let (parts, negative) = match &v {
                Value::Null => return Ok(Value::Null),
                Value::Bytes(b) => {
                    if String::from_utf8_lossy(b).trim().parse::<f64>().is_err() {
                        warn(1292, format!("Truncated incorrect DECIMAL value: '{}'", text_of(&v)));
                    }
                    let d = super_str_to_f64(b);
                    (number_parts(&Value::Double(d)), d < 0.0)
                }
                Value::Int(i) => (numeric_parts(&v), *i < 0),
                Value::Decimal(d) => (numeric_parts(&v), d.is_negative()),
                Value::Double(d) => (numeric_parts(&v), *d < 0.0),
                Value::Float(f) => (numeric_parts(&v), *f < 0.0),
                v => (numeric_parts(v), false),
            };
            let total = parts.and_then(|(n, us)| n.checked_mul(US_PER_SEC)?.checked_add(us));
            let whole_max = TIME_MAX_MICROS - TIME_MAX_MICROS % US_PER_SEC;
            match total {
                Some(t) if t.abs() <= whole_max => Value::Time(t),
                _ => {
                    warn(1292, format!("Truncated incorrect time value: '{}'", text_of(&v)));
                    Value::Time(if negative { -whole_max } else { whole_max })
                }
            }
        }
        TimeFn::AddTime | TimeFn::SubTime => {
            if null_in(2) {
                return Ok(Value::Null);
            }
            let is_datetime = |v: &Value| match v {
                Value::DateTime(_) | Value::Date(_) => true,
                Value::Bytes(b) => parse_dt(b).is_some_and(|p| p.has_time && b.len() >= 12),
                _ => false,
            };
            // The second argument is a time: a datetime there makes the result NULL
            // (`Item_func_add_time`: `l_time2.time_type == MYSQL_TIMESTAMP_DATETIME`).
            if is_datetime(&arg(1)) {
                warn(
                    1292,
                    format!("Incorrect INTERVAL DAY TO SECOND value: '{}'", text_of(&arg(1))),
                );
                return Ok(Value::Null);
            }
            let Some(delta) = arg_time(&arg(1)) else { return Ok(Value::Null) };
            let delta = if f == TimeFn::SubTime { -delta } else { delta };
            let first = arg(0);
            let is_dt = is_datetime(&first);
            if is_dt {
                let Some((t, _)) = arg_datetime(&first, false) else { return Ok(Value::Null) };
                let r = from_micros(to_micros(&t) + delta);
                match r {
                    Some(r) if matches!(first, Value::Bytes(_)) => {
                        Value::Bytes(Value::DateTime(r).to_string().into_bytes())
                    }
                    Some(r) => Value::DateTime(r),
                    None => Value::Null,
                }
            } else {
                let Some(t) = arg_time(&first) else { return Ok(Value::Null) };
                let (c, _) = clamp_time(t + delta);
                // Of any first argument but a TIME the result is a string
                // (`Item_func_add_time::resolve_type`), printed by
                // `Item_temporal_hybrid_func::val_str_ascii` with six fraction digits when
                // there is a fraction and none otherwise: ADDTIME(0, 2.5) is
                // '00:00:02.500000', ADDTIME(2.5, 2.5) '00:00:05' (MariaDB keeps the
                // arguments' digits).
                if matches!(first, Value::Time(_)) {
                    Value::Time(c)
                } else {
                    Value::Bytes(Value::Time(c).to_string().into_bytes())
                }
            }
        }
        TimeFn::Cast(to) => cast(&arg(0), to),
        TimeFn::Literal(to) => literal(&arg(0), to)?,
        TimeFn::Text(fsp) => match arg(0) {
            Value::DateTime(t) => Value::Bytes(datetime_text(&t, fsp).into_bytes()),
            Value::Time(us) => {
                Value::Bytes(engine::temporal::TimeText(us, Some(fsp)).to_string().into_bytes())
            }
            other => other,
        },
    })
}

/// A DATETIME as text with exactly `fsp` fraction digits.
pub(crate) fn datetime_text(t: &DateTime, fsp: u8) -> String {
    let mut s = DateTime { micros: 0, ..*t }.to_string();
    let _ = engine::temporal::write_fraction(&mut s, t.micros, Some(fsp));
    s
}

/// mysqld's `create_temporal_literal`: the text of `DATE 'x'` must read as a date without a
/// time part, that of `TIMESTAMP 'x'` as a date with one, that of `TIME 'x'` as a time in
/// TIME's range, each with nothing left over and acceptable to the session's sql_mode
/// (NO_ZERO_DATE, NO_ZERO_IN_DATE, ALLOW_INVALID_DATES: `check_date`); otherwise the
/// statement fails with 1525 ER_WRONG_VALUE, where a CAST would give NULL and warning 1292.
pub fn literal(v: &Value, to: CastTo) -> Result<Value> {
    let Value::Bytes(text) = v else { return Ok(cast(v, to)) };
    let m = mode();
    let (ok, kind) = match to {
        CastTo::Date | CastTo::DateTime(_) => {
            let want_time = matches!(to, CastTo::DateTime(_));
            let ok = parse_dt(text)
                .is_some_and(|p| !p.trailing && p.has_time == want_time && !date_refused(&p.t, m));
            (ok, if want_time { "DATETIME" } else { "DATE" })
        }
        CastTo::Time(_) => {
            let ok = parse_time(text)
                .is_some_and(|(us, trailing)| !trailing && us.abs() <= TIME_MAX_MICROS);
            (ok, "TIME")
        }
        CastTo::Year => (false, "YEAR"),
    };
    if !ok {
        return Err(SqlError::Other {
            code: 1525,
            sqlstate: "HY000",
            message: format!("Incorrect {kind} value: '{}'", String::from_utf8_lossy(text)),
        });
    }
    Ok(cast(v, to))
}

fn super_bytes(v: &Value) -> Vec<u8> {
    match v {
        Value::Bytes(b) => b.clone(),
        v => v.to_string().into_bytes(),
    }
}

fn add_interval_fn(base: &Value, amount: &Value, unit: Unit, sub: bool) -> Value {
    if *base == Value::Null || *amount == Value::Null {
        return Value::Null;
    }
    let Some(mut iv) = interval_of(amount, unit) else { return Value::Null };
    if sub {
        iv.months = -iv.months;
        iv.micros = -iv.micros;
    }
    if let Value::Time(us) = base {
        // TIME + a time interval stays a TIME (mysqld 8.0).
        if iv.months == 0 {
            let (c, clamped) = clamp_time(us + iv.micros);
            return if clamped { Value::Null } else { Value::Time(c) };
        }
    }
    let Some((t, kind)) = arg_datetime(base, false) else { return Value::Null };
    let Some(r) = add_interval(t, iv) else { return Value::Null };
    let kind = if kind == Kind::Date && unit.is_date_only() { Kind::Date } else { Kind::DateTime };
    let r = if kind == Kind::DateTime { r } else { date_part(r) };
    if kind == Kind::DateTime && matches!(base, Value::Bytes(_) | Value::Int(_) | Value::UInt(_)) {
        return Value::Bytes(Value::DateTime(r).to_string().into_bytes());
    }
    dt_result(r, kind, matches!(base, Value::Bytes(_)))
}

/// TIMESTAMPDIFF(unit, x, y): y - x in whole units (months by calendar, as mysqld's
/// `Item_func_timestamp_diff::val_int`).
fn timestamp_diff(unit: Unit, x: &DateTime, y: &DateTime) -> i64 {
    let (a, b) = (to_micros(x), to_micros(y));
    let us = b - a;
    match unit {
        Unit::Year | Unit::Quarter | Unit::Month => {
            let (lo, hi, neg) = if b >= a { (x, y, false) } else { (y, x, true) };
            let mut months = (i64::from(hi.year) - i64::from(lo.year)) * 12 + i64::from(hi.month)
                - i64::from(lo.month);
            let tail = |t: &DateTime| (t.day, time_of_day(t));
            if tail(hi) < tail(lo) {
                months -= 1;
            }
            let m = match unit {
                Unit::Year => months / 12,
                Unit::Quarter => months / 3,
                _ => months,
            };
            if neg {
                -m
            } else {
                m
            }
        }
        Unit::Week => us / (7 * US_PER_DAY),
        Unit::Day => us / US_PER_DAY,
        Unit::Hour => us / (3600 * US_PER_SEC),
        Unit::Minute => us / (60 * US_PER_SEC),
        Unit::Second => us / US_PER_SEC,
        _ => us,
    }
}

fn extract(unit: Unit, v: &Value) -> Value {
    use Unit::*;
    if *v == Value::Null {
        return Value::Null;
    }
    let time_only = matches!(
        unit,
        Hour | Minute
            | Second
            | Microsecond
            | HourMinute
            | HourSecond
            | MinuteSecond
            | HourMicrosecond
            | MinuteMicrosecond
            | SecondMicrosecond
    );
    // A TIME (or time text) gives its hours beyond 24 and its sign.
    let is_time_value =
        matches!(v, Value::Time(_)) || matches!(v, Value::Bytes(b) if parse_dt(b).is_none());
    // mysqld's Item_extract reads the argument as a TIME for the time-only units
    // (`get_arg0_time`, str_to_time: '01:02:03' is a time, not the date 2001-02-03).
    let as_time = is_time_value
        || (time_only
            && matches!(v, Value::Bytes(b) if b.contains(&b':')
                && !parse_dt(b).is_some_and(|p| p.has_time)));
    if time_only
        || (is_time_value && matches!(unit, DayHour | DayMinute | DaySecond | DayMicrosecond | Day))
    {
        let us = if as_time {
            match arg_time(v) {
                Some(us) => us,
                None => return Value::Null,
            }
        } else {
            match arg_datetime(v, true) {
                Some((t, _)) => time_of_day(&t),
                None => return Value::Null,
            }
        };
        let sign = if us < 0 { -1 } else { 1 };
        let abs = us.abs();
        let secs = abs / US_PER_SEC;
        let (d, h, m, s, f) = if is_time_value {
            (secs / 86_400, secs / 3600 % 24, secs / 60 % 60, secs % 60, abs % US_PER_SEC)
        } else {
            (0, secs / 3600, secs / 60 % 60, secs % 60, abs % US_PER_SEC)
        };
        let h_total =
            if is_time_value && !matches!(unit, DayHour | DayMinute | DaySecond | DayMicrosecond) {
                secs / 3600
            } else {
                h
            };
        let n = match unit {
            Day => d,
            Hour => h_total,
            Minute => m,
            Second => s,
            Microsecond => f,
            HourMinute => h_total * 100 + m,
            HourSecond => (h_total * 100 + m) * 100 + s,
            MinuteSecond => m * 100 + s,
            HourMicrosecond => ((h_total * 100 + m) * 100 + s) * 1_000_000 + f,
            MinuteMicrosecond => (m * 100 + s) * 1_000_000 + f,
            SecondMicrosecond => s * 1_000_000 + f,
            DayHour => d * 100 + h,
            DayMinute => (d * 100 + h) * 100 + m,
            DaySecond => ((d * 100 + h) * 100 + m) * 100 + s,
            _ => (((d * 100 + h) * 100 + m) * 100 + s) * 1_000_000 + f,
        };
        return Value::Int(sign * n);
    }
    let Some((t, _)) = arg_datetime(v, true) else { return Value::Null };
    let (h, mi, s, f) =
        (i64::from(t.hour), i64::from(t.minute), i64::from(t.second), i64::from(t.micros));
    let d = i64::from(t.day);
    Value::Int(match unit {
        Year => i64::from(t.year),
        Quarter => (i64::from(t.month) + 2) / 3,
        Month => i64::from(t.month),
        Week => {
            if !is_real_date(&t) {
                return Value::Null;
            }
            calc_week(&t, week_mode(0)).0
        }
        Day => d,
        YearMonth => i64::from(t.year) * 100 + i64::from(t.month),
        DayHour => d * 100 + h,
        DayMinute => (d * 100 + h) * 100 + mi,
        DaySecond => ((d * 100 + h) * 100 + mi) * 100 + s,
        DayMicrosecond => (((d * 100 + h) * 100 + mi) * 100 + s) * 1_000_000 + f,
        _ => 0,
    })
}

/// CAST(v AS DATE / TIME(fsp) / DATETIME(fsp) / YEAR).
fn cast(v: &Value, to: CastTo) -> Value {
    if *v == Value::Null {
        return Value::Null;
    }
    let m = mode();
    match to {
        CastTo::Date | CastTo::DateTime(_) => {
            let r = match v {
                Value::Time(us) => from_micros(to_micros(&date_part(local_now())) + us),
                _ => as_datetime(v).map(|(t, _)| t),
            };
            let ok = r.filter(|t| !date_refused(t, m));
            match (ok, to) {
                (Some(t), CastTo::Date) => Value::Date(date_part(t)),
                (Some(t), CastTo::DateTime(fsp)) => round_datetime(t, fsp, m.truncate_fractional)
                    .map_or(Value::Null, Value::DateTime),
                _ => {
                    warn(1292, format!("Incorrect datetime value: '{}'", text_of(v)));
                    Value::Null
                }
            }
        }
        CastTo::Time(fsp) => match arg_time(v) {
            Some(us) => Value::Time(clamp_time(round_us(us, fsp, m.truncate_fractional)).0),
            None => Value::Null,
        },
        CastTo::Year => {
            let y = match v {
                Value::DateTime(t) | Value::Date(t) => Some(i64::from(t.year)),
                Value::Bytes(b) => {
                    let s = String::from_utf8_lossy(b);
                    match s.trim().parse::<i64>() {
                        Ok(0) if s.trim().len() < 4 => Some(2000),
                        Ok(n) => Some(n),
                        Err(_) => parse_dt(b).map(|p| i64::from(p.t.year)),
                    }
                }
                other => int_arg(other),
            };
            match y {
                Some(0) => Value::UInt(0),
                Some(n @ 1..=69) => Value::UInt(2000 + n as u64),
                Some(n @ 70..=99) => Value::UInt(1900 + n as u64),
                Some(n @ 1901..=2155) => Value::UInt(n as u64),
                _ => {
                    warn(1292, format!("Truncated incorrect YEAR value: '{}'", text_of(v)));
                    Value::Null
                }
            }
        }
    }
}

// ---- result types ------------------------------------------------------------------------------

/// The shape of an expression's result column: type, decimals.
pub type Shape = (MysqlType, u8);

fn temporal_decimals(s: Shape) -> u8 {
    match s.0 {
        MysqlType::DateTime | MysqlType::Timestamp | MysqlType::Time => s.1.min(6),
        MysqlType::Date | MysqlType::Year => 0,
        MysqlType::VarString | MysqlType::String | MysqlType::Blob => 6,
        MysqlType::NewDecimal => s.1.min(6),
        MysqlType::Double | MysqlType::Float => 6,
        _ => 0,
    }
}

/// TO_SECONDS(x) (`Item_func_to_seconds::val_int`): seconds since year 0 of a date or
/// datetime; None (with warning 1292) for what is not one.
pub(crate) fn to_seconds(v: &Value) -> Option<i64> {
    let (t, _) = arg_datetime(v, false)?;
    Some(
        daynr(i64::from(t.year), t.month, t.day) * 86400
            + i64::from(t.hour) * 3600
            + i64::from(t.minute) * 60
            + i64::from(t.second),
    )
}

#[cfg(test)]
mod precision_tests {
    use super::*;

    /// A constant string argument has the fraction digits it is written with (mysqld's
    /// `Item::time_precision` / `datetime_precision`): `TIME('10:11')` has none.
    #[test]
    fn constant_text_arguments_give_their_own_fraction_digits() {
        let lit = |t: &str| Expr::Lit(Value::Bytes(t.as_bytes().to_vec()));
        let string = |_: &Expr| (MysqlType::VarString, 0);
        assert_eq!(shape(TimeFn::Time, &[lit("10:11")], &string), (MysqlType::Time, 0));
        assert_eq!(
            shape(TimeFn::Time, &[lit("2024-03-05 10:11:12.5")], &string),
            (MysqlType::Time, 1)
        );
        assert_eq!(
            shape(
                TimeFn::ConvertTz,
                &[lit("2024-01-01 12:00:00"), lit("+00:00"), lit("+01:00")],
                &string
            ),
            (MysqlType::DateTime, 0)
        );
        assert_eq!(
            shape(TimeFn::UnixTimestamp, &[lit("2015-11-13 10:20:19.012")], &string),
            (MysqlType::NewDecimal, 3)
        );
        assert_eq!(
            shape(TimeFn::UnixTimestamp, &[lit("2015-11-13 10:20:19")], &string),
            (MysqlType::LongLong, 0)
        );
        assert_eq!(text_fraction_digits(b" 10:11:12.1234567 "), 6);
        assert_eq!(text_fraction_digits(b"2024-01-01"), 0);
    }
}

/// The fraction digits of a date or time text, at most 6: mysqld's `Item::datetime_precision`
/// and `time_precision` of a constant string argument read it as `status.fractional_digits`
/// (so `TIME('10:11')` has none and `UNIX_TIMESTAMP('... 19.012')` three).
fn text_fraction_digits(text: &[u8]) -> u8 {
    let s = text.trim_ascii();
    match s.iter().rposition(|&c| c == b'.') {
        Some(i) if i > 0 && s[i - 1].is_ascii_digit() => {
            s[i + 1..].iter().take_while(|c| c.is_ascii_digit()).count().min(6) as u8
        }
        _ => 0,
    }
}

/// An argument's fraction digits: a constant string's own ([`text_fraction_digits`]), else
/// its shape's.
fn arg_decimals(e: Option<&Expr>, s: Shape) -> u8 {
    match e {
        Some(Expr::Lit(Value::Bytes(b))) if is_string(s.0) => text_fraction_digits(b),
        _ => temporal_decimals(s),
    }
}

fn lit_fsp(args: &[Expr]) -> u8 {
    match args.first() {
        Some(Expr::Lit(v)) => int_arg(v).map_or(0, |n| n.clamp(0, 6) as u8),
        _ => 0,
    }
}

fn is_string(t: MysqlType) -> bool {
    matches!(t, MysqlType::VarString | MysqlType::String | MysqlType::Blob)
}

/// The result column's (type, decimals) of a date or time function, from its arguments'
/// shapes (mysqld's `resolve_type` of each `Item_func_*`).
pub fn shape(f: TimeFn, args: &[Expr], arg: &dyn Fn(&Expr) -> Shape) -> Shape {
    use MysqlType as T;
    let a0 = || args.first().map_or((T::Null, 0), arg);
    let a1 = || args.get(1).map_or((T::Null, 0), arg);
    let d0 = || arg_decimals(args.first(), a0());
    let d1 = || arg_decimals(args.get(1), a1());
    match f {
        TimeFn::Now | TimeFn::SysDate | TimeFn::UtcTimestamp => (T::DateTime, lit_fsp(args)),
        TimeFn::CurTime | TimeFn::UtcTime => (T::Time, lit_fsp(args)),
        TimeFn::CurDate
        | TimeFn::UtcDate
        | TimeFn::LastDay
        | TimeFn::MakeDate
        | TimeFn::Date
        | TimeFn::FromDays => (T::Date, 0),
        TimeFn::FromUtc => (T::Timestamp, a0().1),
        TimeFn::DateFormat | TimeFn::TimeFormat | TimeFn::DayName | TimeFn::MonthName => {
            (T::VarString, 31)
        }
        TimeFn::StrToDate => match args.get(1) {
            Some(Expr::Lit(Value::Bytes(fmt))) => match format_kind(fmt) {
                Kind::Date => (T::Date, 0),
                Kind::Time => (T::Time, if format_has_frac(fmt) { 6 } else { 0 }),
                Kind::DateTime => (T::DateTime, if format_has_frac(fmt) { 6 } else { 0 }),
            },
            _ => (T::DateTime, 6),
        },
        TimeFn::AddInterval { unit, .. } | TimeFn::TimestampAdd(unit) => {
            let (base, amount) =
                if matches!(f, TimeFn::TimestampAdd(_)) { (a1(), a0()) } else { (a0(), a1()) };
            let frac = if unit.has_micros() {
                6
            } else if unit == Unit::Second {
                match amount.0 {
                    T::NewDecimal => amount.1.min(6),
                    T::Double | T::Float | T::VarString | T::String | T::Blob => 6,
                    _ => 0,
                }
            } else {
                0
            };
            match base.0 {
                T::Date if unit.is_date_only() => (T::Date, 0),
                T::Date | T::DateTime | T::Timestamp => {
                    (T::DateTime, temporal_decimals(base).max(frac))
                }
                T::Time if !unit.is_date_only() || unit == Unit::Day || unit == Unit::Week => {
                    (T::Time, temporal_decimals(base).max(frac))
                }
                _ => (T::VarString, 31),
            }
        }
        TimeFn::DateDiff
        | TimeFn::TimestampDiff(_)
        | TimeFn::Extract(_)
        | TimeFn::Year
        | TimeFn::Month
        | TimeFn::Day
        | TimeFn::Hour
        | TimeFn::Minute
        | TimeFn::Second
        | TimeFn::Microsecond
        | TimeFn::DayOfWeek
        | TimeFn::DayOfYear
        | TimeFn::WeekDay
        | TimeFn::Week
        | TimeFn::WeekOfYear
        | TimeFn::YearWeek
        | TimeFn::Quarter
        | TimeFn::ToDays => (T::LongLong, 0),
        TimeFn::TimeToSec => (T::LongLong, 0),
        TimeFn::UnixTimestamp => match args.first().map(arg) {
            Some(s) if matches!(s.0, T::DateTime | T::Timestamp | T::Time) && s.1 > 0 => {
                (T::NewDecimal, s.1)
            }
            Some(s) if is_string(s.0) => match arg_decimals(args.first(), s) {
                0 if matches!(args.first(), Some(Expr::Lit(_))) => (T::LongLong, 0),
                d => (T::NewDecimal, d),
            },
            _ => (T::LongLong, 0),
        },
        TimeFn::TimeDiff => (T::Time, d0().max(d1())),
        TimeFn::MakeTime => (
            T::Time,
            match args.get(2).map(arg) {
                Some((T::NewDecimal, d)) => d.min(6),
                Some((T::Double | T::Float, _)) => 6,
                _ => 0,
            },
        ),
        TimeFn::SecToTime => (
            T::Time,
            match a0() {
                (T::NewDecimal, d) => d.min(6),
                (T::Double | T::Float | T::VarString, _) => 6,
                _ => 0,
            },
        ),
        TimeFn::Time => (T::Time, d0()),
        TimeFn::FromUnixtime if args.len() > 1 => (T::VarString, 31),
        TimeFn::FromUnixtime => (
            T::DateTime,
            match a0() {
                (T::NewDecimal, d) => d.min(6),
                (T::Double | T::Float | T::VarString, _) => 6,
                _ => 0,
            },
        ),
        TimeFn::ConvertTz => (T::DateTime, d0()),
        TimeFn::AddTime | TimeFn::SubTime => match a0().0 {
            T::DateTime | T::Timestamp | T::Date => (T::DateTime, d0().max(d1())),
            T::Time => (T::Time, d0().max(d1())),
            // A string result (its text has six fraction digits or none, see `call`).
            _ => (T::VarString, d0().max(d1()).min(6)),
        },
        TimeFn::Cast(CastTo::Date) | TimeFn::Literal(CastTo::Date) => (T::Date, 0),
        TimeFn::Cast(CastTo::DateTime(fsp)) | TimeFn::Literal(CastTo::DateTime(fsp)) => {
            (T::DateTime, fsp)
        }
        TimeFn::Cast(CastTo::Time(fsp)) | TimeFn::Literal(CastTo::Time(fsp)) => (T::Time, fsp),
        TimeFn::Cast(CastTo::Year) | TimeFn::Literal(CastTo::Year) => (T::Year, 0),
        TimeFn::Text(_) => (T::VarString, 31),
    }
}

/// mysqld's display width of a temporal result column of `decimals` fraction digits.
pub fn length(ty: MysqlType, decimals: u8) -> Option<u32> {
    let frac = |d: u8| if d > 0 && d <= 6 { u32::from(d) + 1 } else { 0 };
    Some(match ty {
        MysqlType::Date => 10,
        MysqlType::Time => 10 + frac(decimals),
        MysqlType::DateTime | MysqlType::Timestamp => 19 + frac(decimals),
        MysqlType::Year => 4,
        _ => return None,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn dt(s: &str) -> DateTime {
        parse_dt(s.as_bytes()).unwrap_or_else(|| panic!("{s}")).t
    }

    #[test]
    fn text_forms_parse_as_mysqld_reads_them() {
        assert_eq!(dt("2024-02-29 13:14:15.5").to_string(), "2024-02-29 13:14:15.500000");
        assert_eq!(dt("24-2-9").to_string(), "2024-02-09 00:00:00");
        assert_eq!(dt("99/12/31 23.59.59").to_string(), "1999-12-31 23:59:59");
        assert_eq!(dt("20240102030405").to_string(), "2024-01-02 03:04:05");
        assert_eq!(dt("2024-01-02T03:04:05").to_string(), "2024-01-02 03:04:05");
        assert!(parse_dt(b"2024-13-01").is_none());
        assert!(parse_dt(b"abc").is_none());
        assert!(parse_dt(b"2024-01-01 x").unwrap().trailing);
        assert_eq!(number_to_datetime(20240131).unwrap().0.to_string(), "2024-01-31 00:00:00");
        assert!(number_to_datetime(20240132).is_none());
        assert_eq!(number_to_datetime(240131).unwrap().0.year, 2024);
        assert_eq!(parse_time(b"-838:59:59").unwrap().0, -TIME_MAX_MICROS);
        assert_eq!(
            parse_time(b"1 02:03:04.5").unwrap().0,
            ((26 * 60 + 3) * 60 + 4) * US_PER_SEC + 500_000
        );
        assert_eq!(parse_time(b"123456").unwrap().0, ((12 * 60 + 34) * 60 + 56) * US_PER_SEC);
    }

    #[test]
    fn strict_mode_checks_dates() {
        let m = Mode::DEFAULT;
        assert!(date_refused(&dt("2024-02-30"), m));
        assert!(!date_refused(&dt("2024-02-29"), m));
        assert!(date_refused(&DateTime::ZERO, m));
        assert!(date_refused(&dt("2024-00-01"), m));
        let lax = Mode::parse("");
        assert!(!date_refused(&DateTime::ZERO, lax));
        assert!(date_refused(&dt("2024-02-30"), lax));
        assert!(!date_refused(&dt("2024-02-30"), Mode::parse("ALLOW_INVALID_DATES")));
    }

    #[test]
    fn store_rounds_and_converts() {
        begin(Zone::Offset(3600), Mode::DEFAULT, 0);
        let c = Column::new("v", ColumnType::DateTime { fsp: 0 });
        let v = store(Value::Bytes(b"2024-12-31 23:59:59.5".to_vec()), &c, 1).unwrap();
        assert_eq!(v.to_string(), "2025-01-01 00:00:00");
        let e = store(Value::Bytes(b"2024-02-30".to_vec()), &c, 1).unwrap_err();
        assert_eq!(
            (e.code(), e.to_string().as_str()),
            (1292, "Incorrect datetime value: '2024-02-30' for column 'v' at row 1")
        );
        assert_eq!(
            store(Value::Int(20240101000001), &c, 1).unwrap().to_string(),
            "2024-01-01 00:00:01"
        );
        assert!(store(Value::Int(20240132), &c, 1).is_err());
        let ts = Column::new("t", ColumnType::Timestamp { fsp: 0 });
        let v = store(Value::Bytes(b"2024-06-01 12:00:00".to_vec()), &ts, 1).unwrap();
        assert_eq!(v.to_string(), "2024-06-01 11:00:00");
        assert_eq!(from_utc(v).to_string(), "2024-06-01 12:00:00");
        assert!(store(Value::Bytes(b"2038-01-19 05:00:00".to_vec()), &ts, 1).is_err());
        let t = Column::new("t", ColumnType::Time { fsp: 1 });
        assert_eq!(
            store(Value::Bytes(b"-1:2:3.46".to_vec()), &t, 1).unwrap().to_string(),
            "-01:02:03.500000"
        );
        let y = Column::new("y", ColumnType::Year);
        assert_eq!(store(Value::Bytes(b"0".to_vec()), &y, 1).unwrap(), Value::UInt(2000));
        assert_eq!(store(Value::Int(0), &y, 1).unwrap(), Value::UInt(0));
        assert_eq!(store(Value::Int(69), &y, 1).unwrap(), Value::UInt(2069));
        begin(Zone::System, Mode::parse("TIME_TRUNCATE_FRACTIONAL"), 0);
        let v = store(Value::Bytes(b"2024-12-31 23:59:59.5".to_vec()), &c, 1).unwrap();
        assert_eq!(v.to_string(), "2024-12-31 23:59:59");
        let v = store(Value::Bytes(b"2024-02-30".to_vec()), &c, 1).unwrap();
        assert_eq!(v.to_string(), "0000-00-00 00:00:00");
        assert_eq!(take_warnings().len(), 1);
    }

    #[test]
    fn functions() {
        begin(Zone::System, Mode::DEFAULT, 0);
        let s = |x: &str| Value::Bytes(x.as_bytes().to_vec());
        let d = |x: &str| Value::DateTime(dt(x));
        let r = call(
            TimeFn::DateFormat,
            &[d("2024-03-05 14:07:09"), s("%W %D %M %Y %H:%i:%s %p %j %a %b %e %c %y %T %r %f")],
        )
        .unwrap();
        assert_eq!(
            r.to_string(),
            "Tuesday 5th March 2024 14:07:09 PM 065 Tue Mar 5 3 24 14:07:09 02:07:09 PM 000000"
        );
        let r = call(
            TimeFn::AddInterval { unit: Unit::Month, sub: false },
            &[s("2024-01-31"), Value::Int(1)],
        )
        .unwrap();
        assert_eq!(r.to_string(), "2024-02-29");
        let r = call(
            TimeFn::AddInterval { unit: Unit::DaySecond, sub: true },
            &[d("2024-01-01 00:00:00"), s("1 1:1:1")],
        )
        .unwrap();
        assert_eq!(r.to_string(), "2023-12-30 22:58:59");
        let r = call(
            TimeFn::AddInterval { unit: Unit::SecondMicrosecond, sub: false },
            &[d("2024-01-01 00:00:00"), s("1.5")],
        )
        .unwrap();
        assert_eq!(r.to_string(), "2024-01-01 00:00:01.500000");
        assert_eq!(
            call(TimeFn::DateDiff, &[s("2024-03-01"), s("2024-02-01")]).unwrap(),
            Value::Int(29)
        );
        assert_eq!(
            call(TimeFn::TimestampDiff(Unit::Month), &[s("2024-01-31"), s("2024-02-29")]).unwrap(),
            Value::Int(0)
        );
        assert_eq!(
            call(TimeFn::TimestampDiff(Unit::Month), &[s("2024-01-31"), s("2024-03-31")]).unwrap(),
            Value::Int(2)
        );
        assert_eq!(call(TimeFn::Week, &[s("2024-01-01")]).unwrap(), Value::Int(0));
        assert_eq!(call(TimeFn::Week, &[s("2024-01-01"), Value::Int(3)]).unwrap(), Value::Int(1));
        assert_eq!(call(TimeFn::YearWeek, &[s("2021-01-01")]).unwrap(), Value::Int(202052));
        assert_eq!(call(TimeFn::ToDays, &[s("2007-10-07")]).unwrap(), Value::Int(733321));
        assert_eq!(call(TimeFn::DayOfWeek, &[s("2024-03-05")]).unwrap(), Value::Int(3));
        assert_eq!(
            call(TimeFn::StrToDate, &[s("May 1, 2013"), s("%M %d,%Y")]).unwrap().to_string(),
            "2013-05-01"
        );
        assert_eq!(
            call(TimeFn::StrToDate, &[s("2024-02-30"), s("%Y-%m-%d")]).unwrap(),
            Value::Null
        );
        assert_eq!(
            call(TimeFn::Extract(Unit::YearMonth), &[s("2019-07-02 01:02:03")]).unwrap(),
            Value::Int(201907)
        );
        // A time text is a TIME for the time units (mysqld's get_arg0_time), not 2001-02-03.
        assert_eq!(call(TimeFn::Extract(Unit::Second), &[s("01:02:03")]).unwrap(), Value::Int(3));
        assert_eq!(
            call(TimeFn::Extract(Unit::Second), &[s("2019-07-02 01:02:03")]).unwrap(),
            Value::Int(3)
        );
        // %U is week mode 4 (Sunday first, weeks from the first Sunday), %V/%X mode 6.
        assert_eq!(
            call(TimeFn::DateFormat, &[s("2024-03-05"), s("%U %V %X")]).unwrap().to_string(),
            "09 09 2024"
        );
        assert_eq!(
            call(TimeFn::DateFormat, &[s("2023-01-01"), s("%U %V %X")]).unwrap().to_string(),
            "01 01 2023"
        );
        assert_eq!(
            call(TimeFn::Extract(Unit::HourSecond), &[Value::Time(-TIME_MAX_MICROS)]).unwrap(),
            Value::Int(-8385959)
        );
        assert_eq!(
            call(TimeFn::TimeDiff, &[s("2000:01:01 00:00:00"), s("2000:01:01 00:00:00.000001")])
                .unwrap()
                .to_string(),
            "-00:00:00.000001"
        );
        assert_eq!(call(TimeFn::Date, &[s("2024-02-30")]).unwrap(), Value::Null);
        assert_eq!(
            call(TimeFn::ConvertTz, &[s("2004-01-01 12:00:00"), s("+00:00"), s("+10:00")])
                .unwrap()
                .to_string(),
            "2004-01-01 22:00:00"
        );
        assert_eq!(
            call(TimeFn::FromUnixtime, &[Value::Int(1_447_430_881)]).unwrap().to_string(),
            "2015-11-13 16:08:01"
        );
        assert_eq!(
            call(TimeFn::MakeTime, &[Value::Int(12), Value::Int(15), Value::Int(30)])
                .unwrap()
                .to_string(),
            "12:15:30"
        );
        assert_eq!(call(TimeFn::LastDay, &[s("2004-02-05")]).unwrap().to_string(), "2004-02-29");
        assert_eq!(
            call(TimeFn::MakeDate, &[Value::Int(2011), Value::Int(32)]).unwrap().to_string(),
            "2011-02-01"
        );
    }

    #[test]
    fn named_zones_follow_dst() {
        let z = parse_zone("Europe/Paris").expect("tzdata installed");
        let summer = to_micros(&dt("2024-07-01 12:00:00"));
        assert_eq!(z.local_to_utc(summer), summer - 2 * 3600 * US_PER_SEC);
        let winter = to_micros(&dt("2024-01-01 12:00:00"));
        assert_eq!(z.utc_to_local(winter), winter + 3600 * US_PER_SEC);
        assert!(parse_zone("../etc/passwd").is_err());
        assert!(parse_zone("+14:01").is_err());
        assert!(matches!(parse_zone("-05:30"), Ok(Zone::Offset(-19_800))));
    }
}
