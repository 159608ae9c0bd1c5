#!/usr/bin/env python3
"""The layering of docs/architecture.md, checked: each workspace crate depends (normal and
dev dependencies alike) only on crates below it, and no crate has a cycle between its top-level
modules. Run by scripts/test.sh; exits 1 naming the offending edge or cycle.

Module edges are read from the source text: `crate::m`, `super::m` in a top-level module,
`use crate::{...}` / `use super::{...}` groups, and items the crate root re-exports
(`pub use m::{A, B}`), so `crate::A` counts as an edge to `m`. A directory module (`m/` or
`m/mod.rs`) is one module; test files (`tests.rs`, `*_tests.rs`) and `#[cfg(test)]` tails
are left out, as are comments.
"""
import glob
import os
import re
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
# Bottom up; a crate may depend only on crates listed before it.
ORDER = ["fuzzing", "vfs", "binlog", "collation", "engine", "commit", "protocol", "accounts", "sql", "replication",
         "tools", "binlogd"]


def crate_deps(crate):
    text = open(os.path.join(ROOT, "crates", crate, "Cargo.toml")).read()
    deps = set()
    section = None
    for line in text.splitlines():
        m = re.match(r"\s*\[(.+)\]", line)
        if m:
            section = m.group(1)
            continue
        if section and section.endswith("dependencies"):
            m = re.match(r"\s*([A-Za-z0-9_-]+)\s*(\.workspace|=)", line)
            if m and m.group(1) in ORDER:
                deps.add(m.group(1))
    return deps


def module_of(path, src):
    parts = os.path.relpath(path, src)[:-3].split("/")
    if parts[-1] == "mod":
        parts = parts[:-1]
    if parts in (["lib"], ["main"]):
        return None
    return parts[0]


def module_graph(crate):
    src = os.path.join(ROOT, "crates", crate, "src")
    reexported = {}
    lib = os.path.join(src, "lib.rs")
    if os.path.exists(lib):
        for m in re.finditer(r"pub use ([a-z_]+)::(\{[^;]*\}|[A-Za-z_0-9]+)\s*;", open(lib).read()):
            for item in re.findall(r"[A-Za-z_0-9]+", m.group(2)):
                reexported[item] = m.group(1)
    graph = {}
    for path in glob.glob(os.path.join(src, "**", "*.rs"), recursive=True):
        if os.path.basename(path) == "tests.rs" or path.endswith("_tests.rs"):
            continue
        module = module_of(path, src)
        if module is None:
            continue
        text = open(path).read()
        cut = text.find("#[cfg(test)]")
        if cut >= 0:
            text = text[:cut]
        text = "\n".join(l for l in text.splitlines() if not l.strip().startswith("//"))
        top_level = "/" not in os.path.relpath(path, src)
        deps = set(re.findall(r"crate::([a-z_]+)", text))
        items = set(re.findall(r"crate::([A-Za-z_0-9]+)", text))
        for group in re.findall(r"use (?:crate|super)::\{([^;]*)\}", text):
            items |= set(re.findall(r"[A-Za-z_0-9]+", group))
        if top_level:
            deps |= set(re.findall(r"\bsuper::([a-z_]+)", text))
            items |= set(re.findall(r"\bsuper::([A-Za-z_0-9]+)", text))
        deps |= {reexported[i] for i in items if i in reexported}
        graph.setdefault(module, set()).update(d for d in deps if d != module)
    return {m: {d for d in ds if d in graph} for m, ds in graph.items()}


def cycles(graph):
    """Strongly connected components with more than one module (Tarjan)."""
    index, low, stack, on, out, counter = {}, {}, [], set(), [], [0]

    def visit(v):
        index[v] = low[v] = counter[0]
        counter[0] += 1
        stack.append(v)
        on.add(v)
        for w in sorted(graph[v]):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            component = []
            while True:
                w = stack.pop()
                on.discard(w)
                component.append(w)
                if w == v:
                    break
            if len(component) > 1:
                out.append(sorted(component))

    for v in sorted(graph):
        if v not in index:
            visit(v)
    return out


def main():
    problems = []
    on_disk = sorted(os.path.basename(d) for d in glob.glob(os.path.join(ROOT, "crates", "*")))
    if on_disk != sorted(ORDER):
        problems.append(f"crates on disk {on_disk} are not the layers {ORDER}")
    for rank, crate in enumerate(ORDER):
        for dep in sorted(crate_deps(crate)):
            if ORDER.index(dep) >= rank:
                problems.append(f"{crate} depends on {dep}, which is not below it")
        graph = module_graph(crate)
        for component in cycles(graph):
            edges = "; ".join(f"{m} -> {sorted(graph[m] & set(component))}" for m in component)
            problems.append(f"{crate}: module cycle {component} ({edges})")
    for p in problems:
        print(f"layers: {p}", file=sys.stderr)
    print(f"layers: {len(ORDER)} crates checked, {len(problems)} problems")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
