//! Fuzz targets of the packets a client sends (docs/fuzzing.md): plain functions over `&[u8]`,
//! run by `fuzz/` (cargo-fuzz) and by `tests/fuzz_targets.rs` over the seed corpus. Each goes
//! through the same parsing code the connection uses and must never panic or allocate on an
//! unchecked count.

use mysql_common::io::ParseBuf;
use mysql_common::packets::HandshakeResponse;

use super::stmt::StatementState;

/// A Handshake Response 41 (or the 32-byte SSLRequest), parsed as the connection phase parses
/// it, every field read (attributes included).
pub fn handshake_response(data: &[u8]) {
    if let Ok(response) = ParseBuf(data).parse::<HandshakeResponse<'_>>(()) {
        let _ = (response.user(), response.scramble_buf(), response.db_name());
        let _ = (response.auth_plugin(), response.collation(), response.capabilities());
        // Attribute strings are decoded lossily (an invalid byte becomes a 3-byte U+FFFD), so
        // only their number is bounded by the packet: each pair takes two length bytes.
        if let Some(attrs) = response.connect_attributes() {
            assert!(attrs.len() <= data.len() / 2, "more attributes than the packet holds");
        }
    }
}

/// COM_STMT_EXECUTE's parameter block for a statement with `u16::from_le_bytes(data[0..2]) %
/// 4096` placeholders, with long data (`data[2]` pieces of the following bytes) sent first;
/// decoded twice, so the second run reuses the types the first bound.
pub fn stmt_execute(data: &[u8]) {
    let [a, b, pieces, rest @ ..] = data else { return };
    let n = usize::from(u16::from_le_bytes([*a, *b]) % 4096);
    let mut st = StatementState::default();
    st.param_count = n;
    let mut rest = rest;
    for i in 0..*pieces {
        let Some((&len, tail)) = rest.split_first() else { break };
        let len = usize::from(len).min(tail.len());
        let _ = st.append_long_data(u16::from(i), &tail[..len], 1 << 20);
        rest = &tail[len..];
    }
    if let Ok(values) = st.decode_params(rest) {
        assert_eq!(values.len(), n, "one value per placeholder");
    }
    let _ = st.decode_params(rest);
}
