//! Views with real tools (issue 20): `mariadb-dump` of a database holding views (nested, with a
//! column list, SQL SECURITY INVOKER, WITH CHECK OPTION) restores into a fresh binlogd with the
//! same view definitions and the same rows read through them (the dump creates stand-in
//! tables from SHOW FIELDS, then drops them and runs its `/*!50001 CREATE ALGORITHM=...*/`
//! statements); the views survive a kill -9 of the server; and `mariadb-binlog` shows the
//! CREATE VIEW as mysqld logs it, with its DEFINER clause. `scripts/test.sh` installs the
//! tools (mariadb-client).

mod support;

use std::process::Command;

use support::{client, feed, ok, start, Running};

fn root(server: &Running, sql: &str) -> String {
    ok(support::mariadb(server.port, "root", "", &[], sql))
}

const SEED: &str = "
CREATE DATABASE app;
CREATE TABLE app.item (id INT PRIMARY KEY, name VARCHAR(20) NOT NULL, price DECIMAL(8,2));
INSERT INTO app.item VALUES (1, 'pen', 1.50), (2, 'book', 12.00), (3, 'bag', NULL);
CREATE TABLE app.sale (id INT PRIMARY KEY, item_id INT, qty INT);
INSERT INTO app.sale VALUES (10, 1, 3), (11, 2, 1), (12, 1, 2);
CREATE VIEW app.priced AS SELECT id, name, price FROM app.item WHERE price IS NOT NULL;
CREATE VIEW app.totals (item, sold) AS
  SELECT i.name, SUM(s.qty) FROM app.item i JOIN app.sale s ON s.item_id = i.id GROUP BY i.name;
CREATE SQL SECURITY INVOKER VIEW app.cheap AS SELECT id, name FROM app.priced WHERE price < 5
  WITH CASCADED CHECK OPTION;
";

const VIEWS: [&str; 3] = ["app.priced", "app.totals", "app.cheap"];

/// SHOW CREATE VIEW and the rows of every view, and the tables' checksums.
fn fingerprint(server: &Running) -> String {
    let mut out = root(server, "CHECKSUM TABLE app.item, app.sale");
    out.push_str(&root(server, "SHOW FULL TABLES FROM app"));
    for v in VIEWS {
        out.push_str(&root(server, &format!("SHOW CREATE VIEW {v}")));
        out.push_str(&root(server, &format!("SELECT * FROM {v} ORDER BY 1")));
        out.push_str(&root(server, &format!("SHOW COLUMNS FROM {v}")));
    }
    out
}

#[test]
fn mariadb_dump_of_views_restores_into_a_fresh_server() {
    let dir = tempfile::tempdir().expect("tempdir");
    let source = start(&dir.path().join("source"), &["--initialize-insecure"]);
    root(&source, SEED);
    let expected = fingerprint(&source);
    assert!(expected.contains("pen\t5"), "the join view reads its rows: {expected}");
    for (n, options) in [&[][..], &["--single-transaction"]].into_iter().enumerate() {
        let out = client("mariadb-dump", source.port, "root", "")
            .args(options)
            .args(["--databases", "app"])
            .output()
            .expect("run mariadb-dump (scripts/test.sh installs mariadb-client)");
        assert!(out.status.success(), "mariadb-dump: {}", String::from_utf8_lossy(&out.stderr));
        let text = String::from_utf8_lossy(&out.stdout);
        assert!(text.contains("VIEW `cheap` AS"), "{text}");
        let target = start(&dir.path().join(format!("target{n}")), &["--initialize-insecure"]);
        feed(target.port, &out.stdout, "restore");
        assert_eq!(fingerprint(&target), expected, "mariadb-dump {options:?}");
    }
    // kill -9: the views come back from the redo log.
    let log = support::stop_with(source, "-KILL", false);
    let source = start(&dir.path().join("source"), &[]);
    assert_eq!(fingerprint(&source), expected, "after kill -9; log: {log}");
    // The binlog holds the CREATE VIEW with its definer, as mysqld logs it.
    let decoded = Command::new("mariadb-binlog")
        .arg(dir.path().join("source").join("binlog").join("binlog.000001"))
        .output()
        .expect("run mariadb-binlog (scripts/test.sh installs mariadb-client)");
    assert!(decoded.status.success(), "{}", String::from_utf8_lossy(&decoded.stderr));
    let decoded = String::from_utf8_lossy(&decoded.stdout);
    assert!(
        decoded.contains("CREATE ALGORITHM=UNDEFINED DEFINER=`root`@`")
            && decoded.contains(
                "SQL SECURITY INVOKER VIEW `app`.`cheap` AS SELECT id, name FROM app.priced \
                 WHERE price < 5"
            ),
        "{decoded}"
    );
}
