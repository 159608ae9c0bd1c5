//! A [`TxnCommitter`] that records what an SQL session hands over (row changes with their
//! `gtid_next`, DDL text) and then commits in the engine, for the tests that drive
//! the `sql` crate in-process (`#[path = "support/recording.rs"] mod recording;`).

use std::sync::{Arc, Mutex};

use engine::{Engine, Txn};
use sql::{CommitOutcome, EngineCommitter, GtidNext, SqlError, TxnChanges, TxnCommitter};

pub struct Recording {
    engine: EngineCommitter,
    /// Every committed transaction's row changes, in commit order.
    pub commits: Mutex<Vec<(TxnChanges, GtidNext)>>,
    /// Every DDL statement: its default database and text.
    pub ddl: Mutex<Vec<(Option<String>, String)>>,
    /// The session values each DDL statement was handed with (its QUERY event's).
    pub ddl_contexts: Mutex<Vec<Option<Arc<commit::QueryContext>>>>,
}

impl Recording {
    pub fn new(engine: &Engine) -> Arc<Self> {
        Arc::new(Recording {
            engine: EngineCommitter::new(engine.clone()),
            commits: Mutex::default(),
            ddl: Mutex::default(),
            ddl_contexts: Mutex::default(),
        })
    }

    /// The row changes of every transaction committed so far.
    #[allow(dead_code)] // not every test binary that includes this module reads them
    pub fn changes(&self) -> Vec<TxnChanges> {
        self.commits.lock().expect("lock").iter().map(|(c, _)| c.clone()).collect()
    }
}

impl TxnCommitter for Recording {
    fn commit(
        &self,
        txn: Txn,
        changes: TxnChanges,
        gtid: GtidNext,
    ) -> Result<CommitOutcome, SqlError> {
        self.commits.lock().expect("lock").push((changes.clone(), gtid));
        self.engine.commit(txn, changes, gtid)
    }

    fn commit_ddl(
        &self,
        txn: Txn,
        db: Option<&str>,
        query: &str,
        gtid: GtidNext,
        context: Option<std::sync::Arc<commit::QueryContext>>,
    ) -> Result<CommitOutcome, SqlError> {
        self.ddl.lock().expect("lock").push((db.map(str::to_string), query.to_string()));
        self.ddl_contexts.lock().expect("lock").push(context.clone());
        self.engine.commit_ddl(txn, db, query, gtid, context)
    }

    fn commit_ddl_rows(
        &self,
        txn: Txn,
        db: Option<&str>,
        query: &str,
        changes: TxnChanges,
        gtid: GtidNext,
        context: Option<std::sync::Arc<commit::QueryContext>>,
    ) -> Result<CommitOutcome, SqlError> {
        self.ddl.lock().expect("lock").push((db.map(str::to_string), query.to_string()));
        self.ddl_contexts.lock().expect("lock").push(context.clone());
        self.commits.lock().expect("lock").push((changes.clone(), gtid));
        self.engine.commit_ddl_rows(txn, db, query, changes, gtid, context)
    }
}
