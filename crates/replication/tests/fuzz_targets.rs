//! The fuzz targets of `replication::fuzz` over their seed corpus (`fuzz/corpus/<target>/`)
//! and a fixed-seed mutation loop (docs/fuzzing.md).

#[global_allocator]
static ALLOC: fuzzing::LimitAlloc<{ 1 << 30 }> = fuzzing::LimitAlloc;

#[test]
fn binlog_dump() {
    fuzzing::exercise("binlog_dump", &[], replication::fuzz::binlog_dump);
}

#[test]
fn binlog_dump_gtid() {
    fuzzing::exercise("binlog_dump_gtid", &[], replication::fuzz::binlog_dump_gtid);
}

#[test]
fn register_slave() {
    fuzzing::exercise("register_slave", &[], replication::fuzz::register_slave);
}
