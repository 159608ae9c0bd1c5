//! The table options of issue 20 kept with a definition: `AUTO_INCREMENT = n` and
//! `COMMENT = '...'` (table), `COMMENT '...'` (column), for CREATE TABLE and ALTER TABLE.
//!
//! Why here: they are checked the same way by both statements and printed by SHOW CREATE
//! TABLE; the engine only stores them (`TableSchema::comment`, `Column::comment`,
//! `TableSchema::auto_increment_start`, encoded with the definition in DDL records and
//! checkpoints).
//!
//! mysqld's rules followed:
//! - comment lengths (`validate_comment_length`, sql_table.cc): a table comment holds at most
//!   2048 characters (1628, ER_TOO_LONG_TABLE_COMMENT), a column comment 1024 (1629,
//!   ER_TOO_LONG_FIELD_COMMENT); strict mode (the default) makes them errors, and this
//!   server is always strict for DDL.
//! - `AUTO_INCREMENT = n` needs an unsigned integer (the grammar's `ulonglong_num`); the
//!   engine applies InnoDB's "never below the largest value in use plus one".
//! - SHOW CREATE TABLE quotes comments as `append_unescaped` (table.cc) does: `'` doubled,
//!   backslash, NUL, newline and carriage return escaped with a backslash.

use engine::TableSchema;

use crate::error::{Result, SqlError};

/// mysqld's TABLE_COMMENT_MAXLEN and COLUMN_COMMENT_MAXLEN (characters).
const TABLE_COMMENT_MAX: usize = 2048;
const COLUMN_COMMENT_MAX: usize = 1024;

/// Checks the comments of `schema` (`table` is the name errors give).
pub(crate) fn check_comments(schema: &TableSchema, table: &str) -> Result<()> {
    if schema.comment.chars().count() > TABLE_COMMENT_MAX {
        return Err(SqlError::Other {
            code: 1628,
            sqlstate: "HY000",
            message: format!("Comment for table '{table}' is too long (max = {TABLE_COMMENT_MAX})"),
        });
    }
    for c in &schema.columns {
        if c.comment.chars().count() > COLUMN_COMMENT_MAX {
            return Err(SqlError::Other {
                code: 1629,
                sqlstate: "HY000",
                message: format!(
                    "Comment for field '{}' is too long (max = {COLUMN_COMMENT_MAX})",
                    c.name
                ),
            });
        }
    }
    Ok(())
}
