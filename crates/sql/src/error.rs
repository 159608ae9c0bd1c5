//! The SQL layer's one error type. Every variant is a MySQL error a client sees: its number
//! ([`SqlError::code`]), its SQLSTATE ([`SqlError::sqlstate`]) and MySQL's message text
//! (`Display`). Engine errors keep their source; their number comes from
//! [`engine::Error::mysql_code`].

/// A MySQL error raised while running a statement.
#[derive(Debug, thiserror::Error)]
pub enum SqlError {
    /// 1064: the text is not SQL. `near` is the unparsed rest of the statement, as MySQL
    /// quotes it.
    #[error("You have an error in your SQL syntax; check the manual that corresponds to your MySQL server version for the right syntax to use near '{near}' at line {line}")]
    Parse { near: String, line: u64 },
    /// 1235: valid SQL that this server does not run (joins, subqueries, ...).
    #[error("This version of binlogd doesn't yet support '{0}'")]
    NotSupported(String),
    #[error("No database selected")]
    NoDatabaseSelected,
    #[error("Unknown database '{0}'")]
    UnknownDatabase(String),
    #[error("Can't create database '{0}'; database exists")]
    DatabaseExists(String),
    #[error("Can't drop database '{0}'; database doesn't exist")]
    DropMissingDatabase(String),
    #[error("Incorrect database name '{0}'")]
    WrongDatabaseName(String),
    #[error("Incorrect table name '{0}'")]
    WrongTableName(String),
    #[error("Table '{db}.{table}' doesn't exist")]
    NoSuchTable { db: String, table: String },
    #[error("Table '{0}' already exists")]
    TableExists(String),
    /// 1051, DROP TABLE of a missing table (names as `db.table`, comma separated).
    #[error("Unknown table '{0}'")]
    UnknownTable(String),
    #[error("Unknown column '{column}' in '{context}'")]
    UnknownColumn { column: String, context: &'static str },
    #[error("Column '{0}' specified twice")]
    ColumnTwice(String),
    #[error("Duplicate column name '{0}'")]
    DuplicateColumn(String),
    #[error("Multiple primary key defined")]
    MultiplePrimaryKey,
    #[error("Incorrect table definition; there can be only one auto column and it must be defined as a key")]
    WrongAutoKey,
    #[error("Invalid default value for '{0}'")]
    InvalidDefault(String),
    #[error("Key column '{0}' doesn't exist in table")]
    KeyColumnMissing(String),
    #[error("Column count doesn't match value count at row {0}")]
    ValueCount(u64),
    #[error("Field '{0}' doesn't have a default value")]
    NoDefault(String),
    #[error("Column '{0}' cannot be null")]
    BadNull(String),
    #[error("Out of range value for column '{column}' at row {row}")]
    OutOfRange { column: String, row: u64 },
    #[error("Data too long for column '{column}' at row {row}")]
    DataTooLong { column: String, row: u64 },
    /// 1366 (1292 for temporal columns): a value that does not convert to the column's type.
    #[error("Incorrect {kind} value: '{value}' for column '{column}' at row {row}")]
    IncorrectValue { kind: &'static str, value: String, column: String, row: u64 },
    #[error("{kind} value is out of range in '{expr}'")]
    ValueOutOfRange { kind: &'static str, expr: String },
    #[error("Invalid use of group function")]
    InvalidGroupFunction,
    #[error("Incorrect parameter count in the call to native function '{0}'")]
    FunctionArgs(String),
    #[error("FUNCTION {0} does not exist")]
    NoSuchFunction(String),
    #[error("Unknown system variable '{0}'")]
    UnknownVariable(String),
    #[error("Variable '{name}' can't be set to the value of '{value}'")]
    WrongVariableValue { name: String, value: String },
    #[error("Incorrect argument type to variable '{0}'")]
    WrongVariableType(String),
    #[error("Variable '{0}' is a read only variable")]
    ReadOnlyVariable(String),
    #[error("Variable '{0}' is a GLOBAL variable and should be set with SET GLOBAL")]
    GlobalVariable(String),
    #[error("Variable '{0}' is a SESSION variable and can't be used with SET GLOBAL")]
    SessionVariable(String),
    #[error("Variable '{0}' is a GLOBAL variable")]
    GlobalOnlyVariable(String),
    #[error("Incorrect arguments to {0}")]
    WrongArguments(&'static str),
    /// 1179: a statement not allowed inside an open transaction.
    #[error("You are not allowed to execute this command in a transaction")]
    InTransaction,
    #[error("You have an error in your SQL syntax; {0}")]
    Syntax(String),
    /// An error from the storage engine (duplicate key, lock wait timeout, deadlock, I/O).
    #[error("{0}")]
    Engine(#[from] engine::Error),
    /// An error reported by a component behind one of the layer's traits (the commit
    /// pipeline, the binlog file set), with its MySQL number and SQLSTATE.
    #[error("{message}")]
    Other { code: u16, sqlstate: &'static str, message: String },
}

pub type Result<T, E = SqlError> = std::result::Result<T, E>;

impl SqlError {
    /// The MySQL error number.
    pub fn code(&self) -> u16 {
        use SqlError::*;
        match self {
            Parse { .. } | Syntax(_) => 1064,
            NotSupported(_) => 1235,
            NoDatabaseSelected => 1046,
            UnknownDatabase(_) => 1049,
            DatabaseExists(_) => 1007,
            DropMissingDatabase(_) => 1008,
            WrongDatabaseName(_) => 1102,
            WrongTableName(_) => 1103,
            NoSuchTable { .. } => 1146,
            TableExists(_) => 1050,
            UnknownTable(_) => 1051,
            UnknownColumn { .. } => 1054,
            ColumnTwice(_) => 1110,
            DuplicateColumn(_) => 1060,
            MultiplePrimaryKey => 1068,
            WrongAutoKey => 1075,
            InvalidDefault(_) => 1067,
            KeyColumnMissing(_) => 1072,
            ValueCount(_) => 1136,
            NoDefault(_) => 1364,
            BadNull(_) => 1048,
            OutOfRange { .. } => 1264,
            DataTooLong { .. } => 1406,
            IncorrectValue { kind, .. } if matches!(*kind, "datetime" | "date" | "time") => 1292,
            IncorrectValue { .. } => 1366,
            ValueOutOfRange { .. } => 1690,
            InvalidGroupFunction => 1111,
            FunctionArgs(_) => 1582,
            NoSuchFunction(_) => 1305,
            UnknownVariable(_) => 1193,
            WrongVariableValue { .. } => 1231,
            WrongVariableType(_) => 1232,
            ReadOnlyVariable(_) => 1238,
            GlobalVariable(_) => 1229,
            SessionVariable(_) => 1228,
            GlobalOnlyVariable(_) => 1238,
            WrongArguments(_) => 1210,
            InTransaction => 1179,
            Engine(e) => e.mysql_code(),
            Other { code, .. } => *code,
        }
    }

    /// The SQLSTATE MySQL sends with the error.
    pub fn sqlstate(&self) -> &'static str {
        match self.code() {
            1064 | 1235 | 1049 | 1054 | 1110 | 1060 | 1068 | 1075 | 1067 | 1072 | 1102 | 1103
            | 1231 | 1232 | 1228 | 1229 | 1305 | 1582 => "42000",
            1046 => "3D000",
            1146 | 1051 => "42S02",
            1050 => "42S01",
            1062 | 1048 => "23000",
            1136 => "21S01",
            1264 | 1690 => "22003",
            1406 => "22001",
            1213 => "40001",
            1179 => "25000",
            1317 => "70100",
            _ => match self {
                SqlError::Other { sqlstate, .. } => sqlstate,
                _ => "HY000",
            },
        }
    }

    /// Whether the error ends the transaction (MySQL rolls back the whole transaction on a
    /// deadlock; every other statement error rolls back only the statement).
    pub fn rolls_back_transaction(&self) -> bool {
        matches!(self, SqlError::Engine(engine::Error::Deadlock))
    }

    /// Shorthand for a syntax error with MySQL's wording.
    pub fn near(rest: &str) -> SqlError {
        SqlError::Parse { near: rest.chars().take(80).collect(), line: 1 }
    }
}

/// 1317 ER_QUERY_INTERRUPTED, what a killed statement answers (SQLSTATE 70100).
pub fn query_interrupted() -> SqlError {
    SqlError::Other {
        code: 1317,
        sqlstate: "70100",
        message: "Query execution was interrupted".into(),
    }
}
