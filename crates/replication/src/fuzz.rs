//! Fuzz targets of the replication commands a client sends (docs/fuzzing.md), over the same
//! parsers the dump thread uses: each must answer an error, never panic or allocate on a
//! count it did not check.

use protocol::ReplicationCommand;

use crate::source::{parse_register, parse_request};

/// COM_BINLOG_DUMP (command byte first).
pub fn binlog_dump(data: &[u8]) {
    let _ = parse_request(ReplicationCommand::BinlogDump, data);
}

/// COM_BINLOG_DUMP_GTID (command byte first): file, position and the GTID set block.
pub fn binlog_dump_gtid(data: &[u8]) {
    if let Ok(request) = parse_request(ReplicationCommand::BinlogDumpGtid, data) {
        let set = request.gtids.expect("a GTID dump has a set");
        assert!(set.binary_len() <= data.len(), "a set larger than its packet");
    }
}

/// COM_REGISTER_SLAVE (command byte first).
pub fn register_slave(data: &[u8]) {
    if let Ok(register) = parse_register(data) {
        let _ = (register.hostname(), register.port(), register.master_id());
    }
}
