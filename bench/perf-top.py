#!/usr/bin/env python3
"""Self time by function of a `perf record` profile, with the binary's symbols resolved by
addr2line: perf 6.1 on this machine cannot read the Rust binary's debug info and prints raw
offsets. Usage: bench/perf-top.py PERF_DATA BINARY [N]"""
import collections, re, subprocess, sys

data, binary = sys.argv[1], sys.argv[2]
top = int(sys.argv[3]) if len(sys.argv) > 3 else 40
out = subprocess.run(["perf", "report", "-i", data, "--no-children", "--stdio", "--sort",
                      "dso,sym", "-g", "none", "--percent-limit", "0"],
                     capture_output=True, text=True).stdout
line_re = re.compile(r"^\s*([\d.]+)%\s+(\S+)\s+\[(.)\]\s+(.*)$")
counts = collections.Counter()
unresolved = []
for line in out.splitlines():
    m = line_re.match(line)
    if not m:
        continue
    pct, dso, _, sym = float(m.group(1)), m.group(2), m.group(3), m.group(4).strip()
    if dso == "binlogd" and sym.startswith("0x"):
        unresolved.append((sym, pct))
    else:
        counts[f"{sym} [{dso}]"] += pct
# perf prints file offsets; addr2line wants virtual addresses: add the executable segment's
# (vaddr - offset).
delta = 0
for seg in subprocess.run(["readelf", "-lW", binary], capture_output=True, text=True).stdout.splitlines():
    f = seg.split()
    if f and f[0] == "LOAD" and "E" in f[6:-1]:
        delta = int(f[2], 16) - int(f[1], 16)
if unresolved:
    res = subprocess.run(["addr2line", "-f", "-C", "-e", binary]
                         + [hex(int(a, 16) + delta) for a, _ in unresolved],
                         capture_output=True, text=True).stdout.splitlines()
    for i, (addr, pct) in enumerate(unresolved):
        name = res[2 * i] if 2 * i < len(res) else addr
        counts[f"{name[:120]} [binlogd]"] += pct
for name, pct in counts.most_common(top):
    print(f"{pct:6.2f}%  {name}")
