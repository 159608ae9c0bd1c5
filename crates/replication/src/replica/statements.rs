//! The replica's statements, parsed by hand: sqlparser (0.5x, MySQL dialect) has no grammar for
//! CHANGE REPLICATION SOURCE / CHANGE MASTER, START/STOP/RESET REPLICA or SHOW REPLICA STATUS,
//! and their shapes are small and fixed (MySQL 8.0's `sql_yacc.yy`, rules `change_replication_stmt`,
//! `start_replica_stmt`, `stop_replica_stmt`, `reset`, `show_replica_status_stmt`).
//!
//! Both spellings are accepted: the 8.0.22+ REPLICA/SOURCE words and the old SLAVE/MASTER
//! ones. The spelling of SHOW ... STATUS decides the column names of the answer, as in MySQL.

use sql::SqlError;

/// One replica statement.
#[derive(Debug, Clone, PartialEq)]
pub enum ReplicaStmt {
    /// CHANGE REPLICATION SOURCE TO / CHANGE MASTER TO.
    Change(Vec<ChangeOption>),
    Start,
    Stop,
    /// `RESET REPLICA [ALL]`.
    Reset {
        all: bool,
    },
    /// SHOW REPLICA STATUS (`old_names: false`) or SHOW SLAVE STATUS (true).
    ShowStatus {
        old_names: bool,
    },
}

impl ReplicaStmt {
    /// What the statement needs of the account (mysqld's checks; see
    /// [`sql::HookPrivilege`]).
    pub fn privilege(&self) -> sql::HookPrivilege {
        use sql::HookPrivilege;
        match self {
            ReplicaStmt::Change(_) | ReplicaStmt::Start | ReplicaStmt::Stop => {
                HookPrivilege::ReplicationAdmin
            }
            ReplicaStmt::Reset { .. } => HookPrivilege::Reload,
            ReplicaStmt::ShowStatus { .. } => HookPrivilege::ReplicationClient,
        }
    }
}

/// One `name = value` of CHANGE REPLICATION SOURCE.
#[derive(Debug, Clone, PartialEq)]
pub enum ChangeOption {
    Host(String),
    Port(u16),
    User(String),
    Password(String),
    AutoPosition(bool),
    /// Seconds (MySQL accepts a decimal, 0 to 4294967).
    HeartbeatPeriod(f64),
    /// Seconds between reconnection attempts.
    ConnectRetry(u32),
    /// Reconnection attempts before the receiver gives up.
    RetryCount(u64),
}

#[derive(Debug, Clone, PartialEq)]
enum Token {
    Word(String),
    Str(String),
    Number(String),
    Eq,
    Comma,
}

fn syntax(near: &str) -> SqlError {
    SqlError::near(near)
}

fn tokenize(sql: &str) -> Result<Vec<Token>, SqlError> {
    let mut out = Vec::new();
    let mut chars = sql.trim().trim_end_matches(';').chars().peekable();
    while let Some(&c) = chars.peek() {
        if c.is_whitespace() {
            chars.next();
        } else if c == '=' {
            chars.next();
            out.push(Token::Eq);
        } else if c == ',' {
            chars.next();
            out.push(Token::Comma);
        } else if c == '\'' || c == '"' {
            chars.next();
            let mut s = String::new();
            loop {
                match chars.next() {
                    None => return Err(syntax(&s)),
                    Some('\\') => match chars.next() {
                        Some('n') => s.push('\n'),
                        Some('t') => s.push('\t'),
                        Some('0') => s.push('\0'),
                        Some(x) => s.push(x),
                        None => return Err(syntax(&s)),
                    },
                    // A doubled quote inside the string is one quote.
                    Some(x) if x == c && chars.peek() == Some(&c) => {
                        chars.next();
                        s.push(c);
                    }
                    Some(x) if x == c => break,
                    Some(x) => s.push(x),
                }
            }
            out.push(Token::Str(s));
        } else if c.is_ascii_digit() || c == '.' || c == '-' {
            let mut s = String::new();
            while let Some(&d) = chars.peek() {
                if d.is_ascii_digit() || d == '.' || (d == '-' && s.is_empty()) {
                    s.push(d);
                    chars.next();
                } else {
                    break;
                }
            }
            out.push(Token::Number(s));
        } else if c.is_alphanumeric() || c == '_' || c == '@' {
            let mut s = String::new();
            while let Some(&d) = chars.peek() {
                if d.is_alphanumeric() || d == '_' || d == '@' || d == '.' {
                    s.push(d);
                    chars.next();
                } else {
                    break;
                }
            }
            out.push(Token::Word(s.to_ascii_uppercase()));
        } else {
            return Err(syntax(&chars.collect::<String>()));
        }
    }
    Ok(out)
}

fn words(tokens: &[Token]) -> Vec<&str> {
    tokens
        .iter()
        .map_while(|t| match t {
            Token::Word(w) => Some(w.as_str()),
            _ => None,
        })
        .collect()
}

/// Parses `sql` if it is a replica statement: `None` for any other statement (the SQL parser
/// then has it), `Some(Err)` for a replica statement with bad syntax.
pub fn parse(sql: &str) -> Option<Result<ReplicaStmt, SqlError>> {
    let head: Vec<String> = sql
        .split_whitespace()
        .take(3)
        .map(|w| w.trim_end_matches(';').to_ascii_uppercase())
        .collect();
    let head: Vec<&str> = head.iter().map(String::as_str).collect();
    let ours = matches!(
        head.as_slice(),
        ["CHANGE", "REPLICATION", "SOURCE", ..]
            | ["CHANGE", "MASTER", ..]
            | ["START" | "STOP", "REPLICA" | "SLAVE", ..]
            | ["RESET", "REPLICA" | "SLAVE", ..]
            | ["SHOW", "REPLICA" | "SLAVE", "STATUS"]
    );
    if !ours {
        return None;
    }
    Some(parse_ours(sql))
}

fn parse_ours(sql: &str) -> Result<ReplicaStmt, SqlError> {
    let tokens = tokenize(sql)?;
    let w = words(&tokens);
    let rest_after = |n: usize| -> Result<(), SqlError> {
        match tokens.get(n) {
            None => Ok(()),
            Some(t) => Err(syntax(&format!("{t:?}"))),
        }
    };
    match w.as_slice() {
        ["CHANGE", "REPLICATION", "SOURCE", "TO", ..] => parse_change(&tokens[4..]),
        ["CHANGE", "MASTER", "TO", ..] => parse_change(&tokens[3..]),
        ["START", "REPLICA" | "SLAVE", ..] => rest_after(2).map(|()| ReplicaStmt::Start),
        ["STOP", "REPLICA" | "SLAVE", ..] => rest_after(2).map(|()| ReplicaStmt::Stop),
        ["RESET", "REPLICA" | "SLAVE", "ALL", ..] => {
            rest_after(3).map(|()| ReplicaStmt::Reset { all: true })
        }
        ["RESET", "REPLICA" | "SLAVE", ..] => {
            rest_after(2).map(|()| ReplicaStmt::Reset { all: false })
        }
        ["SHOW", kind @ ("REPLICA" | "SLAVE"), "STATUS", ..] => {
            rest_after(3).map(|()| ReplicaStmt::ShowStatus { old_names: *kind == "SLAVE" })
        }
        _ => Err(syntax(sql)),
    }
}

fn parse_change(tokens: &[Token]) -> Result<ReplicaStmt, SqlError> {
    let mut options = Vec::new();
    let mut i = 0;
    loop {
        let (Some(Token::Word(name)), Some(Token::Eq), Some(value)) =
            (tokens.get(i), tokens.get(i + 1), tokens.get(i + 2))
        else {
            let near = tokens.get(i).map(|t| format!("{t:?}")).unwrap_or_default();
            return Err(syntax(&near));
        };
        options.push(option(name, value)?);
        i += 3;
        match tokens.get(i) {
            None => break,
            Some(Token::Comma) => i += 1,
            // FOR CHANNEL '' names the default channel, the only one there is.
            Some(Token::Word(w)) if w == "FOR" => {
                match (tokens.get(i + 1), tokens.get(i + 2), tokens.get(i + 3)) {
                    (Some(Token::Word(c)), Some(Token::Str(name)), None)
                        if c == "CHANNEL" && name.is_empty() =>
                    {
                        break
                    }
                    _ => return Err(not_supported("replication channels other than ''")),
                }
            }
            Some(t) => return Err(syntax(&format!("{t:?}"))),
        }
    }
    Ok(ReplicaStmt::Change(options))
}

fn not_supported(what: &str) -> SqlError {
    SqlError::NotSupported(what.to_string())
}

fn option(name: &str, value: &Token) -> Result<ChangeOption, SqlError> {
    let key = name
        .strip_prefix("SOURCE_")
        .or_else(|| name.strip_prefix("MASTER_"))
        .ok_or_else(|| syntax(name))?;
    let text = || match value {
        Token::Str(s) => Ok(s.clone()),
        other => Err(syntax(&format!("{other:?}"))),
    };
    let number = || match value {
        Token::Number(n) => Ok(n.clone()),
        other => Err(syntax(&format!("{other:?}"))),
    };
    let uint = |max: u64| -> Result<u64, SqlError> {
        let n = number()?;
        n.parse::<u64>().ok().filter(|v| *v <= max).ok_or_else(|| syntax(&n))
    };
    Ok(match key {
        "HOST" => {
            let host = text()?;
            // MySQL's ER_WRONG_ARGUMENTS for an empty host (`change_master`'s host check).
            if host.is_empty() {
                return Err(SqlError::Other {
                    code: 1210,
                    sqlstate: "HY000",
                    message: "Incorrect arguments to SOURCE_HOST".into(),
                });
            }
            ChangeOption::Host(host)
        }
        "PORT" => ChangeOption::Port(uint(65_535)? as u16),
        "USER" => ChangeOption::User(text()?),
        "PASSWORD" => ChangeOption::Password(text()?),
        "AUTO_POSITION" => ChangeOption::AutoPosition(uint(1)? == 1),
        "HEARTBEAT_PERIOD" => {
            let n = number()?;
            let secs: f64 = n.parse().map_err(|_| syntax(&n))?;
            // ER_REPLICA_HEARTBEAT_VALUE_OUT_OF_RANGE (1703).
            if !(0.0..=4_294_967.0).contains(&secs) {
                return Err(SqlError::Other {
                    code: 1703,
                    sqlstate: "HY000",
                    message: "The requested value for the heartbeat period is either negative \
                              or exceeds the maximum allowed (4294967 seconds)."
                        .into(),
                });
            }
            ChangeOption::HeartbeatPeriod(secs)
        }
        "CONNECT_RETRY" => ChangeOption::ConnectRetry(uint(31_536_000)? as u32),
        "RETRY_COUNT" => ChangeOption::RetryCount(uint(31_536_000)?),
        "LOG_FILE" | "LOG_POS" => {
            return Err(not_supported(
                "SOURCE_LOG_FILE/SOURCE_LOG_POS: binlogd replicates by GTID auto-position only",
            ))
        }
        _ => return Err(not_supported(&format!("CHANGE REPLICATION SOURCE option {name}"))),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ok(sql: &str) -> ReplicaStmt {
        parse(sql).expect("ours").expect("parses")
    }

    #[test]
    fn both_spellings() {
        let new = ok("CHANGE REPLICATION SOURCE TO SOURCE_HOST='127.0.0.1', SOURCE_PORT=3307, \
                      SOURCE_USER='repl', SOURCE_PASSWORD='p''w', SOURCE_AUTO_POSITION=1, \
                      SOURCE_HEARTBEAT_PERIOD=0.5, SOURCE_CONNECT_RETRY=2 FOR CHANNEL ''");
        let old = ok("change master to master_host=\"127.0.0.1\", master_port = 3307, \
                      master_user='repl', master_password='p\\'w', master_auto_position=1, \
                      master_heartbeat_period=0.5, master_connect_retry=2;");
        assert_eq!(new, old);
        assert_eq!(
            new,
            ReplicaStmt::Change(vec![
                ChangeOption::Host("127.0.0.1".into()),
                ChangeOption::Port(3307),
                ChangeOption::User("repl".into()),
                ChangeOption::Password("p'w".into()),
                ChangeOption::AutoPosition(true),
                ChangeOption::HeartbeatPeriod(0.5),
                ChangeOption::ConnectRetry(2),
            ])
        );
        assert_eq!(ok("start slave"), ReplicaStmt::Start);
        assert_eq!(ok("START REPLICA;"), ReplicaStmt::Start);
        assert_eq!(ok("STOP REPLICA"), ReplicaStmt::Stop);
        assert_eq!(ok("reset slave all"), ReplicaStmt::Reset { all: true });
        assert_eq!(ok("RESET REPLICA"), ReplicaStmt::Reset { all: false });
        assert_eq!(ok("SHOW SLAVE STATUS"), ReplicaStmt::ShowStatus { old_names: true });
        assert_eq!(ok("show replica status"), ReplicaStmt::ShowStatus { old_names: false });
    }

    #[test]
    fn others_are_not_ours_and_bad_ones_are_errors() {
        assert!(parse("SELECT 1").is_none());
        assert!(parse("SHOW MASTER STATUS").is_none());
        assert!(parse("RESET MASTER").is_none());
        for bad in [
            "CHANGE MASTER TO MASTER_PORT='x'",
            "CHANGE MASTER TO MASTER_HOST=",
            "CHANGE MASTER TO MASTER_BOGUS=1",
            "CHANGE MASTER TO MASTER_LOG_FILE='b.000001'",
            "CHANGE MASTER TO MASTER_PORT=70000",
            "CHANGE MASTER TO MASTER_HOST=''",
            "START REPLICA UNTIL SQL_AFTER_GTIDS='x'",
            "SHOW SLAVE STATUS extra",
            "CHANGE MASTER TO MASTER_HOST='a' FOR CHANNEL 'c2'",
            "CHANGE MASTER TO MASTER_HOST='unterminated",
        ] {
            let e = parse(bad).expect("ours").expect_err(bad);
            assert!(e.code() > 0, "{bad}");
        }
    }
}
