//! Bounds-checked reading and little-endian writing of event fields.
//!
//! Every read goes through [`Cursor`], which knows the absolute offset of its buffer so a
//! failed read becomes a [`DecodeError::Malformed`] naming the exact byte. Nothing here
//! indexes a slice without a check, so no input can panic the decoder.
//!
//! The packed integer is MySQL's "length-encoded integer" (`net_field_length` /
//! `net_store_length` in mysys/pack.cc): `< 251` one byte; `0xfc` + 2 bytes; `0xfd` + 3 bytes;
//! `0xfe` + 8 bytes. `0xfb` (SQL NULL in the protocol) and `0xff` never appear in events.

use super::EventType;
use crate::error::{DecodeError, EncodeError};

/// A read position in one event's bytes.
#[derive(Debug, Clone)]
pub(crate) struct Cursor<'a> {
    buf: &'a [u8],
    pos: usize,
    base: u64,
    event_type: EventType,
}

impl<'a> Cursor<'a> {
    /// `base` is the absolute offset of `buf[0]`; `event_type` names errors.
    pub(crate) fn new(buf: &'a [u8], base: u64, event_type: EventType) -> Self {
        Cursor { buf, pos: 0, base, event_type }
    }

    pub(crate) fn malformed(&self, reason: &'static str) -> DecodeError {
        DecodeError::Malformed {
            offset: self.base + self.pos as u64,
            event_type: self.event_type,
            reason,
        }
    }

    /// Absolute offset of the next byte.
    pub(crate) fn offset(&self) -> u64 {
        self.base + self.pos as u64
    }

    pub(crate) fn remaining(&self) -> usize {
        self.buf.len() - self.pos
    }

    pub(crate) fn is_empty(&self) -> bool {
        self.remaining() == 0
    }

    pub(crate) fn bytes(&mut self, n: usize, what: &'static str) -> Result<&'a [u8], DecodeError> {
        if n > self.remaining() {
            return Err(self.malformed(what));
        }
        let out = &self.buf[self.pos..self.pos + n];
        self.pos += n;
        Ok(out)
    }

    pub(crate) fn array<const N: usize>(
        &mut self,
        what: &'static str,
    ) -> Result<[u8; N], DecodeError> {
        let mut out = [0u8; N];
        out.copy_from_slice(self.bytes(N, what)?);
        Ok(out)
    }

    /// The `n` bytes just consumed (for keeping a field verbatim after inspecting it).
    pub(crate) fn bytes_before(&self, n: usize) -> &'a [u8] {
        &self.buf[self.pos.saturating_sub(n)..self.pos]
    }

    pub(crate) fn rest(&mut self) -> &'a [u8] {
        let out = &self.buf[self.pos..];
        self.pos = self.buf.len();
        out
    }

    pub(crate) fn u8(&mut self, what: &'static str) -> Result<u8, DecodeError> {
        Ok(self.bytes(1, what)?[0])
    }

    pub(crate) fn u16(&mut self, what: &'static str) -> Result<u16, DecodeError> {
        Ok(u16::from_le_bytes(self.array(what)?))
    }

    pub(crate) fn u32(&mut self, what: &'static str) -> Result<u32, DecodeError> {
        Ok(u32::from_le_bytes(self.array(what)?))
    }

    pub(crate) fn u64(&mut self, what: &'static str) -> Result<u64, DecodeError> {
        Ok(u64::from_le_bytes(self.array(what)?))
    }

    /// An unsigned little-endian integer of `n <= 8` bytes.
    pub(crate) fn uint_n(&mut self, n: usize, what: &'static str) -> Result<u64, DecodeError> {
        Ok(le_uint(self.bytes(n, what)?))
    }

    pub(crate) fn packed(&mut self, what: &'static str) -> Result<u64, DecodeError> {
        match self.u8(what)? {
            b @ 0..=250 => Ok(u64::from(b)),
            0xfc => self.uint_n(2, what),
            0xfd => self.uint_n(3, what),
            0xfe => self.u64(what),
            _ => {
                self.pos -= 1;
                Err(self.malformed(what))
            }
        }
    }

    /// A packed integer used as a length or count; callers bound it by reading that much.
    pub(crate) fn packed_len(&mut self, what: &'static str) -> Result<usize, DecodeError> {
        let start = self.pos;
        let n = self.packed(what)?;
        usize::try_from(n).map_err(|_| {
            self.pos = start;
            self.malformed(what)
        })
    }
}

/// Little-endian unsigned integer of up to 8 bytes.
pub(crate) fn le_uint(b: &[u8]) -> u64 {
    b.iter().rev().fold(0u64, |acc, &x| (acc << 8) | u64::from(x))
}

/// Appends the low `n` bytes of `v`, little-endian.
pub(crate) fn put_uint_n(out: &mut Vec<u8>, v: u64, n: usize) {
    out.extend_from_slice(&v.to_le_bytes()[..n]);
}

/// Appends a packed (length-encoded) integer, always in its shortest form as MySQL does.
pub(crate) fn put_packed(out: &mut Vec<u8>, v: u64) {
    if v < 251 {
        out.push(v as u8);
    } else if v < 1 << 16 {
        out.push(0xfc);
        put_uint_n(out, v, 2);
    } else if v < 1 << 24 {
        out.push(0xfd);
        put_uint_n(out, v, 3);
    } else {
        out.push(0xfe);
        put_uint_n(out, v, 8);
    }
}

/// Bytes a packed integer takes.
pub(crate) fn packed_len(v: u64) -> usize {
    if v < 251 {
        1
    } else if v < 1 << 16 {
        3
    } else if v < 1 << 24 {
        4
    } else {
        9
    }
}

/// Appends a string with a one-byte length prefix (at most 255 bytes, else `TooLong`).
pub(crate) fn put_short_string(
    out: &mut Vec<u8>,
    s: &[u8],
    field: &'static str,
) -> Result<(), EncodeError> {
    let len = u8::try_from(s.len()).map_err(|_| EncodeError::TooLong {
        field,
        len: s.len(),
        max: 255,
    })?;
    out.push(len);
    out.extend_from_slice(s);
    Ok(())
}
