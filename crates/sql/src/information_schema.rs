//! information_schema tables describing databases and keys: SCHEMATA, STATISTICS,
//! KEY_COLUMN_USAGE and TABLE_CONSTRAINTS, with mysqld 8.0's columns and types (its
//! `system_views` definitions, sql/dd/info_schema/*), made up from the engine's schemas.
//!
//! Why: CDC connectors read them before their snapshot (Debezium's MySQL connector reads each
//! database's default character set from SCHEMATA before it reads the tables), and drivers'
//! `DatabaseMetaData` reads STATISTICS / KEY_COLUMN_USAGE for indexes and keys.
//!
//! Each table is one function (name → column definitions + rows), so a single-table SELECT
//! reads it through `Session::information_schema_table` and a join can read it the same way.
//!
//! Invariants (mysqld's visibility rules, `sql_show.cc` / the data dictionary views'
//! `CAN_ACCESS_DATABASE` / `CAN_ACCESS_TABLE`):
//! - SCHEMATA lists a database only when SHOW DATABASES would (the SHOW DATABASES privilege or
//!   any privilege in it); information_schema itself is always listed.
//! - STATISTICS, KEY_COLUMN_USAGE and TABLE_CONSTRAINTS list a table's rows only when the
//!   account holds some privilege on the table (as SHOW TABLES lists it).
//! - KEY_COLUMN_USAGE's rows are the PRIMARY KEY's and the UNIQUE keys' columns, in key order,
//!   then each FOREIGN KEY's columns with REFERENCED_TABLE_SCHEMA/NAME/COLUMN and
//!   POSITION_IN_UNIQUE_CONSTRAINT; TABLE_CONSTRAINTS lists FOREIGN KEY constraints too, and
//!   REFERENTIAL_CONSTRAINTS describes them (UNIQUE_CONSTRAINT_NAME: the parent's index that
//!   supports the constraint, as mysqld's data dictionary records it).

use std::sync::Arc;

use engine::{Column, ColumnType, TableSchema, Value};

use super::commit::split_engine_name;
use super::session::Session;

mod privileges;

/// The one storage engine, as SHOW ENGINES and information_schema.ENGINES list it (ENGINE,
/// SUPPORT, COMMENT, TRANSACTIONS, XA, SAVEPOINTS).
pub(crate) const ENGINE_ROW: [&str; 6] = [
    "InnoDB",
    "DEFAULT",
    "binlogd's in-memory row store, durable through its redo log",
    "YES",
    "YES",
    "YES",
];

/// `made`'s text columns in utf8mb3_general_ci, information_schema's character set on mysqld
/// (`SELECT DEFAULT_COLLATION_NAME FROM SCHEMATA WHERE SCHEMA_NAME = 'information_schema'`):
/// Connector/J reads that name and writes `IS_NULLABLE COLLATE utf8mb3_general_ci` into its
/// metadata queries, which a utf8mb4 column refuses (1253).
///
/// Under lower_case_table_names = 0 (`exact_names`) the columns holding database and table
/// names are utf8mb3_bin, so `WHERE TABLE_NAME = 'T'` does not find table `t`: mysqld's
/// data dictionary declares its name columns with `Object_table_definition_impl::
/// fs_name_collation()`, utf8mb3_bin when names are case-sensitive, and the views pass it on.
pub(crate) fn in_utf8mb3((schema, rows): MadeUp, exact_names: bool) -> MadeUp {
    const UTF8MB3_GENERAL_CI: u16 = 33;
    const UTF8MB3_BIN: u16 = 83;
    let mut schema = (*schema).clone();
    for c in schema.columns.iter_mut().filter(|c| c.ty.is_text()) {
        c.collation =
            if exact_names && is_name_column(&c.name) { UTF8MB3_BIN } else { UTF8MB3_GENERAL_CI };
    }
    (Arc::new(schema), rows)
}

/// The information_schema columns that hold a database or table name (mysqld's views take
/// them from the data dictionary's `name` columns of `schemata` and `tables`).
fn is_name_column(name: &str) -> bool {
    matches!(
        name.to_ascii_uppercase().as_str(),
        "TABLE_SCHEMA"
            | "TABLE_NAME"
            | "SCHEMA_NAME"
            | "REFERENCED_TABLE_SCHEMA"
            | "REFERENCED_TABLE_NAME"
            | "CONSTRAINT_SCHEMA"
            | "UNIQUE_CONSTRAINT_SCHEMA"
            | "INDEX_SCHEMA"
            | "EVENT_OBJECT_SCHEMA"
            | "EVENT_OBJECT_TABLE"
            | "TRIGGER_SCHEMA"
            | "ROUTINE_SCHEMA"
            | "VIEW_SCHEMA"
            | "VIEW_NAME"
    )
}

/// One made-up table: its definition and its rows.
pub(crate) type MadeUp = (Arc<TableSchema>, Vec<Vec<Value>>);

fn text(s: impl Into<String>) -> Value {
    Value::Bytes(s.into().into_bytes())
}

fn name(n: &str) -> Column {
    Column::new(n, ColumnType::VarChar(64))
}

fn uint(n: &str) -> Column {
    Column::new(n, ColumnType::Integer { bytes: 4, unsigned: true })
}

/// The information_schema table `name` of this module, if it is one.
pub(crate) fn table(sess: &Session, name: &str) -> Option<MadeUp> {
    let f: fn(&Session) -> MadeUp = match name.to_ascii_uppercase().as_str() {
        "SCHEMATA" => schemata,
        "STATISTICS" => statistics,
        "KEY_COLUMN_USAGE" => key_column_usage,
        "TABLE_CONSTRAINTS" => table_constraints,
        "CHECK_CONSTRAINTS" => check_constraints,
        "ENGINES" => engines,
        "USER_PRIVILEGES" => privileges::user_privileges,
        "SCHEMA_PRIVILEGES" => privileges::schema_privileges,
        "TABLE_PRIVILEGES" => privileges::table_privileges,
        "COLUMN_PRIVILEGES" => privileges::column_privileges,
        "REFERENTIAL_CONSTRAINTS" => referential_constraints,
        _ => return None,
    };
    Some(f(sess))
}

/// The databases the account may see, sorted (information_schema first, as mysqld lists it).
fn visible_databases(sess: &Session) -> Vec<String> {
    let mut dbs: Vec<String> =
        sess.server.databases().into_iter().filter(|d| sess.may_see_database(d)).collect();
    dbs.sort();
    dbs
}

/// `(database, table name, schema)` of every table the account may see, sorted by both names.
fn visible_tables(sess: &Session) -> Vec<(String, String, Arc<TableSchema>)> {
    let mut out = Vec::new();
    for db in sess.server.databases() {
        for t in sess.tables_of(&db) {
            let table = split_engine_name(&t.name).1.to_string();
            if sess.may_see_table(&db, &table) {
                out.push((db.clone(), table, t));
            }
        }
    }
    out.sort_by(|a, b| (&a.0, &a.1).cmp(&(&b.0, &b.1)));
    out
}

/// The keys of `t` as (name, unique, columns): PRIMARY first, then the indexes in order.
fn keys(t: &TableSchema) -> Vec<(&str, bool, &[usize])> {
    let mut out = Vec::new();
    if !t.primary_key.is_empty() {
        out.push(("PRIMARY", true, t.primary_key.as_slice()));
    }
    out.extend(t.indexes.iter().map(|i| (i.name.as_str(), i.unique, i.columns.as_slice())));
    out
}

/// `information_schema.SCHEMATA`.
fn schemata(sess: &Session) -> MadeUp {
    let columns = vec![
        name("CATALOG_NAME"),
        name("SCHEMA_NAME"),
        name("DEFAULT_CHARACTER_SET_NAME").not_null(),
        name("DEFAULT_COLLATION_NAME").not_null(),
        Column::new("SQL_PATH", ColumnType::Binary(0)),
        Column::new("DEFAULT_ENCRYPTION", ColumnType::VarChar(3)).not_null(),
    ];
    let row = |db: &str, coll: u16| {
        let info = collation::by_id(coll).or_else(|| collation::by_id(collation::DEFAULT));
        vec![
            text("def"),
            text(db),
            text(info.map_or("utf8mb4", |i| i.charset.name())),
            text(info.map_or("utf8mb4_0900_ai_ci", |i| i.name)),
            Value::Null,
            text("NO"),
        ]
    };
    // information_schema is utf8mb3 (utf8mb3_general_ci), as on mysqld.
    let mut rows = vec![vec![
        text("def"),
        text("information_schema"),
        text("utf8mb3"),
        text("utf8mb3_general_ci"),
        Value::Null,
        text("NO"),
    ]];
    for db in visible_databases(sess) {
        rows.push(row(&db, sess.server.database_collation(&db)));
    }
    (Arc::new(TableSchema::new("information_schema.SCHEMATA", columns, vec![])), rows)
}

/// `information_schema.STATISTICS`: one row per column of every index.
fn statistics(sess: &Session) -> MadeUp {
    let columns = vec![
        name("TABLE_CATALOG").not_null(),
        name("TABLE_SCHEMA").not_null(),
        name("TABLE_NAME").not_null(),
        Column::new("NON_UNIQUE", ColumnType::Integer { bytes: 4, unsigned: false }).not_null(),
        name("INDEX_SCHEMA").not_null(),
        name("INDEX_NAME"),
        uint("SEQ_IN_INDEX").not_null(),
        name("COLUMN_NAME"),
        Column::new("COLLATION", ColumnType::VarChar(1)),
        Column::new("CARDINALITY", ColumnType::Integer { bytes: 8, unsigned: false }),
        Column::new("SUB_PART", ColumnType::Integer { bytes: 8, unsigned: false }),
        Column::new("PACKED", ColumnType::Binary(0)),
        Column::new("NULLABLE", ColumnType::VarChar(3)).not_null(),
        Column::new("INDEX_TYPE", ColumnType::VarChar(11)).not_null(),
        Column::new("COMMENT", ColumnType::VarChar(8)).not_null(),
        Column::new("INDEX_COMMENT", ColumnType::VarChar(2048)).not_null(),
        Column::new("IS_VISIBLE", ColumnType::VarChar(3)).not_null(),
        Column::new("EXPRESSION", ColumnType::Text),
    ];
    let mut rows = Vec::new();
    for (db, table, t) in visible_tables(sess) {
        rows.extend(statistics_rows(sess, &db, &table, &t));
    }
    (Arc::new(TableSchema::new("information_schema.STATISTICS", columns, vec![])), rows)
}

/// STATISTICS's rows of one table, one per column of each key (SHOW INDEX shows them without
/// the catalog and schema columns). CARDINALITY is the exact row count for every key, as the
/// engine keeps no per-key statistics (InnoDB estimates distinct prefixes).
pub(crate) fn statistics_rows(
    sess: &Session,
    db: &str,
    table: &str,
    t: &TableSchema,
) -> Vec<Vec<Value>> {
    let cardinality = sess.server.engine.row_count(t.id).unwrap_or(0) as i64;
    let mut rows = Vec::new();
    for (key, unique, cols) in keys(t) {
        // The index's COMMENT (the primary key keeps none).
        let def = t.indexes.iter().find(|i| i.name == key);
        let comment = def.map_or("", |i| i.comment.as_str());
        for (seq, &p) in cols.iter().enumerate() {
            let c = &t.columns[p];
            // SUB_PART: a prefix part's length (characters, bytes of a binary string).
            let sub_part = match def.map_or(0, |i| i.prefix(seq)) {
                0 => Value::Null,
                n => Value::Int(i64::from(n)),
            };
            rows.push(vec![
                text("def"),
                text(db),
                text(table),
                Value::Int(i64::from(!unique)),
                text(db),
                text(key),
                Value::UInt(seq as u64 + 1),
                text(&c.name),
                text("A"),
                Value::Int(cardinality),
                sub_part,
                Value::Null,
                text(if c.nullable { "YES" } else { "" }),
                text("BTREE"),
                text(""),
                text(comment),
                text("YES"),
                Value::Null,
            ]);
        }
    }
    rows
}

/// `information_schema.ENGINES`.
fn engines(_: &Session) -> MadeUp {
    let columns = vec![
        name("ENGINE").not_null(),
        Column::new("SUPPORT", ColumnType::VarChar(8)).not_null(),
        Column::new("COMMENT", ColumnType::VarChar(80)).not_null(),
        Column::new("TRANSACTIONS", ColumnType::VarChar(3)),
        Column::new("XA", ColumnType::VarChar(3)),
        Column::new("SAVEPOINTS", ColumnType::VarChar(3)),
    ];
    let rows = vec![ENGINE_ROW.iter().map(|v| text(*v)).collect()];
    (Arc::new(TableSchema::new("information_schema.ENGINES", columns, vec![])), rows)
}

/// `information_schema.KEY_COLUMN_USAGE`: the columns of every PRIMARY KEY and UNIQUE key.
fn key_column_usage(sess: &Session) -> MadeUp {
    let columns = vec![
        name("CONSTRAINT_CATALOG"),
        name("CONSTRAINT_SCHEMA"),
        name("CONSTRAINT_NAME"),
        name("TABLE_CATALOG"),
        name("TABLE_SCHEMA"),
        name("TABLE_NAME"),
        name("COLUMN_NAME"),
        uint("ORDINAL_POSITION").not_null(),
        uint("POSITION_IN_UNIQUE_CONSTRAINT"),
        name("REFERENCED_TABLE_SCHEMA"),
        name("REFERENCED_TABLE_NAME"),
        name("REFERENCED_COLUMN_NAME"),
    ];
    let mut rows = Vec::new();
    for (db, table, t) in visible_tables(sess) {
        for (key, _, cols) in keys(&t).into_iter().filter(|k| k.1) {
            for (seq, &p) in cols.iter().enumerate() {
                rows.push(vec![
                    text("def"),
                    text(&db),
                    text(key),
                    text("def"),
                    text(&db),
                    text(&table),
                    text(&t.columns[p].name),
                    Value::UInt(seq as u64 + 1),
                    Value::Null,
                    Value::Null,
                    Value::Null,
                    Value::Null,
                ]);
            }
        }
        foreign_key_column_rows(&db, &table, &t, &mut rows);
    }
    (Arc::new(TableSchema::new("information_schema.KEY_COLUMN_USAGE", columns, vec![])), rows)
}

/// `information_schema.TABLE_CONSTRAINTS`: every PRIMARY KEY and UNIQUE key.
fn table_constraints(sess: &Session) -> MadeUp {
    let columns = vec![
        name("CONSTRAINT_CATALOG"),
        name("CONSTRAINT_SCHEMA"),
        name("CONSTRAINT_NAME"),
        name("TABLE_SCHEMA"),
        name("TABLE_NAME"),
        Column::new("CONSTRAINT_TYPE", ColumnType::VarChar(11)).not_null(),
        Column::new("ENFORCED", ColumnType::VarChar(3)).not_null(),
    ];
    let mut rows = Vec::new();
    for (db, table, t) in visible_tables(sess) {
        for (key, _, _) in keys(&t).into_iter().filter(|k| k.1) {
            let kind = if key == "PRIMARY" { "PRIMARY KEY" } else { "UNIQUE" };
            rows.push(vec![
                text("def"),
                text(&db),
                text(key),
                text(&db),
                text(&table),
                text(kind),
                text("YES"),
            ]);
        }
        for fk in &t.foreign_keys {
            rows.push(vec![
                text("def"),
                text(&db),
                text(&fk.name),
                text(&db),
                text(&table),
                text("FOREIGN KEY"),
                text("YES"),
            ]);
        }
        for c in &t.checks {
            rows.push(vec![
                text("def"),
                text(&db),
                text(&c.name),
                text(&db),
                text(&table),
                text("CHECK"),
                text(if c.enforced { "YES" } else { "NO" }),
            ]);
        }
    }
    (Arc::new(TableSchema::new("information_schema.TABLE_CONSTRAINTS", columns, vec![])), rows)
}

/// `information_schema.CHECK_CONSTRAINTS`: every CHECK constraint of the tables the account
/// may see. CHECK_CLAUSE is the printed condition with its quotes escaped (`_utf8mb4\'M\'`),
/// as mysqld 8.0 shows it.
fn check_constraints(sess: &Session) -> MadeUp {
    let columns = vec![
        name("CONSTRAINT_CATALOG"),
        name("CONSTRAINT_SCHEMA"),
        name("CONSTRAINT_NAME"),
        Column::new("CHECK_CLAUSE", ColumnType::Text).not_null(),
    ];
    let mut rows = Vec::new();
    for (db, _, t) in visible_tables(sess) {
        for c in &t.checks {
            rows.push(vec![
                text("def"),
                text(&db),
                text(&c.name),
                text(c.expr.replace('\'', "\\'")),
            ]);
        }
    }
    (Arc::new(TableSchema::new("information_schema.CHECK_CONSTRAINTS", columns, vec![])), rows)
}

/// KEY_COLUMN_USAGE rows of table `t`'s foreign keys: one per column, with the parent.
fn foreign_key_column_rows(db: &str, table: &str, t: &TableSchema, rows: &mut Vec<Vec<Value>>) {
    for fk in &t.foreign_keys {
        let (pdb, ptable) = split_engine_name(&fk.parent);
        for (seq, (&p, pcol)) in fk.columns.iter().zip(&fk.parent_columns).enumerate() {
            rows.push(vec![
                text("def"),
                text(db),
                text(&fk.name),
                text("def"),
                text(db),
                text(table),
                text(&t.columns[p].name),
                Value::UInt(seq as u64 + 1),
                Value::UInt(seq as u64 + 1),
                text(pdb),
                text(ptable),
                text(pcol),
            ]);
        }
    }
}

/// `information_schema.REFERENTIAL_CONSTRAINTS`: every FOREIGN KEY of the tables the account
/// may see (mysqld's `system_views` definition: UNIQUE_CONSTRAINT_NAME is the parent index the
/// constraint uses, NULL when the parent does not exist).
fn referential_constraints(sess: &Session) -> MadeUp {
    let columns = vec![
        name("CONSTRAINT_CATALOG"),
        name("CONSTRAINT_SCHEMA"),
        name("CONSTRAINT_NAME"),
        name("UNIQUE_CONSTRAINT_CATALOG"),
        name("UNIQUE_CONSTRAINT_SCHEMA"),
        name("UNIQUE_CONSTRAINT_NAME"),
        Column::new("MATCH_OPTION", ColumnType::VarChar(7)).not_null(),
        Column::new("UPDATE_RULE", ColumnType::VarChar(11)).not_null(),
        Column::new("DELETE_RULE", ColumnType::VarChar(11)).not_null(),
        name("TABLE_NAME"),
        name("REFERENCED_TABLE_NAME"),
    ];
    let mut rows = Vec::new();
    for (db, table, t) in visible_tables(sess) {
        for fk in &t.foreign_keys {
            let (pdb, ptable) = split_engine_name(&fk.parent);
            let unique = sess.server.engine.table_named(&fk.parent).and_then(|(_, p)| {
                let cols: Option<Vec<usize>> =
                    fk.parent_columns.iter().map(|c| p.column_position(c)).collect();
                let cols = cols?;
                if p.primary_key.starts_with(&cols) {
                    return Some("PRIMARY".to_string());
                }
                p.indexes
                    .iter()
                    .find(|i| !i.has_prefix() && i.columns.starts_with(&cols))
                    .map(|i| i.name.clone())
            });
            rows.push(vec![
                text("def"),
                text(&db),
                text(&fk.name),
                text("def"),
                text(pdb),
                unique.map_or(Value::Null, text),
                text("NONE"),
                text(fk.on_update.rule()),
                text(fk.on_delete.rule()),
                text(&table),
                text(ptable),
            ]);
        }
    }
    (
        Arc::new(TableSchema::new("information_schema.REFERENTIAL_CONSTRAINTS", columns, vec![])),
        rows,
    )
}
