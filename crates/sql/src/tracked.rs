//! The session state changes waiting for the next OK packet (CLIENT_SESSION_TRACK): kept by
//! the session, filled and encoded by `tracker.rs` (apart so that the session's own module
//! does not depend on the tracker's).

/// The changes waiting for the next OK packet.
#[derive(Debug, Default)]
pub(crate) struct Tracked {
    /// Variable names (canonical, lower case) set since the last OK, first-set order.
    pub(crate) vars: Vec<&'static str>,
    pub(crate) schema: bool,
    pub(crate) state: bool,
    pub(crate) gtids: Option<String>,
}
