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
            "SECOND_MICROSECOND" | "MICROSECOND_SECOND" => SecondMicrosecond,
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
    /// `DATE 'x'`, `TIME 'x'`, `TIMESTAMP 'x'`: the CAST of a text that must be a valid value
    /// of exactly that kind (1525 otherwise; `temporal::literal`).
    Literal(CastTo),
    /// A DATETIME/TIMESTAMP/TIME value as text with exactly its item's fraction digits
    /// (mysqld's `Item::val_str` of a temporal item of `decimals` n): added by the binder
    /// where a string function reads such a value (`LENGTH(NOW(3))` is 23).
    Text(u8),
    /// A TIMESTAMP column's stored UTC value in the session's time zone (added by the binder
    /// around every read of a TIMESTAMP column).
    FromUtc,
}

/// The compound interval units as sqlparser can read them after `INTERVAL` (its ANSI
/// `leading TO last` form), since it knows no `DAY_SECOND` keyword. SECOND_MICROSECOND is
/// spelled in reverse (`MICROSECOND TO SECOND`): sqlparser reads `SECOND` specially, with no
/// `TO` after it. [`Unit::from_name`] reads the joined names back.
const COMPOUND_SPELLING: [(&str, &str); 11] = [
    ("YEAR_MONTH", "YEAR TO MONTH"),
    ("DAY_HOUR", "DAY TO HOUR"),
    ("DAY_MINUTE", "DAY TO MINUTE"),
    ("DAY_SECOND", "DAY TO SECOND"),
    ("HOUR_MINUTE", "HOUR TO MINUTE"),
    ("HOUR_SECOND", "HOUR TO SECOND"),
    ("MINUTE_SECOND", "MINUTE TO SECOND"),
    ("DAY_MICROSECOND", "DAY TO MICROSECOND"),
    ("HOUR_MICROSECOND", "HOUR TO MICROSECOND"),
    ("MINUTE_MICROSECOND", "MINUTE TO MICROSECOND"),
    ("SECOND_MICROSECOND", "MICROSECOND TO SECOND"),
];

/// `sql` with every unquoted compound unit word respelled (see [`COMPOUND_SPELLING`]); None
/// when it has none (the common case: a substring check, no tokenizing).
pub fn spell_compound_units(sql: &str) -> Option<String> {
    use sqlparser::dialect::MySqlDialect;
    use sqlparser::tokenizer::{Token, Tokenizer};
    let upper = sql.to_ascii_uppercase();
    if !COMPOUND_SPELLING.iter().any(|(name, _)| upper.contains(name)) {
        return None;
    }
    let tokens = Tokenizer::new(&MySqlDialect {}, sql).tokenize().ok()?;
    let mut out = String::with_capacity(sql.len() + 16);
    // `EXTRACT ( unit FROM`: where the last EXTRACT word began in `out`, and whether only
    // its `(` (and blanks) followed; then whether a compound unit's FROM is still to drop.
    let mut extract_at: Option<(usize, bool)> = None;
    let mut drop_from = false;
    for t in &tokens {
        match t {
            Token::Whitespace(_) => out.push_str(&t.to_string()),
            // Anything but FROM after `EXTRACT(compound`: left as written, for the parser's
            // 1064.
            _ if drop_from => {
                drop_from = false;
                match t {
                    Token::Word(w)
                        if w.quote_style.is_none() && w.value.eq_ignore_ascii_case("FROM") => {}
                    _ => return None,
                }
            }
            Token::Word(w) if w.quote_style.is_none() => {
                let up = w.value.to_ascii_uppercase();
                match COMPOUND_SPELLING.iter().find(|(name, _)| *name == up) {
                    // EXTRACT(compound FROM e) becomes the call `` `extract compound`(e) ``:
                    // sqlparser's EXTRACT takes no compound unit, and MySqlDialect no custom
                    // one; parse.rs maps the call back to EXTRACT.
                    Some((name, _)) if matches!(extract_at, Some((_, true))) => {
                        let (at, _) = extract_at.take()?;
                        out.truncate(at);
                        out.push_str(&format!("`{EXTRACT_CALL}{}`(", name.to_ascii_lowercase()));
                        drop_from = true;
                    }
                    Some((_, spelled)) => out.push_str(spelled),
                    None => {
                        extract_at = (up == "EXTRACT").then_some((out.len(), false));
                        out.push_str(&t.to_string());
                        continue;
                    }
                }
                extract_at = None;
            }
            Token::LParen if matches!(extract_at, Some((_, false))) => {
                extract_at = extract_at.map(|(at, _)| (at, true));
                out.push('(');
            }
            t => {
                extract_at = None;
                out.push_str(&t.to_string());
            }
        }
    }
    Some(out)
}

/// The function name [`spell_compound_units`] gives `EXTRACT(compound FROM e)`, followed by
/// the unit (`extract year_month`): a quoted name no MySQL function has.
pub const EXTRACT_CALL: &str = "extract ";
