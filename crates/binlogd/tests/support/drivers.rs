//! The real clients the tests build or fetch (`tests/drivers/install.sh`, which caches them
//! under `<target>/drivers/`; scripts/test.sh runs it first, so a test's own call is a cache
//! look-up).

use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Instant;

/// The driver programs' directory (`tests/drivers`).
pub fn programs() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/drivers")
}

/// The cargo target directory (the binary under test is `<target>/release/binlogd`).
pub fn target_dir() -> PathBuf {
    let bin = Path::new(env!("CARGO_BIN_EXE_binlogd"));
    bin.parent().and_then(Path::parent).expect("target dir").to_path_buf()
}

/// `install.sh TARGET part`, which must succeed; returns `<target>/drivers`.
pub fn install(part: &str) -> PathBuf {
    let started = Instant::now();
    let out = Command::new("bash")
        .arg(programs().join("install.sh"))
        .arg(target_dir())
        .arg(part)
        .output()
        .expect("run install.sh");
    assert!(
        out.status.success(),
        "install.sh {part}: {}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    eprintln!("install {part}: {:?}", started.elapsed());
    target_dir().join("drivers")
}

/// The lines a python-mysql-replication script of `tests/python/` (e.g. `stream_rows.py`,
/// `stream_typed_rows.py`: python-mysql-replication unmodified, which scripts/test.sh installs)
/// prints for `args`, run with `TZ=UTC`; the script must succeed.
pub async fn python_lines(script: &str, args: &[&str]) -> Vec<String> {
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/python").join(script);
    let args: Vec<String> = args.iter().map(|a| a.to_string()).collect();
    let output = tokio::task::spawn_blocking(move || {
        Command::new("python3")
            .arg(&script)
            .args(&args)
            .env("TZ", "UTC")
            .output()
            .expect("run python3 (scripts/test.sh installs mysql-replication)")
    })
    .await
    .expect("join");
    assert!(output.status.success(), "{}", String::from_utf8_lossy(&output.stderr));
    String::from_utf8_lossy(&output.stdout).lines().map(str::to_string).collect()
}
