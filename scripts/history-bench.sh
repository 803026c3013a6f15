#!/usr/bin/env bash
# The history benchmark (cmd/versobench-history): verso's commit-indexed
# system tables against a materialized baseline over the MySQL protocol
# and, when DOLT names a Dolt binary, Dolt's on the same histories in the
# same run.
#
# For each history length, the command builds the history (package
# histgen) in verso through the Go API and, with DOLT, replays it in a
# Dolt sql-server over SQL (dolt init in a temporary folder, a free
# loopback port); it copies each side's system tables into ordinary tables
# (the baseline), then times every query on both sides, alternating, and
# prints per query each side's median, its baseline's median and the
# multiple. docs/BENCHMARKS.md ("History tables over the MySQL protocol")
# describes the queries and the checks.
#
# Usage: scripts/history-bench.sh                    (from anywhere)
#        DOLT=path/to/dolt scripts/history-bench.sh  (a Dolt binary)
# Settings (environment): N=1000,10000 (history lengths, comma-separated)
#   ITERS=300 (timed executions of each query, per side)
#   SCANITERS=20 (timed executions of each full scan, per side)
#   DOLT= (a Dolt binary; unset or empty: verso alone)
#   ARGS= (further flags of the command: -rows 8 -limit 100 -dir DIR)
# On a shared machine, run it under nice; it prints the date, the load
# average and the revision before the run.
set -euo pipefail

N=${N:-1000,10000}
ITERS=${ITERS:-300}
SCANITERS=${SCANITERS:-20}
DOLT=${DOLT:-}
ARGS=${ARGS:-}

flags=(-n "$N" -iters "$ITERS" -scaniters "$SCANITERS")
if [ -n "$DOLT" ]; then
  # Resolved before the cd below: a path relative to the caller's folder.
  flags+=(-dolt "$(realpath "$DOLT")")
fi
cd "$(dirname "$0")/.."

echo "date: $(date -u '+%Y-%m-%d %H:%M:%S UTC')"
echo "load average: $(cut -d' ' -f1-3 /proc/loadavg 2>/dev/null || uptime)"
echo "revision: $(git rev-parse --short HEAD 2>/dev/null || echo unknown)$(git diff --quiet HEAD 2>/dev/null || echo ' (with uncommitted changes)')"
if [ -n "$DOLT" ]; then
  echo "dolt: ${flags[-1]}"
fi
echo
# shellcheck disable=SC2086 # ARGS is a list of flags
exec go run ./cmd/versobench-history "${flags[@]}" $ARGS
