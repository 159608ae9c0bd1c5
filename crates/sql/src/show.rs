//! SHOW statements and the binlog admin statements, with MySQL's column names and shapes.

use engine::{ColumnType, TableSchema, Value};

use super::admin::AdminCommand;
use super::ast::Show;
use super::commit::split_engine_name;
use super::error::{Result, SqlError};
use super::eval::like;
use super::output::{Output, ResultColumn};
use super::session::Session;
use super::vars::{show_text, Scope, VARIABLES};
use protocol::processlist::{ProcessRow, KILL_CONNECTION, KILL_QUERY};

fn text(s: impl Into<String>) -> Value {
    Value::Bytes(s.into().into_bytes())
}

fn rows(names: &[&str], rows: Vec<Vec<Value>>) -> Output {
    Output::Rows { columns: names.iter().map(|n| ResultColumn::text(n, 64)).collect(), rows }
}

/// SHOW TABLE STATUS's columns (mysqld 8) and whether each is a number.
const TABLE_STATUS: [(&str, bool); 18] = [
    ("Name", false),
    ("Engine", false),
    ("Version", true),
    ("Row_format", false),
    ("Rows", true),
    ("Avg_row_length", true),
    ("Data_length", true),
    ("Max_data_length", true),
    ("Index_length", true),
    ("Data_free", true),
    ("Auto_increment", true),
    ("Create_time", false),
    ("Update_time", false),
    ("Check_time", false),
    ("Collation", false),
    ("Checksum", true),
    ("Create_options", false),
    ("Comment", false),
];

/// The information_schema tables of objects binlogd does not have, with MySQL 8's columns.
const EMPTY_INFORMATION_SCHEMA: [(&str, &[&str]); 7] = [
    ("COLUMN_STATISTICS", &["SCHEMA_NAME", "TABLE_NAME", "COLUMN_NAME", "HISTOGRAM"]),
    (
        "FILES",
        &[
            "FILE_ID",
            "FILE_NAME",
            "FILE_TYPE",
            "TABLESPACE_NAME",
            "TABLE_CATALOG",
            "TABLE_SCHEMA",
            "TABLE_NAME",
            "LOGFILE_GROUP_NAME",
            "LOGFILE_GROUP_NUMBER",
            "ENGINE",
            "FULLTEXT_KEYS",
            "DELETED_ROWS",
            "UPDATE_COUNT",
            "FREE_EXTENTS",
            "TOTAL_EXTENTS",
            "EXTENT_SIZE",
            "INITIAL_SIZE",
            "MAXIMUM_SIZE",
            "AUTOEXTEND_SIZE",
            "CREATION_TIME",
            "LAST_UPDATE_TIME",
            "LAST_ACCESS_TIME",
            "RECOVER_TIME",
            "TRANSACTION_COUNTER",
            "VERSION",
            "ROW_FORMAT",
            "TABLE_ROWS",
            "AVG_ROW_LENGTH",
            "DATA_LENGTH",
            "MAX_DATA_LENGTH",
            "INDEX_LENGTH",
            "DATA_FREE",
            "CREATE_TIME",
            "UPDATE_TIME",
            "CHECK_TIME",
            "CHECKSUM",
            "STATUS",
            "EXTRA",
        ],
    ),
    (
        "TRIGGERS",
        &[
            "TRIGGER_CATALOG",
            "TRIGGER_SCHEMA",
            "TRIGGER_NAME",
            "EVENT_MANIPULATION",
            "EVENT_OBJECT_CATALOG",
            "EVENT_OBJECT_SCHEMA",
            "EVENT_OBJECT_TABLE",
            "ACTION_ORDER",
            "ACTION_CONDITION",
            "ACTION_STATEMENT",
            "ACTION_ORIENTATION",
            "ACTION_TIMING",
            "ACTION_REFERENCE_OLD_TABLE",
            "ACTION_REFERENCE_NEW_TABLE",
            "ACTION_REFERENCE_OLD_ROW",
            "ACTION_REFERENCE_NEW_ROW",
            "CREATED",
            "SQL_MODE",
            "DEFINER",
            "CHARACTER_SET_CLIENT",
            "COLLATION_CONNECTION",
            "DATABASE_COLLATION",
        ],
    ),
    (
        "ROUTINES",
        &[
            "SPECIFIC_NAME",
            "ROUTINE_CATALOG",
            "ROUTINE_SCHEMA",
            "ROUTINE_NAME",
            "ROUTINE_TYPE",
            "DATA_TYPE",
            "CHARACTER_MAXIMUM_LENGTH",
            "CHARACTER_OCTET_LENGTH",
            "NUMERIC_PRECISION",
            "NUMERIC_SCALE",
            "DATETIME_PRECISION",
            "CHARACTER_SET_NAME",
            "COLLATION_NAME",
            "DTD_IDENTIFIER",
            "ROUTINE_BODY",
            "ROUTINE_DEFINITION",
            "EXTERNAL_NAME",
            "EXTERNAL_LANGUAGE",
            "PARAMETER_STYLE",
            "IS_DETERMINISTIC",
            "SQL_DATA_ACCESS",
            "SQL_PATH",
            "SECURITY_TYPE",
            "CREATED",
            "LAST_ALTERED",
            "SQL_MODE",
            "ROUTINE_COMMENT",
            "DEFINER",
            "CHARACTER_SET_CLIENT",
            "COLLATION_CONNECTION",
            "DATABASE_COLLATION",
        ],
    ),
    (
        "EVENTS",
        &[
            "EVENT_CATALOG",
            "EVENT_SCHEMA",
            "EVENT_NAME",
            "DEFINER",
            "TIME_ZONE",
            "EVENT_BODY",
            "EVENT_DEFINITION",
            "EVENT_TYPE",
            "EXECUTE_AT",
            "INTERVAL_VALUE",
            "INTERVAL_FIELD",
            "SQL_MODE",
            "STARTS",
            "ENDS",
            "STATUS",
            "ON_COMPLETION",
            "CREATED",
            "LAST_ALTERED",
            "LAST_EXECUTED",
            "EVENT_COMMENT",
            "ORIGINATOR",
            "CHARACTER_SET_CLIENT",
            "COLLATION_CONNECTION",
            "DATABASE_COLLATION",
        ],
    ),
    (
        "VIEWS",
        &[
            "TABLE_CATALOG",
            "TABLE_SCHEMA",
            "TABLE_NAME",
            "VIEW_DEFINITION",
            "CHECK_OPTION",
            "IS_UPDATABLE",
            "DEFINER",
            "SECURITY_TYPE",
            "CHARACTER_SET_CLIENT",
            "COLLATION_CONNECTION",
        ],
    ),
    (
        "PARTITIONS",
        &[
            "TABLE_CATALOG",
            "TABLE_SCHEMA",
            "TABLE_NAME",
            "PARTITION_NAME",
            "SUBPARTITION_NAME",
            "PARTITION_ORDINAL_POSITION",
            "SUBPARTITION_ORDINAL_POSITION",
            "PARTITION_METHOD",
            "SUBPARTITION_METHOD",
            "PARTITION_EXPRESSION",
            "SUBPARTITION_EXPRESSION",
            "PARTITION_DESCRIPTION",
            "TABLE_ROWS",
            "AVG_ROW_LENGTH",
            "DATA_LENGTH",
            "MAX_DATA_LENGTH",
            "INDEX_LENGTH",
            "DATA_FREE",
            "CREATE_TIME",
            "UPDATE_TIME",
            "CHECK_TIME",
            "CHECKSUM",
            "PARTITION_COMMENT",
            "NODEGROUP",
            "TABLESPACE_NAME",
        ],
    ),
];

/// SHOW CHARACTER SET's rows (Charset, Description, Default collation, Maxlen), by name.
fn charset_rows() -> Vec<Vec<String>> {
    let mut out: Vec<Vec<String>> = collation::CHARSETS
        .iter()
        .map(|cs| {
            let default = collation::by_id(cs.default_collation()).map_or("", |c| c.name);
            vec![
                cs.name().to_string(),
                cs.description().to_string(),
                default.to_string(),
                cs.mbmaxlen().to_string(),
            ]
        })
        .collect();
    out.sort();
    out
}

/// SHOW COLLATION's rows (Collation, Charset, Id, Default, Compiled, Sortlen, Pad_attribute),
/// by name.
fn collation_rows() -> Vec<Vec<String>> {
    let mut out: Vec<Vec<String>> = collation::COLLATIONS
        .iter()
        .map(|c| {
            vec![
                c.name.to_string(),
                c.charset.name().to_string(),
                c.id.to_string(),
                if c.is_default { "Yes" } else { "" }.to_string(),
                "Yes".to_string(),
                c.sortlen.to_string(),
                c.pad_attribute().to_string(),
            ]
        })
        .collect();
    out.sort();
    out
}

fn matches_like(pattern: &Option<String>, s: &str) -> bool {
    pattern.as_ref().is_none_or(|p| like(s.as_bytes(), p.as_bytes()))
}

/// LIKE over database and table names: case-sensitive under `lower_case_table_names = 0`
/// (mysqld's data dictionary keeps names in utf8mb3_bin then, `dd::Object_table_definition`),
/// else as [`matches_like`].
fn matches_name_like(server: &crate::server::Server, pattern: &Option<String>, s: &str) -> bool {
    if !server.names_case_sensitive() {
        return matches_like(pattern, s);
    }
    let bin = collation::by_name("utf8mb4_bin").map_or(46, |c| c.id);
    pattern
        .as_ref()
        .is_none_or(|p| collation::like(bin, s.as_bytes(), p.as_bytes(), Some(u32::from(b'\\'))))
}

/// The type text SHOW CREATE TABLE and SHOW COLUMNS print.
pub(crate) fn type_text(ty: ColumnType) -> String {
    match ty {
        ColumnType::Integer { bytes, unsigned } => {
            let base = match bytes {
                1 => "tinyint",
                2 => "smallint",
                3 => "mediumint",
                4 => "int",
                _ => "bigint",
            };
            if unsigned {
                format!("{base} unsigned")
            } else {
                base.to_string()
            }
        }
        ColumnType::Double => "double".into(),
        ColumnType::Decimal { precision, scale } => format!("decimal({precision},{scale})"),
        ColumnType::Char(n) => format!("char({n})"),
        ColumnType::VarChar(n) => format!("varchar({n})"),
        ColumnType::Text => "text".into(),
        ColumnType::Binary(_)
        | ColumnType::VarBinary(_)
        | ColumnType::Blob { .. }
        | ColumnType::SizedText { .. }
        | ColumnType::Enum
        | ColumnType::Set
        | ColumnType::Bit(_)
        | ColumnType::Json => crate::output::bytes_types::type_text(ty),
        ty @ (ColumnType::DateTime { .. }
        | ColumnType::Timestamp { .. }
        | ColumnType::Date
        | ColumnType::Time { .. }
        | ColumnType::Year
        | ColumnType::Float) => temporal_type_text(ty),
    }
}

/// The type text of a column: [`type_text`], or the fuller one of ENUM/SET members and integer
/// display widths (`bytes_types::column_type_text`).
pub(crate) fn column_type_text(c: &engine::Column) -> String {
    crate::output::bytes_types::column_type_text(c).unwrap_or_else(|| type_text(c.ty))
}

/// ` CHARACTER SET cs COLLATE c` of a character column, as mysqld's `store_create_info`:
/// the set when the collation is not the table's, the collation when it is not its set's
/// default (or is utf8mb4_0900_ai_ci in a table of another default).
fn column_charset_text(c: &engine::Column, table: u16) -> String {
    let Some(info) = collation::by_id(c.collation) else { return String::new() };
    let mut out = String::new();
    if c.collation != table {
        out.push_str(&format!(" CHARACTER SET {}", info.charset.name()));
    }
    if !info.is_default || (c.collation == collation::DEFAULT && table != collation::DEFAULT) {
        out.push_str(&format!(" COLLATE {}", info.name));
    }
    out
}

/// `DEFAULT CHARSET=cs[ COLLATE=c]` (the collation when it is not the set's default, or is
/// utf8mb4_0900_ai_ci), with `sep` between the words (`=` for tables, ` ` for databases).
pub(crate) fn charset_clause(id: u16, charset_word: &str, sep: &str) -> String {
    let Some(info) = collation::by_id(id) else { return String::new() };
    let mut out = format!("DEFAULT {charset_word}{sep}{}", info.charset.name());
    if !info.is_default || id == collation::DEFAULT {
        out.push_str(&format!(" COLLATE{sep}{}", info.name));
    }
    out
}

/// The declared text of issue 19's types: `datetime(3)`, `timestamp`, `time(6)`, ...
fn temporal_type_text(ty: ColumnType) -> String {
    let fsp = |base: &str, fsp: u8| {
        if fsp > 0 {
            format!("{base}({fsp})")
        } else {
            base.to_string()
        }
    };
    match ty {
        ColumnType::DateTime { fsp: f } => fsp("datetime", f),
        ColumnType::Timestamp { fsp: f } => fsp("timestamp", f),
        ColumnType::Time { fsp: f } => fsp("time", f),
        ColumnType::Date => "date".into(),
        ColumnType::Year => "year".into(),
        _ => "float".into(),
    }
}

/// A column's default as SHOW and information_schema print it (without quotes):
/// `CURRENT_TIMESTAMP[(fsp)]`, a TIMESTAMP's stored UTC default in the session's zone, a
/// temporal value with the column's fraction digits, YEAR with four digits.
fn default_text(c: &engine::Column) -> Option<String> {
    let fsp = match c.ty {
        ColumnType::DateTime { fsp } | ColumnType::Timestamp { fsp } | ColumnType::Time { fsp } => {
            fsp
        }
        _ => 0,
    };
    if c.default_now {
        return Some(if fsp > 0 {
            format!("CURRENT_TIMESTAMP({fsp})")
        } else {
            "CURRENT_TIMESTAMP".into()
        });
    }
    let d = c.default.as_ref()?;
    Some(match (c.ty, d) {
        (ColumnType::Timestamp { .. }, v) => match super::temporal::from_utc(v.clone()) {
            Value::DateTime(t) => super::temporal::datetime_text(&t, fsp),
            v => v.to_string(),
        },
        (ColumnType::DateTime { .. }, Value::DateTime(t)) => super::temporal::datetime_text(t, fsp),
        (ColumnType::Time { .. }, Value::Time(us)) => {
            engine::temporal::TimeText(*us, Some(fsp)).to_string()
        }
        (ColumnType::Year, Value::UInt(y)) => format!("{y:04}"),
        (_, v) => v.to_string(),
    })
}

/// DESCRIBE's and information_schema's Extra of a column (MySQL 8.0.13+'s
/// `DEFAULT_GENERATED` for an expression default).
fn extra_text(c: &engine::Column) -> String {
    let fsp = match c.ty {
        ColumnType::DateTime { fsp } | ColumnType::Timestamp { fsp } => fsp,
        _ => 0,
    };
    let mut parts = Vec::new();
    if c.auto_increment {
        parts.push("auto_increment".to_string());
    }
    if c.default_now {
        parts.push("DEFAULT_GENERATED".into());
    }
    if c.on_update_now {
        parts.push(if fsp > 0 {
            format!("on update CURRENT_TIMESTAMP({fsp})")
        } else {
            "on update CURRENT_TIMESTAMP".into()
        });
    }
    parts.join(" ")
}

/// MySQL 8's SHOW CREATE TABLE text.
pub(crate) fn create_table_text(
    s: &TableSchema,
    table: &str,
    auto_increment: Option<u64>,
) -> String {
    let mut lines = Vec::new();
    for c in &s.columns {
        let mut l = format!("  `{}` {}", c.name, column_type_text(c));
        if c.ty.is_text() {
            l.push_str(&column_charset_text(c, s.collation));
        }
        if !c.nullable {
            l.push_str(" NOT NULL");
        }
        let timestamp = matches!(c.ty, ColumnType::Timestamp { .. });
        if timestamp && c.nullable {
            // mysqld spells out NULL for a nullable TIMESTAMP.
            l.push_str(" NULL");
        }
        if c.auto_increment {
            l.push_str(" AUTO_INCREMENT");
        } else if c.default_now {
            l.push_str(&format!(" DEFAULT {}", default_text(c).unwrap_or_default()));
        } else if c.default.is_some() {
            let d = default_text(c).unwrap_or_default();
            l.push_str(&format!(" DEFAULT '{}'", d.replace('\'', "''")));
        } else if c.nullable && !crate::output::bytes_types::is_blob_like(c.ty) {
            l.push_str(" DEFAULT NULL");
        }
        if c.on_update_now {
            let e = extra_text(c);
            let on_update = e.rsplit_once("on update ").map_or("", |(_, x)| x);
            l.push_str(&format!(" ON UPDATE {on_update}"));
        }
        if !c.comment.is_empty() {
            l.push_str(" COMMENT ");
            l.push_str(&quoted(&c.comment));
        }
        lines.push(l);
    }
    let cols = |ps: &[usize]| {
        ps.iter().map(|&p| format!("`{}`", s.columns[p].name)).collect::<Vec<_>>().join(",")
    };
    if !s.primary_key.is_empty() {
        lines.push(format!("  PRIMARY KEY ({})", cols(&s.primary_key)));
    }
    // mysqld's `store_key_options`: ` COMMENT '...'` after the key parts.
    let key_comment = |i: &engine::IndexDef| {
        if i.comment.is_empty() {
            String::new()
        } else {
            format!(" COMMENT {}", quoted(&i.comment))
        }
    };
    // A prefix part as `c`(10) (mysqld's `store_create_info`).
    let parts = |i: &engine::IndexDef| {
        let part = |(k, &p): (usize, &usize)| match i.prefix(k) {
            0 => format!("`{}`", s.columns[p].name),
            n => format!("`{}`({n})", s.columns[p].name),
        };
        i.columns.iter().enumerate().map(part).collect::<Vec<_>>().join(",")
    };
    for i in s.indexes.iter().filter(|i| i.unique) {
        lines.push(format!("  UNIQUE KEY `{}` ({}){}", i.name, parts(i), key_comment(i)));
    }
    for i in s.indexes.iter().filter(|i| !i.unique) {
        lines.push(format!("  KEY `{}` ({}){}", i.name, parts(i), key_comment(i)));
    }
    for fk in &s.foreign_keys {
        lines.push(format!("  {}", crate::foreign_keys::constraint_clause(s, fk)));
    }
    for c in &s.checks {
        lines.push(format!("  {}", crate::checks::clause(c)));
    }
    let auto = match auto_increment {
        Some(n) if n > 1 && s.auto_increment_column().is_some() => format!(" AUTO_INCREMENT={n}"),
        _ => String::new(),
    };
    let comment = if s.comment.is_empty() {
        String::new()
    } else {
        format!(" COMMENT={}", quoted(&s.comment))
    };
    format!(
        "CREATE TABLE `{table}` (\n{}\n) ENGINE=InnoDB{auto} {}{comment}",
        lines.join(",\n"),
        charset_clause(s.collation, "CHARSET", "=")
    )
}

impl Session {
    fn current_db(&self, db: &Option<String>) -> Result<String> {
        let db = match db {
            Some(d) => d.clone(),
            None => self.db.clone().ok_or(SqlError::NoDatabaseSelected)?,
        };
        self.server.database(&db).ok_or(SqlError::UnknownDatabase(db))
    }

    /// `SHOW ... WHERE filter`: the SHOW's rows for which `filter`, with the result's column
    /// names as its columns, is true (mysqld runs these SHOWs as a SELECT over an
    /// information_schema view with that WHERE).
    pub(crate) fn show_where(&mut self, s: &Show, filter: &super::ast::Expr) -> Result<Output> {
        let Output::Rows { columns, rows } = self.show(s)? else {
            return Err(SqlError::NotSupported(
                "SHOW ... WHERE of a statement without rows".into(),
            ));
        };
        let schema = TableSchema::new(
            "show.result",
            columns.iter().map(|c| engine::Column::new(&c.name, ColumnType::Text)).collect(),
            vec![],
        );
        let bound = self.binder(Some(&schema), &[], "where clause").bind(filter)?;
        let mut kept = Vec::with_capacity(rows.len());
        for row in rows {
            if super::eval::truth(&super::eval::eval(&bound, &row, &[])?) == Some(true) {
                kept.push(row);
            }
        }
        Ok(Output::Rows { columns, rows: kept })
    }

    pub(crate) fn show(&mut self, s: &Show) -> Result<Output> {
        let server = self.server.clone();
        Ok(match s {
            Show::Databases { like: pat } => {
                server.count("Com_show_databases");
                let name = match pat {
                    Some(p) => format!("Database ({p})"),
                    None => "Database".into(),
                };
                // information_schema is listed to every account, in name order with the
                // rest (mysqld 8.0 answers SHOW DATABASES from SCHEMATA ordered by name).
                let mut all = server.databases();
                all.push("information_schema".to_string());
                all.sort();
                let r = all
                    .into_iter()
                    .filter(|d| matches_name_like(&server, pat, d))
                    // mysqld lists only the databases the account holds a privilege in,
                    // unless it has SHOW DATABASES (`sql_show.cc`, `find_files`).
                    .filter(|d| d == "information_schema" || self.may_see_database(d))
                    .map(|d| vec![text(d)])
                    .collect();
                rows(&[&name], r)
            }
            Show::Tables { db, full, like: pat } => {
                server.count("Com_show_tables");
                let db = self.current_db(db)?;
                let mut name = format!("Tables_in_{db}");
                if let Some(p) = pat {
                    name = format!("{name} ({p})");
                }
                let mut names: Vec<String> = self
                    .tables_of(&db)
                    .iter()
                    .map(|t| split_engine_name(&t.name).1.to_string())
                    .filter(|t| matches_name_like(&server, pat, t))
                    // mysqld lists a table only to an account with some privilege on it.
                    .filter(|t| self.may_see_table(&db, t))
                    .collect();
                names.sort();
                if *full {
                    let kind = |t: &str| {
                        let r = super::ast::TableRef { db: Some(db.clone()), name: t.to_string() };
                        if self.lookup_view(&r).is_some() {
                            "VIEW"
                        } else {
                            "BASE TABLE"
                        }
                    };
                    let listed = names
                        .into_iter()
                        .map(|t| {
                            let k = kind(&t);
                            vec![text(t), text(k)]
                        })
                        .collect();
                    rows(&[&name, "Table_type"], listed)
                } else {
                    rows(&[&name], names.into_iter().map(|t| vec![text(t)]).collect())
                }
            }
            Show::CreateView(t) => self.show_create_view(t)?,
            Show::CreateTable(t) => {
                server.count("Com_show_create_table");
                if self.lookup_view(t).is_some() {
                    // mysqld answers SHOW CREATE TABLE of a view with SHOW CREATE VIEW's rows.
                    return self.show_create_view(t);
                }
                let (id, schema, _) = self.resolve_table(t)?;
                let table = split_engine_name(&schema.name).1.to_string();
                let body = create_table_text(&schema, &table, server.engine.auto_increment(id));
                rows(&["Table", "Create Table"], vec![vec![text(table), text(body)]])
            }
            Show::CreateDatabase(name) => {
                let db =
                    server.database(name).ok_or_else(|| SqlError::UnknownDatabase(name.clone()))?;
                let clause = charset_clause(server.database_collation(&db), "CHARACTER SET", " ");
                let body = format!(
                    "CREATE DATABASE `{db}` /*!40100 {clause} */ /*!80016 DEFAULT ENCRYPTION='N' */"
                );
                rows(&["Database", "Create Database"], vec![vec![text(db), text(body)]])
            }
            Show::Columns { table, full, like: pat } => {
                server.count("Com_show_fields");
                let schema = match self.lookup_view(table) {
                    Some((db, name, def)) => self.view_schema(&db, &name, &def)?,
                    None => self.resolve_table(table)?.1,
                };
                let mut out = Vec::new();
                for (i, c) in schema.columns.iter().enumerate() {
                    if !matches_like(pat, &c.name) {
                        continue;
                    }
                    let key = if schema.primary_key.contains(&i) {
                        "PRI"
                    } else if schema.indexes.iter().any(|x| x.unique && x.columns == [i]) {
                        "UNI"
                    } else if schema.indexes.iter().any(|x| x.columns.first() == Some(&i)) {
                        "MUL"
                    } else {
                        ""
                    };
                    let default = default_text(c).map_or(Value::Null, text);
                    let extra = extra_text(c);
                    let null = if c.nullable { "YES" } else { "NO" };
                    let textual = matches!(
                        c.ty,
                        ColumnType::Char(_) | ColumnType::VarChar(_) | ColumnType::Text
                    ) || matches!(
                        c.ty,
                        ColumnType::SizedText { .. } | ColumnType::Enum | ColumnType::Set
                    );
                    if *full {
                        let coll = match collation::by_id(c.collation) {
                            Some(info) if textual => text(info.name),
                            _ => Value::Null,
                        };
                        out.push(vec![
                            text(&c.name),
                            text(column_type_text(c)),
                            coll,
                            text(null),
                            text(key),
                            default,
                            text(extra.clone()),
                            text("select,insert,update,references"),
                            text(c.comment.as_str()),
                        ]);
                    } else {
                        out.push(vec![
                            text(&c.name),
                            text(column_type_text(c)),
                            text(null),
                            text(key),
                            default,
                            text(extra),
                        ]);
                    }
                }
                if *full {
                    rows(
                        &[
                            "Field",
                            "Type",
                            "Collation",
                            "Null",
                            "Key",
                            "Default",
                            "Extra",
                            "Privileges",
                            "Comment",
                        ],
                        out,
                    )
                } else {
                    rows(&["Field", "Type", "Null", "Key", "Default", "Extra"], out)
                }
            }
            Show::Variables { global, like: pat } => {
                server.count("Com_show_variables");
                let mut out = Vec::new();
                for d in VARIABLES {
                    if !matches_like(pat, d.name) {
                        continue;
                    }
                    if *global && d.scope == Scope::Session {
                        continue;
                    }
                    let scope = if *global {
                        super::ast::VarScope::Global
                    } else {
                        super::ast::VarScope::Default
                    };
                    let v = self.sysvar(scope, d.name)?;
                    out.push(vec![text(d.name), text(show_text(d, &v))]);
                }
                out.sort_by(|a, b| a[0].to_string().cmp(&b[0].to_string()));
                rows(&["Variable_name", "Value"], out)
            }
            Show::Status { like: pat, .. } => {
                server.count("Com_show_status");
                let mut all = server.global_status();
                all.extend(self.binlog_snapshot_status());
                // The connection's own Ssl_* rows (mysqld shows them in both scopes).
                let tls = protocol::tls_status::session_status(self.tls.as_ref());
                all.extend(tls.into_iter().map(|(n, v)| (n.to_string(), v)));
                all.sort_by_key(|a| a.0.to_ascii_lowercase());
                all.retain(|(n, _)| matches_like(pat, n));
                rows(
                    &["Variable_name", "Value"],
                    all.into_iter().map(|(n, v)| vec![text(n), text(v)]).collect(),
                )
            }
            Show::Warnings | Show::Errors => {
                server.count("Com_show_warnings");
                let only_errors = matches!(s, Show::Errors);
                let out = self
                    .warnings
                    .iter()
                    .filter(|w| !only_errors || w.level == "Error")
                    .map(|w| vec![text(w.level), Value::UInt(u64::from(w.code)), text(&w.message)])
                    .collect();
                let mut cols: Vec<ResultColumn> = ["Level", "Code", "Message"]
                    .iter()
                    .map(|n| ResultColumn::text(n, 64))
                    .collect();
                cols[1] = ResultColumn::bigint("Code", true);
                Output::Rows { columns: cols, rows: out }
            }
            Show::WarningCount { errors } => {
                server.count("Com_show_warnings");
                let n_errors = self.warnings.iter().filter(|w| w.level == "Error").count();
                let (name, n) = if *errors {
                    ("@@session.error_count", n_errors)
                } else {
                    ("@@session.warning_count", self.warnings.len())
                };
                Output::Rows {
                    columns: vec![ResultColumn::bigint(name, true)],
                    rows: vec![vec![Value::UInt(n as u64)]],
                }
            }
            Show::TableStatus { db, like: pat } => {
                server.count("Com_show_table_status");
                let db = self.current_db(db)?;
                let mut tables = self.tables_of(&db);
                tables.retain(|t| matches_name_like(&server, pat, split_engine_name(&t.name).1));
                tables.sort_by(|a, b| a.name.cmp(&b.name));
                let columns = TABLE_STATUS
                    .iter()
                    .map(|(name, numeric)| match numeric {
                        true => ResultColumn::bigint(name, true),
                        false => ResultColumn::text(name, 64),
                    })
                    .collect();
                let rows = tables.iter().map(|t| self.table_status(t)).collect();
                Output::Rows { columns, rows }
            }
            Show::Engines => rows(
                &["Engine", "Support", "Comment", "Transactions", "XA", "Savepoints"],
                vec![super::information_schema::ENGINE_ROW.iter().map(|v| text(*v)).collect()],
            ),
            Show::Index(t) => {
                let (_, schema, db) = self.resolve_table(t)?;
                let table = split_engine_name(&schema.name).1.to_string();
                // information_schema.STATISTICS's rows without its catalog/schema columns
                // (mysqld 8.0 answers SHOW INDEX from that view).
                let out = super::information_schema::statistics_rows(self, &db, &table, &schema)
                    .into_iter()
                    .map(|r| {
                        r.into_iter()
                            .enumerate()
                            .filter(|(i, _)| ![0, 1, 4].contains(i))
                            .map(|(_, v)| v)
                            .collect()
                    })
                    .collect();
                let names = [
                    "Table",
                    "Non_unique",
                    "Key_name",
                    "Seq_in_index",
                    "Column_name",
                    "Collation",
                    "Cardinality",
                    "Sub_part",
                    "Packed",
                    "Null",
                    "Index_type",
                    "Comment",
                    "Index_comment",
                    "Visible",
                    "Expression",
                ];
                let mut cols: Vec<ResultColumn> =
                    names.iter().map(|n| ResultColumn::text(n, 64)).collect();
                for i in [1, 3, 6, 7] {
                    cols[i] = ResultColumn::bigint(names[i], false);
                }
                Output::Rows { columns: cols, rows: out }
            }
            Show::Charset { like: pat } => rows(
                &["Charset", "Description", "Default collation", "Maxlen"],
                charset_rows()
                    .into_iter()
                    .filter(|r| matches_like(pat, &r[0]))
                    .map(|r| r.into_iter().map(text).collect())
                    .collect(),
            ),
            Show::Collation { like: pat } => rows(
                &["Collation", "Charset", "Id", "Default", "Compiled", "Sortlen", "Pad_attribute"],
                collation_rows()
                    .into_iter()
                    .filter(|r| matches_like(pat, &r[0]))
                    .map(|r| r.into_iter().map(text).collect())
                    .collect(),
            ),
            Show::ProcessList { full } => {
                server.count("Com_show_processlist");
                self.process_list(*full)?
            }
        })
    }

    /// `SHOW [FULL] PROCESSLIST` (mysqld's `mysqld_list_processes`, sql_show.cc): every
    /// connection with PROCESS, otherwise those of the same user name; Info cut to 100
    /// characters without FULL (`PROCESS_LIST_WIDTH`).
    fn process_list(&self, full: bool) -> Result<Output> {
        let columns = vec![
            ResultColumn::bigint("Id", true),
            ResultColumn::text("User", 32),
            ResultColumn::text("Host", 261),
            ResultColumn::text("db", 64),
            ResultColumn::text("Command", 16),
            ResultColumn::bigint("Time", false),
            ResultColumn::text("State", 30),
            ResultColumn::text("Info", if full { 65535 } else { 100 }),
        ];
        let all = self.has_global_privilege(accounts::Privileges::PROCESS);
        let listed: Vec<ProcessRow> = match self.server.processes() {
            Some(list) => list
                .snapshot()
                .iter()
                .filter(|p| all || p.user() == self.user)
                .map(|p| p.row())
                .collect(),
            // The SQL layer without a protocol server: this session alone.
            None => vec![ProcessRow {
                id: self.connection_id,
                user: self.user.clone(),
                host: self.host.clone(),
                db: self.db.clone(),
                command: "Query",
                time: 0,
                state: "executing",
                info: None,
            }],
        };
        let out = listed
            .into_iter()
            .map(|p| {
                let info = p.info.map(|i| match i.char_indices().nth(100) {
                    Some((cut, _)) if !full => text(&i[..cut]),
                    _ => text(&*i),
                });
                vec![
                    Value::UInt(u64::from(p.id)),
                    text(p.user),
                    text(p.host),
                    p.db.map_or(Value::Null, text),
                    text(p.command),
                    Value::Int(i64::try_from(p.time).unwrap_or(i64::MAX)),
                    text(p.state),
                    info.unwrap_or(Value::Null),
                ]
            })
            .collect();
        Ok(Output::Rows { columns, rows: out })
    }

    /// `information_schema.PROCESSLIST` (MySQL 8's columns and types) when `t` names it (or
    /// `PROCESSLIST` with information_schema as the default database): the rows of SHOW FULL
    /// PROCESSLIST, for a single-table SELECT. Other information_schema tables: None.
    pub(crate) fn information_schema_table(
        &self,
        t: &super::ast::TableRef,
    ) -> Option<(std::sync::Arc<TableSchema>, Vec<Vec<Value>>)> {
        if super::perf_schema::is_log_status(self, t) {
            return Some(super::perf_schema::log_status(self));
        }
        let exact = self.server.names_case_sensitive();
        self.information_schema_rows(t).map(|m| super::information_schema::in_utf8mb3(m, exact))
    }

    /// The information_schema table `t` names, if it is one (its text columns still in the
    /// default collation: [`Session::information_schema_table`] makes them utf8mb3).
    fn information_schema_rows(
        &self,
        t: &super::ast::TableRef,
    ) -> Option<(std::sync::Arc<TableSchema>, Vec<Vec<Value>>)> {
        let in_schema =
            t.db.as_deref()
                .or(self.db.as_deref())
                .is_some_and(|db| db.eq_ignore_ascii_case("information_schema"));
        if in_schema && t.name.eq_ignore_ascii_case("tables") {
            return Some(self.information_schema_tables());
        }
        if in_schema && t.name.eq_ignore_ascii_case("columns") {
            return Some(self.information_schema_columns());
        }
        if in_schema && t.name.eq_ignore_ascii_case("views") {
            let name = |n: &str| engine::Column::new(n, ColumnType::VarChar(64)).not_null();
            let mut columns = vec![
                name("TABLE_CATALOG"),
                name("TABLE_SCHEMA"),
                name("TABLE_NAME"),
                engine::Column::new("VIEW_DEFINITION", ColumnType::SizedText { len_bytes: 4 })
                    .not_null(),
                engine::Column::new("CHECK_OPTION", ColumnType::VarChar(8)),
                engine::Column::new("IS_UPDATABLE", ColumnType::VarChar(3)),
                engine::Column::new("DEFINER", ColumnType::VarChar(288)),
                engine::Column::new("SECURITY_TYPE", ColumnType::VarChar(7)),
            ];
            columns.push(name("CHARACTER_SET_CLIENT"));
            columns.push(name("COLLATION_CONNECTION"));
            let schema = TableSchema::new("information_schema.VIEWS", columns, vec![]);
            return Some((std::sync::Arc::new(schema), self.information_schema_view_rows()));
        }
        if let Some(made_up) =
            in_schema.then(|| super::information_schema::table(self, &t.name)).flatten()
        {
            return Some(made_up);
        }
        if in_schema && t.name.eq_ignore_ascii_case("collations") {
            let names = [
                "COLLATION_NAME",
                "CHARACTER_SET_NAME",
                "ID",
                "IS_DEFAULT",
                "IS_COMPILED",
                "SORTLEN",
                "PAD_ATTRIBUTE",
            ];
            let columns = names
                .iter()
                .map(|n| match *n {
                    "ID" | "SORTLEN" => {
                        engine::Column::new(n, ColumnType::Integer { bytes: 8, unsigned: true })
                    }
                    n => engine::Column::new(n, ColumnType::VarChar(64)),
                })
                .collect();
            let rows = collation_rows()
                .into_iter()
                .map(|r| {
                    r.into_iter()
                        .enumerate()
                        .map(|(i, v)| match i {
                            2 | 5 => Value::UInt(v.parse().unwrap_or(0)),
                            _ => text(v),
                        })
                        .collect()
                })
                .collect();
            let schema = TableSchema::new("information_schema.COLLATIONS", columns, vec![]);
            return Some((std::sync::Arc::new(schema), rows));
        }
        if in_schema && t.name.eq_ignore_ascii_case("character_sets") {
            let columns = vec![
                engine::Column::new("CHARACTER_SET_NAME", ColumnType::VarChar(64)),
                engine::Column::new("DEFAULT_COLLATE_NAME", ColumnType::VarChar(64)),
                engine::Column::new("DESCRIPTION", ColumnType::VarChar(2048)),
                engine::Column::new("MAXLEN", ColumnType::Integer { bytes: 4, unsigned: true }),
            ];
            let rows = charset_rows()
                .into_iter()
                .map(|r| {
                    vec![
                        text(r[0].clone()),
                        text(r[2].clone()),
                        text(r[1].clone()),
                        Value::UInt(r[3].parse().unwrap_or(1)),
                    ]
                })
                .collect();
            let schema = TableSchema::new("information_schema.CHARACTER_SETS", columns, vec![]);
            return Some((std::sync::Arc::new(schema), rows));
        }
        if let Some((name, columns)) = in_schema
            .then(|| EMPTY_INFORMATION_SCHEMA.iter().find(|(n, _)| n.eq_ignore_ascii_case(&t.name)))
            .flatten()
        {
            // Objects binlogd does not have (tablespace files, triggers, routines, events,
            // views, partitions): the table exists, with no rows, as on a mysqld without them.
            let columns =
                columns.iter().map(|n| engine::Column::new(n, ColumnType::Text)).collect();
            let schema = TableSchema::new(&format!("information_schema.{name}"), columns, vec![]);
            return Some((std::sync::Arc::new(schema), Vec::new()));
        }
        if !self.is_processlist_table(t) {
            return None;
        }
        let columns = vec![
            engine::Column::new("ID", ColumnType::Integer { bytes: 8, unsigned: true }).not_null(),
            engine::Column::new("USER", ColumnType::VarChar(32)).not_null(),
            engine::Column::new("HOST", ColumnType::VarChar(261)).not_null(),
            engine::Column::new("DB", ColumnType::VarChar(64)),
            engine::Column::new("COMMAND", ColumnType::VarChar(16)).not_null(),
            engine::Column::new("TIME", ColumnType::Integer { bytes: 4, unsigned: false })
                .not_null(),
            engine::Column::new("STATE", ColumnType::VarChar(64)),
            engine::Column::new("INFO", ColumnType::Text),
        ];
        let schema = std::sync::Arc::new(TableSchema::new(
            "information_schema.PROCESSLIST",
            columns,
            vec![],
        ));
        let Ok(Output::Rows { rows, .. }) = self.process_list(true) else { return None };
        Some((schema, rows))
    }

    /// `information_schema.TABLES` (MySQL 8's 21 columns): SHOW TABLE STATUS's values for every
    /// table of every database the account may see.
    fn information_schema_tables(&self) -> (std::sync::Arc<TableSchema>, Vec<Vec<Value>>) {
        let name = |n: &str| engine::Column::new(n, ColumnType::VarChar(64));
        let number =
            |n: &str| engine::Column::new(n, ColumnType::Integer { bytes: 8, unsigned: true });
        let columns = vec![
            name("TABLE_CATALOG").not_null(),
            name("TABLE_SCHEMA").not_null(),
            name("TABLE_NAME").not_null(),
            name("TABLE_TYPE").not_null(),
            name("ENGINE"),
            number("VERSION"),
            name("ROW_FORMAT"),
            number("TABLE_ROWS"),
            number("AVG_ROW_LENGTH"),
            number("DATA_LENGTH"),
            number("MAX_DATA_LENGTH"),
            number("INDEX_LENGTH"),
            number("DATA_FREE"),
            number("AUTO_INCREMENT"),
            engine::Column::new("CREATE_TIME", ColumnType::DateTime { fsp: 0 }),
            engine::Column::new("UPDATE_TIME", ColumnType::DateTime { fsp: 0 }),
            engine::Column::new("CHECK_TIME", ColumnType::DateTime { fsp: 0 }),
            name("TABLE_COLLATION"),
            number("CHECKSUM"),
            engine::Column::new("CREATE_OPTIONS", ColumnType::VarChar(256)),
            engine::Column::new("TABLE_COMMENT", ColumnType::Text),
        ];
        let schema = TableSchema::new("information_schema.TABLES", columns, vec![]);
        let mut dbs = self.server.databases();
        dbs.sort();
        let mut out = Vec::new();
        for db in dbs.iter().filter(|d| self.may_see_database(d)) {
            let mut tables = self.tables_of(db);
            tables.sort_by(|a, b| a.name.cmp(&b.name));
            for t in tables {
                if t.view.is_some() {
                    // A view: its name and type, NULL storage figures, comment 'VIEW'.
                    let table = split_engine_name(&t.name).1.to_string();
                    let mut row = vec![text("def"), text(db.as_str()), text(table), text("VIEW")];
                    row.extend(std::iter::repeat_n(Value::Null, 16));
                    row.push(text("VIEW"));
                    out.push(row);
                    continue;
                }
                let status = self.table_status(&t);
                let mut row =
                    vec![text("def"), text(db.as_str()), status[0].clone(), text("BASE TABLE")];
                row.extend(status[1..].iter().cloned());
                out.push(row);
            }
        }
        (std::sync::Arc::new(schema), out)
    }

    /// `information_schema.COLUMNS` (MySQL 8's columns): one row per column of every table
    /// of every database the account may see, as SHOW FULL COLUMNS describes them.
    fn information_schema_columns(&self) -> (std::sync::Arc<TableSchema>, Vec<Vec<Value>>) {
        let name = |n: &str| engine::Column::new(n, ColumnType::VarChar(64));
        let number =
            |n: &str| engine::Column::new(n, ColumnType::Integer { bytes: 8, unsigned: true });
        let columns = vec![
            name("TABLE_CATALOG").not_null(),
            name("TABLE_SCHEMA").not_null(),
            name("TABLE_NAME").not_null(),
            name("COLUMN_NAME"),
            number("ORDINAL_POSITION").not_null(),
            engine::Column::new("COLUMN_DEFAULT", ColumnType::Text),
            engine::Column::new("IS_NULLABLE", ColumnType::VarChar(3)).not_null(),
            engine::Column::new("DATA_TYPE", ColumnType::Text),
            number("CHARACTER_MAXIMUM_LENGTH"),
            number("CHARACTER_OCTET_LENGTH"),
            number("NUMERIC_PRECISION"),
            number("NUMERIC_SCALE"),
            number("DATETIME_PRECISION"),
            name("CHARACTER_SET_NAME"),
            name("COLLATION_NAME"),
            engine::Column::new("COLUMN_TYPE", ColumnType::Text).not_null(),
            engine::Column::new("COLUMN_KEY", ColumnType::VarChar(3)).not_null(),
            engine::Column::new("EXTRA", ColumnType::VarChar(256)),
            engine::Column::new("PRIVILEGES", ColumnType::VarChar(154)),
            engine::Column::new("COLUMN_COMMENT", ColumnType::Text).not_null(),
            engine::Column::new("GENERATION_EXPRESSION", ColumnType::Text).not_null(),
            engine::Column::new("SRS_ID", ColumnType::Integer { bytes: 4, unsigned: true }),
        ];
        let schema = TableSchema::new("information_schema.COLUMNS", columns, vec![]);
        let mut dbs = self.server.databases();
        dbs.sort();
        let mut out = Vec::new();
        for db in dbs.iter().filter(|d| self.may_see_database(d)) {
            let mut tables = self.tables_of(db);
            tables.sort_by(|a, b| a.name.cmp(&b.name));
            for mut t in tables {
                let table = split_engine_name(&t.name).1.to_string();
                if let Some(def) = t.view.as_deref().and_then(super::views::ViewDef::decode) {
                    // A view's columns as its SELECT types them (none if it is invalid now,
                    // as mysqld skips it with a warning).
                    match self.view_schema(db, &table, &def) {
                        Ok(schema) => t = schema,
                        Err(_) => continue,
                    }
                }
                for (i, c) in t.columns.iter().enumerate() {
                    let column_type = column_type_text(c);
                    let data_type =
                        column_type.split(['(', ' ']).next().unwrap_or_default().to_string();
                    let (chars, precision, scale, dt_precision) = match c.ty {
                        ColumnType::Char(n) | ColumnType::VarChar(n) => {
                            (Some(u64::from(n)), None, None, None)
                        }
                        ColumnType::Text => (Some(65_535), None, None, None),
                        ColumnType::Integer { bytes, unsigned } => {
                            let digits: u64 = match (bytes, unsigned) {
                                (1, _) => 3,
                                (2, _) => 5,
                                (3, false) => 7,
                                (3, true) => 8,
                                (4, _) => 10,
                                (_, false) => 19,
                                (_, true) => 20,
                            };
                            (None, Some(digits), Some(0), None)
                        }
                        ColumnType::Double => (None, Some(22), None, None),
                        ColumnType::Decimal { precision, scale } => {
                            (None, Some(u64::from(precision)), Some(u64::from(scale)), None)
                        }
                        ColumnType::Binary(_)
                        | ColumnType::VarBinary(_)
                        | ColumnType::Blob { .. }
                        | ColumnType::SizedText { .. }
                        | ColumnType::Enum
                        | ColumnType::Set
                        | ColumnType::Bit(_)
                        | ColumnType::Json => {
                            let (chars, precision) = crate::output::bytes_types::info_lengths(c);
                            (chars, precision, None, None)
                        }
                        ColumnType::DateTime { fsp }
                        | ColumnType::Timestamp { fsp }
                        | ColumnType::Time { fsp } => (None, None, None, Some(u64::from(fsp))),
                        ColumnType::Date | ColumnType::Year => (None, None, None, None),
                        ColumnType::Float => (None, Some(12), None, None),
                    };
                    let textual =
                        chars.is_some() && !crate::output::bytes_types::is_binary_string(c.ty);
                    let key = if t.primary_key.contains(&i) {
                        "PRI"
                    } else if t.indexes.iter().any(|x| x.unique && x.columns == [i]) {
                        "UNI"
                    } else if t.indexes.iter().any(|x| x.columns.first() == Some(&i)) {
                        "MUL"
                    } else {
                        ""
                    };
                    let opt = |v: Option<u64>| v.map_or(Value::Null, Value::UInt);
                    out.push(vec![
                        text("def"),
                        text(db.as_str()),
                        text(table.as_str()),
                        text(&c.name),
                        Value::UInt(i as u64 + 1),
                        default_text(c).map_or(Value::Null, text),
                        text(if c.nullable { "YES" } else { "NO" }),
                        text(data_type),
                        opt(chars),
                        opt(chars.map(|n| {
                            if c.ty == ColumnType::Text {
                                n
                            } else {
                                n * u64::from(c.charset().mbmaxlen())
                            }
                        })),
                        opt(precision),
                        opt(scale),
                        opt(dt_precision),
                        if textual { text(c.charset().name()) } else { Value::Null },
                        match collation::by_id(c.collation) {
                            Some(info) if textual => text(info.name),
                            _ => Value::Null,
                        },
                        text(column_type),
                        text(key),
                        text(extra_text(c)),
                        text("select,insert,update,references"),
                        text(c.comment.as_str()),
                        text(""),
                        Value::Null,
                    ]);
                }
            }
        }
        (std::sync::Arc::new(schema), out)
    }

    /// One table's row of SHOW TABLE STATUS ([`TABLE_STATUS`]'s columns), as mysqld's
    /// `get_schema_tables_record`: the exact row count (the engine counts committed rows; InnoDB
    /// estimates), the next AUTO_INCREMENT value, the collation every table has here. The
    /// engine keeps no page statistics, so the length columns are 0 and the times NULL.
    pub(crate) fn table_status(&self, t: &TableSchema) -> Vec<Value> {
        if t.view.is_some() {
            // A view: its name, NULL figures, comment 'VIEW' (mysqld; mariadb-dump tells a
            // view from a table by the NULL engine and dumps no rows of it).
            let mut row = vec![text(split_engine_name(&t.name).1)];
            row.extend(std::iter::repeat_n(Value::Null, 16));
            row.push(text("VIEW"));
            return row;
        }
        let engine = &self.server.engine;
        let rows = engine.row_count(t.id).unwrap_or(0) as u64;
        let auto_inc = t.auto_increment_column().and_then(|_| engine.auto_increment(t.id));
        vec![
            text(split_engine_name(&t.name).1),
            text("InnoDB"),
            Value::UInt(10),
            text("Dynamic"),
            Value::UInt(rows),
            Value::UInt(0),
            Value::UInt(0),
            Value::UInt(0),
            Value::UInt(0),
            Value::UInt(0),
            auto_inc.map_or(Value::Null, Value::UInt),
            Value::Null,
            Value::Null,
            Value::Null,
            text(collation::by_id(t.collation).map_or("utf8mb4_0900_ai_ci", |c| c.name)),
            Value::Null,
            text(""),
            text(t.comment.as_str()),
        ]
    }

    /// True if `t` is in information_schema (readable by every account; each table shows
    /// what the account may see).
    pub(crate) fn is_information_schema(&self, t: &super::ast::TableRef) -> bool {
        t.db.as_deref()
            .or(self.db.as_deref())
            .is_some_and(|db| db.eq_ignore_ascii_case("information_schema"))
    }

    /// True if `t` names information_schema.PROCESSLIST.
    pub(crate) fn is_processlist_table(&self, t: &super::ast::TableRef) -> bool {
        t.db.as_deref()
            .or(self.db.as_deref())
            .is_some_and(|db| db.eq_ignore_ascii_case("information_schema"))
            && t.name.eq_ignore_ascii_case("processlist")
    }

    /// `KILL [CONNECTION | QUERY] id` (mysqld's `sql_kill` / `kill_one_thread`, sql_parse.cc):
    /// 1094 for an id no connection has, 1095 for another user's connection without SUPER
    /// (mysqld also accepts CONNECTION_ADMIN, a dynamic privilege binlogd does not model).
    /// Killing the session's own connection answers 1317 (mysqld: `send_kill_message`).
    pub(crate) fn kill(
        &mut self,
        query: bool,
        id: &super::ast::Expr,
        params: &[Value],
    ) -> Result<Output> {
        self.server.count("Com_kill");
        let id = match self.const_value(id, params)? {
            Value::Int(i) => u64::try_from(i).unwrap_or(0),
            Value::UInt(u) => u,
            // mysqld reads the expression with `val_int()`: a string's leading digits.
            Value::Bytes(b) => {
                let digits: Vec<u8> = b.iter().copied().take_while(u8::is_ascii_digit).collect();
                std::str::from_utf8(&digits).ok().and_then(|d| d.parse().ok()).unwrap_or(0)
            }
            _ => 0,
        };
        let unknown = || SqlError::Other {
            code: 1094,
            sqlstate: "HY000",
            message: format!("Unknown thread id: {id}"),
        };
        let target = match self.server.processes() {
            Some(list) => u32::try_from(id).ok().and_then(|id| list.get(id)).ok_or_else(unknown)?,
            None if id == u64::from(self.connection_id) => {
                return Err(crate::error::query_interrupted())
            }
            None => return Err(unknown()),
        };
        if target.user() != self.user && !self.has_global_privilege(accounts::Privileges::SUPER) {
            return Err(SqlError::Other {
                code: 1095,
                sqlstate: "HY000",
                message: format!("You are not owner of thread {id}"),
            });
        }
        target.kill(if query { KILL_QUERY } else { KILL_CONNECTION });
        if target.id() == self.connection_id {
            return Err(crate::error::query_interrupted());
        }
        Ok(Output::ok(0))
    }

    pub(crate) fn admin(&mut self, cmd: &AdminCommand) -> Result<Output> {
        let server = self.server.clone();
        let admin = &server.hooks.admin;
        Ok(match cmd {
            AdminCommand::ShowBinaryLogs => {
                server.count("Com_show_binlogs");
                let files = admin.binary_logs()?;
                let mut cols = vec![
                    ResultColumn::text("Log_name", 255),
                    ResultColumn::bigint("File_size", true),
                    ResultColumn::text("Encrypted", 3),
                ];
                cols[0].length = 1020;
                let out = files
                    .into_iter()
                    .map(|f| vec![text(f.name), Value::UInt(f.size), text("No")])
                    .collect();
                Output::Rows { columns: cols, rows: out }
            }
            AdminCommand::ShowMasterStatus => {
                server.count("Com_show_master_status");
                let cols = vec![
                    ResultColumn::text("File", 255),
                    ResultColumn::bigint("Position", true),
                    ResultColumn::text("Binlog_Do_DB", 255),
                    ResultColumn::text("Binlog_Ignore_DB", 255),
                    ResultColumn::text("Executed_Gtid_Set", 1024),
                ];
                let out = match admin.master_status()? {
                    None => Vec::new(),
                    Some(m) => vec![vec![
                        text(m.file),
                        Value::UInt(m.position),
                        text(""),
                        text(""),
                        text(m.executed_gtid_set),
                    ]],
                };
                Output::Rows { columns: cols, rows: out }
            }
            AdminCommand::ShowBinlogEvents { file, from, offset, limit } => {
                server.count("Com_show_binlog_events");
                let events = admin.binlog_events(file.as_deref(), *from, *offset, *limit)?;
                let cols = vec![
                    ResultColumn::text("Log_name", 255),
                    ResultColumn::bigint("Pos", true),
                    ResultColumn::text("Event_type", 64),
                    ResultColumn::bigint("Server_id", true),
                    ResultColumn::bigint("End_log_pos", true),
                    ResultColumn::text("Info", 1024),
                ];
                let out = events
                    .into_iter()
                    .map(|e| {
                        vec![
                            text(e.log_name),
                            Value::UInt(e.pos),
                            text(e.event_type),
                            Value::UInt(u64::from(e.server_id)),
                            Value::UInt(e.end_log_pos),
                            text(e.info),
                        ]
                    })
                    .collect();
                Output::Rows { columns: cols, rows: out }
            }
            AdminCommand::FlushBinaryLogs => {
                server.count("Com_flush");
                admin.flush_binary_logs()?;
                Output::ok(0)
            }
            AdminCommand::PurgeTo(f) => {
                server.count("Com_purge");
                admin.purge_to(f)?;
                Output::ok(0)
            }
            AdminCommand::PurgeBefore(t) => {
                server.count("Com_purge_before_date");
                admin.purge_before(*t)?;
                Output::ok(0)
            }
            AdminCommand::ResetMaster => {
                server.count("Com_reset");
                if self.txn.is_some() {
                    return Err(SqlError::InTransaction);
                }
                admin.reset_master()?;
                Output::ok(0)
            }
            AdminCommand::ShowReplicas { old_names } => {
                server.count("Com_show_replicas");
                let (source_id, uuid) = if *old_names {
                    ("Master_id", "Slave_UUID")
                } else {
                    ("Source_Id", "Replica_UUID")
                };
                let cols = vec![
                    ResultColumn::bigint(if *old_names { "Server_id" } else { "Server_Id" }, true),
                    ResultColumn::text("Host", 255),
                    ResultColumn::bigint("Port", true),
                    ResultColumn::bigint(source_id, true),
                    ResultColumn::text(uuid, 36),
                ];
                let out = admin
                    .replicas()
                    .into_iter()
                    .map(|r| {
                        vec![
                            Value::UInt(u64::from(r.server_id)),
                            text(r.host),
                            Value::UInt(u64::from(r.port)),
                            Value::UInt(u64::from(r.source_id)),
                            text(r.uuid),
                        ]
                    })
                    .collect();
                Output::Rows { columns: cols, rows: out }
            }
        })
    }
}

/// `'text'` as SHOW CREATE TABLE quotes a comment (mysqld's `append_unescaped`).
pub(crate) fn quoted(text: &str) -> String {
    let mut out = String::with_capacity(text.len() + 2);
    out.push('\'');
    for ch in text.chars() {
        match ch {
            '\0' => out.push_str("\\0"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\\' => out.push_str("\\\\"),
            '\'' => out.push_str("''"),
            c => out.push(c),
        }
    }
    out.push('\'');
    out
}

#[cfg(test)]
mod comment_tests {
    use super::*;

    #[test]
    fn comments_are_quoted_as_append_unescaped() {
        assert_eq!(quoted("it's a\\b\nc"), "'it''s a\\\\b\\nc'");
    }
}
