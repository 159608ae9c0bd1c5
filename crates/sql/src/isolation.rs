//! Transaction isolation levels (`transaction_isolation`, `SET TRANSACTION ISOLATION LEVEL`),
//! as InnoDB implements them over the engine's read views (`docs/engine.md`, "Versions and
//! read views"; InnoDB's `row_search_mvcc`, `ha_innobase::store_lock`):
//! - READ UNCOMMITTED: non-locking reads see the newest images, uncommitted ones included.
//! - READ COMMITTED: each consistent read takes a new read view.
//! - REPEATABLE READ (the default): the first consistent read of the transaction (or
//!   `START TRANSACTION WITH CONSISTENT SNAPSHOT`) takes the view; later reads reuse it.
//! - SERIALIZABLE: as REPEATABLE READ, except that a plain SELECT inside a transaction
//!   (autocommit off or BEGIN) is a locking read (`FOR SHARE`).
//!
//! Locking reads (`FOR UPDATE`, `FOR SHARE`, `LOCK IN SHARE MODE`), UPDATE and DELETE read
//! the newest committed image and lock it, at every level.

/// An isolation level.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Isolation {
    ReadUncommitted,
    ReadCommitted,
    RepeatableRead,
    Serializable,
}

impl Isolation {
    /// The level a `transaction_isolation` value names (`READ-COMMITTED`, ...; case and
    /// `-`/space/`_` as mysqld accepts them).
    pub fn parse(text: &str) -> Option<Isolation> {
        let t: String = text
            .trim()
            .chars()
            .map(|c| if c == ' ' || c == '_' { '-' } else { c.to_ascii_uppercase() })
            .collect();
        Some(match t.as_str() {
            "READ-UNCOMMITTED" => Isolation::ReadUncommitted,
            "READ-COMMITTED" => Isolation::ReadCommitted,
            "REPEATABLE-READ" => Isolation::RepeatableRead,
            "SERIALIZABLE" => Isolation::Serializable,
            _ => return None,
        })
    }

    /// The `transaction_isolation` value.
    pub fn name(self) -> &'static str {
        match self {
            Isolation::ReadUncommitted => "READ-UNCOMMITTED",
            Isolation::ReadCommitted => "READ-COMMITTED",
            Isolation::RepeatableRead => "REPEATABLE-READ",
            Isolation::Serializable => "SERIALIZABLE",
        }
    }
}

#[cfg(test)]
mod tests {
    use super::Isolation;

    #[test]
    fn names_round_trip() {
        for i in [
            Isolation::ReadUncommitted,
            Isolation::ReadCommitted,
            Isolation::RepeatableRead,
            Isolation::Serializable,
        ] {
            assert_eq!(Isolation::parse(i.name()), Some(i));
        }
        assert_eq!(Isolation::parse("read committed"), Some(Isolation::ReadCommitted));
        assert_eq!(Isolation::parse("read_committed"), Some(Isolation::ReadCommitted));
        assert_eq!(Isolation::parse("snapshot"), None);
    }
}
