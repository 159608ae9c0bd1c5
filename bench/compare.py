#!/usr/bin/python3
"""bench/compare: the same sysbench workloads against binlogd and MariaDB, interleaved.

Run it through `bench/compare` (which installs what is missing and builds binlogd). Writes
bench/results/<date>/: points.csv (every measured point), results.md (the table with the
binlogd/MariaDB ratio per point) and PNG charts drawn with matplotlib.

MariaDB is Debian's mariadb-server started with the durability settings of
bench/mariadb-anchor.sh (sync_binlog, innodb_flush_log_at_trx_commit=1, ROW binlog) in its
own directory (/tmp/mdb-compare) and port (3402). binlogd is target/release/binlogd serve on a
fresh data directory per configuration (/tmp/binlogd-compare, port 3403). Both run on
127.0.0.1 only, every point is bounded by --time.

binlogd's fsyncs per commit and group size come from SHOW GLOBAL STATUS deltas around each
point (Binlog_commits, Binlog_group_commits, Binlog_fsyncs, Innodb_os_log_fsyncs). MariaDB's
group size is Binlog_commits / Binlog_group_commits; its fsyncs per commit are estimated as
(Innodb_os_log_fsyncs + Binlog_group_commits when sync_binlog=1) / Binlog_commits, since
MariaDB counts no binlog fsyncs (marked "est." in the table), and left out ("—") where the
server has no Innodb_os_log_fsyncs (MariaDB 10.11, Debian 12's, has none).

MariaDB has no group-commit OFF switch and no binlog-in-redo: in those rows its column is
MariaDB's own (group commit, binlog file) at the same sync_binlog, the reference the seeds
compare against.

--device hdd|ssd makes every binlogd data-file flush sleep 6 700 / 800 us first (one at a
time: seed 001's 150 and 1 200 fsync/s) through vfs::LatencyVfs (binlogd's developer option
--simulated-fsync-latency-us). It is SIMULATED and applies to binlogd only: MariaDB keeps the
real disk. Every output says so.
"""

import argparse
import csv
import datetime
import os
import platform
import re
import shutil
import signal
import subprocess
import sys
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
# BINLOGD=path runs another binlogd binary (an A/B against an earlier build).
BINLOGD = os.environ.get("BINLOGD") or os.path.join(ROOT, "target", "release", "binlogd")
MDB_DIR, MDB_PORT = "/tmp/mdb-compare", 3402
BLD_DIR, BLD_PORT = "/tmp/binlogd-compare", 3403
TABLES, TABLE_SIZE = 4, 10000
DEVICES = {"hdd": 6700, "ssd": 800}

# Scenario -> list of (configuration label, binlogd serve options, MariaDB sync_binlog or None
# when MariaDB has no counterpart, workloads, threads full, threads quick).
def scenarios(quick):
    def th(full, small):
        return small if quick else full
    gc_threads = th([1, 4, 16, 64, 256, 1024], [1, 16])
    redo_threads = th([1, 16, 64, 256], [16])
    gtid_threads = th([32, 64, 128, 256, 512, 1024], [32, 256])
    wl_redo = ["oltp_update_non_index", "oltp_insert", "oltp_write_only"]
    return {
        "group-commit": [
            ("gc ON sync_binlog=1", ["--sync_binlog=1"], 1, ["oltp_update_non_index"], gc_threads),
            ("gc ON sync_binlog=0", ["--sync_binlog=0"], 0, ["oltp_update_non_index"], gc_threads),
            ("gc OFF sync_binlog=1", ["--sync_binlog=1", "--binlog-group-commit=OFF"], 1,
             ["oltp_update_non_index"], gc_threads),
            ("gc OFF sync_binlog=0", ["--sync_binlog=0", "--binlog-group-commit=OFF"], 0,
             ["oltp_update_non_index"], gc_threads),
        ],
        "binlog-in-redo": [
            ("classic", ["--sync_binlog=1", "--binlog_in_redo=OFF"], 1, wl_redo, redo_threads),
            ("in-redo", ["--sync_binlog=1", "--binlog_in_redo=ON"], 1, wl_redo, redo_threads),
        ],
        "gtid-concurrency": [
            ("gtid ON", ["--sync_binlog=1", "--gtid_mode=ON"], 1, ["oltp_update_non_index"],
             gtid_threads),
        ],
        # go-tpc TPC-C, run by bench/compare_tpcc.py (its own servers and table).
        "tpcc": [("tpcc", [], 1, ["go-tpc"], th([1, 8, 32, 128], [1, 8]))],
        # Table sizes (--rows) with memory, load and restart times, run by
        # bench/compare_datasize.py (its own servers: classic, in-redo, MariaDB durable).
        "data-size": [("data-size", [], 1, ["oltp_update_non_index"], th([1, 16, 64], [16]))],
        "preallocate": [
            ("preallocate OFF", ["--sync_binlog=1", "--binlog_preallocate=OFF"], 1, ["mysqlslap"],
             [1, 20, 50]),
            ("preallocate ON", ["--sync_binlog=1", "--binlog_preallocate=ON",
                                "--max_binlog_size=256M"], 1, ["mysqlslap"], [1, 20, 50]),
        ],
    }


def log(msg):
    sys.stderr.write("\r\033[K" + msg + "\n")
    sys.stderr.flush()


class Progress:
    """A text progress bar with the estimated time left (planned seconds of the points left)."""

    def __init__(self, total_seconds):
        self.total = max(total_seconds, 1.0)
        self.done = 0.0
        self.start = time.time()
        self.label = ""

    def show(self, label=None):
        if label is not None:
            self.label = label
        frac = min(self.done / self.total, 1.0)
        elapsed = time.time() - self.start
        # Scale the plan by how fast it has gone so far.
        left = max(self.total - self.done, 0) * (elapsed / self.done if self.done > 0 else 1.0)
        width = 30
        bar = "#" * int(frac * width) + "." * (width - int(frac * width))
        sys.stderr.write("\r\033[K[%s] %3d%%  ~%dm%02ds left  %s" % (
            bar, frac * 100, left // 60, left % 60, self.label[:60]))
        sys.stderr.flush()

    def advance(self, seconds):
        self.done += seconds
        self.show()


def run(cmd, check=True, **kw):
    return subprocess.run(cmd, check=check, capture_output=True, text=True, **kw)


def client(port, sql, db=None):
    cmd = ["mariadb", "--no-defaults", "--protocol=TCP", "-h127.0.0.1", "-P%d" % port, "-uroot",
           "--batch", "--skip-column-names", "-e", sql]
    if db:
        cmd.insert(-2, "-D" + db)
    return run(cmd)


def status(port):
    out = client(port, "SHOW GLOBAL STATUS").stdout
    vals = {}
    for line in out.splitlines():
        parts = line.split("\t")
        if len(parts) == 2:
            try:
                vals[parts[0]] = float(parts[1])
            except ValueError:
                pass
    return vals


def wait_port(port, proc, logfile, seconds=60):
    deadline = time.time() + seconds
    while time.time() < deadline:
        if proc.poll() is not None:
            raise RuntimeError("server exited; log %s:\n%s" % (logfile, open(logfile).read()[-2000:]))
        if client_ok(port):
            return
        time.sleep(0.2)
    raise RuntimeError("server on port %d not ready after %ds" % (port, seconds))


def client_ok(port):
    try:
        return client(port, "SELECT 1").returncode == 0
    except subprocess.CalledProcessError:
        return False


class MariaDB:
    def __init__(self):
        self.proc = None

    def start(self):
        shutil.rmtree(MDB_DIR, ignore_errors=True)
        os.makedirs(MDB_DIR + "/data")
        # Root with an empty password over TCP, like binlogd --initialize-insecure.
        run(["mariadb-install-db", "--no-defaults", "--datadir=%s/data" % MDB_DIR, "--user=root",
             "--auth-root-authentication-method=normal"])
        logfile = MDB_DIR + "/err.log"
        # The anchor's settings (bench/mariadb-anchor.sh); sync_binlog is set per point.
        self.proc = subprocess.Popen([
            "mariadbd", "--no-defaults", "--datadir=%s/data" % MDB_DIR,
            "--socket=%s/sock" % MDB_DIR, "--port=%d" % MDB_PORT, "--bind-address=127.0.0.1",
            "--user=root", "--log-bin=%s/data/binlog" % MDB_DIR, "--server-id=1",
            "--binlog-format=ROW", "--sync-binlog=1", "--innodb-flush-log-at-trx-commit=1",
            "--innodb-buffer-pool-size=1G", "--max-connections=2000",
            "--innodb-log-file-size=512M", "--log-error=" + logfile,
            "--pid-file=%s/pid" % MDB_DIR], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        wait_port(MDB_PORT, self.proc, logfile)
        client(MDB_PORT, "CREATE DATABASE sbtest")
        sysbench_prepare(MDB_PORT)

    def stop(self):
        if self.proc and self.proc.poll() is None:
            self.proc.send_signal(signal.SIGTERM)
            self.proc.wait(timeout=120)
        self.proc = None


class Binlogd:
    def __init__(self, latency_us):
        self.proc = None
        self.latency_us = latency_us

    def start(self, options):
        self.stop()
        shutil.rmtree(BLD_DIR, ignore_errors=True)
        os.makedirs(BLD_DIR)
        logfile = BLD_DIR + "/binlogd.log"
        cmd = [BINLOGD, "serve", "--datadir=%s/data" % BLD_DIR, "--port=%d" % BLD_PORT,
               "--bind-address=127.0.0.1", "--initialize-insecure",
               "--innodb_flush_log_at_trx_commit=1", "--max-connections=2000",
               "--log-error=" + logfile] + options
        if self.latency_us:
            cmd.append("--simulated-fsync-latency-us=%d" % self.latency_us)
        self.proc = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        wait_port(BLD_PORT, self.proc, logfile)
        client(BLD_PORT, "CREATE DATABASE sbtest")
        sysbench_prepare(BLD_PORT)

    def stop(self):
        if self.proc and self.proc.poll() is None:
            self.proc.send_signal(signal.SIGTERM)
            self.proc.wait(timeout=120)
        self.proc = None


def sysbench_common(port):
    return ["--db-driver=mysql", "--mysql-host=127.0.0.1", "--mysql-port=%d" % port,
            "--mysql-user=root", "--mysql-db=sbtest", "--tables=%d" % TABLES,
            "--table-size=%d" % TABLE_SIZE]


def sysbench_prepare(port):
    run(["sysbench", "oltp_update_non_index"] + sysbench_common(port) + ["prepare"])


def sysbench_point(port, workload, threads, seconds):
    """Returns (tps, p95 ms, errors, note)."""
    r = run(["sysbench", workload] + sysbench_common(port) + [
        "--threads=%d" % threads, "--time=%d" % seconds, "--report-interval=0",
        "--rand-type=uniform", "run"], check=False, timeout=seconds + 120)
    if r.returncode != 0:
        return None, None, None, ("sysbench failed: " + (r.stderr or r.stdout).strip()[-200:])
    tps = re.search(r"transactions:\s+\d+\s+\(([\d.]+) per sec", r.stdout)
    p95 = re.search(r"95th percentile:\s+([\d.]+)", r.stdout)
    errs = re.search(r"ignored errors:\s+(\d+)", r.stdout)
    return (float(tps.group(1)) if tps else None, float(p95.group(1)) if p95 else None,
            int(errs.group(1)) if errs else None, "")


SLAP_QUERIES_PER_CONN = 200


def mysqlslap_point(port, conns):
    """seed 004's load: single-row INSERT commits from N connections. Returns (commits/s, note)."""
    queries = conns * SLAP_QUERIES_PER_CONN
    # --skip-ssl: the MariaDB client takes TLS whenever the server offers it, and binlogd does
    # (MariaDB here does not); a TLS set-up per connection costs the client ~50 ms of CPU, which
    # would dominate this short load and measure the client's TLS, not commits.
    r = run(["mysqlslap", "--no-defaults", "--skip-ssl", "--protocol=TCP", "-h127.0.0.1",
             "-P%d" % port,
             "-uroot", "--create-schema=slap%d" % conns,
             "--create=CREATE TABLE t (id INT AUTO_INCREMENT PRIMARY KEY, v VARCHAR(64))",
             "--query=INSERT INTO t (v) VALUES ('mysqlslap insert load of seed 004')",
             "--concurrency=%d" % conns, "--number-of-queries=%d" % queries, "--iterations=1"],
            check=False, timeout=600)
    m = re.search(r"Average number of seconds to run all queries:\s+([\d.]+)", r.stdout)
    if r.returncode != 0 or not m:
        return None, "mysqlslap failed: " + (r.stderr or r.stdout).strip().replace("\n", " ")[-200:]
    secs = float(m.group(1))
    return (queries / secs if secs > 0 else None), ""


def deltas(before, after, mariadb, sync_binlog):
    d = {k: after.get(k, 0) - before.get(k, 0) for k in after}
    commits = d.get("Binlog_commits", 0)
    groups = d.get("Binlog_group_commits", 0)
    group = commits / groups if groups else None
    if mariadb:
        if "Innodb_os_log_fsyncs" not in after:
            # MariaDB 10.8+ dropped the redo fsync counter: no honest estimate, leave it out.
            return None, group, None, None
        fs = d.get("Innodb_os_log_fsyncs", 0) + (groups if sync_binlog else 0)
    else:
        fs = d.get("Binlog_fsyncs", 0) + d.get("Innodb_os_log_fsyncs", 0)
    return (fs / commits if commits else None), group, d.get("Binlog_fsyncs"), d.get(
        "Innodb_os_log_fsyncs")


def fmt(v, digits=1):
    if v is None:
        return "—"
    return ("%%.%df" % digits) % v


def machine():
    cores = os.cpu_count()
    mem = ""
    try:
        for line in open("/proc/meminfo"):
            if line.startswith("MemTotal"):
                mem = "%.1f GiB" % (int(line.split()[1]) / 1048576)
    except OSError:
        pass
    fs = run(["stat", "-f", "-c", "%T", "/tmp"], check=False).stdout.strip()
    return "%s, %d cores, %s RAM, /tmp on %s, kernel %s" % (
        platform.machine(), cores, mem, fs, platform.release())


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("scenario", nargs="*", help="group-commit binlog-in-redo gtid-concurrency "
                    "preallocate tpcc data-size (default: all)")
    ap.add_argument("--quick", action="store_true", help="smoke run: few points, short")
    ap.add_argument("--time", type=int, help="seconds per sysbench point (default 20, quick 3)")
    ap.add_argument("--device", choices=sorted(DEVICES), help="SIMULATED fsync latency for binlogd")
    ap.add_argument("--out", help="results directory (default bench/results/<date>)")
    ap.add_argument("--warehouses", type=int, default=2, help="tpcc: warehouses (default 2)")
    ap.add_argument("--threads", help="tpcc, data-size: comma-separated thread counts "
                    "(default 1,8,32,128 and 1,16,64)")
    ap.add_argument("--rows", help="data-size: comma-separated rows per table (default "
                    "10000,1000000; quick 10000,100000)")
    args = ap.parse_args()
    all_sc = scenarios(args.quick)
    names = args.scenario or list(all_sc)
    for n in names:
        if n not in all_sc:
            ap.error("unknown scenario %r (have: %s)" % (n, ", ".join(all_sc)))
    seconds = args.time or (3 if args.quick else 20)
    latency = DEVICES.get(args.device, 0)
    device = ("simulated %s: %d us per binlogd flush (MariaDB on the real disk)" % (
        args.device, latency)) if latency else "real disk"
    stamp = datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%dT%H%MZ")
    out = args.out or os.path.join(ROOT, "bench", "results", stamp + ("-quick" if args.quick else ""))
    os.makedirs(out, exist_ok=True)

    # Planned seconds: each sysbench point twice (binlogd, MariaDB) plus ~4 s of overhead;
    # server starts and table preparation ~15 s per configuration.
    plan = 0.0
    sizes = [int(x) for x in (args.rows or ("10000,100000" if args.quick
                                             else "10000,1000000")).split(",")]
    for n in names:
        if n == "data-size":
            # Per size: three loads (~30 s per million rows each), the points, two restarts each.
            per_size = 3 * (10 + 30 * TABLES * max(sizes) / 4e6 + 2 * 20)
            plan += len(sizes) * per_size + len(sizes) * 3 * len(all_sc[n][0][4]) * (seconds + 4)
            continue
        for (_, _, _, wls, threads) in all_sc[n]:
            plan += 15
            for wl in wls:
                per = {"mysqlslap": 20, "go-tpc": 4 * (seconds + 4)}.get(wl, 2 * (seconds + 4))
                plan += len(threads) * per + (180 if wl == "go-tpc" else 0)
    if "preallocate" in names:
        plan += 30
    progress = Progress(plan)
    tpcc_md = []
    if "data-size" in names:
        import compare_datasize
        names = [n for n in names if n != "data-size"]
        threads = ([int(x) for x in args.threads.split(",")] if args.threads
                   else all_sc["data-size"][0][4])
        size_rows, size_points, size_md = compare_datasize.run_scenario(
            sizes, threads, seconds, progress)
        compare_datasize.write_points(out, size_rows, size_points)
        tpcc_md += size_md + ["![data-size](%s)" % compare_datasize.plot(
            out, size_rows, size_points), ""]
        if not names:
            write_results(out, [], tpcc_md, args, device, seconds)
            print("results in %s" % out)
            return
    if "tpcc" in names:
        import compare_tpcc
        names = [n for n in names if n != "tpcc"]
        threads = ([int(x) for x in args.threads.split(",")] if args.threads
                   else all_sc["tpcc"][0][4])
        tpcc_rows, tpcc_md = compare_tpcc.run_scenario(threads, seconds, args.warehouses, progress)
        compare_tpcc.write_points(out, tpcc_rows)
        tpcc_md += ["![tpcc](%s)" % compare_tpcc.plot(out, tpcc_rows), ""]
        if not names:
            write_results(out, [], tpcc_md, args, device, seconds)
            print("results in %s" % out)
            return
    mdb = MariaDB()
    bld = Binlogd(latency)
    rows = []
    extra_md = []
    try:
        progress.show("starting MariaDB")
        mdb.start()
        progress.advance(10)
        for n in names:
            if n == "preallocate":
                progress.show("binlogd bench fsync")
                r = run([BINLOGD, "bench", "fsync", "--count", "2000" if args.quick else "20000",
                         "--max-seconds", "3" if args.quick else "10", "--dir", "/tmp"],
                        check=False, timeout=600)
                extra_md.append("### preallocate: raw fdatasync table (`binlogd bench fsync`, "
                                "real disk)\n\n```\n%s\n```\n" % (r.stdout + r.stderr).strip())
                progress.advance(30)
            for (label, options, mdb_sync, wls, threads) in all_sc[n]:
                progress.show("%s: starting binlogd (%s)" % (n, label))
                bld.start(options)
                progress.advance(15)
                for wl in wls:
                    for t in threads:
                        for server in ("binlogd", "mariadb"):
                            port = BLD_PORT if server == "binlogd" else MDB_PORT
                            progress.show("%s %s %s %s t=%d" % (n, label, wl, server, t))
                            if server == "mariadb":
                                client(MDB_PORT, "SET GLOBAL sync_binlog=%d" % mdb_sync)
                            before = status(port)
                            note = ""
                            if wl == "mysqlslap":
                                tps, note = mysqlslap_point(port, t)
                                p95 = errors = None
                            else:
                                tps, p95, errors, note = sysbench_point(port, wl, t, seconds)
                            after = status(port)
                            fpc, group, bfs, rfs = deltas(before, after, server == "mariadb",
                                                          mdb_sync)
                            rows.append({
                                "scenario": n, "config": label, "workload": wl, "threads": t,
                                "server": server, "tps": tps, "p95_ms": p95, "errors": errors,
                                "fsyncs_per_commit": fpc, "avg_group": group,
                                "binlog_fsyncs": bfs, "redo_fsyncs": rfs,
                                "device": device if server == "binlogd" else "real disk",
                                "note": note})
                            if note:
                                log("%s %s %s %s t=%d: %s" % (n, label, wl, server, t, note))
                            progress.advance(seconds + 4 if wl != "mysqlslap" else 10)
                bld.stop()
    finally:
        bld.stop()
        mdb.stop()
    sys.stderr.write("\n")
    write_results(out, rows, extra_md + tpcc_md, args, device, seconds)
    print("results in %s" % out)


def write_results(out, rows, extra_md, args, device, seconds):
    keys = ["scenario", "config", "workload", "threads", "server", "tps", "p95_ms", "errors",
            "fsyncs_per_commit", "avg_group", "binlog_fsyncs", "redo_fsyncs", "device", "note"]
    with open(os.path.join(out, "points.csv"), "w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=keys)
        w.writeheader()
        for r in rows:
            w.writerow(r)
    cmd = "bench/compare " + " ".join(sys.argv[1:])
    md = ["# bench/compare results", "",
          "Date (UTC): %s  " % datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d %H:%M"),
          "Command: `%s`  " % cmd.strip(),
          "Machine: %s  " % machine(),
          "Load average at the end: %s  " % " ".join(open("/proc/loadavg").read().split()[:3]),
          "Seconds per sysbench point: %d; %d tables x %d rows; binlogd device: **%s**" % (
              seconds, TABLES, TABLE_SIZE, device), "",
          "MariaDB: %s, sync_binlog per row, innodb_flush_log_at_trx_commit=1, binlog ROW. "
          "MariaDB fsyncs/commit are estimated (est.) from Innodb_os_log_fsyncs and binlog groups, "
          "\"—\" when the server has no Innodb_os_log_fsyncs. MariaDB has no group commit OFF and "
          "no binlog-in-redo: in those rows its column is MariaDB's own group commit with a "
          "binlog file at the row's sync_binlog." % run(
              ["mariadbd", "--version"], check=False).stdout.strip(), ""]
    md += extra_md
    for n in dict.fromkeys(r["scenario"] for r in rows):
        md += ["## %s" % n, "",
               "| config | workload | threads | binlogd TPS | MariaDB TPS | ratio | binlogd p95 ms "
               "| MariaDB p95 ms | binlogd fsync/commit | MariaDB fsync/commit (est.) "
               "| binlogd group | MariaDB group | notes |",
               "|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---|"]
        pts = {}
        for r in rows:
            if r["scenario"] == n:
                pts.setdefault((r["config"], r["workload"], r["threads"]), {})[r["server"]] = r
        for (config, wl, t), p in pts.items():
            b, m = p.get("binlogd", {}), p.get("mariadb", {})
            ratio = (b["tps"] / m["tps"]) if b.get("tps") and m.get("tps") else None
            notes = "; ".join(x for x in (b.get("note"), m.get("note") and "MariaDB: " + m["note"])
                              if x)
            md.append("| %s | %s | %d | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s |" % (
                config, wl, t, fmt(b.get("tps")), fmt(m.get("tps")), fmt(ratio, 2),
                fmt(b.get("p95_ms"), 2), fmt(m.get("p95_ms"), 2),
                fmt(b.get("fsyncs_per_commit"), 3), fmt(m.get("fsyncs_per_commit"), 3),
                fmt(b.get("avg_group"), 1), fmt(m.get("avg_group"), 1), notes.replace("|", "/")))
        md.append("")
    charts = plot(out, rows, device)
    md += ["## Charts", ""] + ["![%s](%s)" % (c, c) for c in charts] + [""]
    with open(os.path.join(out, "results.md"), "w") as f:
        f.write("\n".join(md))


def plot(out, rows, device):
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    made = []
    metrics = [("tps", "TPS", "tps"), ("p95_ms", "p95 latency (ms)", "p95"),
               ("fsyncs_per_commit", "fsyncs per commit", "fsyncs"),
               ("avg_group", "average group size (commits)", "group")]
    def series_name(r):
        if r["server"] == "mariadb":
            # MariaDB is measured beside every binlogd configuration; configurations that
            # share its settings give repeated measurements, averaged into one line.
            return "MariaDB sync_binlog=%s %s" % (
                "0" if "sync_binlog=0" in r["config"] else "1", r["workload"])
        return "binlogd %s %s" % (r["config"], r["workload"])

    for n in dict.fromkeys(r["scenario"] for r in rows):
        sc = [r for r in rows if r["scenario"] == n]
        names = sorted(dict.fromkeys(series_name(r) for r in sc))
        colors = {name: "C%d" % (i % 10) for i, name in enumerate(names)}
        fig, axes = plt.subplots(2, 2, figsize=(12, 8))
        for ax, (key, title, _) in zip(axes.flat, metrics):
            series = {}
            for r in sc:
                if r[key] is None:
                    continue
                series.setdefault(series_name(r), {}).setdefault(r["threads"], []).append(r[key])
            for name, pts in sorted(series.items()):
                xs = sorted(pts)
                ax.plot(xs, [sum(pts[x]) / len(pts[x]) for x in xs], marker="o",
                        color=colors[name],
                        linestyle="--" if name.startswith("MariaDB") else "-", label=name)
            ax.set_xscale("log", base=2)
            ax.set_xlabel("threads (connections)")
            ax.set_title(title + (" (MariaDB est.)" if key == "fsyncs_per_commit" else ""))
            ax.grid(True, alpha=0.3)
            if series:
                ax.legend(fontsize=6)
        fig.suptitle("%s — binlogd device: %s" % (n, device))
        fig.tight_layout()
        name = "%s.png" % n
        fig.savefig(os.path.join(out, name), dpi=80)
        plt.close(fig)
        made.append(name)
    return made


if __name__ == "__main__":
    main()
