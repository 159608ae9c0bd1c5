//! Startup options: MySQL names with dashes or underscores, boolean and size forms, the option
//! file and its precedence, and the errors for unknown options and bad values.

use std::path::PathBuf;

use binlogd::config::{
    variable, BinlogChecksum, Config, ConfigError, Origin, RowMetadata, Scope, VarType, VARIABLES,
};

fn parse(args: &[&str]) -> Result<Config, ConfigError> {
    Config::from_args(args.iter().copied()).map(|(config, _)| config)
}

#[test]
fn defaults_are_mysqls() {
    let config = parse(&[]).expect("no options");
    assert_eq!(config, Config::default());
    assert_eq!(config.server_id, 1);
    assert_eq!(config.port, 3306);
    assert_eq!(config.bind_address, "127.0.0.1");
    assert_eq!(config.datadir, PathBuf::from("./data"));
    assert_eq!(config.log_bin.as_deref(), Some("binlog"));
    assert_eq!(config.max_binlog_size, 1 << 30);
    assert_eq!(config.sync_binlog, 1);
    assert!(config.binlog_order_commits);
    assert_eq!(config.binlog_checksum, BinlogChecksum::Crc32);
    assert_eq!(config.binlog_row_metadata, RowMetadata::Minimal);
    assert!(!config.binlog_in_redo);
    assert!(config.gtid_mode);
    assert_eq!(config.innodb_flush_log_at_trx_commit, 1);
    assert_eq!(config.innodb_lock_wait_timeout, 50);
    assert_eq!(config.max_connections, 151);
    assert_eq!(config.max_allowed_packet, 64 << 20);
    assert_eq!(config.log_error, None);
    assert!(!config.initialize_insecure);
}

#[test]
fn registry_defaults_match_the_config_and_parse_back() {
    let config = Config::default();
    for var in VARIABLES {
        if !var.startup_option {
            // Runtime state (gtid_executed, ...) is not in the config; derived values are.
            if let Some(shown) = config.value(var.name) {
                assert_eq!(shown, var.default, "{}", var.name);
            }
            continue;
        }
        let shown = config.value(var.name).unwrap_or_else(|| panic!("{} has no field", var.name));
        if var.name == "socket" {
            // Shown resolved against datadir: @@socket names the file itself.
            assert_eq!(shown, config.datadir.join(var.default).display().to_string());
            continue;
        }
        assert_eq!(shown, var.default, "{}", var.name);
        if var.name == "log_error" {
            continue; // "stderr" is how no file is shown, not a value to set.
        }
        let mut copy = config.clone();
        copy.set(var.name, &shown).unwrap_or_else(|e| panic!("{}: {e}", var.name));
        assert_eq!(copy, config, "{} round-trips", var.name);
    }
    let names: Vec<_> = VARIABLES.iter().map(|v| v.name).collect();
    let mut sorted = names.clone();
    sorted.sort_unstable();
    assert_eq!(names, sorted, "registry sorted by name");
}

#[test]
fn registry_describes_scope_and_dynamism() {
    let sync = variable("sync-binlog").expect("dash form");
    assert_eq!(sync.name, "sync_binlog");
    assert_eq!(sync.scope, Scope::Global);
    assert!(sync.dynamic);
    assert_eq!(variable("SERVER_UUID").map(|v| v.startup_option), Some(false));
    assert_eq!(variable("gtid_next").map(|v| v.scope), Some(Scope::Session));
    assert_eq!(variable("innodb_lock_wait_timeout").map(|v| v.scope), Some(Scope::Both));
    assert!(!variable("binlog_in_redo").expect("known").dynamic);
    assert!(variable("no_such").is_none());
    assert!(matches!(VarType::Bool.parse("maybe"), Err(e) if e.contains("ON, OFF")));
}

#[test]
fn dashes_and_underscores_are_one_name() {
    let a = parse(&["--sync-binlog=7", "--binlog_group_commit-sync-delay=100"]).expect("parse");
    let b = parse(&["--sync_binlog=7", "--binlog-group-commit-sync-delay=100"]).expect("parse");
    assert_eq!(a, b);
    assert_eq!(a.sync_binlog, 7);
    assert_eq!(a.binlog_group_commit_sync_delay, 100);
    let c = parse(&["--SYNC-BINLOG=7", "--Binlog-Group-Commit-Sync-Delay=100"]).expect("case");
    assert_eq!(a, c);
}

#[test]
fn boolean_forms() {
    for (word, expected) in
        [("ON", true), ("on", true), ("1", true), ("TRUE", true), ("OFF", false), ("0", false)]
    {
        let config = parse(&[&format!("--binlog-order-commits={word}")]).expect(word);
        assert_eq!(config.binlog_order_commits, expected, "{word}");
    }
    assert!(!parse(&["--binlog-order-commits=false"]).expect("false").binlog_order_commits);
    assert!(parse(&["--binlog-in-redo"]).expect("bare").binlog_in_redo);
    assert!(!parse(&["--skip-binlog-order-commits"]).expect("skip").binlog_order_commits);
    assert!(!parse(&["--disable-binlog-order-commits"]).expect("disable").binlog_order_commits);
    assert!(parse(&["--enable-binlog-preallocate"]).expect("enable").binlog_preallocate);
    assert!(parse(&["--initialize-insecure"]).expect("flag").initialize_insecure);
}

#[test]
fn log_bin_forms() {
    assert_eq!(parse(&["--skip-log-bin"]).expect("skip").log_bin, None);
    assert_eq!(parse(&["--log-bin=OFF"]).expect("off").log_bin, None);
    assert_eq!(
        parse(&["--skip-log-bin", "--log-bin"]).expect("on").log_bin.as_deref(),
        Some("binlog")
    );
    let named = parse(&["--log-bin=mysql-bin", "--datadir=/d"]).expect("named");
    assert_eq!(named.log_bin.as_deref(), Some("mysql-bin"));
    // The files live in <datadir>/binlog under the given base name.
    assert_eq!(named.log_bin_basename(), Some(PathBuf::from("/d/binlog/mysql-bin")));
    assert_eq!(named.value("log_bin_basename").as_deref(), Some("/d/binlog/mysql-bin"));
    let absolute = parse(&["--log-bin=/logs/b"]).expect_err("a path is refused");
    assert!(absolute.to_string().contains("file name without '/'"), "{absolute}");
    assert_eq!(parse(&["--skip-log-bin"]).expect("skip").value("log_bin").as_deref(), Some("OFF"));
}

#[test]
fn sizes_take_suffixes() {
    let config = parse(&["--max-binlog-size=512M", "--max_allowed_packet=16m"]).expect("parse");
    assert_eq!(config.max_binlog_size, 512 << 20);
    assert_eq!(config.max_allowed_packet, 16 << 20);
    assert_eq!(parse(&["--max-binlog-size=1G"]).expect("1G").max_binlog_size, 1 << 30);
    assert_eq!(parse(&["--max-binlog-size=8k"]).expect("8k").max_binlog_size, 8192);
    assert_eq!(parse(&["--max-binlog-size=4096"]).expect("bytes").max_binlog_size, 4096);
    // Rounded down to a multiple of 1024, as mysqld does.
    assert_eq!(parse(&["--max-allowed-packet=2000"]).expect("x").max_allowed_packet, 1024);
}

#[test]
fn separate_value_argument() {
    let config = parse(&["--port", "3307", "--datadir", "/tmp/x", "--binlog-in-redo"]).expect("p");
    assert_eq!(config.port, 3307);
    assert_eq!(config.datadir, PathBuf::from("/tmp/x"));
    assert!(config.binlog_in_redo);
}

#[test]
fn enums_are_case_insensitive() {
    let config =
        parse(&["--binlog-checksum=none", "--binlog-row-metadata=full", "--gtid-mode=OFF"])
            .expect("parse");
    assert_eq!(config.binlog_checksum, BinlogChecksum::None);
    assert_eq!(config.binlog_row_metadata, RowMetadata::Full);
    assert!(!config.gtid_mode);
    assert_eq!(config.value("binlog_checksum").as_deref(), Some("NONE"));
}

#[test]
fn unknown_option_is_named() {
    let err = parse(&["--sync-binlog=1", "--no-such-thing=3"]).expect_err("unknown");
    assert!(
        matches!(&err, ConfigError::UnknownOption { name, origin: Origin::CommandLine } if name == "no-such-thing")
    );
    assert_eq!(err.to_string(), "unknown option '--no-such-thing' on the command line");
    assert!(matches!(parse(&["--skip-port"]), Err(ConfigError::UnknownOption { .. })));
    assert!(matches!(parse(&["port=1"]), Err(ConfigError::UnexpectedArgument(_))));
}

#[test]
fn loose_unknown_option_is_a_warning() {
    let (config, warnings) =
        Config::from_args(["--loose-innodb-buffer-pool-size=1G", "--loose-sync-binlog=5"])
            .expect("loose");
    assert_eq!(config.sync_binlog, 5);
    assert_eq!(warnings.len(), 1);
    assert!(warnings[0].contains("innodb-buffer-pool-size"), "{}", warnings[0]);
}

#[test]
fn bad_values_name_option_and_value() {
    let cases: &[(&str, &str)] = &[
        ("--sync-binlog=lots", "lots"),
        ("--sync-binlog=-1", "-1"),
        ("--port=70000", "70000"),
        ("--binlog-order-commits=maybe", "maybe"),
        ("--max-binlog-size=2G", "2G"),
        ("--max-binlog-size=12Q", "12Q"),
        ("--max-binlog-size=99999999999999999999G", "99999999999999999999G"),
        ("--binlog-checksum=MD5", "MD5"),
        ("--innodb-flush-log-at-trx-commit=3", "3"),
        ("--max-connections=0", "0"),
    ];
    for (arg, value) in cases {
        let err = parse(&[arg]).expect_err(arg);
        let ConfigError::BadValue { value: got, name, .. } = &err else {
            panic!("{arg}: {err}");
        };
        assert_eq!(got, value);
        let text = err.to_string();
        assert!(text.contains(name.as_str()) && text.contains(value), "{text}");
    }
    assert!(matches!(parse(&["--port"]), Err(ConfigError::MissingValue { .. })));
    assert!(matches!(
        parse(&["--server-uuid=1e2b6c2e-0000-4000-8000-000000000000"]),
        Err(ConfigError::NotAnOption { .. })
    ));
}

#[test]
fn option_file_sections_comments_and_precedence() {
    let dir = tempfile::tempdir().expect("tempdir");
    let file = dir.path().join("my.cnf");
    std::fs::write(
        &file,
        "# binlogd test\n\
         [client]\n\
         port=1\n\
         user=root\n\
         [mysqld]\n\
         sync_binlog = 3\n\
         max-binlog-size=64M   # small files\n\
         ; another comment\n\
         binlog_in_redo\n\
         skip-log-bin\n\
         [binlogd]\n\
         port=4000\n\
         datadir = \"/srv/binlogd data\"\n\
         sync-binlog=4\n\
         log-error=server.log\n\
         [mysqldump]\n\
         quick\n",
    )
    .expect("write");
    let defaults = format!("--defaults-file={}", file.display());
    let config = parse(&[&defaults]).expect("file");
    assert_eq!(config.port, 4000);
    assert_eq!(config.sync_binlog, 4, "later line wins");
    assert_eq!(config.max_binlog_size, 64 << 20);
    assert!(config.binlog_in_redo);
    assert_eq!(config.log_bin, None);
    assert_eq!(config.datadir, PathBuf::from("/srv/binlogd data"));
    assert_eq!(config.log_error, Some(PathBuf::from("/srv/binlogd data/server.log")));
    assert_eq!(config.defaults_file, Some(file.clone()));

    // The command line overrides the file, wherever --defaults-file stands.
    let config = parse(&["--sync-binlog=9", &defaults, "--port=5000"]).expect("override");
    assert_eq!(config.sync_binlog, 9);
    assert_eq!(config.port, 5000);
}

#[test]
fn option_file_errors_say_where() {
    let dir = tempfile::tempdir().expect("tempdir");
    let file = dir.path().join("my.cnf");
    std::fs::write(&file, "[mysqld]\nport=3306\nsync_binlog=often\n").expect("write");
    let err = parse(&[&format!("--defaults-file={}", file.display())]).expect_err("bad");
    assert!(matches!(&err, ConfigError::BadValue { origin: Origin::File { line: 3, .. }, .. }));
    assert!(err.to_string().contains("line 3"), "{err}");

    std::fs::write(&file, "[mysqld]\nfrobnicate=1\n").expect("write");
    let err = parse(&[&format!("--defaults-file={}", file.display())]).expect_err("unknown");
    assert!(matches!(
        &err,
        ConfigError::UnknownOption { origin: Origin::File { line: 2, .. }, .. }
    ));

    std::fs::write(&file, "[mysqld\n").expect("write");
    assert!(matches!(
        parse(&[&format!("--defaults-file={}", file.display())]),
        Err(ConfigError::FileSyntax { line: 1, .. })
    ));

    let missing = dir.path().join("missing.cnf");
    let err = parse(&[&format!("--defaults-file={}", missing.display())]).expect_err("missing");
    assert!(matches!(&err, ConfigError::ReadFile { .. }));
    assert!(std::error::Error::source(&err).is_some(), "io error kept as source");
}

#[test]
fn log_error_paths() {
    let bare = parse(&["--datadir=/d", "--log-error"]).expect("bare");
    assert_eq!(bare.log_error, Some(PathBuf::from("/d/binlogd.err")));
    let absolute = parse(&["--log-error=/var/log/b.err", "--datadir=/d"]).expect("abs");
    assert_eq!(absolute.log_error, Some(PathBuf::from("/var/log/b.err")));
    let relative = parse(&["--log-error=e.log", "--datadir=/d"]).expect("rel");
    assert_eq!(relative.log_error, Some(PathBuf::from("/d/e.log")), "datadir given after");
}

/// The README's configuration table, as the registry says it must read.
fn readme_variable_rows() -> Vec<String> {
    VARIABLES
        .iter()
        .map(|v| {
            let scope = match v.scope {
                Scope::Global => "global",
                Scope::Session => "session",
                Scope::Both => "global, session",
            };
            let how = match (v.startup_option, v.dynamic) {
                (true, true) => "`--option`, `SET`",
                (true, false) => "`--option`",
                (false, true) => "`SET`",
                (false, false) => "read only",
            };
            format!("| `{}` | `{}` | {} | {} | {} |", v.name, v.default, scope, how, v.help)
        })
        .collect()
}

/// The README's variables table is the registry's: every variable has its row with the current
/// default and help, and the table names no variable the server does not know.
#[test]
fn readme_lists_every_variable() {
    let readme = std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/../../README.md"))
        .expect("README.md at the repository root");
    let expected = readme_variable_rows();
    let section = readme
        .split("\n## ")
        .find(|s| s.starts_with("Configuration"))
        .expect("README.md has a `## Configuration` section");
    let table: Vec<&str> = section.lines().filter(|l| l.starts_with("| `")).collect();
    let missing: Vec<&String> =
        expected.iter().filter(|row| !table.contains(&row.as_str())).collect();
    let unknown: Vec<&&str> = table.iter().filter(|l| !expected.iter().any(|r| r == *l)).collect();
    assert!(
        missing.is_empty() && unknown.is_empty(),
        "README.md's variables table is out of date.\nmissing or changed rows: {missing:#?}\n\
         rows to remove: {unknown:#?}\nthe whole table:\n\
         | variable | default | scope | set by | meaning |\n|---|---|---|---|---|\n{}",
        expected.join("\n")
    );
}
