//! QUERY (type 2): a statement, `BEGIN` of a row-based transaction, or a DDL.
//!
//! Layout (statement_events.cpp `Query_event`; QUERY_HEADER_LEN = 13):
//! `thread_id u32 | exec_time u32 | db_len u8 | error_code u16 | status_vars_len u16 |
//! status_vars [status_vars_len] | db [db_len] | NUL | query [rest]`.
//!
//! The status variables are `code u8 | value` pairs; each code has a fixed value layout
//! (`Q_*_CODE` in statement_events.h). A reader that meets an unknown code stops there (the
//! value length is unknown), as MySQL does. [`QueryEvent`] keeps the block raw so every
//! event re-encodes exactly; [`StatusVars`] is the parsed view and builds new blocks in the
//! order `Query_log_event::write` (sql/log_event.cc) writes them.

use super::bytes::{put_short_string, put_uint_n, Cursor};
use super::EventType;
use crate::error::{DecodeError, EncodeError};

/// Status-variable codes (statement_events.h `Query_event_status_vars`).
mod code {
    pub const FLAGS2: u8 = 0;
    pub const SQL_MODE: u8 = 1;
    pub const CATALOG: u8 = 2;
    pub const AUTO_INCREMENT: u8 = 3;
    pub const CHARSET: u8 = 4;
    pub const TIME_ZONE: u8 = 5;
    pub const CATALOG_NZ: u8 = 6;
    pub const LC_TIME_NAMES: u8 = 7;
    pub const CHARSET_DATABASE: u8 = 8;
    pub const TABLE_MAP_FOR_UPDATE: u8 = 9;
    pub const MASTER_DATA_WRITTEN: u8 = 10;
    pub const INVOKER: u8 = 11;
    pub const UPDATED_DB_NAMES: u8 = 12;
    pub const MICROSECONDS: u8 = 13;
    pub const EXPLICIT_DEFAULTS_FOR_TIMESTAMP: u8 = 16;
    pub const DDL_LOGGED_WITH_XID: u8 = 17;
    pub const DEFAULT_COLLATION_FOR_UTF8MB4: u8 = 18;
    pub const SQL_REQUIRE_PRIMARY_KEY: u8 = 19;
    pub const DEFAULT_TABLE_ENCRYPTION: u8 = 20;
    /// MariaDB: high-resolution statement start (3 bytes of µs).
    pub const HRNOW: u8 = 128;
    /// MariaDB: the XID of a DDL.
    pub const XID: u8 = 129;
}

/// `Q_UPDATED_DB_NAMES` count meaning "too many databases to list" (OVER_MAX_DBS_IN_EVENT_MTS).
const OVER_MAX_DBS: u8 = 254;
/// MySQL 8.0's default `sql_mode` (ONLY_FULL_GROUP_BY, STRICT_TRANS_TABLES, NO_ZERO_IN_DATE,
/// NO_ZERO_DATE, ERROR_FOR_DIVISION_BY_ZERO, NO_ENGINE_SUBSTITUTION) as a bit mask.
pub const MYSQL80_DEFAULT_SQL_MODE: u64 = 0x45a0_0020;
/// utf8mb4_0900_ai_ci, MySQL 8.0's default collation.
pub const UTF8MB4_0900_AI_CI: u16 = 255;

/// Databases a statement touched (for multi-threaded appliers).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum UpdatedDbs {
    /// More than MySQL lists (count byte 254, no names).
    TooMany,
    Names(Vec<Vec<u8>>),
}

/// The parsed status variables of a QUERY event. `None` means "not present".
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct StatusVars {
    /// `OPTION_*` bits of the session (autocommit off, foreign/unique checks off, ...).
    pub flags2: Option<u32>,
    pub sql_mode: Option<u64>,
    /// Old-style catalog (length, bytes, NUL); only from 5.0 servers.
    pub catalog: Option<Vec<u8>>,
    /// Always "std" when present.
    pub catalog_nz: Option<Vec<u8>>,
    /// (auto_increment_increment, auto_increment_offset), written unless both are 1.
    pub auto_increment: Option<(u16, u16)>,
    /// (character_set_client, collation_connection, collation_server).
    pub charset: Option<(u16, u16, u16)>,
    pub time_zone: Option<Vec<u8>>,
    pub lc_time_names: Option<u16>,
    pub charset_database: Option<u16>,
    pub table_map_for_update: Option<u64>,
    pub master_data_written: Option<u32>,
    /// (user, host) of a definer-less stored routine's invoker.
    pub invoker: Option<(Vec<u8>, Vec<u8>)>,
    pub updated_db_names: Option<UpdatedDbs>,
    /// Microsecond part of the statement start time.
    pub microseconds: Option<u32>,
    pub explicit_defaults_for_timestamp: Option<u8>,
    /// The XID of a DDL that is committed with its own XID (atomic DDL, 8.0).
    pub ddl_xid: Option<u64>,
    pub default_collation_for_utf8mb4: Option<u16>,
    pub sql_require_primary_key: Option<u8>,
    pub default_table_encryption: Option<u8>,
    pub mariadb_hrnow: Option<u32>,
    pub mariadb_xid: Option<u64>,
    /// From the first unknown code to the end, kept verbatim.
    pub unknown_tail: Vec<u8>,
}

impl StatusVars {
    /// What MySQL 8.0 writes for a `BEGIN` of a session with default settings (as in the
    /// 8.0.40 fixtures): flags2 0, the default sql_mode, catalog "std", charsets
    /// utf8mb4_0900_ai_ci, default_collation_for_utf8mb4 255.
    pub fn mysql80_default() -> Self {
        StatusVars {
            flags2: Some(0),
            sql_mode: Some(MYSQL80_DEFAULT_SQL_MODE),
            catalog_nz: Some(b"std".to_vec()),
            charset: Some((UTF8MB4_0900_AI_CI, UTF8MB4_0900_AI_CI, UTF8MB4_0900_AI_CI)),
            default_collation_for_utf8mb4: Some(UTF8MB4_0900_AI_CI),
            ..StatusVars::default()
        }
    }

    /// What MySQL 8.0 adds for a DDL in `db` logged with `xid`: the updated database names
    /// and the DDL's XID (plus `sql_require_primary_key`/`default_table_encryption` for
    /// CREATE/ALTER TABLE, which the caller sets).
    pub fn mysql80_ddl(db: &str, ddl_xid: Option<u64>) -> Self {
        StatusVars {
            updated_db_names: Some(UpdatedDbs::Names(vec![db.as_bytes().to_vec()])),
            ddl_xid,
            ..StatusVars::mysql80_default()
        }
    }

    /// Parses a status-variable block. `base` is its absolute offset (for errors).
    pub fn parse(block: &[u8], base: u64) -> Result<StatusVars, DecodeError> {
        let mut c = Cursor::new(block, base, EventType::QUERY);
        let mut v = StatusVars::default();
        while !c.is_empty() {
            let code = c.u8("status variable code")?;
            match code {
                code::FLAGS2 => v.flags2 = Some(c.u32("flags2")?),
                code::SQL_MODE => v.sql_mode = Some(c.u64("sql_mode")?),
                code::CATALOG => {
                    let len = c.u8("catalog length")?;
                    v.catalog = Some(c.bytes(usize::from(len), "catalog")?.to_vec());
                    if c.u8("catalog terminator")? != 0 {
                        return Err(c.malformed("catalog not NUL-terminated"));
                    }
                }
                code::CATALOG_NZ => v.catalog_nz = Some(short_string(&mut c, "catalog")?),
                code::AUTO_INCREMENT => {
                    v.auto_increment = Some((c.u16("auto_increment")?, c.u16("auto_increment")?))
                }
                code::CHARSET => {
                    v.charset = Some((c.u16("charset")?, c.u16("charset")?, c.u16("charset")?))
                }
                code::TIME_ZONE => v.time_zone = Some(short_string(&mut c, "time zone")?),
                code::LC_TIME_NAMES => v.lc_time_names = Some(c.u16("lc_time_names")?),
                code::CHARSET_DATABASE => v.charset_database = Some(c.u16("charset_database")?),
                code::TABLE_MAP_FOR_UPDATE => {
                    v.table_map_for_update = Some(c.u64("table_map_for_update")?)
                }
                code::MASTER_DATA_WRITTEN => {
                    v.master_data_written = Some(c.u32("master_data_written")?)
                }
                code::INVOKER => {
                    let user = short_string(&mut c, "invoker user")?;
                    let host = short_string(&mut c, "invoker host")?;
                    v.invoker = Some((user, host));
                }
                code::UPDATED_DB_NAMES => {
                    let count = c.u8("updated db count")?;
                    v.updated_db_names = Some(if count == OVER_MAX_DBS {
                        UpdatedDbs::TooMany
                    } else {
                        let mut names = Vec::new();
                        for _ in 0..count {
                            let rest = c.clone().rest();
                            let len = rest
                                .iter()
                                .position(|&b| b == 0)
                                .ok_or_else(|| c.malformed("updated db name not NUL-terminated"))?;
                            names.push(c.bytes(len, "updated db name")?.to_vec());
                            c.u8("updated db name terminator")?;
                        }
                        UpdatedDbs::Names(names)
                    });
                }
                code::MICROSECONDS => v.microseconds = Some(c.uint_n(3, "microseconds")? as u32),
                code::EXPLICIT_DEFAULTS_FOR_TIMESTAMP => {
                    v.explicit_defaults_for_timestamp = Some(c.u8("explicit_defaults")?)
                }
                code::DDL_LOGGED_WITH_XID => v.ddl_xid = Some(c.u64("ddl xid")?),
                code::DEFAULT_COLLATION_FOR_UTF8MB4 => {
                    v.default_collation_for_utf8mb4 = Some(c.u16("default collation")?)
                }
                code::SQL_REQUIRE_PRIMARY_KEY => {
                    v.sql_require_primary_key = Some(c.u8("sql_require_primary_key")?)
                }
                code::DEFAULT_TABLE_ENCRYPTION => {
                    v.default_table_encryption = Some(c.u8("default_table_encryption")?)
                }
                code::HRNOW => v.mariadb_hrnow = Some(c.uint_n(3, "hrnow")? as u32),
                code::XID => v.mariadb_xid = Some(c.u64("xid")?),
                _ => {
                    v.unknown_tail = c.bytes_before(1).to_vec();
                    v.unknown_tail.extend_from_slice(c.rest());
                }
            }
        }
        Ok(v)
    }

    /// Appends the block in MySQL's write order.
    pub fn encode(&self, out: &mut Vec<u8>) -> Result<(), EncodeError> {
        if let Some(x) = self.flags2 {
            out.push(code::FLAGS2);
            out.extend_from_slice(&x.to_le_bytes());
        }
        if let Some(x) = self.sql_mode {
            out.push(code::SQL_MODE);
            out.extend_from_slice(&x.to_le_bytes());
        }
        if let Some(x) = &self.catalog_nz {
            out.push(code::CATALOG_NZ);
            put_short_string(out, x, "catalog")?;
        }
        if let Some(x) = &self.catalog {
            out.push(code::CATALOG);
            put_short_string(out, x, "catalog")?;
            out.push(0);
        }
        if let Some((inc, off)) = self.auto_increment {
            out.push(code::AUTO_INCREMENT);
            out.extend_from_slice(&inc.to_le_bytes());
            out.extend_from_slice(&off.to_le_bytes());
        }
        if let Some((a, b, c)) = self.charset {
            out.push(code::CHARSET);
            out.extend_from_slice(&a.to_le_bytes());
            out.extend_from_slice(&b.to_le_bytes());
            out.extend_from_slice(&c.to_le_bytes());
        }
        if let Some(x) = &self.time_zone {
            out.push(code::TIME_ZONE);
            put_short_string(out, x, "time zone")?;
        }
        if let Some(x) = self.lc_time_names {
            out.push(code::LC_TIME_NAMES);
            out.extend_from_slice(&x.to_le_bytes());
        }
        if let Some(x) = self.charset_database {
            out.push(code::CHARSET_DATABASE);
            out.extend_from_slice(&x.to_le_bytes());
        }
        if let Some(x) = self.table_map_for_update {
            out.push(code::TABLE_MAP_FOR_UPDATE);
            out.extend_from_slice(&x.to_le_bytes());
        }
        if let Some(x) = self.master_data_written {
            out.push(code::MASTER_DATA_WRITTEN);
            out.extend_from_slice(&x.to_le_bytes());
        }
        if let Some((user, host)) = &self.invoker {
            out.push(code::INVOKER);
            put_short_string(out, user, "invoker user")?;
            put_short_string(out, host, "invoker host")?;
        }
        if let Some(dbs) = &self.updated_db_names {
            out.push(code::UPDATED_DB_NAMES);
            match dbs {
                UpdatedDbs::TooMany => out.push(OVER_MAX_DBS),
                UpdatedDbs::Names(names) => {
                    if names.len() >= usize::from(OVER_MAX_DBS) {
                        out.push(OVER_MAX_DBS);
                    } else {
                        out.push(names.len() as u8);
                        for name in names {
                            out.extend_from_slice(name);
                            out.push(0);
                        }
                    }
                }
            }
        }
        if let Some(x) = self.microseconds {
            out.push(code::MICROSECONDS);
            put_uint_n(out, u64::from(x), 3);
        }
        if let Some(x) = self.explicit_defaults_for_timestamp {
            out.push(code::EXPLICIT_DEFAULTS_FOR_TIMESTAMP);
            out.push(x);
        }
        if let Some(x) = self.ddl_xid {
            out.push(code::DDL_LOGGED_WITH_XID);
            out.extend_from_slice(&x.to_le_bytes());
        }
        if let Some(x) = self.default_collation_for_utf8mb4 {
            out.push(code::DEFAULT_COLLATION_FOR_UTF8MB4);
            out.extend_from_slice(&x.to_le_bytes());
        }
        if let Some(x) = self.sql_require_primary_key {
            out.push(code::SQL_REQUIRE_PRIMARY_KEY);
            out.push(x);
        }
        if let Some(x) = self.default_table_encryption {
            out.push(code::DEFAULT_TABLE_ENCRYPTION);
            out.push(x);
        }
        if let Some(x) = self.mariadb_hrnow {
            out.push(code::HRNOW);
            put_uint_n(out, u64::from(x), 3);
        }
        if let Some(x) = self.mariadb_xid {
            out.push(code::XID);
            out.extend_from_slice(&x.to_le_bytes());
        }
        out.extend_from_slice(&self.unknown_tail);
        Ok(())
    }
}

fn short_string(c: &mut Cursor<'_>, what: &'static str) -> Result<Vec<u8>, DecodeError> {
    let len = c.u8(what)?;
    Ok(c.bytes(usize::from(len), what)?.to_vec())
}

// Format: thread_id u32 | exec_time u32 | db_len u8 | error_code u16 | status_len u16 |
//         status_vars [status_len] | db [db_len] | 0 | query [rest]
/// A QUERY event body.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct QueryEvent {
    /// The session's connection id (pseudo_thread_id on a replica).
    pub thread_id: u32,
    /// Seconds the statement took.
    pub exec_time: u32,
    pub error_code: u16,
    /// The raw status-variable block; see [`QueryEvent::status`] for the parsed view.
    pub status_vars: Vec<u8>,
    /// The default database (`USE`), possibly empty.
    pub schema: Vec<u8>,
    pub query: Vec<u8>,
}

impl QueryEvent {
    /// A QUERY event for `query` run in `schema` with status variables `status`.
    pub fn new(
        thread_id: u32,
        exec_time: u32,
        schema: &str,
        query: &str,
        status: &StatusVars,
    ) -> Result<Self, EncodeError> {
        let mut status_vars = Vec::with_capacity(64);
        status.encode(&mut status_vars)?;
        Ok(QueryEvent {
            thread_id,
            exec_time,
            error_code: 0,
            status_vars,
            schema: schema.as_bytes().to_vec(),
            query: query.as_bytes().to_vec(),
        })
    }

    /// The `BEGIN` MySQL 8.0 writes at the start of a row-based transaction.
    pub fn begin(thread_id: u32, schema: &str, status: &StatusVars) -> Result<Self, EncodeError> {
        QueryEvent::new(thread_id, 0, schema, "BEGIN", status)
    }

    /// The parsed status variables. `base` is the event's absolute offset (for errors).
    pub fn status(&self, base: u64) -> Result<StatusVars, DecodeError> {
        StatusVars::parse(&self.status_vars, base + super::HEADER_LEN as u64 + 13)
    }

    pub(crate) fn decode(c: &mut Cursor<'_>) -> Result<Self, DecodeError> {
        let thread_id = c.u32("thread id")?;
        let exec_time = c.u32("exec time")?;
        let db_len = c.u8("db length")?;
        let error_code = c.u16("error code")?;
        let status_len = c.u16("status vars length")?;
        let status_vars = c.bytes(usize::from(status_len), "status vars")?.to_vec();
        let schema = c.bytes(usize::from(db_len), "db name")?.to_vec();
        if c.u8("db terminator")? != 0 {
            return Err(c.malformed("db name not NUL-terminated"));
        }
        let query = c.rest().to_vec();
        Ok(QueryEvent { thread_id, exec_time, error_code, status_vars, schema, query })
    }

    pub(crate) fn encode(&self, out: &mut Vec<u8>) -> Result<(), EncodeError> {
        let db_len = u8::try_from(self.schema.len()).map_err(|_| EncodeError::TooLong {
            field: "query db name",
            len: self.schema.len(),
            max: 255,
        })?;
        let status_len =
            u16::try_from(self.status_vars.len()).map_err(|_| EncodeError::TooLong {
                field: "status vars",
                len: self.status_vars.len(),
                max: u16::MAX as usize,
            })?;
        out.reserve(13 + self.status_vars.len() + self.schema.len() + 1 + self.query.len());
        out.extend_from_slice(&self.thread_id.to_le_bytes());
        out.extend_from_slice(&self.exec_time.to_le_bytes());
        out.push(db_len);
        out.extend_from_slice(&self.error_code.to_le_bytes());
        out.extend_from_slice(&status_len.to_le_bytes());
        out.extend_from_slice(&self.status_vars);
        out.extend_from_slice(&self.schema);
        out.push(0);
        out.extend_from_slice(&self.query);
        Ok(())
    }
}

/// Whether a QUERY event's text is a DDL that opens a transaction, as BEGIN does: mysqld
/// 8.0.21+ logs CREATE TABLE ... SELECT in row format as the generated `CREATE TABLE ...`
/// followed by ` START TRANSACTION`, then the rows and an XID in the same GTID transaction
/// (`select_create::binlog_show_create_table`).
pub fn ddl_opens_transaction(q: &[u8]) -> bool {
    const TAIL: &[u8] = b" START TRANSACTION";
    q.len() > TAIL.len() + 6
        && q[..6].eq_ignore_ascii_case(b"CREATE")
        && q[q.len() - TAIL.len()..].eq_ignore_ascii_case(TAIL)
}
