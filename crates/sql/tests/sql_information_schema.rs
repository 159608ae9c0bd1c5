//! information_schema as the metadata readers of drivers and GUI clients use it (issue 20):
//! the privilege tables and ENGINES filtered by the account, SHOW INDEX and STATISTICS from one
//! row builder, SHOW DATABASES listing information_schema, information_schema's text columns
//! in utf8mb3 (Connector/J writes `IS_NULLABLE COLLATE utf8mb3_general_ci`), and the select
//! list resolving names to columns, never to an earlier item's alias (Connector/J's getColumns
//! names an item `DATA_TYPE` and reads the DATA_TYPE column in the next one).

mod common;

use common::{attach_accounts, err, q, rows, server};
use sql::Session;

fn lines(s: &mut Session, sql: &str) -> Vec<String> {
    rows(s, sql).into_iter().map(|r| r.join(" ")).collect()
}

#[test]
fn select_list_names_read_columns_not_earlier_aliases() {
    let srv = server();
    let mut s = srv.session("root", "localhost");
    q(&mut s, "CREATE DATABASE d");
    q(&mut s, "USE d");
    q(&mut s, "CREATE TABLE t (a INT, b INT)");
    q(&mut s, "INSERT INTO t VALUES (1, 2), (3, 0)");
    assert_eq!(lines(&mut s, "SELECT b AS a, a + 100 FROM t ORDER BY b"), ["0 103", "2 101"]);
    assert_eq!(lines(&mut s, "SELECT a + 1 AS a, a FROM t ORDER BY a"), ["2 1", "4 3"]);
    // ORDER BY and HAVING still name the item first (mysqld's `find_order_in_list`).
    assert_eq!(lines(&mut s, "SELECT b AS a FROM t ORDER BY a"), ["0", "2"]);
    assert_eq!(lines(&mut s, "SELECT -a AS x FROM t HAVING x < -2"), ["-3"]);
    // An alias alone is no column of the field list (1054), as on mysqld.
    assert_eq!(err(&mut s, "SELECT 1 AS x, x + 1 FROM t").code(), 1054);
}

#[test]
fn information_schema_text_is_utf8mb3() {
    let srv = server();
    let mut s = srv.session("root", "localhost");
    q(&mut s, "CREATE DATABASE d");
    q(&mut s, "CREATE TABLE d.t (id INT PRIMARY KEY, n VARCHAR(3))");
    assert_eq!(
        lines(
            &mut s,
            "SELECT COLUMN_NAME, CASE WHEN IS_NULLABLE COLLATE utf8mb3_general_ci = 'NO' THEN 0 \
             ELSE 1 END, TABLE_NAME COLLATE utf8mb3_bin FROM information_schema.COLUMNS \
             WHERE TABLE_SCHEMA = 'd' ORDER BY ORDINAL_POSITION"
        ),
        ["id 0 t", "n 1 t"]
    );
    assert_eq!(
        lines(
            &mut s,
            "SELECT DEFAULT_COLLATION_NAME FROM information_schema.SCHEMATA \
             WHERE SCHEMA_NAME = 'information_schema'"
        ),
        ["utf8mb3_general_ci"]
    );
    // A utf8mb4 column compared with information_schema's utf8mb3 text still matches.
    q(&mut s, "CREATE TABLE d.names (n VARCHAR(64))");
    q(&mut s, "INSERT INTO d.names VALUES ('t'), ('names'), ('x')");
    assert_eq!(
        lines(
            &mut s,
            "SELECT n.n FROM d.names n JOIN information_schema.TABLES t \
             ON t.TABLE_NAME = n.n AND t.TABLE_SCHEMA = 'd' ORDER BY n.n"
        ),
        ["names", "t"]
    );
}

#[test]
fn show_index_is_statistics_without_its_schema_columns() {
    let srv = server();
    let mut s = srv.session("root", "localhost");
    q(&mut s, "CREATE DATABASE d");
    q(&mut s, "USE d");
    q(&mut s, "CREATE TABLE t (a INT, b VARCHAR(5), c INT, PRIMARY KEY (b, a), KEY k (c, a))");
    q(&mut s, "INSERT INTO t VALUES (1, 'x', 5), (2, 'y', NULL)");
    let show = rows(&mut s, "SHOW INDEX FROM t");
    let stats = rows(
        &mut s,
        "SELECT TABLE_NAME, NON_UNIQUE, INDEX_NAME, SEQ_IN_INDEX, COLUMN_NAME, COLLATION, \
         CARDINALITY, SUB_PART, PACKED, NULLABLE, INDEX_TYPE, COMMENT, INDEX_COMMENT, \
         IS_VISIBLE, EXPRESSION FROM information_schema.STATISTICS WHERE TABLE_SCHEMA = 'd'",
    );
    assert_eq!(show, stats);
    assert_eq!(show.len(), 4);
    assert_eq!(show[2][2..7], ["k", "1", "c", "A", "2"]);
}

#[test]
fn databases_engines_and_privileges_as_the_account_sees_them() {
    let srv = server();
    let _accounts = attach_accounts(&srv);
    let mut root = srv.session("root", "localhost");
    q(&mut root, "CREATE DATABASE app");
    q(&mut root, "CREATE DATABASE zz");
    q(&mut root, "CREATE TABLE app.t (id INT PRIMARY KEY)");
    q(&mut root, "CREATE USER 'reader'@'%' IDENTIFIED BY 'pw'");
    q(&mut root, "GRANT SELECT, INSERT ON app.* TO 'reader'@'%' WITH GRANT OPTION");
    q(&mut root, "GRANT UPDATE ON app.t TO 'reader'@'%'");
    q(&mut root, "GRANT PROCESS ON *.* TO 'reader'@'%'");
    assert_eq!(lines(&mut root, "SHOW DATABASES"), ["app", "information_schema", "zz"]);
    assert_eq!(
        lines(
            &mut root,
            "SELECT ENGINE, SUPPORT, TRANSACTIONS, XA, SAVEPOINTS FROM information_schema.ENGINES"
        ),
        ["InnoDB DEFAULT YES YES YES"]
    );
    assert_eq!(lines(&mut root, "SHOW ENGINES")[0].split(' ').next(), Some("InnoDB"));

    let mut reader = srv.session("reader", "10.0.0.1");
    // information_schema is listed to every account; zz is not (no privilege in it).
    assert_eq!(lines(&mut reader, "SHOW DATABASES"), ["app", "information_schema"]);
    assert_eq!(
        lines(
            &mut reader,
            "SELECT GRANTEE, PRIVILEGE_TYPE, IS_GRANTABLE FROM information_schema.USER_PRIVILEGES"
        ),
        ["'reader'@'%' PROCESS NO"]
    );
    assert_eq!(
        lines(
            &mut reader,
            "SELECT GRANTEE, TABLE_SCHEMA, PRIVILEGE_TYPE, IS_GRANTABLE \
             FROM information_schema.SCHEMA_PRIVILEGES ORDER BY PRIVILEGE_TYPE"
        ),
        ["'reader'@'%' app INSERT YES", "'reader'@'%' app SELECT YES"]
    );
    assert_eq!(
        lines(
            &mut reader,
            "SELECT TABLE_SCHEMA, TABLE_NAME, PRIVILEGE_TYPE FROM information_schema.TABLE_PRIVILEGES"
        ),
        ["app t UPDATE"]
    );
    assert!(rows(&mut reader, "SELECT * FROM information_schema.COLUMN_PRIVILEGES").is_empty());
    // root (global SELECT) reads every account's rows.
    let grantees =
        lines(&mut root, "SELECT DISTINCT GRANTEE FROM information_schema.USER_PRIVILEGES");
    assert!(grantees.contains(&"'reader'@'%'".to_string()), "{grantees:?}");
    assert!(grantees.iter().any(|g| g.starts_with("'root'@")), "{grantees:?}");
    assert_eq!(
        lines(
            &mut root,
            "SELECT COUNT(*) FROM information_schema.USER_PRIVILEGES \
             WHERE GRANTEE LIKE '''root''@%' AND IS_GRANTABLE = 'YES'"
        ),
        ["28"]
    );
}
