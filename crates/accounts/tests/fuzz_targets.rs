//! The fuzz target of `accounts::fuzz` (users.json) over its seed corpus and a fixed-seed
//! mutation loop (docs/fuzzing.md).

#[global_allocator]
static ALLOC: fuzzing::LimitAlloc<{ 1 << 30 }> = fuzzing::LimitAlloc;

#[test]
fn users_json() {
    fuzzing::exercise("users_json", &[], accounts::fuzz::users_json);
}
