//! Issue 19's remaining scalar functions that need no session state at evaluation, with
//! mysqld's results: COMPRESS/UNCOMPRESS/UNCOMPRESSED_LENGTH (`Item_func_compress`, item_
//! strfunc.cc), PERIOD_ADD/PERIOD_DIFF (`Item_func_period_add`, item_timefunc.cc, with
//! `convert_period_to_month`'s two-digit years), TO_SECONDS, RANDOM_BYTES
//! (`Item_func_random_bytes`), ANY_VALUE and NAME_CONST (their argument's value), UUID_SHORT
//! (`Item_func_uuid_short`: server id, start-up time and a counter), SLEEP (`Item_func_sleep`)
//! (KILL-able: it polls the statement's interrupt check, `engine::interrupt_requested`), the
//! names of the user-lock functions (run at binding, `userlocks.rs`), and BENCHMARK (`Item_func_benchmark`, evaluated in `eval.rs` because it re-evaluates its
//! argument expression).
//!
//! COMPRESS's format is mysqld's: the uncompressed length in 4 little-endian bytes, then the
//! zlib stream (`flate2`, the maintained zlib binding, writes the same format as mysqld's
//! `compress()`), plus a `.` when the stream ends with a space (so a CHAR column keeps it).
//! RANDOM_BYTES reads the operating system's generator (`getrandom`), as mysqld reads
//! OpenSSL's `RAND_bytes`.
//!
//! Invariants: UNCOMPRESS never allocates more than [`MAX_UNCOMPRESSED`] (mysqld's bound is
//! `max_allowed_packet`; over it the answer is NULL, as mysqld's with warning 1256), and
//! checks the stream's length against the header; SLEEP waits at most [`MAX_SLEEP`] seconds
//! per call; BENCHMARK's count is bounded by [`MAX_BENCHMARK`].

use std::io::{Read, Write};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::OnceLock;
use std::time::Duration;

use engine::Value;

use super::to_text;
use crate::ast::MiscFn;
use crate::error::{Result, SqlError};

/// The largest UNCOMPRESS result (the default `max_allowed_packet`, 64 MiB).
pub(crate) const MAX_UNCOMPRESSED: usize = 64 << 20;
/// The longest SLEEP (mysqld's has no bound but is KILL-able; a day bounds a runaway call).
pub(crate) const MAX_SLEEP: f64 = 86_400.0;
/// BENCHMARK's largest count.
pub(crate) const MAX_BENCHMARK: i64 = 1 << 40;

impl MiscFn {
    /// The function named `name` with its (min, max) argument counts.
    pub(crate) fn by_name(name: &str) -> Option<(MiscFn, usize, usize)> {
        use MiscFn::*;
        Some(match name {
            "compress" => (Compress, 1, 1),
            "uncompress" => (Uncompress, 1, 1),
            "uncompressed_length" => (UncompressedLength, 1, 1),
            "period_add" => (PeriodAdd, 2, 2),
            "period_diff" => (PeriodDiff, 2, 2),
            "to_seconds" => (ToSeconds, 1, 1),
            "random_bytes" => (RandomBytes, 1, 1),
            "any_value" => (AnyValue, 1, 1),
            "name_const" => (NameConst, 2, 2),
            "uuid_short" => (UuidShort, 0, 0),
            "sleep" => (Sleep, 1, 1),
            "benchmark" => (Benchmark, 2, 2),
            "row_count" => (RowCount, 0, 0),
            "found_rows" => (FoundRows, 0, 0),
            "format_bytes" => (FormatBytes, 1, 1),
            "format_pico_time" => (FormatPicoTime, 1, 1),
            "get_format" => (GetFormat, 2, 2),
            "get_lock" => (GetLock, 2, 2),
            "release_lock" => (ReleaseLock, 1, 1),
            "is_free_lock" => (IsFreeLock, 1, 1),
            "is_used_lock" => (IsUsedLock, 1, 1),
            "release_all_locks" => (ReleaseAllLocks, 0, 0),
            _ => return None,
        })
    }

    pub(crate) fn name(self) -> &'static str {
        use MiscFn::*;
        match self {
            Compress => "compress",
            Uncompress => "uncompress",
            UncompressedLength => "uncompressed_length",
            PeriodAdd => "period_add",
            PeriodDiff => "period_diff",
            ToSeconds => "to_seconds",
            RandomBytes => "random_bytes",
            AnyValue => "any_value",
            NameConst => "name_const",
            UuidShort => "uuid_short",
            Sleep => "sleep",
            Benchmark => "benchmark",
            RowCount => "row_count",
            FoundRows => "found_rows",
            FormatBytes => "format_bytes",
            FormatPicoTime => "format_pico_time",
            GetFormat => "get_format",
            GetLock => "get_lock",
            ReleaseLock => "release_lock",
            IsFreeLock => "is_free_lock",
            IsUsedLock => "is_used_lock",
            ReleaseAllLocks => "release_all_locks",
        }
    }

    /// Whether the result is BIGINT.
    pub(crate) fn is_integer(self) -> bool {
        use MiscFn::*;
        matches!(
            self,
            UncompressedLength
                | PeriodAdd
                | PeriodDiff
                | ToSeconds
                | UuidShort
                | Sleep
                | Benchmark
                | RowCount
                | FoundRows
                | GetLock
                | ReleaseLock
                | IsFreeLock
                | IsUsedLock
                | ReleaseAllLocks
        )
    }

    /// Whether the result is a binary string.
    pub(crate) fn is_binary(self) -> bool {
        matches!(self, MiscFn::Compress | MiscFn::Uncompress | MiscFn::RandomBytes)
    }

    /// Whether the result is its argument's (ANY_VALUE, NAME_CONST's second).
    pub(crate) fn passes_through(self) -> Option<usize> {
        match self {
            MiscFn::AnyValue => Some(0),
            MiscFn::NameConst => Some(1),
            _ => None,
        }
    }
}

/// An integer argument (mysqld's `val_int`: rounded), or None for NULL.
pub(crate) fn int_arg(v: &Value) -> Option<i64> {
    match super::num(v)? {
        super::Num::Int(i) => Some(i.clamp(i128::from(i64::MIN), i128::from(i64::MAX)) as i64),
        n => {
            let d = super::num_f64(n).round();
            Some(d.clamp(i64::MIN as f64, i64::MAX as f64) as i64)
        }
    }
}

fn wrong_arguments(f: MiscFn) -> SqlError {
    SqlError::Other {
        code: 1210,
        sqlstate: "HY000",
        message: format!("Incorrect arguments to {}", f.name()),
    }
}

/// Evaluates `f` over its evaluated arguments.
pub(crate) fn call(f: MiscFn, a: &[Value]) -> Result<Value> {
    use MiscFn::*;
    if let Some(i) = f.passes_through() {
        return Ok(a.get(i).cloned().unwrap_or(Value::Null));
    }
    match f {
        // The binder appends the server id (`exec.rs`).
        UuidShort => {
            let id = a.first().and_then(int_arg).unwrap_or(0);
            return Ok(Value::UInt(uuid_short(id as u64)));
        }
        RowCount | FoundRows | Benchmark | GetLock | ReleaseLock | IsFreeLock | IsUsedLock
        | ReleaseAllLocks => {
            return Err(SqlError::Other {
                code: 1105,
                sqlstate: "HY000",
                message: format!("internal: {} not bound", f.name()),
            })
        }
        _ => {}
    }
    let first = a.first().cloned().unwrap_or(Value::Null);
    if a.contains(&Value::Null) {
        // SLEEP(NULL) is 1210 in mysqld 8.0 ("Incorrect arguments to sleep").
        return if f == Sleep { Err(wrong_arguments(f)) } else { Ok(Value::Null) };
    }
    Ok(match f {
        Compress => Value::Bytes(compress(&to_text(&first))),
        Uncompress => uncompress(&to_text(&first)).map_or(Value::Null, Value::Bytes),
        UncompressedLength => {
            let b = to_text(&first);
            // Empty, or too short to hold a length (mysqld warns 1259 there): 0.
            if b.len() <= 4 {
                Value::Int(0)
            } else {
                Value::Int(i64::from(u32::from_le_bytes([b[0], b[1], b[2], b[3]]) & 0x3FFF_FFFF))
            }
        }
        PeriodAdd | PeriodDiff => {
            let (p, n) = (int_arg(&first).unwrap_or(0), int_arg(&a[1]).unwrap_or(0));
            if f == PeriodAdd {
                if !valid_period(p) {
                    return Err(wrong_arguments(f));
                }
                let months = period_to_month(p as u64).wrapping_add(n as u64);
                Value::Int(month_to_period(months) as i64)
            } else {
                if !valid_period(p) || !valid_period(n) {
                    return Err(wrong_arguments(f));
                }
                Value::Int(
                    (period_to_month(p as u64) as i64)
                        .wrapping_sub(period_to_month(n as u64) as i64),
                )
            }
        }
        ToSeconds => crate::temporal::to_seconds(&first).map_or(Value::Null, Value::Int),
        FormatBytes | FormatPicoTime => {
            let x = super::num(&first).map_or(0.0, super::num_f64);
            Value::Bytes(human(x, f == FormatBytes).into_bytes())
        }
        GetFormat => {
            let kind = to_text(&first);
            let name = to_text(&a[1]).to_ascii_uppercase();
            let col = match kind.as_slice() {
                b"DATE" => 0,
                b"DATETIME" | b"TIMESTAMP" => 1,
                _ => 2,
            };
            match KNOWN_FORMATS.iter().find(|(n, _)| n.as_bytes() == name.as_slice()) {
                Some((_, formats)) => Value::Bytes(formats[col].as_bytes().to_vec()),
                None => Value::Null,
            }
        }
        RandomBytes => {
            let n = int_arg(&first).unwrap_or(0);
            if !(1..=1024).contains(&n) {
                return Err(SqlError::Other {
                    code: 1690,
                    sqlstate: "22003",
                    message: "length value is out of range in 'random_bytes'".into(),
                });
            }
            let mut buf = vec![0u8; n as usize];
            getrandom::getrandom(&mut buf).map_err(|e| SqlError::Other {
                code: 1105,
                sqlstate: "HY000",
                message: format!("random_bytes: {e}"),
            })?;
            Value::Bytes(buf)
        }
        Sleep => {
            let secs = match super::num(&first) {
                Some(n) => super::num_f64(n),
                None => 0.0,
            };
            if secs < 0.0 || !secs.is_finite() {
                return Err(wrong_arguments(f));
            }
            // KILL QUERY ends the sleep early: SLEEP answers 1 then, without error
            // (`Item_func_sleep::val_int`).
            let deadline = std::time::Instant::now() + Duration::from_secs_f64(secs.min(MAX_SLEEP));
            loop {
                let now = std::time::Instant::now();
                if now >= deadline {
                    break Value::Int(0);
                }
                if engine::interrupt_requested() {
                    break Value::Int(1);
                }
                std::thread::sleep((deadline - now).min(Duration::from_millis(50)));
            }
        }
        _ => Value::Null,
    })
}

/// GET_FORMAT's table (`known_date_time_formats`, item_timefunc.cc): date, datetime, time.
const KNOWN_FORMATS: [(&str, [&str; 3]); 5] = [
    ("USA", ["%m.%d.%Y", "%Y-%m-%d %H.%i.%s", "%h:%i:%s %p"]),
    ("JIS", ["%Y-%m-%d", "%Y-%m-%d %H:%i:%s", "%H:%i:%s"]),
    ("ISO", ["%Y-%m-%d", "%Y-%m-%d %H:%i:%s", "%H:%i:%s"]),
    ("EUR", ["%d.%m.%Y", "%Y-%m-%d %H.%i.%s", "%H.%i.%s"]),
    ("INTERNAL", ["%Y%m%d", "%Y%m%d%H%i%s", "%H%i%s"]),
];

/// FORMAT_BYTES (`bytes`) and FORMAT_PICO_TIME (`Item_func_pfs_format_bytes::val_str` and
/// `..._pico_time`): the largest unit the value reaches, `%4d`/`%3d` for the base unit,
/// `%4.2f` (or `%4.2e` from 100000) for the others.
fn human(x: f64, bytes: bool) -> String {
    const BYTE_UNITS: [(f64, &str); 6] = [
        (1_152_921_504_606_846_976.0, "EiB"),
        (1_125_899_906_842_624.0, "PiB"),
        (1_099_511_627_776.0, "TiB"),
        (1_073_741_824.0, "GiB"),
        (1_048_576.0, "MiB"),
        (1024.0, "KiB"),
    ];
    const TIME_UNITS: [(f64, &str); 7] = [
        (86_400e12, "d"),
        (3_600e12, "h"),
        (60e12, "min"),
        (1e12, "s"),
        (1e9, "ms"),
        (1e6, "us"),
        (1e3, "ns"),
    ];
    let abs = x.abs();
    let unit = if bytes {
        BYTE_UNITS.iter().find(|(d, _)| abs >= *d)
    } else {
        TIME_UNITS.iter().find(|(d, _)| abs >= *d)
    };
    match unit {
        None => {
            // `(int)` of the double: truncation toward zero, saturating.
            let n = x.trunc().clamp(f64::from(i32::MIN), f64::from(i32::MAX)) as i32;
            if bytes {
                format!("{n:4} bytes")
            } else {
                format!("{n:3} ps")
            }
        }
        Some((divisor, name)) => {
            let v = x / divisor;
            if v.abs() >= 100_000.0 {
                format!("{} {name}", c_exp(v))
            } else {
                format!("{v:4.2} {name}")
            }
        }
    }
}

/// C's `%4.2e`: `d.dde+XX` (at least two exponent digits).
fn c_exp(v: f64) -> String {
    let s = format!("{v:.2e}");
    let (mantissa, exp) = s.split_once('e').unwrap_or((&s, "0"));
    let exp: i32 = exp.parse().unwrap_or(0);
    let sign = if exp < 0 { '-' } else { '+' };
    format!("{mantissa}e{sign}{:02}", exp.abs())
}

/// mysqld's `valid_period` (8.0): a positive YYMM/YYYYMM whose month is 1..=12.
fn valid_period(p: i64) -> bool {
    p > 0 && (1..=12).contains(&(p % 100))
}

/// `convert_period_to_month`: YYMM with YY < 70 is 20YY, else 19YY. mysqld computes in
/// `ulong` (64 bits, wrapping), PERIOD_ADD's months added the same way, so a period or month
/// count near BIGINT's limits wraps as there (PERIOD_ADD(3, 1e20) is not MariaDB's 200002).
fn period_to_month(p: u64) -> u64 {
    if p == 0 {
        return 0;
    }
    let mut y = p / 100;
    if y < 70 {
        y += 2000;
    } else if y < 100 {
        y += 1900;
    }
    y.wrapping_mul(12).wrapping_add(p % 100).wrapping_sub(1)
}

/// `convert_month_to_period`, in `ulong` as [`period_to_month`].
fn month_to_period(m: u64) -> u64 {
    if m == 0 {
        return 0;
    }
    let mut y = m / 12;
    if y < 100 {
        y += if y < 70 { 2000 } else { 1900 };
    }
    y.wrapping_mul(100).wrapping_add(m % 12 + 1)
}

/// COMPRESS: empty for an empty string, else the 4-byte length, the zlib stream, and a `.`
/// after a final space.
fn compress(data: &[u8]) -> Vec<u8> {
    if data.is_empty() {
        return Vec::new();
    }
    let mut out = (data.len() as u32 & 0x3FFF_FFFF).to_le_bytes().to_vec();
    let mut z = flate2::write::ZlibEncoder::new(out, flate2::Compression::default());
    // Writing into a Vec cannot fail.
    z.write_all(data).expect("in-memory zlib");
    out = z.finish().expect("in-memory zlib");
    if out.last() == Some(&b' ') {
        out.push(b'.');
    }
    out
}

/// UNCOMPRESS: None for what COMPRESS did not write (mysqld: NULL with warning 1259), or for
/// a length over [`MAX_UNCOMPRESSED`].
fn uncompress(data: &[u8]) -> Option<Vec<u8>> {
    if data.is_empty() {
        return Some(Vec::new());
    }
    if data.len() <= 4 {
        return None;
    }
    let len = (u32::from_le_bytes([data[0], data[1], data[2], data[3]]) & 0x3FFF_FFFF) as usize;
    if len > MAX_UNCOMPRESSED {
        return None;
    }
    let mut out = Vec::with_capacity(len.min(data.len().saturating_mul(16)));
    let mut z = flate2::read::ZlibDecoder::new(&data[4..]).take(len as u64 + 1);
    z.read_to_end(&mut out).ok()?;
    (out.len() == len).then_some(out)
}

/// UUID_SHORT: `(server_id & 255) << 56 | start-up seconds << 24`, plus one for each call.
/// The first call's server id stays (mysqld fixes it at start-up).
fn uuid_short(server_id: u64) -> u64 {
    static NEXT: OnceLock<AtomicU64> = OnceLock::new();
    let counter = NEXT.get_or_init(|| {
        let start = super::unix_now().0.max(0) as u64;
        AtomicU64::new((server_id & 255) << 56 | (start << 24))
    });
    counter.fetch_add(1, Ordering::Relaxed)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn periods_and_compression_follow_mysqld() {
        assert_eq!(
            call(MiscFn::PeriodAdd, &[Value::Int(200801), Value::Int(2)]).unwrap(),
            Value::Int(200803)
        );
        assert_eq!(
            call(MiscFn::PeriodAdd, &[Value::Int(9912), Value::Int(1)]).unwrap(),
            Value::Int(200001)
        );
        assert_eq!(
            call(MiscFn::PeriodDiff, &[Value::Int(200802), Value::Int(200703)]).unwrap(),
            Value::Int(11)
        );
        assert_eq!(
            call(MiscFn::PeriodAdd, &[Value::Int(200813), Value::Int(1)]).unwrap_err().code(),
            1210
        );
        let z = compress(b"any string");
        assert_eq!(&z[..4], &10u32.to_le_bytes());
        assert_eq!(uncompress(&z).unwrap(), b"any string");
        assert_eq!(uncompress(b"garbage bytes"), None);
        assert_eq!(compress(b""), b"");
        assert_eq!(human(512.0, true), " 512 bytes");
        assert_eq!(human(18446644073709551615.0, true), "16.00 EiB");
        assert_eq!(human(1_048_576.0 * 1.5, true), "1.50 MiB");
        assert_eq!(human(3501.0, false), "3.50 ns");
        assert_eq!(human(188732396662000.0, false), "3.15 min");
        assert_eq!(human(12.0, false), " 12 ps");
        assert_eq!(c_exp(123456.0), "1.23e+05");
        // A header claiming more than the stream holds is refused, not trusted.
        let mut lie = z.clone();
        lie[0] = 200;
        assert_eq!(uncompress(&lie), None);
    }
}
