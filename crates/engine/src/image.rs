//! Row images: a row version as the engine keeps it, its values encoded in one shared buffer.
//!
//! Why: a [`Value`] is 48 bytes (a DECIMAL's 256-bit mantissa) and every string is one more
//! allocation, so a sysbench row (two INTs, CHAR(120), CHAR(60)) held as `Arc<[Value]>` took
//! ~430 bytes of heap in three allocations; encoded it is 208 bytes in one. The encoding is the
//! row format of redo records and checkpoints ([`encode_row`]), so logging a change or writing
//! a checkpoint copies the bytes, and loading a checkpoint or replaying redo allocates one
//! buffer per row and builds no `Value` at all. Values are decoded when read: a read copies
//! the row out anyway ([`Image::to_vec`]), key and index entries decode only their columns
//! ([`Columns`]), and "did this column change" compares encoded bytes ([`Image::field`]).
//! This is InnoDB's choice too: rows stay in the compact record format and a field is found
//! by walking the record (`rec_get_offsets`, `rec_get_nth_field`).
//!
//! Invariants:
//! - The bytes are always one well-formed encoded row: built by [`Image::new`] from values, or
//!   read by [`Image::read`], which checks every value's tag and length. So the accessors'
//!   decoding cannot fail (they `expect` it).
//! - Images are immutable and shared (`Arc`); identity ([`Image::ptr_eq`]) is what the row
//!   cell uses to tell "locked but unchanged" from "changed".
//! - Two equal values have equal encodings (a DECIMAL picks its tag by its mantissa's width,
//!   a DOUBLE is its bits), so equal field bytes mean equal index-key bytes.

use std::borrow::Cow;
use std::cell::RefCell;
use std::fmt;
use std::sync::Arc;

use crate::codec::Reader;
use crate::error::Result;
use crate::value::{decode_value, encode_row, skip_value, Row, Value};

const WELL_FORMED: &str = "a row image holds one well-formed encoded row";

/// One row version: the encoded values in a single reference-counted allocation.
#[derive(Clone, PartialEq, Eq)]
pub(crate) struct Image(Arc<[u8]>);

impl Image {
    /// Encodes `row`: one allocation of exactly the encoded size (the encoding goes through a
    /// per-thread scratch buffer, so no growing `Vec` is allocated and freed per image).
    pub(crate) fn new(row: &[Value]) -> Image {
        thread_local! {
            static SCRATCH: RefCell<Vec<u8>> = const { RefCell::new(Vec::new()) };
        }
        SCRATCH.with(|s| {
            let mut b = s.borrow_mut();
            b.clear();
            encode_row(&mut b, row);
            let img = Image(Arc::from(&b[..]));
            if b.capacity() > 1 << 20 {
                // A large BLOB's row: do not keep its buffer for the thread's lifetime.
                *b = Vec::new();
            }
            img
        })
    }

    /// Reads one encoded row from `r`, checking every value (the bytes come from a file).
    pub(crate) fn read(r: &mut Reader<'_>) -> Result<Image> {
        let start = r.mark();
        let n = r.u16()?;
        for _ in 0..n {
            skip_value(r)?;
        }
        Ok(Image(Arc::from(r.since(start))))
    }

    /// The number of columns.
    pub(crate) fn len(&self) -> usize {
        usize::from(u16::from_le_bytes([self.0[0], self.0[1]]))
    }

    /// The encoded row (the redo and checkpoint row format).
    pub(crate) fn as_bytes(&self) -> &[u8] {
        &self.0
    }

    /// Whether `a` and `b` are the same image (not merely equal values).
    pub(crate) fn ptr_eq(a: &Image, b: &Image) -> bool {
        Arc::ptr_eq(&a.0, &b.0)
    }

    /// The values, decoded.
    pub(crate) fn to_vec(&self) -> Row {
        let mut r = Reader::new(&self.0, "row image", 0);
        let n = r.u16().expect(WELL_FORMED);
        let mut row = Vec::with_capacity(usize::from(n));
        for _ in 0..n {
            row.push(decode_value(&mut r).expect(WELL_FORMED));
        }
        row
    }

    /// The encoded bytes (tag and payload) of column `i`; panics if `i >= len()`, as indexing
    /// a row would.
    pub(crate) fn field(&self, i: usize) -> &[u8] {
        assert!(i < self.len(), "column {i} of a {}-column row", self.len());
        let mut r = Reader::new(&self.0[2..], "row image", 2);
        for _ in 0..i {
            skip_value(&mut r).expect(WELL_FORMED);
        }
        let start = r.mark();
        skip_value(&mut r).expect(WELL_FORMED);
        r.since(start)
    }

    /// The value of column `i`, decoded.
    pub(crate) fn value(&self, i: usize) -> Value {
        decode_value(&mut Reader::new(self.field(i), "row image", 0)).expect(WELL_FORMED)
    }
}

impl From<Row> for Image {
    fn from(row: Row) -> Image {
        Image::new(&row)
    }
}

impl From<&[Value]> for Image {
    fn from(row: &[Value]) -> Image {
        Image::new(row)
    }
}

impl fmt::Debug for Image {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_list().entries(self.to_vec()).finish()
    }
}

/// Column access shared by decoded rows and images, for the code that needs a few columns of
/// either (keys, index entries, counters, duplicate-entry messages).
pub(crate) trait Columns {
    /// The value of column `i` (borrowed from a decoded row, decoded from an image).
    fn column(&self, i: usize) -> Cow<'_, Value>;
}

impl Columns for [Value] {
    fn column(&self, i: usize) -> Cow<'_, Value> {
        Cow::Borrowed(&self[i])
    }
}

impl Columns for Vec<Value> {
    fn column(&self, i: usize) -> Cow<'_, Value> {
        Cow::Borrowed(&self[i])
    }
}

impl Columns for Image {
    fn column(&self, i: usize) -> Cow<'_, Value> {
        Cow::Owned(self.value(i))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::value::{DateTime, Decimal};

    fn sample() -> Row {
        vec![
            Value::Int(-7),
            Value::Null,
            Value::Bytes(b"hello".to_vec()),
            Value::Decimal(Decimal::new(12345, 2)),
            Value::Decimal(Decimal::parse(&"9".repeat(60)).expect("decimal")),
            Value::Double(-0.0),
            Value::Float(1.5),
            Value::DateTime(DateTime { year: 2026, month: 11, day: 26, ..DateTime::ZERO }),
            Value::Date(DateTime { year: 2020, month: 2, day: 29, ..DateTime::ZERO }),
            Value::Time(-1_000_000),
            Value::Json(b"[1]".to_vec()),
            Value::UInt(u64::MAX),
        ]
    }

    /// Every value type reads back whole and column by column, and the encoded form is the
    /// redo/checkpoint row format (so `read` takes it back from a file unchanged).
    #[test]
    fn an_image_reads_back_its_values() {
        let row = sample();
        let img = Image::new(&row);
        assert_eq!(img.len(), row.len());
        assert_eq!(img.to_vec(), row);
        for (i, v) in row.iter().enumerate() {
            assert_eq!(&img.value(i), v, "column {i}");
            assert_eq!(&*img.column(i), v);
        }
        let mut enc = Vec::new();
        encode_row(&mut enc, &row);
        assert_eq!(img.as_bytes(), &enc[..]);
        enc.extend_from_slice(b"next");
        let mut r = Reader::new(&enc, "test", 0);
        let back = Image::read(&mut r).expect("read");
        assert_eq!(back, img);
        assert!(!Image::ptr_eq(&back, &img));
        assert_eq!(r.take(4).expect("rest"), b"next");
    }

    /// Truncated or mistagged bytes are refused by `read`, never accepted as an image.
    #[test]
    fn a_damaged_row_is_refused() {
        let mut enc = Vec::new();
        encode_row(&mut enc, &sample());
        for cut in 0..enc.len() {
            assert!(Image::read(&mut Reader::new(&enc[..cut], "test", 0)).is_err(), "cut {cut}");
        }
        let mut bad = enc.clone();
        bad[2] = 99; // the first value's tag
        assert!(Image::read(&mut Reader::new(&bad, "test", 0)).is_err());
    }

    /// Equal field bytes exactly when the values encode alike (what index maintenance uses).
    #[test]
    fn fields_compare_by_encoding() {
        let a = Image::new(&[Value::Int(1), Value::Double(0.0), Value::Bytes(b"x".to_vec())]);
        let b = Image::new(&[Value::Int(1), Value::Double(-0.0), Value::Bytes(b"y".to_vec())]);
        assert_eq!(a.field(0), b.field(0));
        assert_ne!(a.field(1), b.field(1));
        assert_ne!(a.field(2), b.field(2));
    }
}
