"""bench/compare's `tpcc` scenario: go-tpc TPC-C against binlogd and MariaDB, interleaved.

Four servers' configurations, each point measured back to back at the same thread count
before the next thread count (so machine noise hits every configuration alike):
  - binlogd classic: --sync_binlog=1 --binlog_in_redo=OFF, durable (fsync per group commit);
  - binlogd in-redo: --sync_binlog=1 --binlog_in_redo=ON, durable;
  - MariaDB durable: sync_binlog=1, innodb_flush_log_at_trx_commit=1 (bench/mariadb-anchor.sh);
  - MariaDB non-durable: sync_binlog=0, innodb_flush_log_at_trx_commit=2 (the same server,
    switched with SET GLOBAL before its points).
Each binlogd configuration is its own server with its own data (ports 3403, 3404); MariaDB is
one server (port 3402). Each dataset is loaded once by `go-tpc tpcc prepare` (its own checks
skipped: --no-check) and the runs then continue on it, as go-tpc's own workflow does.

Per point: tpmC (go-tpc's, NEW_ORDER commits per minute), every transaction committed
(the five types), go-tpc's error rows (`*_ERR`), and the server's CPU per transaction: the
utime+stime delta of the server process (/proc/PID/stat) over the point divided by the
transactions it committed. go-tpc is github.com/pingcap/go-tpc at the version
crates/binlogd/tests/drivers/install.sh pins, installed by it into target/drivers.
"""

import os
import re
import subprocess
import sys
import time

import compare as c

PORTS = {"binlogd classic": 3403, "binlogd in-redo": 3404, "MariaDB durable": c.MDB_PORT,
         "MariaDB non-durable": c.MDB_PORT}
BINLOGD_OPTIONS = {"binlogd classic": ["--sync_binlog=1", "--binlog_in_redo=OFF"],
                   "binlogd in-redo": ["--sync_binlog=1", "--binlog_in_redo=ON"]}
# TPCC_BASELINE=path to another binlogd binary (e.g. main's) adds a fifth configuration,
# "baseline classic": that binary, durable, classic mode, its own data (port 3405), in the
# same interleaved run, for before/after comparisons.
BASELINE = os.environ.get("TPCC_BASELINE")
BINARIES = {}
if BASELINE:
    PORTS["baseline classic"] = 3405
    BINLOGD_OPTIONS["baseline classic"] = BINLOGD_OPTIONS["binlogd classic"]
    BINARIES["baseline classic"] = BASELINE
MARIADB_SETTINGS = {"MariaDB durable": (1, 1), "MariaDB non-durable": (0, 2)}
CONFIGS = list(PORTS)


def gotpc_binary():
    target = os.path.join(c.ROOT, "target")
    r = c.run(["bash", os.path.join(c.ROOT, "crates/binlogd/tests/drivers/install.sh"), target,
               "gotpc"], check=False)
    if r.returncode != 0:
        raise RuntimeError("installing go-tpc failed: " + r.stdout + r.stderr)
    return os.path.join(target, "drivers", "go-tpc")


def cpu_seconds(pid):
    """utime + stime of a process, in seconds."""
    with open("/proc/%d/stat" % pid) as f:
        fields = f.read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def gotpc(binary, port, warehouses, args, timeout):
    cmd = [binary, "tpcc", "-H", "127.0.0.1", "-P", str(port), "-U", "root", "-D", "tpcc",
           "--warehouses", str(warehouses)] + args
    return subprocess.run(cmd, capture_output=True, text=True, timeout=timeout, check=False)


def parse_run(text):
    """(tpmC, transactions committed, error count) of a go-tpc run's summary."""
    tpmc = re.search(r"^tpmC: ([\d.]+)", text, re.M)
    txns = errors = 0
    for m in re.finditer(r"^\[Summary\] (\S+)\s+- Takes\(s\): [\d.]+, Count: (\d+)", text, re.M):
        if m.group(1).endswith("_ERR"):
            errors += int(m.group(2))
        else:
            txns += int(m.group(2))
    return (float(tpmc.group(1)) if tpmc else None), txns, errors


class Binlogd:
    def __init__(self, label):
        self.label, self.port, self.proc = label, PORTS[label], None
        self.dir = "/tmp/binlogd-compare-%d" % self.port

    def start(self):
        import shutil
        shutil.rmtree(self.dir, ignore_errors=True)
        os.makedirs(self.dir)
        logfile = self.dir + "/binlogd.log"
        cmd = [BINARIES.get(self.label, c.BINLOGD), "serve", "--datadir=%s/data" % self.dir,
               "--port=%d" % self.port,
               "--bind-address=127.0.0.1", "--initialize-insecure",
               "--innodb_flush_log_at_trx_commit=1", "--max-connections=2000",
               "--log-error=" + logfile] + BINLOGD_OPTIONS[self.label]
        self.proc = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        c.wait_port(self.port, self.proc, logfile)

    def stop(self):
        if self.proc and self.proc.poll() is None:
            self.proc.terminate()
            self.proc.wait(timeout=120)
        self.proc = None


def run_scenario(threads, seconds, warehouses, progress):
    """Returns (rows, markdown lines)."""
    binary = gotpc_binary()
    mdb = c.MariaDB()
    servers = {label: Binlogd(label) for label in BINLOGD_OPTIONS}
    rows = []
    prep_notes = []
    try:
        progress.show("tpcc: starting MariaDB")
        mdb.start()
        for b in servers.values():
            b.start()
        pids = {label: servers[label].proc.pid if label in servers else mdb.proc.pid
                for label in CONFIGS}
        # The three loads at once (each server its own data).
        progress.show("tpcc: go-tpc prepare (%d warehouses) on every server" % warehouses)
        loads = {}
        t0 = time.time()
        for port in sorted(set(PORTS.values())):
            c.client(port, "CREATE DATABASE tpcc")
            cmd = [binary, "tpcc", "-H", "127.0.0.1", "-P", str(port), "-U", "root", "-D", "tpcc",
                   "--warehouses", str(warehouses), "prepare", "-T", "4", "--no-check"]
            loads[port] = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                                           text=True)
        for port, p in loads.items():
            text = p.communicate(timeout=3600)[0]
            if p.returncode != 0 or "failed" in text:
                raise RuntimeError("go-tpc prepare on port %d failed:\n%s" % (port, text[-3000:]))
            prep_notes.append("port %d loaded after %.0f s" % (port, time.time() - t0))
        progress.advance(180)
        for i, t in enumerate(threads):
            # Rotate the order per thread count: no configuration always runs first.
            order = CONFIGS[i % len(CONFIGS):] + CONFIGS[:i % len(CONFIGS)]
            for label in order:
                port = PORTS[label]
                if label in MARIADB_SETTINGS:
                    sb, fl = MARIADB_SETTINGS[label]
                    c.client(port, "SET GLOBAL sync_binlog=%d; "
                             "SET GLOBAL innodb_flush_log_at_trx_commit=%d" % (sb, fl))
                progress.show("tpcc %s t=%d" % (label, t))
                cpu0 = cpu_seconds(pids[label])
                r = gotpc(binary, port, warehouses,
                          ["run", "-T", str(t), "--time", "%ds" % seconds,
                           "--interval", "%ds" % max(seconds, 1), "--ignore-error"],
                          seconds + 300)
                cpu = cpu_seconds(pids[label]) - cpu0
                tpmc, txns, errors = parse_run(r.stdout)
                note = ""
                if r.returncode != 0 or tpmc is None:
                    note = "go-tpc failed: " + (r.stderr or r.stdout).strip()[-200:]
                    c.log("tpcc %s t=%d: %s" % (label, t, note))
                rows.append({"scenario": "tpcc", "config": label, "workload": "go-tpc tpcc",
                             "threads": t, "server": label, "tps": tpmc, "txns": txns,
                             "errors": errors,
                             "cpu_ms_per_txn": (1000 * cpu / txns) if txns else None,
                             "note": note})
                progress.advance(seconds + 4)
    finally:
        for b in servers.values():
            b.stop()
        mdb.stop()
    return rows, md_table(rows, threads, seconds, warehouses, prep_notes)


def md_table(rows, threads, seconds, warehouses, prep_notes):
    pts = {(r["config"], r["threads"]): r for r in rows}
    md = ["## tpcc (go-tpc TPC-C)", "",
          "%d warehouses, %d s per point, go-tpc `run` without keying/thinking time, "
          "every configuration at a thread count back to back (order rotated). Loads: %s." % (
              warehouses, seconds, "; ".join(prep_notes)), "",
          "tpmC (errors) and server CPU per transaction:", "",
          "| threads | " + " | ".join(CONFIGS) + " | classic / MariaDB durable "
          "| in-redo / MariaDB durable | classic / MariaDB non-durable |",
          "|---:|" + "---:|" * (len(CONFIGS) + 3)]
    def ratio(a, b):
        x, y = pts.get((a, t), {}).get("tps"), pts.get((b, t), {}).get("tps")
        return c.fmt(x / y, 2) if x and y else "—"
    for t in threads:
        cells = []
        for label in CONFIGS:
            p = pts.get((label, t), {})
            cells.append("%s (%s err), %s ms CPU/txn" % (
                c.fmt(p.get("tps")), p.get("errors", "—"), c.fmt(p.get("cpu_ms_per_txn"), 2)))
        md.append("| %d | %s | %s | %s | %s |" % (
            t, " | ".join(cells), ratio("binlogd classic", "MariaDB durable"),
            ratio("binlogd in-redo", "MariaDB durable"),
            ratio("binlogd classic", "MariaDB non-durable")))
    md.append("")
    return md


def plot(out, rows):
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    fig, axes = plt.subplots(1, 2, figsize=(12, 4.5))
    for ax, (key, title) in zip(axes, [("tps", "tpmC (go-tpc TPC-C)"),
                                       ("cpu_ms_per_txn", "server CPU ms per transaction")]):
        for i, label in enumerate(CONFIGS):
            pts = sorted((r["threads"], r[key]) for r in rows
                         if r["config"] == label and r[key] is not None)
            if pts:
                ax.plot([p[0] for p in pts], [p[1] for p in pts], marker="o", color="C%d" % i,
                        linestyle="--" if label.startswith("MariaDB") else "-", label=label)
        ax.set_xscale("log", base=2)
        label_axes(ax, title, "threads (connections)")
    return save_chart(plt, fig, out, "tpcc.png")


def label_axes(ax, title, xlabel):
    """The titles, grid and legend every chart of the TPC-C and data-size scenarios shares."""
    ax.set_xlabel(xlabel)
    ax.set_title(title)
    ax.grid(True, alpha=0.3)
    ax.legend(fontsize=7)


def save_chart(plt, fig, out, name):
    """Writes the chart to OUT/NAME and returns NAME (for the report's image link)."""
    fig.tight_layout()
    fig.savefig(os.path.join(out, name), dpi=80)
    plt.close(fig)
    return name


def write_points(out, rows):
    import csv
    keys = ["scenario", "config", "threads", "tps", "txns", "errors", "cpu_ms_per_txn", "note"]
    with open(os.path.join(out, "tpcc-points.csv"), "w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=keys, extrasaction="ignore")
        w.writeheader()
        for r in rows:
            w.writerow(r)


if __name__ == "__main__":
    sys.exit("run it through bench/compare tpcc")
