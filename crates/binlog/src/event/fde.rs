//! FORMAT_DESCRIPTION (type 15): the first event of every binlog file.
//!
//! Layout (control_events.cpp, `Format_description_event`; ST_*_OFFSET in binlog_event.h):
//! `binlog_version u16 | server_version [50] (NUL padded) | create_timestamp u32 |
//! common_header_len u8 | post_header_len[number_of_event_types] | checksum_alg u8 | CRC32`.
//! The number of post-header lengths is whatever the event size leaves (MySQL 8.0.2 wrote
//! 38, 8.0.40 writes 41), so the array is kept as read. The checksum-algorithm byte and the
//! CRC exist only when the server version is at least 5.6.1 ("checksum-aware"); such a
//! server always writes a real CRC32 of the FORMAT_DESCRIPTION, even when the algorithm it
//! announces for the other events is NONE (log_event.cc, `Format_description_log_event::
//! write`), and computes it with the in-use flag clear.

use super::bytes::Cursor;
use super::{ChecksumAlg, CHECKSUM_LEN, HEADER_LEN};
use crate::error::{DecodeError, EncodeError};

/// Bytes of the server-version field.
pub const SERVER_VERSION_LEN: usize = 50;
/// Bytes before the post-header-length array in the body.
const FIXED_LEN: usize = 2 + SERVER_VERSION_LEN + 4 + 1;
/// The checksum-algorithm byte values (binlog_event.h `enum_binlog_checksum_alg`).
const ALG_OFF: u8 = 0;
const ALG_CRC32: u8 = 1;
/// First server version (5.6.1) whose FORMAT_DESCRIPTION carries checksum information.
const CHECKSUM_VERSION: (u32, u32, u32) = (5, 6, 1);

/// The post-header lengths MySQL 8.0.40 writes, for event types 1..=41, as in the 8.0.40
/// fixture and `Format_description_event`'s table in control_events.cpp: QUERY 13, ROTATE 8,
/// FORMAT_DESCRIPTION 98, TABLE_MAP 8, ROWS v1 8, ROWS v2 10, GTID/ANONYMOUS_GTID 42,
/// TRANSACTION_CONTEXT 18, VIEW_CHANGE 52, PARTIAL_UPDATE_ROWS 10, TRANSACTION_PAYLOAD 40.
pub const MYSQL80_POST_HEADER_LENS: [u8; 41] = [
    0, 13, 0, 8, 0, 0, 0, 0, 4, 0, 4, 0, 0, 0, 98, 0, 4, 26, 8, 0, 0, 0, 8, 8, 8, 2, 0, 0, 0, 10,
    10, 10, 42, 42, 0, 18, 52, 0, 10, 40, 0,
];

// Format: binlog_version u16 | server_version [50] | create_timestamp u32 | header_len u8 |
//         post_header_lens [n] | [checksum_alg u8 | CRC32 u32]   (the last two if >= 5.6.1)
/// A FORMAT_DESCRIPTION event body.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FormatDescription {
    /// Always 4 for files this codec reads.
    pub binlog_version: u16,
    /// The server version, NUL padded; kept whole so odd padding re-encodes exactly.
    pub server_version: [u8; SERVER_VERSION_LEN],
    /// When the file was created (MySQL 8.0 writes 0 except for the first file after start).
    pub create_timestamp: u32,
    /// The common header length: 19.
    pub header_len: u8,
    /// Post-header length per event type, starting with type 1.
    pub post_header_lens: Vec<u8>,
    /// The checksum-algorithm byte; `None` when the server predates checksums (< 5.6.1).
    pub checksum_alg: Option<u8>,
}

impl FormatDescription {
    /// The FORMAT_DESCRIPTION MySQL 8.0 writes: binlog version 4, `server_version` padded
    /// with NULs to 50 bytes, header length 19, the 8.0.40 post-header table, and the given
    /// checksum algorithm. `server_version` must be a checksum-aware version (8.0.x is).
    pub fn mysql80(
        server_version: &str,
        create_timestamp: u32,
        checksum: ChecksumAlg,
    ) -> Result<Self, EncodeError> {
        // The last byte stays NUL: readers force it to 0 (control_events.cpp).
        if server_version.len() >= SERVER_VERSION_LEN {
            return Err(EncodeError::TooLong {
                field: "server version",
                len: server_version.len(),
                max: SERVER_VERSION_LEN - 1,
            });
        }
        let mut version = [0u8; SERVER_VERSION_LEN];
        version[..server_version.len()].copy_from_slice(server_version.as_bytes());
        Ok(FormatDescription {
            binlog_version: 4,
            server_version: version,
            create_timestamp,
            header_len: HEADER_LEN as u8,
            post_header_lens: MYSQL80_POST_HEADER_LENS.to_vec(),
            checksum_alg: Some(match checksum {
                ChecksumAlg::None => ALG_OFF,
                ChecksumAlg::Crc32 => ALG_CRC32,
            }),
        })
    }

    /// The server version up to its first NUL.
    pub fn server_version_str(&self) -> String {
        let end = self.server_version.iter().position(|&b| b == 0).unwrap_or(SERVER_VERSION_LEN);
        String::from_utf8_lossy(&self.server_version[..end]).into_owned()
    }

    /// The checksum of the events this description governs. `offset` names errors.
    pub fn checksum(&self, offset: u64) -> Result<ChecksumAlg, DecodeError> {
        match self.checksum_alg {
            None | Some(ALG_OFF) => Ok(ChecksumAlg::None),
            Some(ALG_CRC32) => Ok(ChecksumAlg::Crc32),
            Some(alg) => Err(DecodeError::UnsupportedChecksum { offset, alg }),
        }
    }

    /// Length of this event's own CRC trailer.
    pub(crate) fn trailer_len(&self) -> usize {
        if self.checksum_alg.is_some() {
            CHECKSUM_LEN
        } else {
            0
        }
    }

    pub(crate) fn decode(c: &mut Cursor<'_>) -> Result<Self, DecodeError> {
        let binlog_version = c.u16("binlog version")?;
        let server_version = c.array::<SERVER_VERSION_LEN>("server version")?;
        let create_timestamp = c.u32("create timestamp")?;
        let header_len = c.u8("common header length")?;
        if usize::from(header_len) != HEADER_LEN {
            return Err(c.malformed("common header length is not 19"));
        }
        let aware = checksum_aware(&server_version);
        let rest = c.rest();
        let (post_header_lens, checksum_alg) = match (aware, rest.split_last()) {
            (true, Some((&alg, lens))) => (lens.to_vec(), Some(alg)),
            (true, None) => return Err(c.malformed("missing checksum algorithm byte")),
            (false, _) => (rest.to_vec(), None),
        };
        Ok(FormatDescription {
            binlog_version,
            server_version,
            create_timestamp,
            header_len,
            post_header_lens,
            checksum_alg,
        })
    }

    pub(crate) fn encode(&self, out: &mut Vec<u8>) -> Result<(), EncodeError> {
        out.reserve(FIXED_LEN + self.post_header_lens.len() + 1);
        out.extend_from_slice(&self.binlog_version.to_le_bytes());
        out.extend_from_slice(&self.server_version);
        out.extend_from_slice(&self.create_timestamp.to_le_bytes());
        out.push(self.header_len);
        out.extend_from_slice(&self.post_header_lens);
        if let Some(alg) = self.checksum_alg {
            out.push(alg);
        }
        Ok(())
    }
}

/// Whether a FORMAT_DESCRIPTION with this server version carries checksum information.
fn checksum_aware(server_version: &[u8]) -> bool {
    version_triple(server_version) >= CHECKSUM_VERSION
}

/// The leading `x.y.z` of a version string, as mysqld's `do_server_version_split` reads it
/// (digits up to the first non-digit per part; missing parts are 0).
fn version_triple(v: &[u8]) -> (u32, u32, u32) {
    let mut parts = [0u32; 3];
    let mut i = 0;
    for part in parts.iter_mut() {
        let start = i;
        while i < v.len() && v[i].is_ascii_digit() {
            *part = part.saturating_mul(10).saturating_add(u32::from(v[i] - b'0'));
            i += 1;
        }
        if i == start || i >= v.len() || v[i] != b'.' {
            break;
        }
        i += 1;
    }
    (parts[0], parts[1], parts[2])
}

/// The CRC trailer length of a complete FORMAT_DESCRIPTION event (header included), judged
/// from its server version alone so framing can run before the body is parsed.
pub(crate) fn trailer_len(event: &[u8]) -> usize {
    let start = HEADER_LEN + 2;
    match event.get(start..start + SERVER_VERSION_LEN) {
        Some(v) if checksum_aware(v) => CHECKSUM_LEN,
        _ => 0,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn version_parsing_follows_mysqld() {
        assert_eq!(version_triple(b"8.0.40\0\0"), (8, 0, 40));
        assert_eq!(version_triple(b"5.6.24-debug-log"), (5, 6, 24));
        assert_eq!(version_triple(b"5.6.1"), (5, 6, 1));
        assert_eq!(version_triple(b"5.5"), (5, 5, 0));
        assert_eq!(version_triple(b""), (0, 0, 0));
        assert!(checksum_aware(b"5.6.1\0"));
        assert!(!checksum_aware(b"5.6.0\0"));
        assert!(!checksum_aware(b"5.5.40-log"));
    }
}
