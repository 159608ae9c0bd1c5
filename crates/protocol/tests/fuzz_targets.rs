//! The fuzz targets of `protocol::fuzz` over their seed corpus (`fuzz/corpus/<target>/`) and a
//! fixed-seed mutation loop (docs/fuzzing.md).

#[global_allocator]
static ALLOC: fuzzing::LimitAlloc<{ 1 << 30 }> = fuzzing::LimitAlloc;

#[test]
fn handshake_response() {
    fuzzing::exercise("handshake_response", &[], protocol::fuzz::handshake_response);
}

#[test]
fn stmt_execute() {
    fuzzing::exercise("stmt_execute", &[], protocol::fuzz::stmt_execute);
}
