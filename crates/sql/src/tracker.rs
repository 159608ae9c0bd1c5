//! Session state tracking (CLIENT_SESSION_TRACK): what a statement changed in the session,
//! encoded for the OK packet as mysqld's `Session_tracker::store` does (sql/session_tracker.cc).
//!
//! Why here: the trackers follow the SQL layer's state (variables, default database, user
//! variables, GTIDs); the protocol only carries the bytes (and sets
//! SERVER_SESSION_STATE_CHANGED when there are any) to clients that asked for them.
//!
//! Entries, each `type u8 | length lenenc | data` (mysqld's `enum_session_state_type`), in
//! mysqld's tracker order:
//! - 0 SESSION_TRACK_SYSTEM_VARIABLES: `name lenenc | value lenenc` for each variable named in
//!   `session_track_system_variables` (`*` for all) set by the statement, its value as SHOW
//!   VARIABLES prints it (`Session_sysvars_tracker::store`);
//! - 1 SESSION_TRACK_SCHEMA: `schema lenenc` after USE / COM_INIT_DB with
//!   `session_track_schema` ON (`Current_schema_tracker::store`);
//! - 2 SESSION_TRACK_STATE_CHANGE: `"1" lenenc` when `session_track_state_change` is ON and
//!   any session state changed (a variable, a user variable, the schema);
//! - 3 SESSION_TRACK_GTIDS: `0 | gtid_set lenenc` with `session_track_gtids` OWN_GTID (the
//!   GTIDs the session committed) or ALL_GTIDS (`gtid_executed`) after a commit
//!   (`Session_gtids_tracker::store`, encoding specification 0).
//!
//! Invariants: a variable appears once per OK (its latest value); the buffer is emptied when
//! taken, so each change goes out in exactly one OK packet.
//!
//! Not tracked: `session_track_transaction_info` (types 4 and 5).

use engine::Value;

use super::ast::VarScope;
use super::session::Session;
use super::vars::{self, Var};

fn on(v: &Value) -> bool {
    match v {
        Value::Int(i) => *i != 0,
        Value::UInt(u) => *u != 0,
        Value::Bytes(b) => b.eq_ignore_ascii_case(b"ON") || b == b"1",
        _ => false,
    }
}

fn put_lenenc(out: &mut Vec<u8>, data: &[u8]) {
    let n = data.len() as u64;
    match n {
        0..=250 => out.push(n as u8),
        251..=0xFFFF => {
            out.push(0xFC);
            out.extend_from_slice(&(n as u16).to_le_bytes());
        }
        0x1_0000..=0xFF_FFFF => {
            out.push(0xFD);
            out.extend_from_slice(&(n as u32).to_le_bytes()[..3]);
        }
        _ => {
            out.push(0xFE);
            out.extend_from_slice(&n.to_le_bytes());
        }
    }
    out.extend_from_slice(data);
}

fn entry(out: &mut Vec<u8>, kind: u8, data: &[u8]) {
    out.push(kind);
    put_lenenc(out, data);
}

impl Session {
    /// A session variable was set (by SET, SET NAMES, SET CHARACTER SET).
    pub(crate) fn track_variable(&mut self, name: &str) {
        let Some(def) = vars::lookup(name) else { return };
        if !self.tracked.vars.contains(&def.name) {
            self.tracked.vars.push(def.name);
        }
        self.tracked.state = true;
    }

    /// A user variable was set, or other session state changed.
    pub(crate) fn track_state(&mut self) {
        self.tracked.state = true;
    }

    /// The default database changed.
    pub(crate) fn track_schema(&mut self) {
        self.tracked.schema = true;
        self.tracked.state = true;
    }

    /// A transaction committed with `gtid` (text), for `session_track_gtids`.
    pub(crate) fn track_gtid(&mut self, gtid: &str) {
        match &mut self.tracked.gtids {
            Some(set) => {
                set.push(',');
                set.push_str(gtid);
            }
            None => self.tracked.gtids = Some(gtid.to_string()),
        }
    }

    /// The session-state information for the OK packet that ends the statement (empty: none),
    /// after which the trackers start over.
    pub fn take_session_state(&mut self) -> Vec<u8> {
        let tracked = std::mem::take(&mut self.tracked);
        let mut out = Vec::new();
        if tracked.vars.is_empty() && !tracked.schema && !tracked.state && tracked.gtids.is_none() {
            // Most statements change nothing tracked: no variable is read.
            return out;
        }
        let list = if tracked.vars.is_empty() {
            String::new()
        } else {
            match &self.variable(Var::SessionTrackSystemVariables) {
                Value::Bytes(b) => String::from_utf8_lossy(b).to_ascii_lowercase(),
                _ => String::new(),
            }
        };
        let all = list.split(',').any(|n| n.trim() == "*");
        for name in &tracked.vars {
            if !(all || list.split(',').any(|n| n.trim() == *name)) {
                continue;
            }
            let Some(def) = vars::lookup(name) else { continue };
            let Ok(v) = self.sysvar(VarScope::Session, name) else { continue };
            let mut data = Vec::new();
            put_lenenc(&mut data, name.as_bytes());
            put_lenenc(&mut data, vars::show_text(def, &v).as_bytes());
            entry(&mut out, 0, &data);
        }
        if tracked.schema && on(&self.variable(Var::SessionTrackSchema)) {
            let mut data = Vec::new();
            put_lenenc(&mut data, self.db.as_deref().unwrap_or("").as_bytes());
            entry(&mut out, 1, &data);
        }
        if tracked.state && on(&self.variable(Var::SessionTrackStateChange)) {
            entry(&mut out, 2, &[1, b'1']);
        }
        if let Some(own) = tracked.gtids {
            let mode = match self.variable(Var::SessionTrackGtids) {
                Value::Bytes(b) => String::from_utf8_lossy(&b).to_ascii_uppercase(),
                _ => String::new(),
            };
            let set = match mode.as_str() {
                "OWN_GTID" => Some(own),
                "ALL_GTIDS" => self
                    .sysvar(VarScope::Global, "gtid_executed")
                    .ok()
                    .map(|v| String::from_utf8_lossy(&v.to_string().into_bytes()).into_owned()),
                _ => None,
            };
            if let Some(set) = set {
                let mut data = vec![0];
                put_lenenc(&mut data, set.as_bytes());
                entry(&mut out, 3, &data);
            }
        }
        out
    }
}
