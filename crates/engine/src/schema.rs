//! Table definitions: columns, the primary key, secondary indexes; row validation and the keys
//! a row has in each index.

pub mod bytes_types;

use std::borrow::Cow;

use crate::codec::{Put, Reader};
use crate::error::{Error, Result};
use crate::foreign_keys::ForeignKeyDef;
use crate::image::{Columns, Image};
use crate::value::{
    decode_value, encode_key, encode_key_part_in, encode_value, DateTime, Key, Row, Value,
};

/// A table's identity, stable across restarts (it is what redo records name).
pub type TableId = u32;

/// A column's SQL type.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ColumnType {
    /// TINYINT (1), SMALLINT (2), MEDIUMINT (3), INT (4), BIGINT (8 bytes).
    Integer {
        bytes: u8,
        unsigned: bool,
    },
    Double,
    Decimal {
        precision: u8,
        scale: u8,
    },
    /// CHAR(n), in characters.
    Char(u32),
    /// VARCHAR(n), in characters.
    VarChar(u32),
    /// TEXT (up to 65 535 bytes).
    Text,
    /// DATETIME(fsp), fsp 0..=6 fractional digits.
    DateTime {
        fsp: u8,
    },
    /// FLOAT: IEEE single precision (FLOAT, FLOAT(p) with p <= 24, REAL under REAL_AS_FLOAT).
    Float,
    /// DATE ('1000-01-01'..'9999-12-31', zero dates as sql_mode allows).
    Date,
    /// TIME(fsp): a signed duration, -838:59:59 .. 838:59:59.
    Time {
        fsp: u8,
    },
    /// YEAR: 0 or 1901..=2155, stored as `Value::UInt`.
    Year,
    /// TIMESTAMP(fsp): stored as a UTC `Value::DateTime` ('1970-01-01 00:00:01' ..
    /// '2038-01-19 03:14:07.999999' UTC, or the zero value); the SQL layer converts from and
    /// to the session's `time_zone`.
    Timestamp {
        fsp: u8,
    },
    /// BINARY(n): n bytes, shorter values padded with 0x00 (`Field_string` with the binary
    /// charset).
    Binary(u32),
    /// VARBINARY(n), in bytes.
    VarBinary(u32),
    /// TINYBLOB, BLOB, MEDIUMBLOB, LONGBLOB: the length prefix is 1, 2, 3 or 4 bytes and bounds
    /// the value (255, 65 535, 16 MiB − 1, 4 GiB − 1 bytes).
    Blob {
        len_bytes: u8,
    },
    /// TINYTEXT, MEDIUMTEXT, LONGTEXT (TEXT is [`ColumnType::Text`]): limits in bytes as BLOB's.
    SizedText {
        len_bytes: u8,
    },
    /// ENUM('a', ...): the members are [`Column::elements`]. Stored as the member's text.
    Enum,
    /// SET('a', ...): the members are [`Column::elements`]. Stored as the canonical member list
    /// (declaration order, comma-separated).
    Set,
    /// BIT(n), 1 ≤ n ≤ 64: stored as ⌈n/8⌉ big-endian bytes.
    Bit(u8),
    /// JSON: stored as [`Value::Json`] (canonical text).
    Json,
}

impl ColumnType {
    /// The byte limit of a BLOB or TEXT column with a `len_bytes` length prefix.
    pub fn blob_max_bytes(len_bytes: u8) -> u64 {
        (1u64 << (8 * u32::from(len_bytes.clamp(1, 4)))) - 1
    }
}

/// A column definition.
#[derive(Debug, Clone, PartialEq)]
pub struct Column {
    pub name: String,
    pub ty: ColumnType,
    pub nullable: bool,
    /// The value the SQL layer uses when an INSERT omits the column.
    pub default: Option<Value>,
    pub auto_increment: bool,
    /// The MySQL collation id (`information_schema.COLLATIONS.ID`) of a character column:
    /// comparisons and key order follow it (`collation::sort_key`). 63 (`binary`) for other
    /// types.
    pub collation: u16,
    /// ENUM/SET members as declared (empty for other types).
    pub elements: Vec<String>,
    /// An integer's display width (`INT(11)`, `TINYINT(1)`); 0 when none was given. Shapes
    /// SHOW CREATE TABLE and the result column length only.
    pub display_width: u8,
    /// ZEROFILL (implies UNSIGNED, as mysqld).
    pub zerofill: bool,
    /// `DEFAULT CURRENT_TIMESTAMP[(fsp)]` (TIMESTAMP and DATETIME only; `default` is None).
    pub default_now: bool,
    /// `ON UPDATE CURRENT_TIMESTAMP[(fsp)]` (TIMESTAMP and DATETIME only).
    pub on_update_now: bool,
    /// `COMMENT '...'` as given (mysqld keeps up to 1024 characters: the SQL layer checks).
    pub comment: String,
}

impl ColumnType {
    /// Whether an index may use a prefix of the column (character and binary strings, BLOB,
    /// TEXT: mysqld's `Field::type_can_have_key_part`).
    pub fn is_string(self) -> bool {
        self.is_text()
            || matches!(
                self,
                ColumnType::Binary(_) | ColumnType::VarBinary(_) | ColumnType::Blob { .. }
            )
    }

    /// Whether values are character strings (they have a collation).
    pub fn is_text(self) -> bool {
        matches!(
            self,
            ColumnType::Char(_)
                | ColumnType::VarChar(_)
                | ColumnType::Text
                | ColumnType::SizedText { .. }
        )
    }
}

impl Column {
    /// A nullable column without default; character columns get `utf8mb4_0900_ai_ci`.
    pub fn new(name: &str, ty: ColumnType) -> Column {
        let collation = if ty.is_text() { collation::DEFAULT } else { collation::BINARY };
        Column {
            name: name.to_string(),
            ty,
            nullable: true,
            default: None,
            auto_increment: false,
            collation,
            elements: Vec::new(),
            display_width: 0,
            zerofill: false,
            default_now: false,
            on_update_now: false,
            comment: String::new(),
        }
    }
    /// ENUM/SET members.
    pub fn with_elements(mut self, elements: Vec<String>) -> Column {
        self.elements = elements;
        self
    }
    /// Sets the collation (a character column's).
    pub fn collation(mut self, id: u16) -> Column {
        self.collation = id;
        self
    }
    /// The column's character set (binary for non-character columns).
    pub fn charset(&self) -> collation::Charset {
        collation::by_id(self.collation).map_or(collation::Charset::Binary, |c| c.charset)
    }
    pub fn not_null(mut self) -> Column {
        self.nullable = false;
        self
    }
    pub fn auto_increment(mut self) -> Column {
        self.auto_increment = true;
        self.nullable = false;
        self
    }
    pub fn default(mut self, v: Value) -> Column {
        self.default = Some(v);
        self
    }
}

/// A secondary index.
#[derive(Debug, Clone, PartialEq)]
pub struct IndexDef {
    pub name: String,
    /// Column positions, in key order.
    pub columns: Vec<usize>,
    pub unique: bool,
    /// The index's `COMMENT 'text'` (empty: none), shown by SHOW CREATE TABLE / SHOW INDEX.
    pub comment: String,
    /// Per key part, the prefix length (`KEY (c(10))`): characters of a character column,
    /// bytes of a binary one; 0 for the whole column. Empty when no part has a prefix.
    /// A prefixed part's entries hold the value cut to the prefix (InnoDB's, so a UNIQUE
    /// prefix index judges duplicates on the prefix), so a read through the index only finds
    /// candidates: the caller re-checks its condition.
    pub prefixes: Vec<u32>,
}

impl IndexDef {
    /// An index without a comment or prefixes.
    pub fn new(name: impl Into<String>, columns: Vec<usize>, unique: bool) -> IndexDef {
        IndexDef {
            name: name.into(),
            columns,
            unique,
            comment: String::new(),
            prefixes: Vec::new(),
        }
    }

    /// Key part `part`'s prefix length (0: the whole column).
    pub fn prefix(&self, part: usize) -> u32 {
        self.prefixes.get(part).copied().unwrap_or(0)
    }

    /// Whether some key part is a prefix.
    pub fn has_prefix(&self) -> bool {
        self.prefixes.iter().any(|&p| p != 0)
    }

    /// Whether `other` holds the same entries for the same rows: the same key parts (columns,
    /// prefixes) and uniqueness.
    pub fn same_entries(&self, other: &IndexDef) -> bool {
        self.columns == other.columns
            && self.unique == other.unique
            && (0..self.columns.len()).all(|i| self.prefix(i) == other.prefix(i))
    }
}

/// `v` cut to its first `prefix` characters (bytes for the binary charset) under collation
/// `coll`'s character set; None when it is not a string longer than that (or `prefix` is 0).
/// InnoDB's `dtype_get_at_most_n_mbchars`: a key part of a prefix index holds this.
pub fn prefix_cut(v: &Value, coll: u16, prefix: u32) -> Option<Value> {
    let Value::Bytes(b) = v else { return None };
    if prefix == 0 {
        return None;
    }
    let n = prefix as usize;
    let multibyte = collation::by_id(coll).is_some_and(|c| c.charset.mbmaxlen() > 1);
    let end = if multibyte {
        // UTF-8: the byte where character `n` starts (continuation bytes are 10xxxxxx).
        b.iter().enumerate().filter(|(_, &x)| x & 0xC0 != 0x80).nth(n).map(|(i, _)| i)?
    } else if b.len() > n {
        n
    } else {
        return None;
    };
    Some(Value::Bytes(b[..end].to_vec()))
}

/// A table definition.
#[derive(Debug, Clone, PartialEq)]
pub struct TableSchema {
    /// Assigned by the engine at CREATE TABLE.
    pub id: TableId,
    pub name: String,
    pub columns: Vec<Column>,
    /// Column positions of the primary key; empty means a hidden row id is the clustered key.
    pub primary_key: Vec<usize>,
    pub indexes: Vec<IndexDef>,
    /// The table's default collation (`CREATE TABLE ... COLLATE=`), what SHOW CREATE TABLE
    /// prints and new character columns get.
    pub collation: u16,
    /// FOREIGN KEY constraints of this (child) table, in creation order.
    pub foreign_keys: Vec<ForeignKeyDef>,
    /// Set for a view (issue 20): the SQL layer's encoded definition, opaque to the engine. A
    /// view is a catalog entry like a table (mysqld's data dictionary keeps views in
    /// `mysql.tables` with type VIEW), so it shares the table namespace and is created,
    /// replaced and dropped by the same two-phase DDL transactions; it never holds rows.
    pub view: Option<Vec<u8>>,
    /// The table's `COMMENT='...'` (empty: none).
    pub comment: String,
    /// `AUTO_INCREMENT = n` of the CREATE or ALTER that carries this definition: when the
    /// definition is installed (live or by replay) the counter becomes n, or the largest value
    /// in the column plus one if that is more (InnoDB's rule for `ALTER TABLE ... AUTO_INCREMENT`,
    /// ha_innobase::commit_inplace_alter_table / innobase_set_max_autoinc). A one-shot request
    /// carried by the DDL record: an installed table's definition never holds it, so later
    /// DDL of the table does not repeat it.
    pub auto_increment_start: Option<u64>,
    /// CHECK constraints (MySQL 8.0.16+), in creation order. The engine stores them and
    /// never evaluates them: the SQL layer owns the expression (its text as mysqld prints it).
    pub checks: Vec<CheckDef>,
}

/// One CHECK constraint: `CONSTRAINT name CHECK (expr) [NOT] ENFORCED` (mysqld's
/// `dd::Check_constraint`: name, state, check clause).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CheckDef {
    pub name: String,
    /// The condition as mysqld prints it (`(\`a\` > 0)`), the SQL layer's to parse.
    pub expr: String,
    pub enforced: bool,
}

const MAX_TEXT_BYTES: usize = 65_535;

impl TableSchema {
    /// The positions of the AUTO_INCREMENT columns (MySQL allows one).
    pub fn auto_increment_columns(&self) -> Vec<usize> {
        self.columns.iter().enumerate().filter(|(_, c)| c.auto_increment).map(|(i, _)| i).collect()
    }

    /// Whether column `col` is the first column of the primary key or of an index.
    pub fn leads_a_key(&self, col: usize) -> bool {
        self.primary_key.first() == Some(&col)
            || self.indexes.iter().any(|i| i.columns.first() == Some(&col))
    }

    pub fn new(name: &str, columns: Vec<Column>, primary_key: Vec<usize>) -> TableSchema {
        TableSchema {
            id: 0,
            name: name.to_string(),
            columns,
            primary_key,
            indexes: Vec::new(),
            collation: collation::DEFAULT,
            foreign_keys: Vec::new(),
            view: None,
            comment: String::new(),
            auto_increment_start: None,
            checks: Vec::new(),
        }
    }

    /// Sets the table's default collation.
    pub fn with_collation(mut self, id: u16) -> TableSchema {
        self.collation = id;
        self
    }

    pub fn with_index(mut self, name: &str, columns: Vec<usize>, unique: bool) -> TableSchema {
        self.indexes.push(IndexDef::new(name, columns, unique));
        self
    }

    /// The position of the AUTO_INCREMENT column, if any.
    pub fn auto_increment_column(&self) -> Option<usize> {
        self.columns.iter().position(|c| c.auto_increment)
    }

    pub fn column_position(&self, name: &str) -> Option<usize> {
        self.columns.iter().position(|c| c.name.eq_ignore_ascii_case(name))
    }

    pub fn index(&self, name: &str) -> Option<usize> {
        self.indexes.iter().position(|i| i.name.eq_ignore_ascii_case(name))
    }

    /// Checks the definition and makes primary key columns NOT NULL (as MySQL does).
    pub(crate) fn validate(&mut self) -> Result<()> {
        let bad = |reason| Err(Error::InvalidSchema { reason });
        if self.name.is_empty() || self.columns.is_empty() {
            return bad("a table needs a name and at least one column");
        }
        if collation::by_id(self.collation).is_none() {
            return bad("unknown collation");
        }
        for (i, c) in self.columns.iter().enumerate() {
            if c.name.is_empty()
                || self.columns[..i].iter().any(|o| o.name.eq_ignore_ascii_case(&c.name))
            {
                return bad("column names must be non-empty and distinct");
            }
        }
        for c in &self.columns {
            match c.ty {
                ColumnType::Integer { bytes: 1 | 2 | 3 | 4 | 8, .. } => {}
                ColumnType::Integer { .. } => return bad("integers have 1, 2, 3, 4 or 8 bytes"),
                // mysqld's DECIMAL_MAX_PRECISION and DECIMAL_MAX_SCALE.
                ColumnType::Decimal { precision, scale }
                    if precision == 0 || precision > 65 || scale > precision || scale > 30 =>
                {
                    return bad(
                        "DECIMAL precision is 1..=65 and scale at most 30 and the precision",
                    )
                }
                ColumnType::Bit(n) if n == 0 || n > 64 => return bad("BIT(n) has 1..=64 bits"),
                ColumnType::Blob { len_bytes } | ColumnType::SizedText { len_bytes }
                    if !(1..=4).contains(&len_bytes) =>
                {
                    return bad("BLOB/TEXT length prefixes are 1..=4 bytes")
                }
                ColumnType::Enum | ColumnType::Set
                    if c.elements.is_empty()
                        || c.elements.len() > if c.ty == ColumnType::Set { 64 } else { 65_535 } =>
                {
                    return bad("ENUM has 1..=65535 members and SET 1..=64")
                }
                ColumnType::DateTime { fsp }
                | ColumnType::Time { fsp }
                | ColumnType::Timestamp { fsp }
                    if fsp > 6 =>
                {
                    return bad("fractional seconds precision is 0..=6")
                }
                _ => {}
            }
            if collation::by_id(c.collation).is_none() {
                return bad("unknown collation");
            }
        }
        for c in &self.columns {
            if (c.default_now || c.on_update_now)
                && !matches!(c.ty, ColumnType::DateTime { .. } | ColumnType::Timestamp { .. })
            {
                return bad("CURRENT_TIMESTAMP defaults need a TIMESTAMP or DATETIME column");
            }
        }
        if !distinct_positions(&self.primary_key, self.columns.len()) {
            return bad("primary key columns must exist and be distinct");
        }
        for &p in &self.primary_key {
            self.columns[p].nullable = false;
        }
        for (i, idx) in self.indexes.iter().enumerate() {
            self.check_index(idx, &self.indexes[..i])?;
        }
        crate::foreign_keys::check(&self.foreign_keys, self.columns.len())?;
        let autos = self.auto_increment_columns();
        if let [a] = autos[..] {
            if !matches!(self.columns[a].ty, ColumnType::Integer { .. }) {
                return bad("AUTO_INCREMENT needs an integer column");
            }
            if !self.leads_a_key(a) {
                return bad("the AUTO_INCREMENT column must be the first column of a key");
            }
        } else if autos.len() > 1 {
            return bad("at most one AUTO_INCREMENT column");
        }
        Ok(())
    }

    pub(crate) fn check_index(&self, idx: &IndexDef, others: &[IndexDef]) -> Result<()> {
        if idx.name.is_empty() || idx.name.eq_ignore_ascii_case("PRIMARY") {
            return Err(Error::InvalidSchema { reason: "invalid index name" });
        }
        if others.iter().any(|o| o.name.eq_ignore_ascii_case(&idx.name)) {
            return Err(Error::DupKeyName { name: idx.name.clone() });
        }
        if idx.columns.is_empty() || !distinct_positions(&idx.columns, self.columns.len()) {
            return Err(Error::InvalidSchema {
                reason: "index columns must exist and be distinct",
            });
        }
        if !idx.prefixes.is_empty() && idx.prefixes.len() != idx.columns.len() {
            return Err(Error::InvalidSchema { reason: "one prefix length per key part" });
        }
        for (part, &c) in idx.columns.iter().enumerate() {
            if idx.prefix(part) != 0 && !self.columns[c].ty.is_string() {
                return Err(Error::InvalidSchema { reason: "a prefix of a non-string column" });
            }
        }
        Ok(())
    }

    /// Value `v` of column `col` as a key part with prefix length `prefix` holds it (0: the
    /// whole value): [`prefix_cut`] under the column's collation.
    pub fn key_part_value<'v>(&self, col: usize, prefix: u32, v: &'v Value) -> Cow<'v, Value> {
        let coll = self.columns.get(col).map_or(collation::BINARY, |c| c.collation);
        prefix_cut(v, coll, prefix).map_or(Cow::Borrowed(v), Cow::Owned)
    }

    /// The encoded key part of value `v` of column `col` in a key part with prefix length
    /// `prefix` (0: whole), under the column's collation.
    pub fn encode_key_part(&self, out: &mut Vec<u8>, col: usize, prefix: u32, v: &Value) {
        let coll = self.columns.get(col).map_or(collation::BINARY, |c| c.collation);
        encode_key_part_in(out, &self.key_part_value(col, prefix, v), coll);
    }

    /// The encoded key of `values` (a prefix of the key parts may be given) in secondary
    /// index `idx`, each prefixed part cut to its prefix.
    pub fn index_key_of_values(&self, idx: usize, values: &[Value]) -> Key {
        let def = &self.indexes[idx];
        let mut out = Vec::with_capacity(16);
        for (part, (v, &p)) in values.iter().zip(&def.columns).enumerate() {
            self.encode_key_part(&mut out, p, def.prefix(part), v);
        }
        out.into_boxed_slice()
    }

    /// Checks and converts each value to its column's canonical form (integers to Int or
    /// UInt by signedness, decimals to the column's scale), as [`crate::Engine::insert`] and
    /// [`crate::Engine::update`] store rows. Idempotent: a row it accepted is stored exactly
    /// as it left it, so a caller that normalizes first knows the stored image without reading
    /// it back, and still has the row to quote in an error. On error the refused value is left
    /// as given.
    pub fn normalize_row(&self, row: &mut Row) -> Result<()> {
        if row.len() != self.columns.len() {
            return Err(Error::ColumnCount { expected: self.columns.len(), got: row.len() });
        }
        for (col, v) in self.columns.iter().zip(row.iter_mut()) {
            normalize_value(col, v)?;
        }
        Ok(())
    }

    /// The clustered key of a row of a table with a primary key.
    pub(crate) fn primary_key_of(&self, row: &(impl Columns + ?Sized)) -> Key {
        let mut out = Vec::with_capacity(16);
        for &p in &self.primary_key {
            encode_key_part_in(&mut out, &row.column(p), self.columns[p].collation);
        }
        out.into_boxed_slice()
    }

    /// The collations of key columns `positions` (for encoding bounds and lookups).
    pub fn collations_of(&self, positions: &[usize]) -> Vec<u16> {
        positions
            .iter()
            .map(|&p| self.columns.get(p).map_or(collation::BINARY, |c| c.collation))
            .collect()
    }

    /// The encoded key of `values` for key columns `positions` (a prefix of them may be
    /// given), each string under its column's collation.
    pub fn key_of_values(&self, positions: &[usize], values: &[Value]) -> Key {
        let mut out = Vec::with_capacity(16);
        for (v, &p) in values.iter().zip(positions) {
            let coll = self.columns.get(p).map_or(collation::BINARY, |c| c.collation);
            encode_key_part_in(&mut out, v, coll);
        }
        out.into_boxed_slice()
    }

    /// Whether images `a` and `b` hold bit-identical values in the columns of secondary index
    /// `idx` (the same encoded fields), so that their entries in it are the same bytes (for the
    /// same clustered key) without encoding either: the common UPDATE of a non-indexed column
    /// leaves every index entry as it was. False is only "unknown" (e.g. `'a'` and `'A'` under
    /// a `_ci` collation, or 0.0 and -0.0, encode alike); callers then compare the entries.
    pub(crate) fn same_index_values(&self, idx: usize, a: &Image, b: &Image) -> bool {
        self.indexes[idx].columns.iter().all(|&p| a.field(p) == b.field(p))
    }

    /// The entry of `row` in secondary index `idx`: the index columns followed by the clustered
    /// key (so entries are unique), and the length of the index-column prefix.
    pub(crate) fn index_entry(
        &self,
        idx: usize,
        row: &(impl Columns + ?Sized),
        clustered: &[u8],
    ) -> (Key, usize) {
        let mut out = Vec::with_capacity(16 + clustered.len());
        let def = &self.indexes[idx];
        for (part, &p) in def.columns.iter().enumerate() {
            self.encode_key_part(&mut out, p, def.prefix(part), &row.column(p));
        }
        let prefix_len = out.len();
        out.extend_from_slice(clustered);
        (out.into_boxed_slice(), prefix_len)
    }

    /// Whether a unique index constrains this row (SQL allows many rows with a NULL part).
    pub(crate) fn unique_applies(&self, idx: usize, row: &(impl Columns + ?Sized)) -> bool {
        let def = &self.indexes[idx];
        def.unique && def.columns.iter().all(|&p| *row.column(p) != Value::Null)
    }

    /// `'v1-v2'` text of a key's values, for the duplicate-entry message.
    pub(crate) fn entry_text(&self, columns: &[usize], row: &(impl Columns + ?Sized)) -> String {
        columns.iter().map(|&p| row.column(p).to_string()).collect::<Vec<_>>().join("-")
    }

    /// [`TableSchema::entry_text`] of secondary index `idx`: a prefixed part shows its prefix,
    /// as mysqld prints the key image (`key_unpack`).
    pub(crate) fn index_entry_text(&self, idx: usize, row: &(impl Columns + ?Sized)) -> String {
        let def = &self.indexes[idx];
        let part = |(i, &p): (usize, &usize)| {
            self.key_part_value(p, def.prefix(i), &row.column(p)).to_string()
        };
        def.columns.iter().enumerate().map(part).collect::<Vec<_>>().join("-")
    }
}

/// The clustered key of a row of a table without primary key.
pub(crate) fn hidden_key(row_id: u64) -> Key {
    encode_key(&[Value::UInt(row_id)])
}

/// The row id inside a hidden clustered key.
pub(crate) fn hidden_row_id(key: &[u8]) -> Option<u64> {
    let bytes: [u8; 8] = key.get(1..9)?.try_into().ok()?;
    Some(u64::from_be_bytes(bytes))
}

fn distinct_positions(cols: &[usize], n: usize) -> bool {
    cols.iter().enumerate().all(|(i, &c)| c < n && !cols[..i].contains(&c))
}

fn normalize_value(col: &Column, v: &mut Value) -> Result<()> {
    let out_of_range = || Error::OutOfRange { column: col.name.clone() };
    let wrong = || Error::WrongValue { column: col.name.clone() };
    if *v == Value::Null {
        return if col.nullable {
            Ok(())
        } else {
            Err(Error::BadNull { column: col.name.clone() })
        };
    }
    match col.ty {
        ColumnType::Integer { bytes, unsigned } => {
            let wide: i128 = match v {
                Value::Int(i) => i128::from(*i),
                Value::UInt(u) => i128::from(*u),
                _ => return Err(wrong()),
            };
            let bits = u32::from(bytes) * 8;
            let (lo, hi) = if unsigned {
                (0, (1i128 << bits) - 1)
            } else {
                (-(1i128 << (bits - 1)), (1i128 << (bits - 1)) - 1)
            };
            if wide < lo || wide > hi {
                return Err(out_of_range());
            }
            // In range of the column, so in range of the target type.
            *v = if unsigned { Value::UInt(wide as u64) } else { Value::Int(wide as i64) };
        }
        ColumnType::Double => {
            let d = match v {
                Value::Double(d) => *d,
                Value::Int(i) => *i as f64,
                Value::UInt(u) => *u as f64,
                Value::Decimal(d) => d.to_string().parse().map_err(|_| wrong())?,
                _ => return Err(wrong()),
            };
            if !d.is_finite() {
                return Err(out_of_range());
            }
            *v = Value::Double(d);
        }
        ColumnType::Decimal { precision, scale } => {
            let d = match v {
                Value::Decimal(d) => *d,
                Value::Int(i) => crate::value::Decimal::new(i128::from(*i), 0),
                Value::UInt(u) => crate::value::Decimal::new(i128::from(*u), 0),
                _ => return Err(wrong()),
            };
            let d = d.rescale(scale).ok_or_else(out_of_range)?;
            if d.integral_digits() > u32::from(precision.saturating_sub(scale)) {
                return Err(out_of_range());
            }
            *v = Value::Decimal(d);
        }
        ColumnType::Char(n) | ColumnType::VarChar(n) => {
            let Value::Bytes(b) = v else { return Err(wrong()) };
            // Values are UTF-8 whatever the column's character set (latin1/ascii columns are
            // checked to be representable by the SQL layer, not yet stored converted).
            let chars = std::str::from_utf8(b).map(|s| s.chars().count()).unwrap_or(b.len());
            if chars > n as usize {
                return Err(Error::DataTooLong { column: col.name.clone() });
            }
        }
        ColumnType::Text => {
            let Value::Bytes(b) = v else { return Err(wrong()) };
            if b.len() > MAX_TEXT_BYTES {
                return Err(Error::DataTooLong { column: col.name.clone() });
            }
        }
        ColumnType::DateTime { .. }
        | ColumnType::Float
        | ColumnType::Date
        | ColumnType::Time { .. }
        | ColumnType::Year
        | ColumnType::Timestamp { .. } => normalize_temporal(col, v)?,
        ColumnType::Binary(_)
        | ColumnType::VarBinary(_)
        | ColumnType::Blob { .. }
        | ColumnType::SizedText { .. }
        | ColumnType::Enum
        | ColumnType::Set
        | ColumnType::Bit(_)
        | ColumnType::Json => bytes_types::normalize(col, v)?,
    }
    Ok(())
}

/// Checks (and for FLOAT/YEAR converts) a value stored in a column of one of these types.
fn normalize_temporal(col: &Column, v: &mut Value) -> Result<()> {
    let out_of_range = || Error::OutOfRange { column: col.name.clone() };
    let wrong = || Error::WrongValue { column: col.name.clone() };
    match col.ty {
        ColumnType::Float => {
            let d = match v {
                Value::Float(f) => f64::from(*f),
                Value::Double(d) => *d,
                Value::Int(i) => *i as f64,
                Value::UInt(u) => *u as f64,
                Value::Decimal(d) => d.to_string().parse().map_err(|_| wrong())?,
                _ => return Err(wrong()),
            };
            let f = d as f32;
            if !d.is_finite() || !f.is_finite() {
                return Err(out_of_range());
            }
            *v = Value::Float(f);
        }
        ColumnType::Date => match v {
            Value::Date(d)
                if d.is_valid()
                    && d.hour == 0
                    && d.minute == 0
                    && d.second == 0
                    && d.micros == 0 => {}
            _ => return Err(wrong()),
        },
        ColumnType::Time { .. } => match v {
            Value::Time(t) if t.abs() <= crate::temporal::TIME_MAX_MICROS => {}
            Value::Time(_) => return Err(out_of_range()),
            _ => return Err(wrong()),
        },
        ColumnType::Year => {
            let y = match v {
                Value::UInt(u) => *u,
                Value::Int(i) => u64::try_from(*i).map_err(|_| out_of_range())?,
                _ => return Err(wrong()),
            };
            if y != 0 && !(1901..=2155).contains(&y) {
                return Err(out_of_range());
            }
            *v = Value::UInt(y);
        }
        ColumnType::DateTime { .. } => match v {
            Value::DateTime(t) if t.is_valid() => {}
            _ => return Err(wrong()),
        },
        ColumnType::Timestamp { .. } => match v {
            Value::DateTime(t)
                if *t == DateTime::ZERO
                    || (crate::temporal::TIMESTAMP_MIN..=crate::temporal::TIMESTAMP_MAX)
                        .contains(t) => {}
            Value::DateTime(_) => return Err(out_of_range()),
            _ => return Err(wrong()),
        },
        _ => return Err(wrong()),
    }
    Ok(())
}

/// The type's code and parameters on disk (an integer's display width and ZEROFILL are added
/// by `encode_schema` as code 28).
fn type_code(ty: ColumnType) -> (u8, u32, u8) {
    match ty {
        ColumnType::Integer { bytes, unsigned } => (1, u32::from(bytes), u8::from(unsigned)),
        ColumnType::Double => (2, 0, 0),
        ColumnType::Decimal { precision, scale } => (3, u32::from(precision), scale),
        ColumnType::Char(n) => (4, n, 0),
        ColumnType::VarChar(n) => (5, n, 0),
        ColumnType::Text => (6, 0, 0),
        // Types of issue 19 (bytes): codes from 20 up (others' new types take 8..19).
        ColumnType::Binary(n) => (20, n, 0),
        ColumnType::VarBinary(n) => (21, n, 0),
        ColumnType::Blob { len_bytes } => (22, u32::from(len_bytes), 0),
        ColumnType::SizedText { len_bytes } => (23, u32::from(len_bytes), 0),
        ColumnType::Enum => (24, 0, 0),
        ColumnType::Set => (25, 0, 0),
        ColumnType::Bit(n) => (26, u32::from(n), 0),
        ColumnType::Json => (27, 0, 0),
        // Codes of issue 19's temporal types start at 40, clear of other new types.
        ColumnType::DateTime { fsp } => (40, u32::from(fsp), 0),
        ColumnType::Float => (41, 0, 0),
        ColumnType::Date => (42, 0, 0),
        ColumnType::Time { fsp } => (43, u32::from(fsp), 0),
        ColumnType::Year => (44, 0, 0),
        ColumnType::Timestamp { fsp } => (45, u32::from(fsp), 0),
    }
}

/// Type code 28: an integer with a display width or ZEROFILL (`p1` = bytes | width << 8,
/// `p2` = unsigned | zerofill << 1). Plain integers keep code 1, so files written before these
/// attributes existed read the same and new files without them stay byte-identical.
const INTEGER_WITH_ATTRIBUTES: u8 = 28;

/// Bits of a column's `auto_flags` byte (after the default): 1 DEFAULT CURRENT_TIMESTAMP,
/// 2 ON UPDATE CURRENT_TIMESTAMP. Only written for TIMESTAMP/DATETIME columns (type codes 40
/// and 45), so older files (which have no such column types) read unchanged.
fn auto_flags(c: &Column) -> Option<u8> {
    matches!(c.ty, ColumnType::DateTime { .. } | ColumnType::Timestamp { .. })
        .then(|| u8::from(c.default_now) | u8::from(c.on_update_now) << 1)
}

// Format (schema): u32 id | name | u16 column count | per column: name, u8 type, u32 p1, u8 p2,
// [u16 collation if type & 0x80,] u8 nullable, u8 auto_increment, u8 has default [, value] |
// u16 pk count, u16 positions | u16 index count | per index: name, u8 unique, u16 count,
// u16 positions.
//
// A view's definition (`TableSchema::view`) follows everything else, as bytes, when the index
// count has `VIEW_FLAG` set (files without views stay byte-identical).
//
// Collations (0x80 of the type byte): written for every character column. A character column
// written before collations were kept has no collation: it compared and keyed its values as
// bytes, so it reads back as `utf8mb4_0900_bin` (309), whose keys are byte-identical to the
// old ones — old data files keep their keys and their behaviour; non-character columns are
// `binary` (63).
const HAS_COLLATION: u8 = 0x80;
// The table's default collation: 0x40 of the first column's type byte, a u16 after that
// column's p2 (before its own collation). Absent in old files: utf8mb4_0900_ai_ci.
const HAS_TABLE_COLLATION: u8 = 0x40;
/// Bit of the index count: a view definition follows (at most 64 indexes exist).
const VIEW_FLAG: u16 = 0x2000;
/// Bit of the index count: the table options of issue 20 follow, last: u64 AUTO_INCREMENT
/// start plus one (0: none) | table comment | u16 column count | per column its comment.
/// Written only when one of them is set, so other definitions stay byte-identical.
const OPTIONS_FLAG: u16 = 0x1000;
/// Bit of the index count: the CHECK constraints follow, after everything else: u16 count |
/// per constraint its name, its expression and a u8 enforced. Written only when the table has
/// one, so other definitions (and every file written before CHECK) stay byte-identical.
const CHECKS_FLAG: u16 = 0x0800;

fn has_options(s: &TableSchema) -> bool {
    s.auto_increment_start.is_some()
        || !s.comment.is_empty()
        || s.columns.iter().any(|c| !c.comment.is_empty())
}
pub(crate) fn encode_schema(out: &mut Vec<u8>, s: &TableSchema) {
    out.put_u32(s.id);
    out.put_bytes(s.name.as_bytes());
    out.put_u16(s.columns.len() as u16);
    for (i, c) in s.columns.iter().enumerate() {
        out.put_bytes(c.name.as_bytes());
        let (mut t, mut p1, mut p2) = type_code(c.ty);
        if t == 1 && (c.display_width != 0 || c.zerofill) {
            t = INTEGER_WITH_ATTRIBUTES;
            p1 |= u32::from(c.display_width) << 8;
            p2 |= u8::from(c.zerofill) << 1;
        }
        let with_coll = c.ty.is_text();
        if with_coll {
            t |= HAS_COLLATION;
        }
        if i == 0 {
            t |= HAS_TABLE_COLLATION;
        }
        out.put_u8(t);
        out.put_u32(p1);
        out.put_u8(p2);
        if i == 0 {
            out.put_u16(s.collation);
        }
        if with_coll {
            out.put_u16(c.collation);
        }
        if matches!(c.ty, ColumnType::Enum | ColumnType::Set) {
            out.put_u32(c.elements.len() as u32);
            for e in &c.elements {
                out.put_bytes(e.as_bytes());
            }
        }
        out.put_u8(u8::from(c.nullable));
        out.put_u8(u8::from(c.auto_increment));
        match &c.default {
            None => out.put_u8(0),
            Some(v) => {
                out.put_u8(1);
                encode_value(out, v);
            }
        }
        if let Some(f) = auto_flags(c) {
            out.put_u8(f);
        }
    }
    put_positions(out, &s.primary_key);
    // Foreign keys follow the indexes when the index count has `foreign_keys::FLAG` set (at
    // most 64 indexes exist, so the bit was never set before): files written before foreign
    // keys, and schemas without any, stay byte-identical.
    let fk_flag = if s.foreign_keys.is_empty() { 0 } else { crate::foreign_keys::FLAG };
    let view_flag = if s.view.is_some() { VIEW_FLAG } else { 0 };
    let options_flag = if has_options(s) { OPTIONS_FLAG } else { 0 };
    let checks_flag = if s.checks.is_empty() { 0 } else { CHECKS_FLAG };
    out.put_u16(s.indexes.len() as u16 | fk_flag | view_flag | options_flag | checks_flag);
    for i in &s.indexes {
        encode_index(out, i);
    }
    if fk_flag != 0 {
        crate::foreign_keys::encode(out, &s.foreign_keys);
    }
    if let Some(v) = &s.view {
        out.put_bytes(v);
    }
    if options_flag != 0 {
        out.put_u64(s.auto_increment_start.map_or(0, |n| n.saturating_add(1)));
        out.put_bytes(s.comment.as_bytes());
        out.put_u16(s.columns.len() as u16);
        for c in &s.columns {
            out.put_bytes(c.comment.as_bytes());
        }
    }
    if checks_flag != 0 {
        out.put_u16(s.checks.len() as u16);
        for c in &s.checks {
            out.put_bytes(c.name.as_bytes());
            out.put_bytes(c.expr.as_bytes());
            out.put_u8(u8::from(c.enforced));
        }
    }
}

/// Set in an index's unique byte when a comment follows its columns (an index without one
/// encodes as before comments were kept).
const INDEX_COMMENT: u8 = 2;
/// Set in an index's unique byte when its prefix lengths follow (after the comment): u16
/// count, then a u32 per key part.
const INDEX_PREFIXES: u8 = 4;

pub(crate) fn encode_index(out: &mut Vec<u8>, i: &IndexDef) {
    out.put_bytes(i.name.as_bytes());
    let commented = if i.comment.is_empty() { 0 } else { INDEX_COMMENT };
    let prefixed = if i.has_prefix() { INDEX_PREFIXES } else { 0 };
    out.put_u8(u8::from(i.unique) | commented | prefixed);
    put_positions(out, &i.columns);
    if commented != 0 {
        out.put_bytes(i.comment.as_bytes());
    }
    if prefixed != 0 {
        out.put_u16(i.prefixes.len() as u16);
        for &p in &i.prefixes {
            out.put_u32(p);
        }
    }
}

fn put_positions(out: &mut Vec<u8>, p: &[usize]) {
    out.put_u16(p.len() as u16);
    for &c in p {
        out.put_u16(c as u16);
    }
}

fn positions(r: &mut Reader<'_>) -> Result<Vec<usize>> {
    let n = r.u16()?;
    (0..n).map(|_| Ok(usize::from(r.u16()?))).collect()
}

pub(crate) fn decode_index(r: &mut Reader<'_>) -> Result<IndexDef> {
    let name = r.string()?;
    let flags = r.u8()?;
    if flags & !(1 | INDEX_COMMENT | INDEX_PREFIXES) != 0 {
        return Err(r.corrupt());
    }
    let columns = positions(r)?;
    let comment = if flags & INDEX_COMMENT != 0 { r.string()? } else { String::new() };
    let mut prefixes = Vec::new();
    if flags & INDEX_PREFIXES != 0 {
        let n = r.u16()?;
        if usize::from(n) != columns.len() {
            return Err(r.corrupt());
        }
        for _ in 0..n {
            prefixes.push(r.u32()?);
        }
    }
    Ok(IndexDef { name, columns, unique: flags & 1 != 0, comment, prefixes })
}

pub(crate) fn decode_schema(r: &mut Reader<'_>) -> Result<TableSchema> {
    let id = r.u32()?;
    let name = r.string()?;
    let ncols = r.u16()?;
    // Not `with_capacity(ncols)`: the count is not checked against the bytes present yet.
    let mut columns = Vec::new();
    let mut table_collation = collation::DEFAULT;
    for i in 0..ncols {
        let name = r.string()?;
        let (t, p1, p2) = (r.u8()?, r.u32()?, r.u8()?);
        if i == 0 && t & HAS_TABLE_COLLATION != 0 {
            table_collation = r.u16()?;
        }
        let coll = if t & HAS_COLLATION != 0 { Some(r.u16()?) } else { None };
        let code = t & !(HAS_COLLATION | HAS_TABLE_COLLATION);
        let ty = match code {
            1 => ColumnType::Integer {
                bytes: u8::try_from(p1).map_err(|_| r.corrupt())?,
                unsigned: p2 == 1,
            },
            2 => ColumnType::Double,
            3 => ColumnType::Decimal {
                precision: u8::try_from(p1).map_err(|_| r.corrupt())?,
                scale: p2,
            },
            4 => ColumnType::Char(p1),
            5 => ColumnType::VarChar(p1),
            6 => ColumnType::Text,
            INTEGER_WITH_ATTRIBUTES => ColumnType::Integer {
                bytes: u8::try_from(p1 & 0xff).map_err(|_| r.corrupt())?,
                unsigned: p2 & 1 == 1,
            },
            20 => ColumnType::Binary(p1),
            21 => ColumnType::VarBinary(p1),
            22 => ColumnType::Blob { len_bytes: u8::try_from(p1).map_err(|_| r.corrupt())? },
            23 => ColumnType::SizedText { len_bytes: u8::try_from(p1).map_err(|_| r.corrupt())? },
            24 => ColumnType::Enum,
            25 => ColumnType::Set,
            26 => ColumnType::Bit(u8::try_from(p1).map_err(|_| r.corrupt())?),
            27 => ColumnType::Json,
            // Before issue 19 every DATETIME kept microseconds (and was logged as DATETIME(6)).
            7 => ColumnType::DateTime { fsp: 6 },
            40..=45 => {
                let fsp = u8::try_from(p1).map_err(|_| r.corrupt())?;
                match code {
                    40 => ColumnType::DateTime { fsp },
                    41 => ColumnType::Float,
                    42 => ColumnType::Date,
                    43 => ColumnType::Time { fsp },
                    44 => ColumnType::Year,
                    _ => ColumnType::Timestamp { fsp },
                }
            }
            _ => return Err(r.corrupt()),
        };
        let (display_width, zerofill) = if code == INTEGER_WITH_ATTRIBUTES {
            (u8::try_from(p1 >> 8).map_err(|_| r.corrupt())?, p2 & 2 != 0)
        } else {
            (0, false)
        };
        let mut elements = Vec::new();
        if matches!(ty, ColumnType::Enum | ColumnType::Set) {
            let n = r.u32()?;
            // Not `with_capacity(n)`: the count is not checked against the bytes present.
            for _ in 0..n {
                elements.push(r.string()?);
            }
        }
        let nullable = r.bool()?;
        let auto_increment = r.bool()?;
        let default = if r.bool()? { Some(decode_value(r)?) } else { None };
        let collation = coll.unwrap_or(if ty.is_text() {
            collation::UTF8MB4_0900_BIN
        } else {
            collation::BINARY
        });
        let (mut default_now, mut on_update_now) = (false, false);
        if matches!(code, 40 | 45) {
            let f = r.u8()?;
            default_now = f & 1 != 0;
            on_update_now = f & 2 != 0;
        }
        columns.push(Column {
            name,
            ty,
            nullable,
            default,
            auto_increment,
            collation,
            elements,
            display_width,
            zerofill,
            default_now,
            on_update_now,
            comment: String::new(),
        });
    }
    let primary_key = positions(r)?;
    let nidx = r.u16()?;
    let indexes = (0..nidx & !(crate::foreign_keys::FLAG | VIEW_FLAG | OPTIONS_FLAG | CHECKS_FLAG))
        .map(|_| decode_index(r))
        .collect::<Result<Vec<_>>>()?;
    let foreign_keys = if nidx & crate::foreign_keys::FLAG != 0 {
        crate::foreign_keys::decode(r)?
    } else {
        Vec::new()
    };
    let view = if nidx & VIEW_FLAG != 0 { Some(r.bytes()?.to_vec()) } else { None };
    let (mut comment, mut auto_increment_start) = (String::new(), None);
    if nidx & OPTIONS_FLAG != 0 {
        auto_increment_start = r.u64()?.checked_sub(1);
        comment = r.string()?;
        if usize::from(r.u16()?) != columns.len() {
            return Err(r.corrupt());
        }
        for c in &mut columns {
            c.comment = r.string()?;
        }
    }
    let mut checks = Vec::new();
    if nidx & CHECKS_FLAG != 0 {
        for _ in 0..r.u16()? {
            checks.push(CheckDef { name: r.string()?, expr: r.string()?, enforced: r.bool()? });
        }
    }
    let mut s = TableSchema {
        id,
        name,
        columns,
        primary_key,
        indexes,
        collation: table_collation,
        foreign_keys,
        view,
        comment,
        auto_increment_start,
        checks,
    };
    // A definition from disk passed validation when it was created; re-checking it guards the
    // position indexing done everywhere else against corrupt input.
    s.validate().map_err(|_| r.corrupt())?;
    Ok(s)
}

#[cfg(test)]
mod display_width_tests {
    use super::*;

    /// An integer's display width survives the schema's encoding (checkpoints, DDL redo
    /// records), and a schema written before widths were kept (p1 = bytes) decodes as none.
    #[test]
    fn display_width_round_trips_and_old_encodings_have_none() {
        let mut flag = Column::new("f", ColumnType::Integer { bytes: 1, unsigned: false });
        flag.display_width = 1;
        let plain = Column::new("n", ColumnType::Integer { bytes: 8, unsigned: true }).not_null();
        let schema = TableSchema::new("t", vec![plain, flag], vec![0]);
        let mut buf = Vec::new();
        encode_schema(&mut buf, &schema);
        let back = decode_schema(&mut Reader::new(&buf, "schema", 0)).expect("decodes");
        assert_eq!(back, schema);
        assert_eq!(back.columns[1].display_width, 1);
        assert_eq!(back.columns[0].display_width, 0);
        // The old form of column f: p1 = 1 (bytes only).
        let mut old = schema.clone();
        old.columns[1].display_width = 0;
        let mut old_buf = Vec::new();
        encode_schema(&mut old_buf, &old);
        let decoded = decode_schema(&mut Reader::new(&old_buf, "schema", 0)).expect("decodes");
        assert_eq!(decoded.columns[1].display_width, 0);
        assert_eq!(decoded.columns[1].ty, ColumnType::Integer { bytes: 1, unsigned: false });
    }
}

#[cfg(test)]
mod check_tests {
    use super::*;

    /// CHECK constraints survive the schema's encoding (checkpoints, DDL redo records); a
    /// schema without any encodes as before they existed (no flag, no bytes).
    #[test]
    fn checks_round_trip_and_tables_without_them_are_unchanged() {
        let cols = vec![Column::new("a", ColumnType::Integer { bytes: 4, unsigned: false })];
        let plain = TableSchema::new("d.t", cols, vec![]);
        let mut with = plain.clone();
        with.checks = vec![
            CheckDef { name: "t_chk_1".into(), expr: "(`a` > 0)".into(), enforced: true },
            CheckDef { name: "c2".into(), expr: "(`a` < 9)".into(), enforced: false },
        ];
        let (mut a, mut b) = (Vec::new(), Vec::new());
        encode_schema(&mut a, &plain);
        encode_schema(&mut b, &with);
        assert!(b.len() > a.len() && b.starts_with(&a[..a.len() - 2]));
        let back = decode_schema(&mut Reader::new(&b, "schema", 0)).expect("decodes");
        assert_eq!(back, with);
        let back = decode_schema(&mut Reader::new(&a, "schema", 0)).expect("decodes");
        assert!(back.checks.is_empty());
        // A cut encoding is corrupt, not a panic.
        assert!(decode_schema(&mut Reader::new(&b[..b.len() - 1], "schema", 0)).is_err());
    }
}

#[cfg(test)]
mod temporal_tests {
    use super::*;
    fn normalize(c: &Column, v: &mut Value) -> Result<()> {
        normalize_temporal(c, v)
    }
    use crate::temporal::{epoch_seconds, from_epoch_seconds, TIME_MAX_MICROS};

    #[test]
    fn ranges_are_checked() {
        let mut ts = Column::new("t", ColumnType::Timestamp { fsp: 0 });
        ts.nullable = true;
        let mut v = Value::DateTime(DateTime {
            year: 2038,
            month: 1,
            day: 19,
            hour: 3,
            minute: 14,
            second: 8,
            micros: 0,
        });
        assert!(normalize(&ts, &mut v).is_err());
        let mut v = Value::DateTime(DateTime::ZERO);
        assert!(normalize(&ts, &mut v).is_ok());
        let y = Column::new("y", ColumnType::Year);
        assert!(normalize(&y, &mut Value::Int(1900)).is_err());
        assert!(normalize(&y, &mut Value::Int(2155)).is_ok());
        let t = Column::new("t", ColumnType::Time { fsp: 0 });
        assert!(normalize(&t, &mut Value::Time(TIME_MAX_MICROS + 1)).is_err());
        let t =
            DateTime { year: 2038, month: 1, day: 19, hour: 3, minute: 14, second: 7, micros: 5 };
        assert_eq!(epoch_seconds(&t), 2_147_483_647);
        assert_eq!(from_epoch_seconds(2_147_483_647, 5), t);
        let fl = Column::new("f", ColumnType::Float);
        let mut big = Value::Double(1e300);
        assert!(normalize(&fl, &mut big).is_err());
        let mut x = Value::Double(0.1);
        normalize(&fl, &mut x).unwrap();
        assert_eq!(x, Value::Float(0.1));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn same_index_values_means_the_same_entry_bytes() {
        let s = TableSchema::new(
            "t",
            vec![
                Column::new("id", ColumnType::Integer { bytes: 8, unsigned: false }),
                Column::new("k", ColumnType::Double),
                Column::new("c", ColumnType::VarChar(10)),
            ],
            vec![0],
        )
        .with_index("k", vec![1], false);
        let row = |k: f64, c: &str| {
            Image::new(&[Value::Int(1), Value::Double(k), Value::Bytes(c.into())])
        };
        let key = encode_key(&[Value::Int(1)]);
        // A change outside the index's columns: the same values, the same entry.
        let (a, b) = (row(2.5, "x"), row(2.5, "y"));
        assert!(s.same_index_values(0, &a, &b));
        assert_eq!(s.index_entry(0, &a, &key), s.index_entry(0, &b, &key));
        assert!(!s.same_index_values(0, &row(2.5, "x"), &row(3.0, "x")));
        // 0.0 == -0.0 as floats, but the answer must not claim the entries equal on that.
        assert!(!s.same_index_values(0, &row(0.0, "x"), &row(-0.0, "x")));
    }
}
