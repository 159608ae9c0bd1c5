#!/usr/bin/env bash
# Fault runs of the crash campaign (issue 6), bounded (each run under `timeout`):
#  1. fdatasync fails with EIO after the server's first N calls (strace fault injection), in
#     classic and binlog-in-redo mode: commits must be refused with a MySQL error, nothing
#     acknowledged may be lost, and the server must recover after a restart (the injection
#     counts from each start, so recovery itself syncs successfully);
#  2. disk full: the data directory on a 64 MiB tmpfs, filled with a ballast file during the
#     load: commits refused with a MySQL error (ENOSPC), data intact after the ballast is
#     deleted and the server restarted.
# `binlogd torture` does the checking (see crates/tools/src/torture.rs); this script only sets
# up the faults. Needs root (mount) and strace (installed when missing).
#
# Usage: bench/torture-faults.sh [cycles]     (default 3 per run)
set -euo pipefail
cycles=${1:-3}
here=$(cd "$(dirname "$0")/.." && pwd)
if ! command -v strace >/dev/null; then
  apt-get update -qq
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq strace >/dev/null
fi
cargo build --release -q -p binlogd --manifest-path "$here/Cargo.toml"
bin="$here/target/release/binlogd"
# 60 successful fdatasyncs per start: enough for initialization, recovery and a clean
# shutdown, few enough that the load reaches the failing ones within a second.
inject="strace -f -qq --seccomp-bpf -o /dev/null -e trace=fdatasync -e inject=fdatasync:error=EIO:when=60+"

for mode in classic in-redo; do
  echo "== fdatasync -> EIO from the 60th call, mode $mode =="
  timeout 600 "$bin" torture --cycles "$cycles" --clients 4 --seconds-per-cycle 3 --seed 6 \
    --mode "$mode" --server-wrapper "$inject" --expect-refusals
done

echo "== disk full: 64 MiB tmpfs filled during the load =="
mnt=$(mktemp -d /tmp/binlogd-diskfull-XXXXXX)
mount -t tmpfs -o size=64m tmpfs "$mnt"
trap 'umount "$mnt" 2>/dev/null; rmdir "$mnt"' EXIT
timeout 600 "$bin" torture --cycles "$cycles" --clients 4 --seconds-per-cycle 3 --seed 7 \
  --dir "$mnt" --fill-disk --expect-refusals
echo "all fault runs passed"
