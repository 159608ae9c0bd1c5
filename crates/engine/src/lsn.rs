//! [`Lsn`], a module of its own: the redo log and the errors that name a position in it both
//! use it.

/// A log sequence number: a byte position in the redo stream.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Default)]
pub struct Lsn(pub u64);

impl Lsn {
    pub const MAX: Lsn = Lsn(u64::MAX);
}
