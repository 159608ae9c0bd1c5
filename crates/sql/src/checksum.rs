//! `CHECKSUM TABLE t [, t2 ...] [QUICK | EXTENDED]` (MySQL 8.0's `mysql_checksum_table` in
//! `sql/sql_table.cc`, read, not copied).
//!
//! The answer has MySQL's shape: one row per named table, columns `Table` (`db.table` as
//! named) and `Checksum` (BIGINT, NULL when there is none). As in mysqld:
//! - a table that does not exist gives a NULL checksum and an `Error 1146 Table 'db.t'
//!   doesn't exist` condition in SHOW WARNINGS; the statement itself succeeds;
//! - `QUICK` returns the engine's live checksum if it keeps one, else NULL. binlogd's engine
//!   keeps none (InnoDB neither), so QUICK always answers NULL;
//! - otherwise (no option, or `EXTENDED`) every row is read and the checksum computed.
//!
//! The value: for each row, a CRC32 of the row's canonical encoding (below); the table's
//! checksum is the wrapping 32-bit sum of the rows' CRCs, the combination mysqld uses
//! (`crc += row_crc`). So it does not depend on the order rows are stored or read in, on
//! hidden row ids or on anything else of the storage layout, and two tables with the same
//! rows (as a multiset) have the same checksum: a primary and its replicas can be compared.
//! It is **not** byte-compatible with InnoDB's value, which hashes mysqld's in-memory record
//! format (null bitmap, packed fields); binlogd compares only with binlogd.
//!
//! Format (canonical row encoding, per column in column order): NULL → `0x00`; otherwise a
//! type tag byte and the value: integers (signed or unsigned) `0x01` + i128 little-endian;
//! DOUBLE `0x02` + f64 bits LE (`-0.0` as `0.0`); DECIMAL `0x03` + mantissa i128 LE + scale u8,
//! trailing zero digits removed (so `1.50` and `1.5` agree); strings `0x04` + u32 LE length +
//! bytes; DATETIME `0x05` + year u16 LE, month, day, hour, minute, second, micros u32 LE.

use engine::{Row, Value};

use super::ast::TableRef;
use super::error::{Result, SqlError};
use super::output::{Output, ResultColumn};
use super::session::{Session, Warning};

/// Appends the canonical encoding of one column value (see the module doc's Format).
fn encode_canonical(out: &mut Vec<u8>, v: &Value) {
    match v {
        Value::Null => out.push(0),
        Value::Int(i) => {
            out.push(1);
            out.extend_from_slice(&i128::from(*i).to_le_bytes());
        }
        Value::UInt(u) => {
            out.push(1);
            out.extend_from_slice(&i128::from(*u).to_le_bytes());
        }
        Value::Double(d) => {
            out.push(2);
            let d = if *d == 0.0 { 0.0 } else { *d };
            out.extend_from_slice(&d.to_bits().to_le_bytes());
        }
        Value::Decimal(d) => {
            let (mut mantissa, mut scale) = (d.mantissa, d.scale);
            let ten = engine::Mantissa::TEN;
            while scale > 0 && (mantissa % ten).is_zero() {
                mantissa /= ten;
                scale -= 1;
            }
            out.push(3);
            match i128::try_from(mantissa) {
                Ok(m) => out.extend_from_slice(&m.to_le_bytes()),
                // Wider than i128 (DECIMAL(39..65)): the four u64 words, low first.
                Err(_) => {
                    for w in mantissa.to_bits().digits() {
                        out.extend_from_slice(&w.to_le_bytes());
                    }
                }
            }
            out.push(scale);
        }
        Value::Bytes(b) | Value::Json(b) => {
            out.push(4);
            // Column values are at most 64 KiB (TEXT); the length cannot overflow u32.
            out.extend_from_slice(&(b.len() as u32).to_le_bytes());
            out.extend_from_slice(b);
        }
        Value::DateTime(t) => {
            out.push(5);
            out.extend_from_slice(&t.year.to_le_bytes());
            out.extend_from_slice(&[t.month, t.day, t.hour, t.minute, t.second]);
            out.extend_from_slice(&t.micros.to_le_bytes());
        }
        // Issue 19's values (tags from 40, clear of other new types).
        Value::Float(f) => {
            out.push(40);
            let f = if *f == 0.0 { 0.0f32 } else { *f };
            out.extend_from_slice(&f.to_bits().to_le_bytes());
        }
        Value::Date(t) => {
            out.push(41);
            out.extend_from_slice(&t.year.to_le_bytes());
            out.extend_from_slice(&[t.month, t.day]);
        }
        Value::Time(us) => {
            out.push(42);
            out.extend_from_slice(&us.to_le_bytes());
        }
    }
}

/// The CRC32 of one row's canonical encoding.
pub(crate) fn row_checksum(row: &[Value], buf: &mut Vec<u8>) -> u32 {
    buf.clear();
    for v in row {
        encode_canonical(buf, v);
    }
    crc32fast::hash(buf)
}

/// The checksum of a set of rows: the wrapping sum of their CRCs (order-independent).
pub(crate) fn table_checksum<'a>(rows: impl IntoIterator<Item = &'a Row>) -> u32 {
    let mut buf = Vec::new();
    rows.into_iter().fold(0u32, |sum, r| sum.wrapping_add(row_checksum(r, &mut buf)))
}

impl Session {
    /// CHECKSUM TABLE (see the module doc).
    pub(crate) fn checksum_table(&mut self, tables: &[TableRef], quick: bool) -> Result<Output> {
        self.server.count("Com_checksum");
        let columns =
            vec![ResultColumn::text("Table", 128), ResultColumn::bigint("Checksum", false)];
        let mut rows = Vec::with_capacity(tables.len());
        for t in tables {
            let db = match &t.db {
                Some(d) => d.clone(),
                None => self.db.clone().ok_or(SqlError::NoDatabaseSelected)?,
            };
            let name = Value::Bytes(format!("{db}.{}", t.name).into_bytes());
            let (id, _, _) = match self.resolve_table(t) {
                Ok(found) => found,
                Err(e @ SqlError::NoSuchTable { .. }) => {
                    // mysqld keeps the open error as an Error-level condition and answers NULL.
                    self.warnings.push(Warning {
                        level: "Error",
                        code: e.code(),
                        message: e.to_string(),
                    });
                    rows.push(vec![name, Value::Null]);
                    continue;
                }
                Err(e) => return Err(e),
            };
            if quick {
                // No live checksum is kept: mysqld answers NULL for such engines.
                rows.push(vec![name, Value::Null]);
                continue;
            }
            let engine = self.server.engine.clone();
            // Read inside the open transaction (it sees its own changes, as in mysqld), or a
            // read-only one of its own.
            let sum = match self.txn.as_ref() {
                Some(open) => {
                    let read = engine.scan(
                        &open.txn,
                        id,
                        std::ops::Bound::Unbounded,
                        std::ops::Bound::Unbounded,
                        usize::MAX,
                    )?;
                    table_checksum(read.iter().map(|(_, r)| r))
                }
                None => {
                    let txn = engine.begin();
                    let read = engine.scan(
                        &txn,
                        id,
                        std::ops::Bound::Unbounded,
                        std::ops::Bound::Unbounded,
                        usize::MAX,
                    );
                    engine.rollback(txn)?;
                    table_checksum(read?.iter().map(|(_, r)| r))
                }
            };
            rows.push(vec![name, Value::UInt(u64::from(sum))]);
        }
        Ok(Output::Rows { columns, rows })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{Hooks, Server};
    use engine::{DateTime, Decimal, Engine, EngineConfig};

    fn session() -> Session {
        let vfs = vfs::SimVfs::new().shared();
        let cfg = EngineConfig { checkpoint_redo_bytes: None, ..EngineConfig::default() };
        let e = Engine::open(vfs, std::path::Path::new("/data"), cfg).expect("engine opens").0;
        let srv = Server::open(e.clone(), Hooks::without_binlog(&e), &[]).expect("server opens");
        srv.session("root", "localhost")
    }

    fn q(s: &mut Session, sql: &str) -> Vec<Vec<String>> {
        s.query(sql).unwrap_or_else(|e| panic!("{sql}: {e}")).text_rows()
    }

    fn sum(s: &mut Session, table: &str) -> String {
        q(s, &format!("CHECKSUM TABLE {table}"))[0][1].clone()
    }

    #[test]
    fn checksum_table_statement() {
        let mut s = session();
        assert_eq!(s.query("CHECKSUM TABLE t").expect_err("no database").code(), 1046);
        q(&mut s, "CREATE DATABASE d");
        q(&mut s, "USE d");
        let cols = "(id INT, name VARCHAR(20), price DECIMAL(8,2), at DATETIME)";
        q(&mut s, &format!("CREATE TABLE a {cols}"));
        q(&mut s, &format!("CREATE TABLE b {cols}"));
        q(
            &mut s,
            "CREATE TABLE c (id INT PRIMARY KEY, name VARCHAR(20), price DECIMAL(8,2), \
                   at DATETIME)",
        );
        // An empty table sums to 0, as in mysqld.
        assert_eq!(sum(&mut s, "a"), "0");
        let rows = [
            "(1, 'x', 1.50, '2026-11-22 08:00:00')",
            "(2, NULL, NULL, NULL)",
            "(3, '', 0, '2000-01-01 00:00:00')",
        ];
        for r in rows {
            q(&mut s, &format!("INSERT INTO a VALUES {r}"));
        }
        // Other order, other hidden row ids (b gets a row it then deletes), a clustered key.
        q(&mut s, "INSERT INTO b VALUES (9, 'gone', 9, NULL)");
        for r in rows.iter().rev() {
            q(&mut s, &format!("INSERT INTO b VALUES {r}"));
            q(&mut s, &format!("INSERT INTO c VALUES {r}"));
        }
        q(&mut s, "DELETE FROM b WHERE id = 9");
        let out = q(&mut s, "CHECKSUM TABLE a, d.b, c EXTENDED");
        assert_eq!(out[0][0], "d.a");
        assert_eq!(out[1][0], "d.b");
        assert_eq!(out[2][0], "d.c");
        assert_ne!(out[0][1], "0");
        assert!(out[0][1].parse::<u32>().is_ok(), "{out:?}");
        assert_eq!(out[0][1], out[1][1]);
        assert_eq!(out[0][1], out[2][1]);
        assert_eq!(q(&mut s, "CHECKSUM TABLES a")[0][1], out[0][1]);
        // Any change shows; undoing it restores the value.
        q(&mut s, "UPDATE a SET name = 'y' WHERE id = 1");
        assert_ne!(sum(&mut s, "a"), out[0][1]);
        q(&mut s, "UPDATE a SET name = 'x' WHERE id = 1");
        assert_eq!(sum(&mut s, "a"), out[0][1]);
        // Inside a transaction the statement sees the transaction's own changes.
        q(&mut s, "BEGIN");
        q(&mut s, "DELETE FROM a WHERE id = 2");
        assert_ne!(sum(&mut s, "a"), out[0][1]);
        q(&mut s, "ROLLBACK");
        assert_eq!(sum(&mut s, "a"), out[0][1]);

        // QUICK: no live checksum is kept, so NULL (InnoDB's answer).
        assert_eq!(q(&mut s, "CHECKSUM TABLE a QUICK"), vec![vec!["d.a", "NULL"]]);
        // A missing table: NULL and an Error-level 1146 condition, the statement succeeds.
        let out = q(&mut s, "checksum table a, nope");
        assert_eq!(out[1], vec!["d.nope", "NULL"]);
        assert_eq!(s.warning_count(), 1);
        let w = q(&mut s, "SHOW WARNINGS");
        assert_eq!(w, vec![vec!["Error", "1146", "Table 'd.nope' doesn't exist"]]);
        assert_eq!(q(&mut s, "CHECKSUM TABLE nodb.t")[0], vec!["nodb.t", "NULL"]);
        for bad in ["CHECKSUM TABLE", "CHECKSUM a", "CHECKSUM TABLE a FAST", "CHECKSUM TABLE a,"] {
            assert_eq!(s.query(bad).expect_err(bad).code(), 1064, "{bad}");
        }
    }

    fn rows() -> Vec<Row> {
        vec![
            vec![Value::Int(1), Value::Bytes(b"a".to_vec()), Value::Null],
            vec![Value::Int(2), Value::Bytes(b"".to_vec()), Value::Double(2.5)],
            vec![
                Value::Int(3),
                Value::Bytes(b"c\0d".to_vec()),
                Value::DateTime(DateTime {
                    year: 2026,
                    month: 11,
                    day: 22,
                    hour: 8,
                    minute: 0,
                    second: 1,
                    micros: 5,
                }),
            ],
        ]
    }

    #[test]
    fn order_independent_and_content_sensitive() {
        let a = rows();
        let mut b = rows();
        b.reverse();
        assert_eq!(table_checksum(&a), table_checksum(&b));
        assert_ne!(table_checksum(&a), 0);
        // Any one changed value changes the sum.
        let mut c = rows();
        c[1][1] = Value::Bytes(b"x".to_vec());
        assert_ne!(table_checksum(&a), table_checksum(&c));
        // NULL differs from the empty string and from 0.
        let null = vec![vec![Value::Null]];
        assert_ne!(table_checksum(&null), table_checksum(&[vec![Value::Bytes(Vec::new())]]));
        assert_ne!(table_checksum(&null), table_checksum(&[vec![Value::Int(0)]]));
        // Values do not run into each other: ("ab", "") is not ("a", "b").
        let ab = vec![vec![Value::Bytes(b"ab".to_vec()), Value::Bytes(Vec::new())]];
        let a_b = vec![vec![Value::Bytes(b"a".to_vec()), Value::Bytes(b"b".to_vec())]];
        assert_ne!(table_checksum(&ab), table_checksum(&a_b));
        // A row twice counts twice (a table without a primary key may hold duplicates).
        let once = vec![a[0].clone()];
        let twice = vec![a[0].clone(), a[0].clone()];
        assert_ne!(table_checksum(&once), table_checksum(&twice));
        assert_eq!(table_checksum(&Vec::<Row>::new()), 0);
    }

    #[test]
    fn canonical_values() {
        let one = |v: Value| table_checksum(&[vec![v]]);
        assert_eq!(one(Value::Int(7)), one(Value::UInt(7)));
        assert_ne!(one(Value::Int(-1)), one(Value::UInt(u64::MAX)));
        assert_eq!(one(Value::Double(0.0)), one(Value::Double(-0.0)));
        assert_eq!(
            one(Value::Decimal(Decimal::new(150, 2))),
            one(Value::Decimal(Decimal::new(15, 1)))
        );
        assert_ne!(
            one(Value::Decimal(Decimal::new(15, 1))),
            one(Value::Decimal(Decimal::new(15, 2)))
        );
    }
}
