#!/usr/bin/env bash
# sysbench against verso sql-server and, in the same run, MariaDB.
#
# Installs sysbench and mariadb-server with apt-get when they are missing,
# starts MariaDB on a loopback port with its data in a temporary folder and
# verso sql-server (built from this checkout) on another, prepares one
# sysbench table of $ROWS rows in each, runs each test for $TIME seconds at
# each thread count, and prints queries/s, p95 latency and verso's ratio to
# MariaDB as a markdown table. Then it measures single-connection commit
# throughput on verso (and BEFORE): UPDATE of one row, then CALL
# dolt_commit('-am', ...), repeated (skipped with a message when
# dolt_commit does not exist yet).
#
# Usage: scripts/sysbench.sh            (from the repository, as root or with sudo for apt-get)
# Settings (environment): ROWS=100000 TIME=10 THREADS="1 4 16"
#   TESTS="oltp_point_select oltp_read_only oltp_insert oltp_update_index
#   oltp_update_non_index oltp_write_only oltp_read_write"
#   PASSES=1: run every test and thread count PASSES times, the servers
#   alternating which goes first, and print the median of the passes
#   (queries/s and p95 alike)
#   COMMITS=300 (UPDATE + CALL dolt_commit on one connection, PASSES times on verso and BEFORE)
#   MARIADB_PORT=3407 VERSO_PORT=3408 KEEP=1 (keep the temporary folder)
#   PS_MODE=auto (sysbench's --db-ps-mode: auto uses server-side prepared
#   statements; disable sends every query as text with its values written in)
#   VERSO_CPUPROFILE=/tmp/verso.prof (profile the verso server)
#   VERSO_FLAGS="--cache-size 256M" (more flags for verso sql-server)
#   BEFORE_FLAGS (more flags for BEFORE's; VERSO_FLAGS unless set): with
#   BEFORE=HEAD, an A/B of two settings
#   GC_FIRST=1: CALL dolt_gc() on verso after the prepare, so that its reads
#   come from collected (zstd) table files
#   GC_EVERY=N: during each run of verso (not of BEFORE), CALL dolt_gc() from
#   another connection every N seconds; the collections' times are printed
#   after the table
#   BEFORE=<git revision>: also build verso at that revision (a temporary
#   worktree) and run it on BEFORE_PORT=3409 beside the others, for
#   before/after figures in one run (the two alternate which runs first);
#   COMMITS=0 skips the commit throughput
# Before each run the script waits (up to 20 s) for the CPUs to be idle, so
# that one server's background work (compaction after writes) does not fall
# into the next one's run.
# Both servers write durably: MariaDB with its defaults
# (innodb_flush_log_at_trx_commit=1), verso with one fsync per COMMIT.
set -euo pipefail
cd "$(dirname "$0")/.."

ROWS=${ROWS:-100000}
TIME=${TIME:-10}
THREADS=${THREADS:-"1 4 16"}
TESTS=${TESTS:-"oltp_point_select oltp_read_only oltp_insert oltp_update_index oltp_update_non_index oltp_write_only oltp_read_write"}
PASSES=${PASSES:-1}
COMMITS=${COMMITS:-300}
PS_MODE=${PS_MODE:-auto}
MARIADB_PORT=${MARIADB_PORT:-3407}
VERSO_PORT=${VERSO_PORT:-3408}
VERSO_FLAGS=${VERSO_FLAGS:-}
BEFORE_FLAGS=${BEFORE_FLAGS-$VERSO_FLAGS}

need() { command -v "$1" >/dev/null 2>&1; }
if ! need sysbench || ! need mariadbd || ! need mariadb-install-db || ! need mysql; then
  echo "== installing sysbench and mariadb-server" >&2
  if [ "$(id -u)" != 0 ]; then SUDO=sudo; else SUDO=; fi
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq sysbench mariadb-server mariadb-client >&2
fi

WORK=$(mktemp -d /tmp/verso-sysbench.XXXXXX)
MARIADB_PID=
VERSO_PID=
BEFORE_PID=
BEFORE=${BEFORE:-}
BEFORE_PORT=${BEFORE_PORT:-3409}
cleanup() {
  [ -n "$VERSO_PID" ] && kill -INT "$VERSO_PID" 2>/dev/null && wait "$VERSO_PID" 2>/dev/null
  [ -n "$BEFORE_PID" ] && kill -INT "$BEFORE_PID" 2>/dev/null && wait "$BEFORE_PID" 2>/dev/null
  [ -n "$BEFORE" ] && git worktree remove --force "$WORK/before-src" 2>/dev/null
  [ -n "$MARIADB_PID" ] && kill "$MARIADB_PID" 2>/dev/null && wait "$MARIADB_PID" 2>/dev/null
  if [ "${KEEP:-0}" = 1 ]; then echo "kept $WORK" >&2; else rm -rf "$WORK"; fi
}
trap cleanup EXIT

wait_port() { # name port
  for _ in $(seq 1 120); do
    if mysql --no-defaults -h 127.0.0.1 -P "$2" -u root -e 'SELECT 1' >/dev/null 2>&1; then return 0; fi
    sleep 0.5
  done
  echo "$1 did not accept connections on port $2 in 60s; see $WORK/$1.log" >&2
  exit 1
}

echo "== starting MariaDB on 127.0.0.1:$MARIADB_PORT (data in $WORK/mariadb)" >&2
mariadb-install-db --no-defaults --datadir="$WORK/mariadb" --user="$(id -un)" \
  --auth-root-authentication-method=normal >"$WORK/mariadb-install.log" 2>&1
mariadbd --no-defaults --datadir="$WORK/mariadb" --socket="$WORK/mariadb.sock" \
  --pid-file="$WORK/mariadb.pid" --port="$MARIADB_PORT" --bind-address=127.0.0.1 \
  --user="$(id -un)" --innodb-buffer-pool-size=256M --max-connections=200 \
  >"$WORK/mariadb.log" 2>&1 &
MARIADB_PID=$!
wait_port mariadb "$MARIADB_PORT"

echo "== building and starting verso sql-server on 127.0.0.1:$VERSO_PORT (data in $WORK/verso)" >&2
go build -o "$WORK/verso-bin" ./cmd/verso
"$WORK/verso-bin" sql-server --data-dir "$WORK/verso" --port "$VERSO_PORT" $VERSO_FLAGS >"$WORK/verso.log" 2>&1 &
VERSO_PID=$!
wait_port verso "$VERSO_PORT"
if [ -n "$BEFORE" ]; then
  echo "== building and starting verso at $BEFORE on 127.0.0.1:$BEFORE_PORT (data in $WORK/before)" >&2
  git worktree add --detach "$WORK/before-src" "$BEFORE" >/dev/null 2>&1
  (cd "$WORK/before-src" && go build -o "$WORK/before-bin" ./cmd/verso)
  env -u VERSO_CPUPROFILE "$WORK/before-bin" sql-server --data-dir "$WORK/before" --port "$BEFORE_PORT" $BEFORE_FLAGS >"$WORK/before.log" 2>&1 &
  BEFORE_PID=$!
  wait_port before "$BEFORE_PORT"
fi

sb() { # port test command [args]
  local port=$1 test=$2 cmd=$3; shift 3
  sysbench "$test" --db-driver=mysql --mysql-host=127.0.0.1 --mysql-port="$port" \
    --mysql-user=root --mysql-db=sbtest --tables=1 --table-size="$ROWS" --db-ps-mode="$PS_MODE" "$@" "$cmd"
}

prepare() { # name port
  mysql --no-defaults -h 127.0.0.1 -P "$2" -u root -e 'DROP DATABASE IF EXISTS sbtest; CREATE DATABASE sbtest'
  local start=$SECONDS
  sb "$2" oltp_common prepare >"$WORK/$1-prepare.log" 2>&1 || {
    echo "sysbench prepare failed on $1; see below" >&2; cat "$WORK/$1-prepare.log" >&2; exit 1; }
  echo "== $1: prepared $ROWS rows in $((SECONDS - start))s" >&2
}
prepare mariadb "$MARIADB_PORT"
prepare verso "$VERSO_PORT"
[ -n "$BEFORE" ] && prepare before "$BEFORE_PORT"
if [ "${GC_FIRST:-0}" = 1 ]; then
  mysql --no-defaults -h 127.0.0.1 -P "$VERSO_PORT" -u root sbtest -e "CALL dolt_gc()" >/dev/null
  echo "== verso: collected after the prepare" >&2
fi
GC_EVERY=${GC_EVERY:-}
: >"$WORK/gc-times.log"
# gcloop port: CALL dolt_gc() every GC_EVERY seconds, logging each one's
# seconds, until killed.
gcloop() {
  while sleep "$GC_EVERY"; do
    local s e
    s=$(date +%s.%N)
    mysql --no-defaults -h 127.0.0.1 -P "$1" -u root sbtest -e "CALL dolt_gc()" >/dev/null 2>>"$WORK/gc-errors.log" || continue
    e=$(date +%s.%N)
    awk -v s="$s" -v e="$e" 'BEGIN { printf "%.3f\n", e - s }' >>"$WORK/gc-times.log"
  done
}

# run name port test threads: prints "qps p95" (or "failed failed").
run() {
  local log="$WORK/$1-$3-$4.log" gcpid=
  if [ -n "$GC_EVERY" ] && [ "$1" = verso ]; then
    gcloop "$2" &
    gcpid=$!
  fi
  local ok=0
  sb "$2" "$3" run --threads="$4" --time="$TIME" --percentile=95 --report-interval=0 >"$log" 2>&1 || ok=1
  if [ -n "$gcpid" ]; then kill "$gcpid" 2>/dev/null; wait "$gcpid" 2>/dev/null || true; fi
  if [ "$ok" = 0 ]; then
    local qps p95
    qps=$(sed -n 's/.*queries: *[0-9]* *(\([0-9.]*\) per sec.).*/\1/p' "$log")
    p95=$(sed -n 's/.*95th percentile: *\([0-9.]*\).*/\1/p' "$log")
    echo "${qps:-?} ${p95:-?}"
  else
    echo "== $3 with $4 threads failed on $1:" >&2
    tail -5 "$log" >&2
    echo "failed failed"
  fi
}

echo
echo "sysbench $(sysbench --version | awk '{print $2}'), $ROWS rows, ${TIME}s per run, median of $PASSES pass(es), --db-ps-mode=$PS_MODE; $(nproc) cores ($(sed -n 's/^model name[^:]*: //p' /proc/cpuinfo | head -1)); load average before: $(cut -d' ' -f1-3 /proc/loadavg); $(date -u '+%Y-%m-%d %H:%M UTC')"
echo
if [ -n "$BEFORE" ]; then
  echo "| test | threads | MariaDB queries/s | MariaDB p95 ms | verso $BEFORE queries/s | p95 ms | verso queries/s | verso p95 ms | before / MariaDB | verso / MariaDB |"
  echo "| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |"
else
  echo "| test | threads | MariaDB queries/s | MariaDB p95 ms | verso queries/s | verso p95 ms | verso / MariaDB |"
  echo "| --- | ---: | ---: | ---: | ---: | ---: | ---: |"
fi
ratio() { awk -v v="$1" -v m="$2" 'BEGIN { if (m+0 > 0 && v+0 > 0) printf "%.2fx", v/m; else print "-" }'; }
# settle waits (at most 20 s) until the CPUs are idle: a server's background
# work after a write run (compaction) must not run into the next server's
# run on a machine of two cores.
settle() {
  for _ in $(seq 1 20); do
    read -r _ a b c d _ < /proc/stat; t1=$((a+b+c+d)); i1=$d
    sleep 1
    read -r _ a b c d _ < /proc/stat; t2=$((a+b+c+d)); i2=$d
    [ $(( (i2-i1) * 100 / (t2-t1 > 0 ? t2-t1 : 1) )) -ge 90 ] && return 0
  done
  # Still busy after 20 s (another program, or a long compaction): go on,
  # and say so, rather than stop the whole run (set -e).
  echo "== the CPUs were not idle after 20 s; running anyway" >&2
  return 0
}
# median: the median of its arguments ("failed" if any failed).
median() {
  printf '%s\n' "$@" | sort -n | awk '/^[0-9.]+$/ { a[++n] = $1; next } { bad = 1 }
    END { if (bad || n == 0) { print "failed"; exit }
          if (n % 2) print a[(n + 1) / 2]; else printf "%.2f\n", (a[n / 2] + a[n / 2 + 1]) / 2 }'
}
# cell name port test threads: runs one server's pass and appends its
# figures to the arrays <name>_q and <name>_p.
cell() {
  local q p
  settle; read -r q p < <(run "$1" "$2" "$3" "$4")
  eval "${1}_q+=(\"\$q\") ${1}_p+=(\"\$p\")"
}
n=0
for test in $TESTS; do
  for th in $THREADS; do
    mariadb_q=() mariadb_p=() verso_q=() verso_p=() before_q=() before_p=()
    for _ in $(seq 1 "$PASSES"); do
      # MariaDB and verso (and the two versos) alternate which goes first.
      n=$((n + 1))
      if [ $((n % 2)) = 1 ]; then
        cell mariadb "$MARIADB_PORT" "$test" "$th"
        [ -n "$BEFORE" ] && cell before "$BEFORE_PORT" "$test" "$th"
        cell verso "$VERSO_PORT" "$test" "$th"
      else
        cell verso "$VERSO_PORT" "$test" "$th"
        [ -n "$BEFORE" ] && cell before "$BEFORE_PORT" "$test" "$th"
        cell mariadb "$MARIADB_PORT" "$test" "$th"
      fi
    done
    mq=$(median "${mariadb_q[@]}") mp=$(median "${mariadb_p[@]}")
    vq=$(median "${verso_q[@]}") vp=$(median "${verso_p[@]}")
    if [ -n "$BEFORE" ]; then bq=$(median "${before_q[@]}") bp=$(median "${before_p[@]}"); fi
    if [ -n "$BEFORE" ]; then
      echo "| $test | $th | $mq | $mp | $bq | $bp | $vq | $vp | $(ratio "$bq" "$mq") | $(ratio "$vq" "$mq") |"
    else
      echo "| $test | $th | $mq | $mp | $vq | $vp | $(ratio "$vq" "$mq") |"
    fi
  done
done
echo
if [ -n "$GC_EVERY" ]; then
  sort -n "$WORK/gc-times.log" | awk '{ a[NR] = $1 } END { if (NR) printf "collections during verso'"'"'s runs (CALL dolt_gc() every %s s): %d, %.3f s median, %.3f s longest\n", "'"$GC_EVERY"'", NR, a[int((NR+1)/2)], a[NR]; else print "no collection finished during the runs" }'
  [ -s "$WORK/gc-errors.log" ] && { echo "dolt_gc errors:"; sort | uniq -c <"$WORK/gc-errors.log"; }
  echo
fi

# Single-connection commit throughput on verso (and on BEFORE, when set):
# one client session runs UPDATE + CALL dolt_commit COMMITS times, PASSES
# times per server, the servers alternating which goes first; the median
# pass is printed.
vsql() { mysql --no-defaults -h 127.0.0.1 -P "$1" -u root sbtest "${@:2}"; }
commit_servers="verso:$VERSO_PORT"
[ -n "$BEFORE" ] && commit_servers="$commit_servers before:$BEFORE_PORT"
if [ "$COMMITS" != 0 ]; then
  script="$WORK/commits.sql"
  for i in $(seq 1 "$COMMITS"); do
    echo "UPDATE sbtest1 SET k = k + 1 WHERE id = $(( (i % ROWS) + 1 )); CALL dolt_commit('-am', 'sysbench commit $i');"
  done >"$script"
  ready=""
  for sv in $commit_servers; do
    # sbtest1 is new (untracked) until a first commit adds it: '-am'
    # stages only tables HEAD has, as in Dolt.
    if out=$(vsql "${sv#*:}" -e "CALL dolt_commit('-Am', 'sysbench tables'); UPDATE sbtest1 SET k = k + 1 WHERE id = 1; CALL dolt_commit('-am', 'sysbench commit probe')" 2>&1); then
      ready="$ready $sv"
    else
      echo "commit throughput: skipped on ${sv%%:*}, CALL dolt_commit failed: $(echo "$out" | grep ERROR | tail -1)"
    fi
  done
  for pass in $(seq 1 "$PASSES"); do
    order=$ready
    [ $((pass % 2)) = 0 ] && order=$(echo $ready | tr ' ' '\n' | tac | tr '\n' ' ')
    for sv in $order; do
      settle
      start=$(date +%s.%N)
      vsql "${sv#*:}" <"$script" >/dev/null
      end=$(date +%s.%N)
      echo "${sv%%:*} $(awk -v n="$COMMITS" -v s="$start" -v e="$end" 'BEGIN { printf "%.0f", n/(e-s) }')" >>"$WORK/commits.txt"
    done
  done
  for sv in $ready; do
    name=${sv%%:*}
    label=$name
    [ "$name" = before ] && label="verso $BEFORE"
    awk -v name="$name" -v label="$label" -v n="$COMMITS" -v p="$PASSES" '$1 == name { a[++k] = $2 } END { if (k) { asort(a); printf "commit throughput, %s (one connection, UPDATE + CALL dolt_commit, %d commits, median of %d): %d commits/s\n", label, n, p, a[int((k+1)/2)] } }' "$WORK/commits.txt"
  done
fi
