#!/usr/bin/env bash
# Installs what tests/drivers_*.rs run, into TARGET/drivers (TARGET: the cargo target directory),
# from the package registries with their own clients, and builds nothing outside it:
#   java: Connector/J, the MariaDB Java client, junixsocket and JNA from Maven Central
#         (pom.xml; Maven's local repository is TARGET/drivers/m2, the jars go to java-lib/);
#   debezium: Debezium's embedded engine and MySQL connector from Maven Central
#         (debezium/pom.xml; the same local repository, the jars go to debezium-lib/);
#   node: mysql2 from npm (package.json + package-lock.json; npm's cache TARGET/drivers/npm-cache);
#   go:   go-sql-driver/mysql from the Go module proxy (go.mod + go.sum; GOMODCACHE
#         TARGET/drivers/gomod; Go's build cache stays the system one), built to driverscheck;
#   gobinlog: go-mysql's binlog parser and syncer from the Go module proxy (gobinlog/go.mod,
#         go.sum; the same GOMODCACHE), built to binlogcheck;
#   gotpc: PingCAP's TPC-C kit go-tpc (GOTPC_VERSION) from the Go module proxy with `go install`
#         (the same GOMODCACHE), to go-tpc (tests/go_tpc.rs, bench/compare's tpcc scenario).
# Each part is skipped when its inputs have not changed since it last succeeded (a stamp holds
# their checksum), so a warm run costs a checksum. Usage: install.sh TARGET {java|debezium|node|go|gobinlog|gotpc}...
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
mkdir -p "$1/drivers"
# Absolute: Go refuses a relative GOMODCACHE, and the parts below change directory.
out="$(cd "$1/drivers" && pwd)"
shift
# Tests run in parallel threads: one installer at a time.
exec 9>"$out/.lock"
flock 9

fresh() { # fresh NAME FILES...: true when the stamp matches the files' checksum
  local name="$1"; shift
  local sum; sum="$(cat "$@" | sha256sum | cut -d' ' -f1)"
  [ -f "$out/$name.stamp" ] && [ "$(cat "$out/$name.stamp")" = "$sum" ] && return 0
  echo "$sum" > "$out/$name.want"
  return 1
}
stamp() { mv "$out/$1.want" "$out/$1.stamp"; }
maven() { # maven PART: PART/pom.xml's runtime jars into PART-lib/, Maven's repository in m2/
  if ! fresh "$1" "$here/$1/pom.xml"; then
    rm -rf "$out/$1-lib"
    mvn -q -B -f "$here/$1/pom.xml" -Dmaven.repo.local="$out/m2" \
      dependency:copy-dependencies -DoutputDirectory="$out/$1-lib" -DincludeScope=runtime
    stamp "$1"
  fi
}

for part in "$@"; do
  case "$part" in
    java|debezium) maven "$part" ;;
    node)
      mkdir -p "$out/node"
      cp "$here/node/check.js" "$out/node/check.js"
      if ! fresh node "$here/node/package.json" "$here/node/package-lock.json" \
        || [ ! -d "$out/node/node_modules/mysql2" ]; then
        cp "$here/node/package.json" "$here/node/package-lock.json" "$out/node/"
        (cd "$out/node" && npm ci -q --no-audit --no-fund --cache "$out/npm-cache" >/dev/null)
        [ -f "$out/node.want" ] && stamp node
      fi
      ;;
    go)
      # go build is incremental: unchanged sources cost a cache look-up.
      (cd "$here/go" && GOMODCACHE="$out/gomod" GOFLAGS=-modcacherw \
        go build -o "$out/driverscheck" .)
      ;;
    gobinlog)
      # go-mysql's binlog reader (tests/go_mysql_binlog.rs); incremental as above.
      (cd "$here/gobinlog" && GOMODCACHE="$out/gomod" GOFLAGS=-modcacherw \
        go build -o "$out/binlogcheck" .)
      ;;
    gotpc)
      # Pinned: a new go-tpc may change its statements; installed once per version.
      v=v1.0.7
      if [ ! -x "$out/go-tpc" ] || [ "$(cat "$out/go-tpc.version" 2>/dev/null)" != "$v" ]; then
        GOBIN="$out" GOMODCACHE="$out/gomod" GOFLAGS=-modcacherw \
          go install "github.com/pingcap/go-tpc/cmd/go-tpc@$v"
        echo "$v" > "$out/go-tpc.version"
      fi
      ;;
    *) echo "unknown part $part" >&2; exit 2 ;;
  esac
done
