//! The event type codes of the binlog v4 format (`Log_event_type`, libbinlogevents
//! binlog_event.h). A module of its own, below both [`crate::event`] and [`crate::error`],
//! since decode errors name the type of the event they failed on.

/// An event type code. A newtype rather than an enum so unknown codes flow through intact.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default, PartialOrd, Ord)]
pub struct EventType(pub u8);

impl EventType {
    pub const UNKNOWN: EventType = EventType(0);
    pub const START_V3: EventType = EventType(1);
    pub const QUERY: EventType = EventType(2);
    pub const STOP: EventType = EventType(3);
    pub const ROTATE: EventType = EventType(4);
    pub const INTVAR: EventType = EventType(5);
    pub const RAND: EventType = EventType(13);
    pub const USER_VAR: EventType = EventType(14);
    pub const FORMAT_DESCRIPTION: EventType = EventType(15);
    pub const XID: EventType = EventType(16);
    pub const BEGIN_LOAD_QUERY: EventType = EventType(17);
    pub const EXECUTE_LOAD_QUERY: EventType = EventType(18);
    pub const TABLE_MAP: EventType = EventType(19);
    pub const WRITE_ROWS_V1: EventType = EventType(23);
    pub const UPDATE_ROWS_V1: EventType = EventType(24);
    pub const DELETE_ROWS_V1: EventType = EventType(25);
    pub const INCIDENT: EventType = EventType(26);
    pub const HEARTBEAT: EventType = EventType(27);
    pub const IGNORABLE: EventType = EventType(28);
    pub const ROWS_QUERY: EventType = EventType(29);
    pub const WRITE_ROWS: EventType = EventType(30);
    pub const UPDATE_ROWS: EventType = EventType(31);
    pub const DELETE_ROWS: EventType = EventType(32);
    pub const GTID: EventType = EventType(33);
    pub const ANONYMOUS_GTID: EventType = EventType(34);
    pub const PREVIOUS_GTIDS: EventType = EventType(35);
    pub const TRANSACTION_CONTEXT: EventType = EventType(36);
    pub const VIEW_CHANGE: EventType = EventType(37);
    pub const XA_PREPARE: EventType = EventType(38);
    pub const PARTIAL_UPDATE_ROWS: EventType = EventType(39);
    pub const TRANSACTION_PAYLOAD: EventType = EventType(40);
    pub const HEARTBEAT_V2: EventType = EventType(41);
    pub const GTID_TAGGED: EventType = EventType(42);

    /// The name mysqlbinlog uses for the type (`Query`, `Write_rows`, ...).
    pub fn name(self) -> &'static str {
        match self.0 {
            1 => "Start_v3",
            2 => "Query",
            3 => "Stop",
            4 => "Rotate",
            5 => "Intvar",
            13 => "RAND",
            14 => "User var",
            15 => "Format_desc",
            16 => "Xid",
            17 => "Begin_load_query",
            18 => "Execute_load_query",
            19 => "Table_map",
            23 => "Write_rows_v1",
            24 => "Update_rows_v1",
            25 => "Delete_rows_v1",
            26 => "Incident",
            27 => "Heartbeat",
            28 => "Ignorable",
            29 => "Rows_query",
            30 => "Write_rows",
            31 => "Update_rows",
            32 => "Delete_rows",
            33 => "Gtid",
            34 => "Anonymous_Gtid",
            35 => "Previous_gtids",
            36 => "Transaction_context",
            37 => "View_change",
            38 => "XA_prepare",
            39 => "Update_rows_partial",
            40 => "Transaction_payload",
            41 => "Heartbeat_v2",
            42 => "Gtid_tagged_log_event",
            _ => "Unknown",
        }
    }
}

impl std::fmt::Display for EventType {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}({})", self.name(), self.0)
    }
}
