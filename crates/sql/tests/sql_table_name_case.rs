//! `lower_case_table_names` (issue 19): 0, mysqld's default on Linux, makes database and
//! table names case-sensitive (`t` and `T` are two tables) while column names stay
//! case-insensitive; 1 stores names in lower case and compares them so; 2 keeps the case
//! given and compares case-insensitively. The variable is read-only (a start-up option).

mod common;

use common::{err, one, q, rows, server, server_with_lctn};

#[test]
fn default_is_zero_and_read_only() {
    let srv = server();
    let mut s = srv.session("root", "localhost");
    assert_eq!(one(&mut s, "SELECT @@lower_case_table_names"), "0");
    let e = err(&mut s, "SET GLOBAL lower_case_table_names = 1");
    assert_eq!(e.code(), 1238);
}

#[test]
fn table_names_are_case_sensitive_column_names_are_not() {
    let srv = server();
    let mut s = srv.session("root", "localhost");
    q(&mut s, "CREATE DATABASE d");
    q(&mut s, "USE d");
    q(&mut s, "CREATE TABLE t (id INT PRIMARY KEY, v INT)");
    q(&mut s, "CREATE TABLE T (id INT PRIMARY KEY, v INT)");
    q(&mut s, "INSERT INTO t VALUES (1, 10)");
    q(&mut s, "INSERT INTO T VALUES (2, 20), (3, 30)");
    assert_eq!(one(&mut s, "SELECT COUNT(*) FROM t"), "1");
    assert_eq!(one(&mut s, "SELECT COUNT(*) FROM T"), "2");
    assert_eq!(one(&mut s, "SELECT ID, V FROM t"), "1,10", "column names are case-insensitive");
    let e = err(&mut s, "SELECT * FROM tT");
    assert_eq!((e.code(), e.sqlstate()), (1146, "42S02"));
    let e = err(&mut s, "CREATE TABLE T (x INT)");
    assert_eq!(e.code(), 1050);
    assert_eq!(rows(&mut s, "SHOW TABLES"), vec![vec!["T".to_string()], vec!["t".to_string()]]);
    assert_eq!(rows(&mut s, "SHOW TABLES LIKE 't'"), vec![vec!["t".to_string()]]);
    assert_eq!(rows(&mut s, "SHOW TABLES LIKE 'T%'"), vec![vec!["T".to_string()]]);
    // RENAME and DROP name one of the two.
    q(&mut s, "RENAME TABLE T TO U");
    assert_eq!(one(&mut s, "SELECT COUNT(*) FROM U"), "2");
    assert_eq!(err(&mut s, "SELECT * FROM u").code(), 1146);
    q(&mut s, "DROP TABLE t");
    assert_eq!(rows(&mut s, "SHOW TABLES"), vec![vec!["U".to_string()]]);
}

#[test]
fn database_names_are_case_sensitive() {
    let srv = server();
    let mut s = srv.session("root", "localhost");
    q(&mut s, "CREATE DATABASE D1");
    q(&mut s, "CREATE DATABASE d1");
    q(&mut s, "CREATE TABLE D1.x (id INT PRIMARY KEY)");
    assert_eq!(err(&mut s, "SELECT * FROM d1.x").code(), 1146);
    assert_eq!(err(&mut s, "USE dD1").code(), 1049);
    q(&mut s, "USE D1");
    assert_eq!(one(&mut s, "SELECT COUNT(*) FROM x"), "0");
    q(&mut s, "DROP DATABASE d1");
    assert_eq!(one(&mut s, "SELECT COUNT(*) FROM D1.x"), "0", "D1 is another database");
}

#[test]
fn foreign_keys_reference_the_table_of_that_case() {
    let srv = server();
    let mut s = srv.session("root", "localhost");
    q(&mut s, "CREATE DATABASE d");
    q(&mut s, "USE d");
    q(&mut s, "CREATE TABLE p (id INT PRIMARY KEY)");
    q(&mut s, "CREATE TABLE P (id INT PRIMARY KEY)");
    q(&mut s, "INSERT INTO p VALUES (1)");
    q(&mut s, "INSERT INTO P VALUES (2)");
    q(&mut s, "CREATE TABLE c (pid INT, FOREIGN KEY (pid) REFERENCES P (id))");
    q(&mut s, "INSERT INTO c VALUES (2)");
    let e = err(&mut s, "INSERT INTO c VALUES (1)");
    assert_eq!(e.code(), 1452, "1 is in p, not in P");
    q(&mut s, "DELETE FROM p");
    assert_eq!(err(&mut s, "DELETE FROM P").code(), 1451);
}

#[test]
fn grants_name_databases_and_tables_case_sensitively() {
    let srv = server();
    let _dir = common::attach_accounts(&srv);
    let mut root = srv.session("root", "localhost");
    q(&mut root, "CREATE DATABASE d");
    q(&mut root, "CREATE TABLE d.t (id INT PRIMARY KEY)");
    q(&mut root, "CREATE TABLE d.T (id INT PRIMARY KEY)");
    q(&mut root, "CREATE USER u@localhost");
    q(&mut root, "GRANT SELECT ON d.T TO u@localhost");
    let mut u = srv.session("u", "localhost");
    assert_eq!(one(&mut u, "SELECT COUNT(*) FROM d.T"), "0");
    assert_eq!(err(&mut u, "SELECT COUNT(*) FROM d.t").code(), 1142);
    q(&mut root, "CREATE DATABASE E");
    q(&mut root, "CREATE TABLE E.x (id INT PRIMARY KEY)");
    q(&mut root, "GRANT SELECT ON e.* TO u@localhost");
    assert_eq!(err(&mut u, "SELECT COUNT(*) FROM E.x").code(), 1142, "e.* is not E");
}

#[test]
fn one_stores_names_in_lower_case() {
    let srv = server_with_lctn("1");
    let mut s = srv.session("root", "localhost");
    assert_eq!(one(&mut s, "SELECT @@lower_case_table_names"), "1");
    q(&mut s, "CREATE DATABASE MyDb");
    q(&mut s, "USE MYDB");
    q(&mut s, "CREATE TABLE MyTable (Id INT PRIMARY KEY)");
    q(&mut s, "INSERT INTO MYTABLE VALUES (1)");
    assert_eq!(one(&mut s, "SELECT COUNT(*) FROM mytable"), "1");
    assert_eq!(rows(&mut s, "SHOW TABLES"), vec![vec!["mytable".to_string()]]);
    assert!(rows(&mut s, "SHOW DATABASES").contains(&vec!["mydb".to_string()]));
    assert_eq!(err(&mut s, "CREATE TABLE MYTABLE (x INT)").code(), 1050);
    q(&mut s, "RENAME TABLE MyTable TO Other");
    assert_eq!(rows(&mut s, "SHOW TABLES"), vec![vec!["other".to_string()]]);
}

#[test]
fn two_keeps_the_case_given_and_compares_without_it() {
    let srv = server_with_lctn("2");
    let mut s = srv.session("root", "localhost");
    q(&mut s, "CREATE DATABASE d");
    q(&mut s, "USE d");
    q(&mut s, "CREATE TABLE MyTable (id INT PRIMARY KEY)");
    assert_eq!(one(&mut s, "SELECT COUNT(*) FROM mytable"), "0");
    assert_eq!(rows(&mut s, "SHOW TABLES"), vec![vec!["MyTable".to_string()]]);
    assert_eq!(err(&mut s, "CREATE TABLE MYTABLE (x INT)").code(), 1050);
}
