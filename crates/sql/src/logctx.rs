//! The session values a transaction's QUERY events carry (`commit::QueryContext`), as mysqld's
//! `Query_log_event::Query_log_event(THD*, ...)` (sql/log_event.cc) takes them from the THD:
//!
//! - post-header `thread_id`: `pseudo_thread_id` (the connection id unless set);
//! - `Q_FLAGS2_CODE`: the `option_bits` in `OPTIONS_WRITTEN_TO_BIN_LOG` (`sql_auto_is_null`,
//!   autocommit off, `foreign_key_checks=0`, `unique_checks=0`);
//! - `Q_SQL_MODE_CODE`: `sql_mode` as its bit mask (sql_mode_names order, sql/sys_vars.cc);
//! - `Q_AUTO_INCREMENT`: written only when increment or offset is not 1;
//! - `Q_CHARSET_CODE`: ids of `character_set_client`, `collation_connection`,
//!   `collation_server` — always written;
//! - `Q_TIME_ZONE_CODE`: mysqld writes it when the statement used the time zone; binlogd
//!   writes it when the session's `time_zone` is not `SYSTEM` (it cannot tell use apart, and a
//!   replica must then convert as the source did);
//! - `Q_LC_TIME_NAMES_CODE`: mysqld writes it when not `en_US` (0); binlogd has no locale
//!   numbers and formats no date names, so it is not written;
//! - `Q_DEFAULT_COLLATION_FOR_UTF8MB4`: as MySQL 8.0 writes it.
//!
//! Why it matters: a replica applies each QUERY event under these values, and a MariaDB
//! replica stops at an id it lacks (255, utf8mb4_0900_ai_ci): logging the session's own ids
//! lets a client that uses utf8mb4_general_ci (45) or latin1 (8) replicate to MariaDB.
//!
//! Invariant: every id written is one of [`crate::charset::COLLATIONS`] (unknown names fall
//! back to the character set's default, then to 255, never to a made-up number).

use std::sync::Arc;

use binlog::event::{StatusVars, UTF8MB4_0900_AI_CI};
use commit::QueryContext;
use engine::Value;

use super::charset;
use super::session::Session;
use super::vars::Var;

/// `option_bits` mysqld logs in flags2 (sql/query_options.h).
const OPTION_AUTO_IS_NULL: u32 = 1 << 14;
const OPTION_NOT_AUTOCOMMIT: u32 = 1 << 19;
const OPTION_NO_FOREIGN_KEY_CHECKS: u32 = 1 << 26;
const OPTION_RELAXED_UNIQUE_CHECKS: u32 = 1 << 27;

/// MySQL 8.0's `sql_mode_names` (sql/sys_vars.cc); bit i is the i-th name. The NOT_USED
/// slots are modes 8.0 removed (MariaDB still names several of them).
const SQL_MODE_NAMES: [&str; 33] = [
    "REAL_AS_FLOAT",
    "PIPES_AS_CONCAT",
    "ANSI_QUOTES",
    "IGNORE_SPACE",
    "NOT_USED",
    "ONLY_FULL_GROUP_BY",
    "NO_UNSIGNED_SUBTRACTION",
    "NO_DIR_IN_CREATE",
    "NOT_USED_9",
    "NOT_USED_10",
    "NOT_USED_11",
    "NOT_USED_12",
    "NOT_USED_13",
    "NOT_USED_14",
    "NOT_USED_15",
    "NOT_USED_16",
    "NOT_USED_17",
    "NOT_USED_18",
    "ANSI",
    "NO_AUTO_VALUE_ON_ZERO",
    "NO_BACKSLASH_ESCAPES",
    "STRICT_TRANS_TABLES",
    "STRICT_ALL_TABLES",
    "NO_ZERO_IN_DATE",
    "NO_ZERO_DATE",
    "ALLOW_INVALID_DATES",
    "ERROR_FOR_DIVISION_BY_ZERO",
    "TRADITIONAL",
    "NOT_USED_29",
    "HIGH_NOT_PRECEDENCE",
    "NO_ENGINE_SUBSTITUTION",
    "PAD_CHAR_TO_FULL_LENGTH",
    "TIME_TRUNCATE_FRACTIONAL",
];

fn mode_bit(name: &str) -> u64 {
    SQL_MODE_NAMES.iter().position(|n| n.eq_ignore_ascii_case(name)).map_or(0, |i| 1u64 << i)
}

/// `sql_mode` text → mysqld's bit mask; the combination modes carry their members too
/// (`expand_sql_mode`: ANSI and TRADITIONAL). Unknown names add nothing.
pub fn sql_mode_bits(text: &str) -> u64 {
    // mysqlbinlog output sets it by number (`SET @@session.sql_mode=1168113696`).
    if let Ok(n) = text.trim().parse::<u64>() {
        return n;
    }
    let mut bits = 0;
    for name in text.split(',').map(str::trim).filter(|n| !n.is_empty()) {
        bits |= mode_bit(name);
        if name.eq_ignore_ascii_case("ANSI") {
            for m in ["REAL_AS_FLOAT", "PIPES_AS_CONCAT", "ANSI_QUOTES", "IGNORE_SPACE"] {
                bits |= mode_bit(m);
            }
            bits |= mode_bit("ONLY_FULL_GROUP_BY");
        } else if name.eq_ignore_ascii_case("TRADITIONAL") {
            for m in [
                "STRICT_TRANS_TABLES",
                "STRICT_ALL_TABLES",
                "NO_ZERO_IN_DATE",
                "NO_ZERO_DATE",
                "ERROR_FOR_DIVISION_BY_ZERO",
                "NO_ENGINE_SUBSTITUTION",
            ] {
                bits |= mode_bit(m);
            }
        }
    }
    bits
}

fn text(v: &Value) -> String {
    match v {
        Value::Bytes(b) => String::from_utf8_lossy(b).into_owned(),
        Value::Null => String::new(),
        other => other.to_string(),
    }
}

fn on(v: &Value) -> bool {
    match v {
        Value::Int(n) => *n != 0,
        Value::UInt(n) => *n != 0,
        Value::Bytes(b) => {
            let t = String::from_utf8_lossy(b);
            !(t == "0" || t.eq_ignore_ascii_case("OFF") || t.is_empty())
        }
        _ => false,
    }
}

/// The id of collation `name`, else of `charset`'s default collation, else 255.
fn collation_id(name: &str, charset: &str) -> u16 {
    charset::by_name(name)
        .or_else(|| charset::default_of(charset))
        .map_or(UTF8MB4_0900_AI_CI, |c| c.id)
}

/// The id of a character-set variable's value: its default collation, unless `collation`
/// (the collation variable beside it) belongs to the same set — what mysqld keeps in
/// `character_set_client`, a collation (`SET NAMES x COLLATE y` sets it to y).
fn charset_id(charset_name: &str, collation: &str) -> u16 {
    match (charset::canonical_charset(charset_name), charset::by_name(collation)) {
        (Some(cs), Some(c)) if c.charset == cs => c.id,
        (Some(cs), _) => charset::default_of(cs).map_or(UTF8MB4_0900_AI_CI, |c| c.id),
        (None, _) => UTF8MB4_0900_AI_CI,
    }
}

impl Session {
    /// The values this session's next QUERY event carries (module doc).
    pub fn query_context(&self) -> Arc<QueryContext> {
        let generation = self.vars_generation();
        let mut cache = self.derived.query.lock().unwrap_or_else(|e| e.into_inner());
        if let Some((g, autocommit, ctx)) = &*cache {
            if *g == generation && *autocommit == self.autocommit {
                return Arc::clone(ctx);
            }
        }
        let ctx = self.build_query_context();
        *cache = Some((generation, self.autocommit, Arc::clone(&ctx)));
        ctx
    }

    /// [`Session::query_context`] computed from the variables.
    fn build_query_context(&self) -> Arc<QueryContext> {
        let var = |v: Var| text(&self.variable(v));
        let pseudo = match self.variable(Var::PseudoThreadId) {
            Value::UInt(n) if n != 0 => u32::try_from(n).unwrap_or(u32::MAX),
            Value::Int(n) if n > 0 => u32::try_from(n).unwrap_or(u32::MAX),
            _ => self.connection_id,
        };
        let mut flags2 = 0;
        if on(&self.variable(Var::SqlAutoIsNull)) {
            flags2 |= OPTION_AUTO_IS_NULL;
        }
        if !self.autocommit {
            flags2 |= OPTION_NOT_AUTOCOMMIT;
        }
        if !on(&self.variable(Var::ForeignKeyChecks)) {
            flags2 |= OPTION_NO_FOREIGN_KEY_CHECKS;
        }
        if !on(&self.variable(Var::UniqueChecks)) {
            flags2 |= OPTION_RELAXED_UNIQUE_CHECKS;
        }
        let connection = var(Var::CollationConnection);
        let client = charset_id(&var(Var::CharacterSetClient), &connection);
        let connection = collation_id(&connection, &var(Var::CharacterSetConnection));
        let server = collation_id(&var(Var::CollationServer), &var(Var::CharacterSetServer));
        let int = |v: Var| match self.variable(v) {
            Value::UInt(n) => u16::try_from(n).unwrap_or(u16::MAX),
            Value::Int(n) => u16::try_from(n).unwrap_or(1),
            other => text(&other).parse().unwrap_or(1),
        };
        let (inc, off) = (int(Var::AutoIncrementIncrement), int(Var::AutoIncrementOffset));
        let time_zone = var(Var::TimeZone);
        let utf8mb4 = charset::by_name(&var(Var::DefaultCollationForUtf8mb4))
            .map_or(UTF8MB4_0900_AI_CI, |c| c.id);
        let status = StatusVars {
            flags2: Some(flags2),
            sql_mode: Some(sql_mode_bits(&var(Var::SqlMode))),
            catalog_nz: Some(b"std".to_vec()),
            auto_increment: (inc != 1 || off != 1).then_some((inc, off)),
            charset: Some((client, connection, server)),
            time_zone: (!time_zone.eq_ignore_ascii_case("SYSTEM") && !time_zone.is_empty())
                .then(|| time_zone.into_bytes()),
            // mysqld writes the locale's number when it is not en_US (0); binlogd has no
            // locale table yet (no date names are formatted), so none is written.
            lc_time_names: None,
            default_collation_for_utf8mb4: Some(utf8mb4),
            ..StatusVars::default()
        };
        Arc::new(QueryContext { thread_id: pseudo, status })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sql_mode_bits_are_mysqlds() {
        assert_eq!(
            sql_mode_bits(
                "ONLY_FULL_GROUP_BY,STRICT_TRANS_TABLES,NO_ZERO_IN_DATE,NO_ZERO_DATE,\
                 ERROR_FOR_DIVISION_BY_ZERO,NO_ENGINE_SUBSTITUTION"
            ),
            binlog::event::MYSQL80_DEFAULT_SQL_MODE
        );
        assert_eq!(sql_mode_bits(""), 0);
        assert_eq!(sql_mode_bits("ansi_quotes"), 4);
        assert_eq!(sql_mode_bits("1168113696"), 1_168_113_696);
        // TRADITIONAL (bit 27) and its members.
        assert_eq!(sql_mode_bits("TRADITIONAL"), 0x4de0_0000);
    }
}
