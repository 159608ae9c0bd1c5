//! The temporal and single-precision column types of issue 19 (DATE, TIME, YEAR,
//! DATETIME(fsp), TIMESTAMP(fsp), FLOAT): the range checks the engine applies to stored values
//! and their text forms.
//!
//! Why here: the engine stores values already converted by the SQL layer (which applies
//! sql_mode, rounding and time zones, as mysqld's `Field_*::store` do); the engine only
//! guarantees that what it stores is in the type's range, so a row image and a key never hold
//! a value mysqld could not. Invariants of stored values:
//! - DATE: `Value::Date` with zero time fields, year <= 9999, month <= 12, day <= 31 (zero parts
//!   only if sql_mode let them through; the SQL layer checks the calendar).
//! - TIME: `Value::Time(us)` with |us| <= 838:59:59 (mysqld's `TIME_MAX_VALUE`).
//! - YEAR: `Value::UInt` 0 or 1901..=2155 (`Field_year`).
//! - DATETIME: `Value::DateTime`, fields in range.
//! - TIMESTAMP: `Value::DateTime` in UTC, the zero value or within
//!   '1970-01-01 00:00:01'..'2038-01-19 03:14:07.999999' (`TIMESTAMP_MIN/MAX_VALUE`).
//! - FLOAT: `Value::Float`, finite.

use crate::value::DateTime;

/// 838:59:59 in microseconds, TIME's bound either way.
pub const TIME_MAX_MICROS: i64 = (838 * 3600 + 59 * 60 + 59) * 1_000_000;

/// The largest TIMESTAMP, in UTC.
pub const TIMESTAMP_MAX: DateTime =
    DateTime { year: 2038, month: 1, day: 19, hour: 3, minute: 14, second: 7, micros: 999_999 };
/// The smallest non-zero TIMESTAMP, in UTC.
pub const TIMESTAMP_MIN: DateTime =
    DateTime { year: 1970, month: 1, day: 1, hour: 0, minute: 0, second: 1, micros: 0 };

/// Seconds since the epoch of a UTC date and time (a TIMESTAMP's stored value), for the
/// binlog's TIMESTAMP2 (the zero value is 0).
pub fn epoch_seconds(t: &DateTime) -> i64 {
    if *t == DateTime::ZERO {
        return 0;
    }
    let (y, m, d) = (i64::from(t.year), i64::from(t.month), i64::from(t.day));
    let y = if m <= 2 { y - 1 } else { y };
    let era = y.div_euclid(400);
    let yoe = y - era * 400;
    let doy = (153 * ((m + 9) % 12) + 2) / 5 + d - 1;
    let days = era * 146_097 + yoe * 365 + yoe / 4 - yoe / 100 + doy - 719_468;
    days * 86_400 + (i64::from(t.hour) * 60 + i64::from(t.minute)) * 60 + i64::from(t.second)
}

/// The UTC date and time of seconds since the epoch (0 is the zero TIMESTAMP), the inverse
/// of [`epoch_seconds`].
pub fn from_epoch_seconds(secs: i64, micros: u32) -> DateTime {
    if secs == 0 && micros == 0 {
        return DateTime::ZERO;
    }
    let z = secs.div_euclid(86_400) + 719_468;
    let rest = secs.rem_euclid(86_400);
    let era = z.div_euclid(146_097);
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let day = (doy - (153 * mp + 2) / 5 + 1) as u8;
    let month = if mp < 10 { mp + 3 } else { mp - 9 } as u8;
    let year = if month <= 2 { yoe + era * 400 + 1 } else { yoe + era * 400 };
    DateTime {
        year: u16::try_from(year).unwrap_or(0),
        month,
        day,
        hour: (rest / 3600) as u8,
        minute: (rest / 60 % 60) as u8,
        second: (rest % 60) as u8,
        micros,
    }
}

pub use crate::value::{write_fraction, DateText, TimeText};

#[cfg(test)]
mod tests {
    use super::*;
    use crate::value::{encode_key, Value};

    #[test]
    fn time_text_and_key_order() {
        assert_eq!(TimeText(-3_020_399_000_000, None).to_string(), "-838:59:59");
        assert_eq!(TimeText(1_500_000, Some(3)).to_string(), "00:00:01.500");
        assert_eq!(TimeText(-1, None).to_string(), "-00:00:00.000001");
        let times = [-TIME_MAX_MICROS, -1, 0, 1, TIME_MAX_MICROS];
        for w in times.windows(2) {
            assert!(encode_key(&[Value::Time(w[0])]) < encode_key(&[Value::Time(w[1])]));
        }
        let f = [-1.5f32, -0.0, 0.1, 3.0e38];
        for w in f.windows(2) {
            assert!(encode_key(&[Value::Float(w[0])]) < encode_key(&[Value::Float(w[1])]));
        }
    }
}
