//! The SQL layer: MySQL's SQL subset over the engine (design notes in `docs/sql.md`).
//!
//! Layout:
//! - `parse.rs`: SQL text → [`ast::Stmt`] (sqlparser's MySQL dialect plus a small grammar for
//!   SHOW/SET/admin statements); `ast.rs`: the statement tree.
//! - `session.rs`: [`Session`], one per connection: current database, autocommit, the open
//!   transaction, session variables, `gtid_next`, warnings; the dispatcher and transaction
//!   rules. `server.rs`: [`Server`], the shared state (engine, databases, global variables).
//! - `exec.rs` (binding, access paths, SELECT), `write.rs` (INSERT/REPLACE/UPDATE/DELETE),
//!   `ddl.rs`, `show.rs` (SHOW and binlog admin statements), `checksum.rs` (CHECKSUM TABLE);
//!   `eval.rs`: MySQL's value rules.
//! - The seams to other layers, each a trait beside an in-process implementation:
//!   [`commit::TxnCommitter`] (commit pipeline; [`commit::EngineCommitter`]),
//!   [`admin::BinlogAdmin`] (binlog file set; [`admin::NoBinlog`]),
//!   [`admin::StatusProvider`] and [`vars::VariableListener`].
//! - `output.rs`: results as plain types for the protocol layer; `error.rs`: MySQL errors.
//!
//! Invariants: a client's input never panics the layer; every error is a [`SqlError`] with a
//! MySQL number and SQLSTATE; after any error the session and its transaction state are usable
//! (the failed statement is undone, or the whole transaction on a deadlock).

pub mod acl;
pub mod admin;
pub mod ast;
mod binlogstmt;
pub mod charset;
mod checks;
mod checksum;
pub mod client_charset;
pub mod comments;
pub mod commit;
mod ddl;
pub mod decimal;
pub mod depth;
pub mod error;
pub mod eval;
mod exec;
mod explain;
mod fk_syntax;
pub mod foreign_keys;
mod gtidfn;
mod gtidwait;
mod information_schema;
pub mod isolation;
mod locks;
mod logctx;
pub mod output;
pub mod parse;
mod perf_schema;
mod plan_cache;
mod query;
pub mod range;
pub mod rowimage;
mod rowimage_bytes;
mod scope;
pub mod server;
pub mod session;
mod session_vars;
mod show;
mod snapshot;
mod statement_locks;
pub mod temporal;
pub mod timefn;
mod tracked;
mod tracker;
mod typeagg;
mod typelen;
mod userlocks;
pub mod vars;
mod views;
mod write;

pub use admin::{AdminCommand, BinlogAdmin, NoBinlog, NoStatus, StatusProvider};
pub use commit::{
    ChangeKind, ChangedRow, CommitOutcome, DeferredCommit, EngineCommitter, GtidNext, ReadyCommit,
    TxnChanges, TxnCommitter,
};
pub use error::SqlError;
pub use output::{MysqlType, Output, ResultColumn};
pub use server::{HookPrivilege, Hooks, Server, StatementHook};
pub use session::{Attempt, Prepared, Session, Warning};
