//! Statement results as plain types, for the protocol layer to serialize as text or binary
//! result sets. A row's values always match their column's declared type: integer columns
//! carry `Int`/`UInt`, DOUBLE `Double`, NEWDECIMAL `Decimal`, DATETIME `DateTime`, strings
//! `Bytes` (or `Null` anywhere), so a binary encoder can trust the column definition.

pub(crate) mod bytes_types;

use engine::{ColumnType, Value};

/// MySQL's column type codes (`enum_field_types`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[repr(u8)]
pub enum MysqlType {
    Tiny = 1,
    Short = 2,
    Long = 3,
    Float = 4,
    Double = 5,
    Null = 6,
    Timestamp = 7,
    LongLong = 8,
    Int24 = 9,
    Date = 10,
    Time = 11,
    DateTime = 12,
    /// BIT(n) columns.
    Bit = 16,
    /// JSON columns and JSON-valued expressions.
    Json = 245,
    Year = 13,
    NewDecimal = 246,
    Blob = 252,
    VarString = 253,
    String = 254,
}

/// Column definition flags (`NOT_NULL_FLAG`, ...).
pub mod flags {
    pub const NOT_NULL: u16 = 1;
    pub const PRI_KEY: u16 = 2;
    pub const UNIQUE_KEY: u16 = 4;
    pub const MULTIPLE_KEY: u16 = 8;
    pub const BLOB: u16 = 16;
    pub const UNSIGNED: u16 = 32;
    pub const ZEROFILL: u16 = 64;
    pub const BINARY: u16 = 128;
    /// ENUM columns (sent as MYSQL_TYPE_STRING).
    pub const ENUM: u16 = 256;
    /// A TIMESTAMP column (mysqld sets it on every TIMESTAMP field).
    pub const TIMESTAMP: u16 = 1024;
    pub const AUTO_INCREMENT: u16 = 512;
    /// SET columns (sent as MYSQL_TYPE_STRING).
    pub const SET: u16 = 2048;
    /// NOT NULL without a DEFAULT (and not AUTO_INCREMENT): mysqld's sql_table.cc sets it and
    /// sends it.
    pub const NO_DEFAULT_VALUE: u16 = 4096;
    /// Part of some index (mysqld sets it on every key part: table.cc).
    pub const PART_KEY: u16 = 16384;
    /// Numeric column. mysqld does not send it (libmysql and other clients add it on
    /// reading: `unpack_fields`), so no result column carries it.
    pub const NUM: u16 = 32768;
}

/// `utf8mb4_0900_ai_ci`, MySQL 8's default collation, used for every text column.
pub const CHARSET_UTF8MB4: u16 = 255;
/// `binary`, used for numbers and temporal values.
pub const CHARSET_BINARY: u16 = 63;

/// One result column, as a MySQL column definition packet describes it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ResultColumn {
    /// Database of the source table ("" for expressions).
    pub schema: String,
    /// Table (alias) and original table name ("" for expressions).
    pub table: String,
    pub org_table: String,
    /// Column label (alias or expression text) and original column name.
    pub name: String,
    pub org_name: String,
    pub mysql_type: MysqlType,
    /// Display length in bytes, as MySQL computes it (characters × 4 for utf8mb4).
    pub length: u32,
    pub flags: u16,
    pub decimals: u8,
    pub charset: u16,
}

impl ResultColumn {
    /// An expression column of `ty` named `name`.
    pub fn expr(name: &str, ty: MysqlType) -> ResultColumn {
        // An expression's send field (mysqld's `Item::make_field`): binary-charset items
        // carry BINARY_FLAG; the widths are those of an expression of unknown operands.
        let (length, charset, flags, decimals) = match ty {
            MysqlType::Tiny | MysqlType::Short | MysqlType::Long | MysqlType::Int24 => {
                (11, CHARSET_BINARY, flags::BINARY, 0)
            }
            MysqlType::LongLong => (21, CHARSET_BINARY, flags::BINARY, 0),
            MysqlType::Double => (23, CHARSET_BINARY, flags::BINARY, 31),
            MysqlType::NewDecimal => (67, CHARSET_BINARY, flags::BINARY, 4),
            MysqlType::DateTime | MysqlType::Timestamp => (19, CHARSET_BINARY, flags::BINARY, 0),
            MysqlType::Date => (10, CHARSET_BINARY, flags::BINARY, 0),
            MysqlType::Time => (10, CHARSET_BINARY, flags::BINARY, 0),
            MysqlType::Year => (4, CHARSET_BINARY, flags::UNSIGNED | flags::BINARY, 0),
            MysqlType::Float => (12, CHARSET_BINARY, flags::BINARY, 31),
            MysqlType::Null => (0, CHARSET_BINARY, flags::BINARY, 0),
            // A JSON expression (mysqld's Item_json_func): charset binary, LONGBLOB-sized.
            MysqlType::Json => (u32::MAX, CHARSET_BINARY, flags::BLOB | flags::BINARY, 0),
            MysqlType::Bit => (1, CHARSET_BINARY, flags::UNSIGNED, 0),
            MysqlType::Blob | MysqlType::VarString | MysqlType::String => {
                (1024, CHARSET_UTF8MB4, 0, 31)
            }
        };
        ResultColumn {
            schema: String::new(),
            table: String::new(),
            org_table: String::new(),
            name: name.to_string(),
            org_name: String::new(),
            mysql_type: ty,
            length,
            flags,
            decimals,
            charset,
        }
    }

    /// True if the column carries text in a character set (not numbers, temporal values or
    /// binary strings): these are described in `character_set_results`.
    pub fn is_text(&self) -> bool {
        self.charset != CHARSET_BINARY
            && matches!(self.mysql_type, MysqlType::Blob | MysqlType::VarString | MysqlType::String)
    }

    /// The column as it goes to a client whose `character_set_results` is `results`
    /// (collation id, mbmaxlen; `None` for NULL): mysqld's `Protocol_classic::
    /// send_field_metadata` reports text columns in the results' collation, `column_length`
    /// = characters × mbmaxlen (TEXT/BLOB: bytes × mbmaxlen). A column's length is in its own
    /// collation's character set (utf8mb4 for expressions).
    pub fn for_results(&self, results: Option<(u16, u32)>) -> ResultColumn {
        let mut c = self.clone();
        // `length / item_charset->mbmaxlen * thd_charset->mbmaxlen`: the column's own
        // character set's mbmaxlen (4 for expressions, 1 for a latin1 column).
        let own = collation::by_id(self.charset).map_or(4, |c| c.charset.mbmaxlen()).max(1);
        if let (true, Some((collation, mbmaxlen))) = (self.is_text(), results) {
            c.charset = collation;
            c.length = (self.length / own).saturating_mul(mbmaxlen);
        } else if self.is_text() && self.mysql_type == MysqlType::Blob {
            // No conversion: TEXT's column_length is its byte limit.
            c.length = self.length / own;
        }
        c
    }

    /// A text column (SHOW output), `chars` characters wide.
    pub fn text(name: &str, chars: u32) -> ResultColumn {
        ResultColumn {
            length: chars * 4,
            decimals: 0,
            ..ResultColumn::expr(name, MysqlType::VarString)
        }
    }

    /// A BIGINT column (SHOW output).
    pub fn bigint(name: &str, unsigned: bool) -> ResultColumn {
        let mut c = ResultColumn::expr(name, MysqlType::LongLong);
        if unsigned {
            c.flags |= flags::UNSIGNED;
            c.length = 20;
        }
        c
    }

    /// The column a table column produces in a result set.
    pub fn for_table_column(
        db: &str,
        table: &str,
        col: &engine::Column,
        flags_extra: u16,
    ) -> ResultColumn {
        // mysqld's `Field::make_send_field` widths: integers their default display width
        // (one less unsigned, no sign), DECIMAL(p,s) p + point (if s > 0) + sign, text
        // characters × 4 (utf8mb4), TEXT 65535 bytes (× 4 for the column's mbmaxlen once the
        // session's character_set_results is applied, see `for_results`).
        let (ty, length, mut fl, decimals, charset) = match col.ty {
            ColumnType::Integer { bytes, unsigned } => {
                let (ty, len) = match bytes {
                    1 => (MysqlType::Tiny, 4),
                    2 => (MysqlType::Short, 6),
                    3 => (MysqlType::Int24, 9),
                    4 => (MysqlType::Long, 11),
                    _ => (MysqlType::LongLong, 20),
                };
                let (len, fl) = match (unsigned, bytes) {
                    (false, _) => (len, 0),
                    (true, 8) => (20, flags::UNSIGNED),
                    (true, _) => (len - 1, flags::UNSIGNED),
                };
                // A declared display width is the field length mysqld sends (`Field_num`'s
                // field_length): TINYINT(1) is a boolean to the JDBC drivers.
                let len = if col.display_width > 0 { u32::from(col.display_width) } else { len };
                (ty, len, fl, 0, CHARSET_BINARY)
            }
            ColumnType::Double => (MysqlType::Double, 22, 0, 31, CHARSET_BINARY),
            ColumnType::Decimal { precision, scale } => {
                let len = u32::from(precision) + u32::from(scale > 0) + 1;
                (MysqlType::NewDecimal, len, 0, scale, CHARSET_BINARY)
            }
            // Text: characters × the column's mbmaxlen, in the column's collation; a `_bin`
            // collation sets BINARY_FLAG as mysqld's `Field_str` does.
            ColumnType::Char(n) => {
                (MysqlType::String, n * col.charset().mbmaxlen(), 0, 0, col.collation)
            }
            ColumnType::VarChar(n) => {
                (MysqlType::VarString, n * col.charset().mbmaxlen(), 0, 0, col.collation)
            }
            ColumnType::Text => {
                (MysqlType::Blob, 65_535 * col.charset().mbmaxlen(), flags::BLOB, 0, col.collation)
            }
            ColumnType::Binary(_)
            | ColumnType::VarBinary(_)
            | ColumnType::Blob { .. }
            | ColumnType::SizedText { .. }
            | ColumnType::Enum
            | ColumnType::Set
            | ColumnType::Bit(_)
            | ColumnType::Json => crate::output::bytes_types::send_field(col),
            ty @ (ColumnType::DateTime { .. }
            | ColumnType::Timestamp { .. }
            | ColumnType::Date
            | ColumnType::Time { .. }
            | ColumnType::Year
            | ColumnType::Float) => temporal_column(ty),
        };
        // An integer's declared display width is its column length (TINYINT(1) → 1, which
        // Connector/J reads as BOOLEAN); ZEROFILL sends ZEROFILL_FLAG (and UNSIGNED).
        let length = match col.ty {
            ColumnType::Integer { .. } if col.display_width != 0 => u32::from(col.display_width),
            _ => length,
        };
        if col.zerofill {
            fl |= flags::ZEROFILL | flags::UNSIGNED;
        }
        if !col.nullable {
            fl |= flags::NOT_NULL;
            if col.default.is_none() && !col.auto_increment {
                fl |= flags::NO_DEFAULT_VALUE;
            }
        }
        if col.auto_increment {
            fl |= flags::AUTO_INCREMENT;
        }
        if col.ty.is_text()
            && collation::by_id(col.collation).is_some_and(|c| c.name.ends_with("_bin"))
        {
            fl |= flags::BINARY;
        }
        ResultColumn {
            schema: db.to_string(),
            table: table.to_string(),
            org_table: table.to_string(),
            name: col.name.clone(),
            org_name: col.name.clone(),
            mysql_type: ty,
            length,
            flags: fl | flags_extra,
            decimals,
            charset,
        }
    }
}

/// mysqld's send field of a temporal or FLOAT table column (`Field_*::make_send_field`):
/// type, width (19/10/10/4 plus the fraction's point and digits), flags, decimals (the fsp),
/// charset. TIMESTAMP columns carry TIMESTAMP_FLAG and (as mysqld sets it) the BINARY flag.
fn temporal_column(ty: ColumnType) -> (MysqlType, u32, u16, u8, u16) {
    let frac = |fsp: u8| if fsp > 0 { u32::from(fsp) + 1 } else { 0 };
    match ty {
        ColumnType::DateTime { fsp } => {
            (MysqlType::DateTime, 19 + frac(fsp), flags::BINARY, fsp, CHARSET_BINARY)
        }
        ColumnType::Timestamp { fsp } => (
            MysqlType::Timestamp,
            19 + frac(fsp),
            flags::BINARY | flags::TIMESTAMP,
            fsp,
            CHARSET_BINARY,
        ),
        ColumnType::Date => (MysqlType::Date, 10, flags::BINARY, 0, CHARSET_BINARY),
        ColumnType::Time { fsp } => {
            (MysqlType::Time, 10 + frac(fsp), flags::BINARY, fsp, CHARSET_BINARY)
        }
        ColumnType::Year => {
            (MysqlType::Year, 4, flags::UNSIGNED | flags::ZEROFILL, 0, CHARSET_BINARY)
        }
        _ => (MysqlType::Float, 12, 0, 31, CHARSET_BINARY),
    }
}

/// The result of one statement.
#[derive(Debug, Clone, PartialEq)]
pub enum Output {
    /// A result set.
    Rows { columns: Vec<ResultColumn>, rows: Vec<Vec<Value>> },
    /// An OK packet.
    Ok { affected_rows: u64, last_insert_id: u64, info: String, warnings: u16 },
}

impl Output {
    pub(crate) fn ok(affected_rows: u64) -> Output {
        Output::Ok { affected_rows, last_insert_id: 0, info: String::new(), warnings: 0 }
    }

    /// An UPDATE's OK: `changed` affected rows, or `matched` ones for a client that set
    /// CLIENT_FOUND_ROWS (`found_rows`), and mysqld's info line (ER_UPDATE_INFO).
    pub(crate) fn updated(matched: u64, changed: u64, found_rows: bool, warnings: u16) -> Output {
        Output::Ok {
            affected_rows: if found_rows { matched } else { changed },
            last_insert_id: 0,
            info: format!("Rows matched: {matched}  Changed: {changed}  Warnings: {warnings}"),
            warnings,
        }
    }

    /// The rows of a result set (empty for OK).
    pub fn rows(&self) -> &[Vec<Value>] {
        match self {
            Output::Rows { rows, .. } => rows,
            Output::Ok { .. } => &[],
        }
    }

    /// The rows rendered as text, as the text protocol (and the `mysql` client) shows them.
    pub fn text_rows(&self) -> Vec<Vec<String>> {
        self.rows().iter().map(|r| r.iter().map(|v| v.to_string()).collect()).collect()
    }

    /// The column names of a result set.
    pub fn column_names(&self) -> Vec<&str> {
        match self {
            Output::Rows { columns, .. } => columns.iter().map(|c| c.name.as_str()).collect(),
            Output::Ok { .. } => Vec::new(),
        }
    }

    /// Affected rows of an OK (0 for a result set).
    pub fn affected_rows(&self) -> u64 {
        match self {
            Output::Ok { affected_rows, .. } => *affected_rows,
            Output::Rows { .. } => 0,
        }
    }
}
