//! binlogd's storage engine: an in-memory row store made durable by a redo log and
//! checkpoints, as Tarantool's memtx or VoltDB are. It knows nothing of the binlog; the commit
//! layer drives its two-phase commit through [`Engine::prepare`], [`Engine::flush_up_to`] and
//! [`Engine::commit`], and may store opaque binlog payloads in the redo
//! ([`Engine::append_binlog_payload`]).
//!
//! Layout:
//! - `value.rs`, `schema.rs`: values, table definitions, row and key encodings.
//! - `table.rs`: tables (clustered map + secondary indexes, sharded), row lock state.
//! - `engine.rs`: transactions (locks, waits, deadlocks, undo), DDL, checkpoints, recovery.
//! - `redo.rs`: the redo log (records, group flush, preallocated recycled files).
//! - `checkpoint.rs`: the checkpoint file.
//!
//! Durability rule (see `docs/engine.md`): after a crash, recovery loads the checkpoint and
//! replays the redo from its LSN up to the first torn or corrupt record. A transaction whose
//! OnePhase or Commit record is durable is committed; one whose Prepare record is durable but
//! whose decision is not is returned as prepared, its rows locked, for the coordinator to
//! decide; anything else never happened. DDL statements are transactions too (staged schema
//! changes, `Engine::create_table_in` & co.), prepared and decided the same way.

mod checkpoint;
mod codec;
mod engine;
mod error;
mod foreign_keys;
pub mod fuzz;
mod gaps;
mod image;
pub mod json;
mod lsn;
mod mvcc;
mod redo;
mod schema;
mod table;
pub mod temporal;
mod value;

pub use engine::{
    interrupt_requested, interruptible, keeps_row_format, refused_wait, waits_refused,
    without_waiting, BinlogPayload, ByteRange, Engine, EngineConfig, EngineStats, Inserted,
    Interrupt, LockWait, RangeRow, Recovery, SharedRow, Txn,
};
pub use error::RedoDamage;
pub use error::{Error, Result};
pub use foreign_keys::{repoint_parents, FkAction, ForeignKeyDef, MAX_FOREIGN_KEYS};
pub use mvcc::ReadView;
pub use redo::{Lsn, RedoFlushMethod};
pub use schema::bytes_types::{bit_from_uint, bit_to_uint, enum_index, set_mask, set_text};
pub use schema::{CheckDef, Column, ColumnType, IndexDef, TableId, TableSchema};
pub use table::ReadMode;
pub use value::{
    encode_key, encode_key_collated, pow10, DateTime, Decimal, Key, Mantissa, Row, Value,
    WideMantissa,
};
