//! SQL over `mysql_async` as root with an empty password (servers started with
//! `--initialize-insecure`): one connection per call, results as text, every failure a panic
//! naming the statement and the port.

use mysql_async::prelude::Queryable;
use mysql_async::{Conn, OptsBuilder, Row, Value};

pub async fn conn(port: u16) -> Conn {
    conn_as(port, "root", "").await
}

/// Options to reach 127.0.0.1:`port` as `user` with `password` (over TCP, never the socket).
pub fn opts(port: u16, user: &str, password: &str) -> OptsBuilder {
    OptsBuilder::default()
        .ip_or_hostname("127.0.0.1")
        .tcp_port(port)
        .user(Some(user))
        .pass(Some(password))
        .prefer_socket(false)
}

/// A connection as `user` with `password` (over TCP, never the socket).
pub async fn conn_as(port: u16, user: &str, password: &str) -> Conn {
    Conn::new(opts(port, user, password))
        .await
        .unwrap_or_else(|e| panic!("connect to {port} as {user}: {e}"))
}

/// A value as the mariadb CLI would print it (NULL as `NULL`).
pub fn text(v: &Value) -> String {
    match v {
        Value::NULL => "NULL".into(),
        Value::Bytes(b) => String::from_utf8_lossy(b).into_owned(),
        other => other.as_sql(true),
    }
}

pub async fn query(port: u16, sql: &str) -> Vec<Vec<String>> {
    let mut c = conn(port).await;
    let rows: Vec<Row> = c.query(sql).await.unwrap_or_else(|e| panic!("{sql}: {e}"));
    rows.iter().map(|r| (0..r.len()).map(|i| text(&r[i])).collect()).collect()
}

pub async fn exec(port: u16, sql: &str) {
    let mut c = conn(port).await;
    c.query_drop(sql).await.unwrap_or_else(|e| panic!("{sql} on {port}: {e}"));
}

pub async fn gtid_executed(port: u16) -> String {
    query(port, "SELECT @@GLOBAL.gtid_executed").await[0][0].clone()
}

/// The first row of `sql` (e.g. `SHOW REPLICA STATUS`) as column name → value; empty when the
/// statement returns no row.
pub async fn first_row(port: u16, sql: &str) -> std::collections::BTreeMap<String, String> {
    let mut c = conn(port).await;
    let rows: Vec<Row> = c.query(sql).await.unwrap_or_else(|e| panic!("{sql} on {port}: {e}"));
    let Some(row) = rows.first() else { return Default::default() };
    row.columns_ref()
        .iter()
        .enumerate()
        .map(|(i, col)| (col.name_str().into_owned(), text(&row[i])))
        .collect()
}
