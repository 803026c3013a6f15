#!/usr/bin/env bash
# The remotes benchmark (issue 17): push, clone, incremental push and fetch
# through a file:// remote, verso's command line beside Dolt's on the same
# data, against `cp -r` of the database folder as the floor.
#
# Fixtures, built once per run, both collected (verso gc, dolt gc) before
# the timing, so that the folders hold what the history reaches:
#   history  the history benchmark's 10,000 commits (package histgen, as
#            cmd/versobench-history builds it: a table t of a few rows, a
#            side branch of 3 commits merged back every 50), written into
#            verso through the Go API (cmd/versobench-remote history) and
#            into Dolt by `dolt sql` replaying the same steps (histgen.SQL).
#   table    one table t (pk bigint PRIMARY KEY, v bigint, s varchar(64),
#            f double) of $ROWS rows, one commit: the same CSV file
#            imported by `verso table import -u` and `dolt table import -u`.
# The script checks that both sides hold the same rows and commits.
#
# Each pass, for each fixture and each system (which system goes first
# alternates from pass to pass), times with the command-line binaries
# (built once; Dolt's is $DOLT):
#   cp -r        the database folder copied (the floor); "+ fsync" copies
#                it again and then fsyncs every file copied (sync FILE...)
#   push         the whole database (main) to an empty file:// remote
#   clone        from that remote into a new folder
#   push 10 rows one commit changing 10 rows (updated, spread over the
#                table; in history: 10 rows written), then a push: bytes
#                added to the remote folder (du -sb before and after)
#   push 100     100 more commits (each changing one row), pushed
#   fetch 100    those 100 commits fetched into the clone: bytes added to
#                the clone's database folder (verso's journal counted to
#                the end of its records, without its reserve of zeros:
#                dbsize below)
# The commits themselves (SQL through `verso sql` / `dolt sql`) are not
# timed. Files are in the page cache (the fixtures were just written and
# read); the transfers' own syncs are counted, cp -r syncs nothing.
#
# It prints the date, machine, load average before each pass, every pass's
# figures, then the medians: seconds, MB/s (the database folder's bytes
# over the time, for whole-database steps) and bytes.
#
# Usage: scripts/remote-bench.sh         (from anywhere)
# Settings (environment): PASSES=3 COMMITS=10000 ROWS=1000000
#   FIXTURES="history table"
#   DOLT=path/to/dolt (default ../shared/tools/dolt; DOLT= runs verso alone)
#   KEEP=1 (keep the temporary folder)
#   PROFILE=1 (after the passes: CPU profiles of verso's push, clone and
#              fetch through cmd/versobench-remote profile, their top
#              functions printed; with KEEP=1 the profiles stay)
# On a shared machine, run it under nice.
set -Eeuo pipefail
# A DOLT given is relative to the caller's folder, the default to the
# repository.
if [ -n "${DOLT:-}" ]; then DOLT=$(realpath "$DOLT"); fi
cd "$(dirname "$0")/.."

PASSES=${PASSES:-3}
COMMITS=${COMMITS:-10000}
ROWS=${ROWS:-1000000}
FIXTURES=${FIXTURES:-history table}
DOLT=${DOLT-../shared/tools/dolt}
if [ -n "$DOLT" ]; then
  DOLT=$(realpath "$DOLT")
  SYSTEMS=(verso dolt)
else
  SYSTEMS=(verso)
fi

WORK=$(mktemp -d /tmp/verso-remotebench.XXXXXX)
cleanup() {
  if [ "${KEEP:-0}" = 1 ]; then echo "kept $WORK" >&2; else rm -rf "$WORK"; fi
}
trap cleanup EXIT
LOG=$WORK/log
RES=$WORK/results.tsv
: >"$RES"

echo "date: $(date -u '+%Y-%m-%d %H:%M:%S UTC')"
echo "machine: $(nproc) CPUs ($(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ *//')), $(free -g | awk '/Mem:/ {print $2}') GiB, $(uname -sr), $(df -T "$WORK" | awk 'NR==2 {print $2}') on $(df "$WORK" | awk 'NR==2 {print $1}')"
echo "revision: $(git rev-parse --short HEAD 2>/dev/null || echo unknown)$(git diff --quiet HEAD 2>/dev/null || echo ' (with uncommitted changes)'), $(go version | cut -d' ' -f3)"
echo "load average: $(cut -d' ' -f1-3 /proc/loadavg)"

BIN=$WORK/bin
mkdir -p "$BIN"
go build -o "$BIN/verso" ./cmd/verso
go build -o "$BIN/versobench-remote" ./cmd/versobench-remote
V=$BIN/verso
export VERSO_AUTHOR_NAME=versobench VERSO_AUTHOR_EMAIL=versobench@localhost
if [ -n "$DOLT" ]; then
  # Dolt's global config (committer; no metrics, no version check) in a
  # HOME of its own.
  export HOME=$WORK/home
  mkdir -p "$HOME"
  for kv in "user.name versobench" "user.email versobench@localhost" "metrics.disabled true" "versioncheck.disabled true"; do
    # shellcheck disable=SC2086 # a key and its value
    "$DOLT" config --global --add $kv >/dev/null
  done
  echo "dolt: $DOLT ($("$DOLT" version | head -1))"
fi
echo

now() { date +%s.%N; }
# elapsed START: seconds since START.
elapsed() { awk -v a="$1" -v b="$(now)" 'BEGIN {printf "%.3f", b - a}'; }
bytes() { du -sb "$1" | cut -f1; }
# dbsize SYSTEM DIR: the bytes of the database folder in DIR (.verso or
# .dolt), as du -sb counts them, but for verso's journal files only up to
# the end of their records (cmd/versobench-remote stored): the zeros the
# store writes ahead of its records, up to 8 MiB (chunks/reserve.go), are
# no data, and whether a fill ran before a command exited is a race.
dbsize() {
  if [ "$1" = verso ]; then "$BIN/versobench-remote" stored "$2"; else bytes "$2/.dolt"; fi
}
# run SYSTEM DIR ARGS...: the system's command line in DIR, output to the log.
run() {
  local sys=$1 dir=$2
  shift 2
  if [ "$sys" = verso ]; then
    "$V" -C "$dir" "$@" >>"$LOG" 2>&1
  else
    (cd "$dir" && "$DOLT" "$@" >>"$LOG" 2>&1)
  fi
}
# sqlfile SYSTEM DIR FILE: a SQL script run in DIR's database.
sqlfile() {
  if [ "$1" = verso ]; then
    "$V" -C "$2" sql <"$3" >>"$LOG" 2>&1
  else
    (cd "$2" && "$DOLT" sql <"$3" >>"$LOG" 2>&1)
  fi
}
# query SYSTEM DIR SQL: the result as CSV.
query() {
  if [ "$1" = verso ]; then
    "$V" -C "$2" sql -r csv -q "$3"
  else
    (cd "$2" && "$DOLT" sql -r csv -q "$3")
  fi
}
record() { printf '%s\t%s\t%s\t%s\t%s\n' "$1" "$2" "$3" "$4" "$5" >>"$RES"; }
fail() {
  echo "remote-bench: $*; the last lines of the log:" >&2
  tail -20 "$LOG" >&2
  exit 1
}
trap 'fail "a command failed (line $LINENO)"' ERR

# ---- Fixtures ----
FIX=$WORK/fix
mkdir -p "$FIX"
# init SYSTEM DIR
init() {
  mkdir -p "$2"
  if [ "$1" = verso ]; then run verso "$2" init; else run dolt "$2" init; fi
}
build_history() {
  local t
  echo "== history fixture: $COMMITS commits"
  "$BIN/versobench-remote" history -n "$COMMITS" -dir "$FIX/verso-history" -sql "$WORK/history.sql" | tee -a "$LOG"
  run verso "$FIX/verso-history" reset --hard
  if [ -n "$DOLT" ]; then
    init dolt "$FIX/dolt-history"
    t=$(now)
    sqlfile dolt "$FIX/dolt-history" "$WORK/history.sql"
    echo "dolt: the same history over dolt sql in $(elapsed "$t") s"
  fi
  # Ten rows written by one commit; 100 commits of one row each.
  {
    for i in $(seq 0 9); do echo "REPLACE INTO t VALUES ($((1000000 + i)), $i, 'ten rows $i', $i.5);"; done
    echo "CALL dolt_commit('-am', 'ten rows');"
  } >"$WORK/history-ten.sql"
  for c in $(seq 0 99); do
    echo "REPLACE INTO t VALUES ($((2000000 + c % 10)), $c, 'commit $c of 100', $c.25);"
    echo "CALL dolt_commit('-am', 'commit $c of 100');"
  done >"$WORK/history-hundred.sql"
}
build_table() {
  local t sys
  echo "== table fixture: $ROWS rows"
  awk -v n="$ROWS" 'BEGIN {
    print "pk,v,s,f"
    for (i = 0; i < n; i++) printf "%d,%d,row %d of the table fixture,%.3f\n", i, (i * 7919) % 100003, i, i / 7.0
  }' >"$WORK/table.csv"
  for sys in "${SYSTEMS[@]}"; do
    init "$sys" "$FIX/$sys-table"
    query "$sys" "$FIX/$sys-table" "CREATE TABLE t (pk bigint PRIMARY KEY, v bigint, s varchar(64), f double)" >>"$LOG"
    t=$(now)
    run "$sys" "$FIX/$sys-table" table import -u t "$WORK/table.csv"
    query "$sys" "$FIX/$sys-table" "CALL dolt_commit('-Am', 'the table')" >>"$LOG"
    echo "$sys: $ROWS rows imported and committed in $(elapsed "$t") s"
  done
  # Ten rows updated, spread over the table, in one commit; 100 commits
  # of one row each.
  local pks
  pks=$(awk -v n="$ROWS" 'BEGIN {for (i = 0; i < 10; i++) printf "%s%d", (i ? "," : ""), int(n / 10) * i + 4999}')
  {
    echo "UPDATE t SET v = v + 1 WHERE pk IN ($pks);"
    echo "CALL dolt_commit('-am', 'ten rows');"
  } >"$WORK/table-ten.sql"
  for c in $(seq 0 99); do
    echo "UPDATE t SET v = v + 1 WHERE pk = $(((c * 104729 + 17) % ROWS));"
    echo "CALL dolt_commit('-am', 'commit $c of 100');"
  done >"$WORK/table-hundred.sql"
}

CHECK="SELECT COUNT(*) AS n, CAST(SUM(pk) AS SIGNED) AS pks, CAST(SUM(v) AS SIGNED) AS vs, CAST(ROUND(SUM(f) * 1000) AS SIGNED) AS fs FROM t; SELECT COUNT(*) AS commits FROM dolt_log"
for fix in $FIXTURES; do
  case $fix in
  history) build_history ;;
  table) build_table ;;
  *) fail "unknown fixture $fix" ;;
  esac
  for sys in "${SYSTEMS[@]}"; do
    t=$(now)
    run "$sys" "$FIX/$sys-$fix" gc
    echo "$sys: collected in $(elapsed "$t") s: $(dbsize "$sys" "$FIX/$sys-$fix") bytes"
    query "$sys" "$FIX/$sys-$fix" "$CHECK" | tr '\n' ' ' >"$WORK/check-$sys-$fix"
  done
  if [ -n "$DOLT" ] && ! cmp -s "$WORK/check-verso-$fix" "$WORK/check-dolt-$fix"; then
    fail "the $fix fixtures differ: verso $(cat "$WORK/check-verso-$fix"), dolt $(cat "$WORK/check-dolt-$fix")"
  fi
  echo "both: $(cat "$WORK/check-verso-$fix")"
  echo
done

# ---- Passes ----
# one SYSTEM FIXTURE PASS: every step once, in a folder of its own.
one() {
  local sys=$1 fix=$2 pass=$3 d t s r0 c0 src remote clone
  d=$WORK/run/$sys-$fix-$pass
  src=$d/src remote=$d/remote clone=$d/clone
  mkdir -p "$d" "$remote"
  local line="$pass $fix $sys:"
  t=$(now)
  cp -r "$FIX/$sys-$fix" "$src"
  s=$(elapsed "$t")
  record "$sys" "$fix" cp "$s" ""
  line+=" cp $s s;"
  t=$(now)
  cp -r "$FIX/$sys-$fix" "$d/synced"
  find "$d/synced" -type f -print0 | xargs -0 sync
  s=$(elapsed "$t")
  rm -rf "$d/synced"
  record "$sys" "$fix" cpsync "$s" ""
  line+=" +fsync $s s;"

  run "$sys" "$src" remote add origin "file://$remote"
  t=$(now)
  run "$sys" "$src" push origin main
  s=$(elapsed "$t")
  record "$sys" "$fix" push "$s" "$(bytes "$remote")"
  line+=" push $s s, $(bytes "$remote") B;"

  t=$(now)
  if [ "$sys" = verso ]; then run verso "$d" clone "file://$remote" "$clone"; else run dolt "$d" clone "file://$remote" "$clone"; fi
  s=$(elapsed "$t")
  record "$sys" "$fix" clone "$s" "$(dbsize "$sys" "$clone")"
  line+=" clone $s s, $(dbsize "$sys" "$clone") B;"

  sqlfile "$sys" "$src" "$WORK/$fix-ten.sql"
  r0=$(bytes "$remote")
  t=$(now)
  run "$sys" "$src" push origin main
  s=$(elapsed "$t")
  record "$sys" "$fix" push10 "$s" $(($(bytes "$remote") - r0))
  line+=" push 10 rows $s s, +$(($(bytes "$remote") - r0)) B;"

  sqlfile "$sys" "$src" "$WORK/$fix-hundred.sql"
  r0=$(bytes "$remote")
  t=$(now)
  run "$sys" "$src" push origin main
  s=$(elapsed "$t")
  record "$sys" "$fix" push100 "$s" $(($(bytes "$remote") - r0))
  line+=" push 100 $s s, +$(($(bytes "$remote") - r0)) B;"

  c0=$(dbsize "$sys" "$clone")
  t=$(now)
  run "$sys" "$clone" fetch origin
  s=$(elapsed "$t")
  record "$sys" "$fix" fetch100 "$s" $(($(dbsize "$sys" "$clone") - c0))
  line+=" fetch 100 $s s, +$(($(dbsize "$sys" "$clone") - c0)) B"
  # The clone has the source's main now.
  if [ "$(query "$sys" "$clone" "SELECT COUNT(*) AS n, CAST(SUM(v) AS SIGNED) AS vs FROM t AS OF 'origin/main'")" != "$(query "$sys" "$src" "SELECT COUNT(*) AS n, CAST(SUM(v) AS SIGNED) AS vs FROM t")" ]; then
    fail "$sys $fix: the clone's origin/main differs from the source's main after the fetch"
  fi
  echo "$line"
  if [ "${KEEP:-0}" != 1 ]; then rm -rf "$d"; fi
}

for pass in $(seq 1 "$PASSES"); do
  echo "== pass $pass, $(date -u '+%H:%M:%S UTC'), load average $(cut -d' ' -f1-3 /proc/loadavg)"
  order=("${SYSTEMS[@]}")
  if [ $((pass % 2)) = 0 ] && [ ${#SYSTEMS[@]} = 2 ]; then order=(dolt verso); fi
  for fix in $FIXTURES; do
    for sys in "${order[@]}"; do
      one "$sys" "$fix" "$pass"
    done
  done
done
echo "== done, $(date -u '+%H:%M:%S UTC'), load average $(cut -d' ' -f1-3 /proc/loadavg)"
echo

# ---- Medians ----
# median SYSTEM FIXTURE STEP COLUMN (4: seconds, 5: bytes)
median() {
  awk -F'\t' -v s="$1" -v f="$2" -v st="$3" -v c="$4" '$1 == s && $2 == f && $3 == st && $c != "" {print $c}' "$RES" |
    sort -g | awk '{v[NR] = $1} END {if (NR == 0) exit; if (NR % 2) print v[(NR + 1) / 2]; else printf "%.10g\n", (v[NR / 2] + v[NR / 2 + 1]) / 2}'
}
echo "medians of $PASSES passes; MB/s is the database folder's size (after collection) over the time"
for fix in $FIXTURES; do
  echo
  hdr="| $fix | "
  sep="| --- | "
  for sys in "${SYSTEMS[@]}"; do
    size=$(dbsize "$sys" "$FIX/$sys-$fix")
    hdr+="$sys ($(awk -v b="$size" 'BEGIN {printf "%.1f MB", b / 1e6}')): s | MB/s | bytes | "
    sep+="---: | ---: | ---: | "
  done
  echo "${hdr% }"
  echo "${sep% }"
  for step in cp cpsync push clone push10 push100 fetch100; do
    case $step in
    cp) name="cp -r (floor)" ;;
    cpsync) name="cp -r + fsync" ;;
    push) name="push (whole database)" ;;
    clone) name="clone" ;;
    push10) name="push of one commit changing 10 rows" ;;
    push100) name="push of 100 commits" ;;
    fetch100) name="fetch of 100 commits" ;;
    esac
    row="| $name | "
    for sys in "${SYSTEMS[@]}"; do
      size=$(dbsize "$sys" "$FIX/$sys-$fix")
      s=$(median "$sys" "$fix" "$step" 4)
      b=$(median "$sys" "$fix" "$step" 5)
      case $step in
      cp | cpsync | push | clone) mbs=$(awk -v b="$size" -v s="$s" 'BEGIN {printf "%.1f", b / 1e6 / s}') ;;
      *) mbs="-" ;;
      esac
      row+="$s | $mbs | ${b:--} | "
    done
    echo "${row% }"
  done
done

# ---- Profiles ----
if [ "${PROFILE:-0}" = 1 ]; then
  P=$WORK/profiles
  mkdir -p "$P"
  for fix in $FIXTURES; do
    src=$P/$fix-src remote=$P/$fix-remote clone=$P/$fix-clone
    cp -r "$FIX/verso-$fix" "$src"
    mkdir -p "$remote"
    run verso "$src" remote add origin "file://$remote"
    "$BIN/versobench-remote" profile -cpuprofile "$P/$fix-push.prof" push "$src" origin main
    "$BIN/versobench-remote" profile -cpuprofile "$P/$fix-clone.prof" clone "file://$remote" "$clone"
    sqlfile verso "$src" "$WORK/$fix-hundred.sql"
    run verso "$src" push origin main
    "$BIN/versobench-remote" profile -cpuprofile "$P/$fix-fetch.prof" fetch "$clone" origin
    for step in push clone fetch; do
      echo
      echo "== $fix: verso $step, top functions (cumulative)"
      go tool pprof -top -cum -nodecount 25 "$BIN/versobench-remote" "$P/$fix-$step.prof" 2>/dev/null | sed -n '1,32p'
    done
  done
  echo "profiles in $P"
fi
