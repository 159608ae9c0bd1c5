//! The names of the date and time functions and interval units (issue 19), apart from their
//! evaluation (`temporal.rs`) so the expression tree (`ast.rs`) can name them without a
//! module cycle.

/// An `INTERVAL` / `EXTRACT` / `TIMESTAMPDIFF` unit (mysqld's `interval_type`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Unit {
    Year,
    Quarter,
    Month,
    Week,
    Day,
    Hour,
    Minute,
    Second,
    Microsecond,
    YearMonth,
    DayHour,
    DayMinute,
    DaySecond,
    HourMinute,
    HourSecond,
    MinuteSecond,
    DayMicrosecond,
    HourMicrosecond,
    MinuteMicrosecond,
    SecondMicrosecond,
}

impl Unit {
    /// The unit named `name` (case-insensitive), as the parser reads it.
    pub fn from_name(name: &str) -> Option<Unit> {
        use Unit::*;
        Some(match name.to_ascii_uppercase().as_str() {
            "YEAR" => Year,
            "QUARTER" => Quarter,
            "MONTH" => Month,
            "WEEK" => Week,
            "DAY" => Day,
            "HOUR" => Hour,
            "MINUTE" => Minute,
            "SECOND" => Second,
            "MICROSECOND" => Microsecond,
            "YEAR_MONTH" => YearMonth,
            "DAY_HOUR" => DayHour,
            "DAY_MINUTE" => DayMinute,
            "DAY_SECOND" => DaySecond,
            "HOUR_MINUTE" => HourMinute,
            "HOUR_SECOND" => HourSecond,
            "MINUTE_SECOND" => MinuteSecond,
            "DAY_MICROSECOND" => DayMicrosecond,
            "HOUR_MICROSECOND" => HourMicrosecond,
            "MINUTE_MICROSECOND" => MinuteMicrosecond,
            "SECOND_MICROSECOND" => SecondMicrosecond,
            _ => return None,
        })
    }

    /// Whether an interval of this unit moves only whole days or months (a DATE stays a DATE).
    pub fn is_date_only(self) -> bool {
        matches!(
            self,
            Unit::Year | Unit::Quarter | Unit::Month | Unit::Week | Unit::Day | Unit::YearMonth
        )
    }

    /// Whether the unit has a microsecond part (the result gets 6 fraction digits).
    pub fn has_micros(self) -> bool {
        matches!(
            self,
            Unit::Microsecond
                | Unit::DayMicrosecond
                | Unit::HourMicrosecond
                | Unit::MinuteMicrosecond
                | Unit::SecondMicrosecond
        )
    }
}

/// The target of `CAST(x AS ...)` / `CONVERT(x, ...)` handled here.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CastTo {
    Date,
    Time(u8),
    DateTime(u8),
    Year,
}

/// A date or time function (mysqld's `Item_func_*` of item_timefunc.cc).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TimeFn {
    /// NOW/CURRENT_TIMESTAMP/LOCALTIME[STAMP] (the statement's start, session time zone).
    Now,
    SysDate,
    CurDate,
    CurTime,
    UtcTimestamp,
    UtcDate,
    UtcTime,
    DateFormat,
    TimeFormat,
    StrToDate,
    /// DATE_ADD/ADDDATE/`+ INTERVAL` (`sub` false) and DATE_SUB/SUBDATE/`- INTERVAL`.
    AddInterval {
        unit: Unit,
        sub: bool,
    },
    DateDiff,
    TimeDiff,
    TimestampDiff(Unit),
    TimestampAdd(Unit),
    Extract(Unit),
    Year,
    Month,
    Day,
    Hour,
    Minute,
    Second,
    Microsecond,
    DayOfWeek,
    DayOfYear,
    WeekDay,
    /// WEEK(d[, mode]); WEEKOFYEAR is mode 3.
    Week,
    WeekOfYear,
    YearWeek,
    Quarter,
    DayName,
    MonthName,
    LastDay,
    MakeDate,
    MakeTime,
    Date,
    Time,
    UnixTimestamp,
    FromUnixtime,
    ConvertTz,
    ToDays,
    FromDays,
    TimeToSec,
    SecToTime,
    AddTime,
    SubTime,
    Cast(CastTo),
    /// A TIMESTAMP column's stored UTC value in the session's time zone (added by the binder
    /// around every read of a TIMESTAMP column).
    FromUtc,
}
