//! The administrative commands older than their SQL statements, which `mysqladmin` /
//! `mariadb-admin` and old drivers still send: COM_REFRESH, COM_SHUTDOWN, COM_PROCESS_INFO,
//! COM_PROCESS_KILL and COM_DEBUG.
//!
//! Each is answered as mysqld answers it (`sql/sql_parse.cc`, `dispatch_command`): the same
//! privilege check first (1227 naming the privilege), then the SQL statement that does the
//! work today, run through the session so binlogd has one implementation of each:
//!
//! | command | privilege | runs | answer |
//! |---|---|---|---|
//! | COM_REFRESH (0x07) `options` | RELOAD | `FLUSH BINARY LOGS` for REFRESH_LOG, `RESET MASTER` for REFRESH_MASTER, `RESET REPLICA` for REFRESH_SLAVE; the other bits name caches binlogd does not have | OK |
//! | COM_SHUTDOWN (0x08) `[level]` | SHUTDOWN | `SHUTDOWN` (levels other than default / WAIT_ALL_BUFFERS: 1235) | EOF |
//! | COM_PROCESS_INFO (0x0a) | — | `SHOW PROCESSLIST` | its result set |
//! | COM_PROCESS_KILL (0x0c) `id` | — | `KILL id` | as KILL |
//! | COM_DEBUG (0x0d) | SUPER | logs the connection count and uptime to the error log | EOF |
//!
//! MySQL 8 removed COM_SHUTDOWN from `dispatch_command` (the SHUTDOWN statement replaced it);
//! binlogd keeps it with MySQL 5.7's and MariaDB's behaviour, because `mariadb-admin
//! shutdown` sends it.

use super::{Backend, BackendSession, Connection, ErrPacket, Error, Result, ResultWriter};

/// COM_REFRESH.
pub(super) const REFRESH: u8 = 0x07;
/// COM_SHUTDOWN.
pub(super) const SHUTDOWN: u8 = 0x08;
/// COM_PROCESS_INFO.
pub(super) const PROCESS_INFO: u8 = 0x0a;
/// COM_PROCESS_KILL.
pub(super) const PROCESS_KILL: u8 = 0x0c;
/// COM_DEBUG.
pub(super) const DEBUG: u8 = 0x0d;

// COM_REFRESH option bits (mysql-server `include/mysql_com.h`).
const REFRESH_LOG: u8 = 2;
const REFRESH_SLAVE: u8 = 64;
const REFRESH_MASTER: u8 = 128;

// `enum mysql_enum_shutdown_level` (mysql-server `include/mysql_com.h`).
const SHUTDOWN_DEFAULT: u8 = 0;
const SHUTDOWN_WAIT_ALL_BUFFERS: u8 = 16;

impl<B: Backend> Connection<B> {
    /// Answers one of the commands in the module docs.
    pub(super) async fn legacy_command(&mut self, cmd: u8, body: &[u8]) -> Result<()> {
        match cmd {
            REFRESH => {
                // Format: 0x07 | options u8
                let options = *body.first().ok_or(Error::Malformed { what: "COM_REFRESH" })?;
                self.session.check_global_privilege("RELOAD")?;
                if options & REFRESH_LOG != 0 {
                    self.run_without_answer("FLUSH BINARY LOGS").await?;
                }
                if options & REFRESH_MASTER != 0 {
                    self.run_without_answer("RESET MASTER").await?;
                }
                if options & REFRESH_SLAVE != 0 {
                    self.run_without_answer("RESET REPLICA").await?;
                }
                self.ok();
            }
            SHUTDOWN => {
                // Format: 0x08 | [level u8] (clients before 4.1.3 send no level: default)
                self.session.check_global_privilege("SHUTDOWN")?;
                let level = body.first().copied().unwrap_or(SHUTDOWN_DEFAULT);
                if level != SHUTDOWN_DEFAULT && level != SHUTDOWN_WAIT_ALL_BUFFERS {
                    return Err(not_supported("this shutdown level").into());
                }
                self.run_without_answer("SHUTDOWN").await?;
                self.eof();
            }
            PROCESS_INFO => self.run_answered("SHOW PROCESSLIST").await?,
            PROCESS_KILL => {
                // Format: 0x0c | connection id u32
                let id: [u8; 4] = body
                    .get(..4)
                    .and_then(|b| b.try_into().ok())
                    .ok_or(Error::Malformed { what: "COM_PROCESS_KILL" })?;
                self.run_answered(&format!("KILL {}", u32::from_le_bytes(id))).await?;
            }
            DEBUG => {
                self.session.check_global_privilege("SUPER")?;
                let stats = &self.shared.stats;
                log::info!(
                    "COM_DEBUG: uptime {} s, {} connections open",
                    stats.uptime_secs(),
                    stats.threads_connected()
                );
                self.eof();
            }
            _ => return Err(ErrPacket::unknown_command().into()),
        }
        Ok(())
    }

    /// Runs a statement whose answer is a plain OK and keeps that OK back (the command sends
    /// its own answer); its error is the command's error.
    async fn run_without_answer(&mut self, sql: &str) -> Result<()> {
        let mut out =
            ResultWriter::new(&mut self.io, self.capabilities, false, false, &mut self.status);
        // The writer holds its OK back until `finish`, which is not called.
        self.session.query(sql, &mut out).await
    }

    /// Runs a statement and answers with its result, as COM_QUERY would.
    async fn run_answered(&mut self, sql: &str) -> Result<()> {
        let mut out =
            ResultWriter::new(&mut self.io, self.capabilities, false, false, &mut self.status);
        let outcome = self.session.query(sql, &mut out).await;
        out.finish(outcome)
    }
}

/// 1235 ER_NOT_SUPPORTED_YET.
fn not_supported(what: &str) -> ErrPacket {
    ErrPacket::new(1235, "42000", format!("This version of binlogd doesn't yet support '{what}'"))
}
