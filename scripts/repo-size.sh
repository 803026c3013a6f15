#!/usr/bin/env bash
# The size of a database over its lifetime, verso beside Dolt: the history
# fixture of issue 18, written over SQL through the mysql client, measured
# on disk before and after a garbage collection.
#
# The fixture: a table t (pk INT PRIMARY KEY, v INT, s VARCHAR(64)) of
# $ROWS rows, committed; then $COMMITS commits on main, each an autocommit
# UPDATE of one row followed by CALL dolt_commit('-am', ...); then a branch
# side with $SIDE such commits, merged back into main with --no-ff. Each
# server writes the same SQL file, from one connection.
#
# It prints, for each server, the bytes of its database folder (.verso or
# .dolt) after the writes, after CALL dolt_gc(), the time the writes and
# the collection took, and bytes per commit; plus a SHA of SELECT * FROM t
# on both sides (the same rows). Both servers run with automatic
# collection off, so that "before" is before any collection.
#
# Usage: scripts/repo-size.sh            (from the repository)
# Settings (environment): ROWS=1000 COMMITS=10000 SIDE=100
#   DOLT=path/to/dolt (default ../shared/tools/dolt; DOLT= skips Dolt)
#   VERSO_PORT=3418 DOLT_PORT=3419 KEEP=1 (keep the temporary folder)
set -euo pipefail
cd "$(dirname "$0")/.."

ROWS=${ROWS:-1000}
COMMITS=${COMMITS:-10000}
SIDE=${SIDE:-100}
VERSO_PORT=${VERSO_PORT:-3418}
DOLT_PORT=${DOLT_PORT:-3419}
DOLT=${DOLT-../shared/tools/dolt}

need() { command -v "$1" >/dev/null 2>&1; }
if ! need mysql; then
  echo "== installing mariadb-client" >&2
  if [ "$(id -u)" != 0 ]; then SUDO=sudo; else SUDO=; fi
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq mariadb-client >&2
fi

WORK=$(mktemp -d /tmp/verso-reposize.XXXXXX)
PIDS=()
cleanup() {
  for p in "${PIDS[@]}"; do kill -INT "$p" 2>/dev/null && wait "$p" 2>/dev/null; done
  if [ "${KEEP:-0}" = 1 ]; then echo "kept $WORK" >&2; else rm -rf "$WORK"; fi
}
trap cleanup EXIT

# The SQL of the fixture, once, for both servers.
SQL=$WORK/fixture.sql
{
  echo "CREATE TABLE t (pk INT PRIMARY KEY, v INT, s VARCHAR(64));"
  for ((i = 0; i < ROWS; i += 500)); do
    printf "INSERT INTO t VALUES "
    for ((j = i; j < i + 500 && j < ROWS; j++)); do
      [ "$j" -gt "$i" ] && printf ","
      printf "(%d,0,'row %d of the history fixture')" "$j" "$j"
    done
    echo ";"
  done
  echo "CALL dolt_commit('-Am', 'the table');"
  for ((c = 0; c < COMMITS; c++)); do
    echo "UPDATE t SET v = v + 1 WHERE pk = $(((c * 7919) % ROWS));"
    echo "CALL dolt_commit('-am', 'commit $c');"
  done
  echo "CALL dolt_checkout('-b', 'side');"
  for ((c = 0; c < SIDE; c++)); do
    echo "UPDATE t SET s = 'side $c' WHERE pk = $(((c * 104729) % ROWS));"
    echo "CALL dolt_commit('-am', 'side $c');"
  done
  echo "CALL dolt_checkout('main');"
  echo "CALL dolt_merge('--no-ff', 'side', '-m', 'merge side');"
} >"$SQL"

wait_port() {
  for _ in $(seq 1 200); do
    mysql -h127.0.0.1 -P"$1" -uroot -e "SELECT 1" >/dev/null 2>&1 && return 0
    sleep 0.1
  done
  echo "server on port $1 did not start" >&2
  return 1
}

bytes() { du -sb "$1" | cut -f1; }
now() { date +%s.%N; }
secs() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.1f", b - a }'; }

# run NAME PORT DBFOLDER DB: write the fixture, measure, collect, measure.
run() {
  local name=$1 port=$2 folder=$3 db=$4
  local t0 t1 t2 before after rowsum
  t0=$(now)
  mysql -h127.0.0.1 -P"$port" -uroot "$db" <"$SQL" >/dev/null
  t1=$(now)
  sync
  before=$(bytes "$folder")
  mysql -h127.0.0.1 -P"$port" -uroot "$db" -e "CALL dolt_gc()" >/dev/null
  t2=$(now)
  sync
  after=$(bytes "$folder")
  rowsum=$(mysql -h127.0.0.1 -P"$port" -uroot "$db" -N -e "SELECT pk, v, s FROM t ORDER BY pk" | sha256sum | cut -c1-12)
  local n=$((COMMITS + SIDE + 2))
  printf "| %s | %s | %s | %s | %s | %s | %s s | %s s | %s |\n" "$name" "$n" \
    "$(awk -v b="$before" 'BEGIN { printf "%.1f MB", b / 1e6 }')" \
    "$(awk -v b="$after" 'BEGIN { printf "%.1f MB", b / 1e6 }')" \
    "$(awk -v b="$before" -v n="$n" 'BEGIN { printf "%.0f", b / n }')" \
    "$(awk -v b="$after" -v n="$n" 'BEGIN { printf "%.0f", b / n }')" \
    "$(secs "$t0" "$t1")" "$(secs "$t1" "$t2")" "$rowsum"
}

echo "| server | commits | before gc | after gc | bytes/commit before | after | writes | gc | rows |"
echo "| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | --- |"

go build -o "$WORK/verso" ./cmd/verso
mkdir -p "$WORK/verso-data"
"$WORK/verso" sql-server --data-dir "$WORK/verso-data" --port "$VERSO_PORT" --auto-gc=false --log-level error &
PIDS+=($!)
wait_port "$VERSO_PORT"
mysql -h127.0.0.1 -P"$VERSO_PORT" -uroot -e "CREATE DATABASE fixture"
run verso "$VERSO_PORT" "$WORK/verso-data/fixture/.verso" fixture

if [ -n "$DOLT" ]; then
  DOLT=$(realpath "$DOLT")
  mkdir -p "$WORK/dolt/fixture"
  (cd "$WORK/dolt/fixture" && "$DOLT" init --name bench --email bench@example.com >/dev/null)
  printf 'log_level: error\nlistener:\n  host: 127.0.0.1\n  port: %s\nbehavior:\n  auto_gc_behavior:\n    enable: false\n' "$DOLT_PORT" >"$WORK/dolt/config.yaml"
  (cd "$WORK/dolt" && exec "$DOLT" sql-server --config config.yaml) >"$WORK/dolt.log" 2>&1 &
  PIDS+=($!)
  wait_port "$DOLT_PORT"
  run dolt "$DOLT_PORT" "$WORK/dolt/fixture/.dolt" fixture
fi
