"""bench/compare's `data-size` scenario (issue 22): the same servers at several table sizes,
with memory, load time and restart time beside TPS.

Per size (rows per table, `--rows`, default 10 000 and 1 000 000; 4 tables as everywhere),
three servers, each on fresh data:
  - binlogd classic: --sync_binlog=1 --binlog_in_redo=OFF, durable;
  - binlogd in-redo: --sync_binlog=1 --binlog_in_redo=ON, durable;
  - MariaDB durable: bench/mariadb-anchor.sh's settings (sync_binlog=1,
    innodb_flush_log_at_trx_commit=1, 1 GiB buffer pool).
For each server, in this order:
  1. `sysbench oltp_update_non_index prepare` (100-row INSERTs, then CREATE INDEX on k),
     timed: "prepare s";
  2. resident memory after the load, from /proc/PID/status: VmRSS ("RSS MB") and VmHWM, the
     peak so far ("peak MB"); for MariaDB also its data and index bytes
     (information_schema.TABLES, DATA_LENGTH + INDEX_LENGTH of sbtest): "data+index MB";
  3. (after all servers are loaded) oltp_update_non_index at each thread count, the servers
     in turn per point (order rotated per point), `--time` seconds each: TPS and the server's
     CPU per transaction (utime + stime delta / transactions);
  4. a clean restart (SIGTERM, wait for the exit, start again, time until `SELECT 1`
     answers): "restart s"; then kill -9 and the same: "restart after kill -9 s", and the
     RSS once recovered.
Servers listen on 127.0.0.1 only (ports 3403, 3404 and compare.py's MariaDB 3402); every
step is bounded (prepare: 1 h, points: --time + 120 s, starts: 600 s).
"""

import csv
import os
import re
import shutil
import signal
import subprocess
import sys
import time

import compare as c
import compare_tpcc as tp

WORKLOAD = "oltp_update_non_index"
CONFIGS = ["binlogd classic", "binlogd in-redo", "MariaDB durable"]
START_SECONDS = 600


def status_kb(pid, field):
    """A /proc/PID/status field in kB (VmRSS, VmHWM)."""
    with open("/proc/%d/status" % pid) as f:
        for line in f:
            if line.startswith(field + ":"):
                return int(line.split()[1])
    return None


def mb(kb):
    return kb / 1024.0 if kb is not None else None


class Server:
    """One server of the scenario: started on fresh data, restarted on the same data."""

    def __init__(self, label):
        self.label, self.proc = label, None
        self.mariadb = label.startswith("MariaDB")
        self.port = c.MDB_PORT if self.mariadb else tp.PORTS[label]
        self.dir = c.MDB_DIR if self.mariadb else "/tmp/binlogd-compare-%d" % self.port

    def fresh(self):
        shutil.rmtree(self.dir, ignore_errors=True)
        os.makedirs(self.dir + ("/data" if self.mariadb else ""))
        if self.mariadb:
            c.run(["mariadb-install-db", "--no-defaults", "--datadir=%s/data" % self.dir,
                   "--user=root", "--auth-root-authentication-method=normal"])
        self.launch()
        c.client(self.port, "CREATE DATABASE sbtest")

    def launch(self):
        """Starts the server on its data; returns the seconds until it answered."""
        t0 = time.time()
        if self.mariadb:
            logfile = self.dir + "/err.log"
            cmd = ["mariadbd", "--no-defaults", "--datadir=%s/data" % self.dir,
                   "--socket=%s/sock" % self.dir, "--port=%d" % self.port,
                   "--bind-address=127.0.0.1", "--user=root",
                   "--log-bin=%s/data/binlog" % self.dir, "--server-id=1",
                   "--binlog-format=ROW", "--sync-binlog=1",
                   "--innodb-flush-log-at-trx-commit=1", "--innodb-buffer-pool-size=1G",
                   "--max-connections=2000", "--innodb-log-file-size=512M",
                   "--log-error=" + logfile, "--pid-file=%s/pid" % self.dir]
        else:
            logfile = self.dir + "/binlogd.log"
            cmd = [c.BINLOGD, "serve", "--datadir=%s/data" % self.dir, "--port=%d" % self.port,
                   "--bind-address=127.0.0.1", "--initialize-insecure",
                   "--innodb_flush_log_at_trx_commit=1", "--max-connections=2000",
                   "--log-error=" + logfile] + tp.BINLOGD_OPTIONS[self.label]
        self.proc = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        c.wait_port(self.port, self.proc, logfile, seconds=START_SECONDS)
        return time.time() - t0

    def restart(self, kill):
        """Stops the server (SIGKILL if `kill`, else SIGTERM and a clean shutdown), starts it
        again; returns the seconds from the new start until it answered."""
        self.proc.send_signal(signal.SIGKILL if kill else signal.SIGTERM)
        self.proc.wait(timeout=START_SECONDS)
        return self.launch()

    def stop(self):
        if self.proc and self.proc.poll() is None:
            self.proc.terminate()
            self.proc.wait(timeout=START_SECONDS)
        self.proc = None

    def data_index_mb(self):
        if not self.mariadb:
            return None
        out = c.client(self.port, "SELECT SUM(DATA_LENGTH + INDEX_LENGTH) FROM "
                       "information_schema.TABLES WHERE TABLE_SCHEMA = 'sbtest'").stdout.strip()
        return int(out) / 1048576.0 if out and out != "NULL" else None


def sysbench_args(port, table_size):
    args = c.sysbench_common(port)
    return [a if not a.startswith("--table-size=") else "--table-size=%d" % table_size
            for a in args]


def run_scenario(sizes, threads, seconds, progress):
    """Returns (per-size rows, TPS points, markdown lines)."""
    sizes_rows, points = [], []
    for size in sizes:
        servers = [Server(label) for label in CONFIGS]
        info = {}
        try:
            for s in servers:
                progress.show("data-size %d rows: %s prepare" % (size, s.label))
                s.fresh()
                t0 = time.time()
                c.run(["sysbench", WORKLOAD] + sysbench_args(s.port, size) + ["prepare"],
                      timeout=3600)
                info[s.label] = {
                    "table_size": size, "server": s.label,
                    "prepare_s": time.time() - t0,
                    "rss_mb": mb(status_kb(s.proc.pid, "VmRSS")),
                    "peak_mb": mb(status_kb(s.proc.pid, "VmHWM")),
                    "data_index_mb": s.data_index_mb()}
                progress.advance(30)
            for i, t in enumerate(threads):
                order = servers[i % len(servers):] + servers[:i % len(servers)]
                for s in order:
                    progress.show("data-size %d rows: %s t=%d" % (size, s.label, t))
                    cpu0 = tp.cpu_seconds(s.proc.pid)
                    r = c.run(["sysbench", WORKLOAD] + sysbench_args(s.port, size) + [
                        "--threads=%d" % t, "--time=%d" % seconds, "--report-interval=0",
                        "--rand-type=uniform", "run"], check=False, timeout=seconds + 120)
                    cpu = tp.cpu_seconds(s.proc.pid) - cpu0
                    m = re.search(r"transactions:\s+(\d+)\s+\(([\d.]+) per sec", r.stdout)
                    txns = int(m.group(1)) if m else 0
                    points.append({
                        "table_size": size, "server": s.label, "threads": t,
                        "tps": float(m.group(2)) if m else None,
                        "cpu_us_per_txn": 1e6 * cpu / txns if txns else None,
                        "note": "" if m else "sysbench failed: " + (
                            r.stderr or r.stdout).strip()[-200:]})
                    progress.advance(seconds + 4)
            for s in servers:
                progress.show("data-size %d rows: %s restarts" % (size, s.label))
                info[s.label]["restart_s"] = s.restart(kill=False)
                info[s.label]["restart_kill9_s"] = s.restart(kill=True)
                info[s.label]["rss_after_restart_mb"] = mb(status_kb(s.proc.pid, "VmRSS"))
                s.stop()
                progress.advance(20)
        finally:
            for s in servers:
                s.stop()
        sizes_rows += [info[label] for label in CONFIGS if label in info]
    for s in (Server(label) for label in CONFIGS):
        if not s.mariadb:
            shutil.rmtree(s.dir, ignore_errors=True)
    return sizes_rows, points, md_table(sizes_rows, points, sizes, threads, seconds)


def md_table(sizes_rows, points, sizes, threads, seconds):
    tps = {(p["table_size"], p["server"], p["threads"]): p for p in points}
    md = ["## data-size (issue 22)", "",
          "4 tables x N rows, `sysbench %s`, %d s per point, the servers in turn per point. "
          "RSS and peak: /proc/PID/status VmRSS and VmHWM after the load; restart: from the "
          "start until `SELECT 1` answers, after SIGTERM (clean) and after kill -9." % (
              WORKLOAD, seconds), "",
          "| rows/table | server | prepare s | RSS MB | peak MB | MariaDB data+index MB "
          "| restart s | restart after kill -9 s | RSS after restart MB | "
          + " | ".join("TPS %d thr (CPU µs/trx)" % t for t in threads) + " |",
          "|---:|---|" + "---:|" * (7 + len(threads))]
    for r in sizes_rows:
        cells = []
        for t in threads:
            p = tps.get((r["table_size"], r["server"], t), {})
            cells.append("%s (%s)" % (c.fmt(p.get("tps"), 0), c.fmt(p.get("cpu_us_per_txn"), 0)))
        md.append("| %d | %s | %s | %s | %s | %s | %s | %s | %s | %s |" % (
            r["table_size"], r["server"], c.fmt(r["prepare_s"]), c.fmt(r["rss_mb"], 0),
            c.fmt(r["peak_mb"], 0), c.fmt(r["data_index_mb"], 0), c.fmt(r.get("restart_s")),
            c.fmt(r.get("restart_kill9_s")), c.fmt(r.get("rss_after_restart_mb"), 0),
            " | ".join(cells)))
    md.append("")
    if len(sizes) > 1:
        small, big = sizes[0], sizes[-1]
        md += ["TPS at %d rows/table as a fraction of TPS at %d (issue 22's target: >= 0.90):" % (
            big, small), ""]
        for label in CONFIGS:
            fr = []
            for t in threads:
                a = tps.get((small, label, t), {}).get("tps")
                b = tps.get((big, label, t), {}).get("tps")
                fr.append("%d thr %s" % (t, c.fmt(b / a, 2) if a and b else "—"))
            md.append("- %s: %s" % (label, ", ".join(fr)))
        md.append("")
    return md


def plot(out, sizes_rows, points):
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    fig, axes = plt.subplots(1, 3, figsize=(15, 4.5))
    for i, label in enumerate(CONFIGS):
        style = dict(marker="o", color="C%d" % i,
                     linestyle="--" if label.startswith("MariaDB") else "-")
        mine = [r for r in sizes_rows if r["server"] == label]
        xs = [r["table_size"] for r in mine]
        axes[0].plot(xs, [r["rss_mb"] for r in mine], label=label + " RSS", **style)
        axes[1].plot(xs, [r.get("restart_kill9_s") for r in mine], label=label, **style)
        for t in sorted({p["threads"] for p in points}):
            pts = sorted((p["table_size"], p["tps"]) for p in points
                         if p["server"] == label and p["threads"] == t and p["tps"])
            if pts:
                axes[2].plot([p[0] for p in pts], [p[1] for p in pts],
                             label="%s %d thr" % (label, t), **style)
    for ax, title in zip(axes, ["resident memory after the load (MB)",
                                "restart after kill -9 (s)", "TPS (%s)" % WORKLOAD]):
        ax.set_xscale("log")
        tp.label_axes(ax, title, "rows per table (4 tables)")
    return tp.save_chart(plt, fig, out, "data-size.png")


def write_points(out, sizes_rows, points):
    keys = ["table_size", "server", "prepare_s", "rss_mb", "peak_mb", "data_index_mb",
            "restart_s", "restart_kill9_s", "rss_after_restart_mb"]
    with open(os.path.join(out, "data-size.csv"), "w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=keys, extrasaction="ignore")
        w.writeheader()
        for r in sizes_rows:
            w.writerow(r)
    with open(os.path.join(out, "data-size-points.csv"), "w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=["table_size", "server", "threads", "tps",
                                          "cpu_us_per_txn", "note"])
        w.writeheader()
        for p in points:
            w.writerow(p)


if __name__ == "__main__":
    sys.exit("run it through bench/compare data-size")
