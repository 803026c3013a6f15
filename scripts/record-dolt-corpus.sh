#!/usr/bin/env bash
# Records Dolt's answers for the scenarios of testdata/doltcorpus: each
# NAME.sql runs, through the mysql client, against a Dolt sql-server of its
# own on a fresh data dir, and the client's output, masked as
# cmd/verso's TestDoltCorpus masks verso's (hashes numbered, recent times
# replaced), becomes NAME.expected. Tests and CI never run Dolt: they
# compare verso's output with these files.
#
# Usage: scripts/record-dolt-corpus.sh [path to dolt] [scenario regexp]
#   (default: ../shared/tools/dolt, every scenario)
# Needs Go, the mysql client (apt-get install mariadb-client) and stdbuf.
set -euo pipefail
cd "$(dirname "$0")/.."
dolt="$(realpath "${1:-../shared/tools/dolt}")"
pattern="${2:-.}"
echo "recording with $("$dolt" version | head -1)"
go test ./cmd/verso -count=1 -run "TestDoltCorpus/($pattern)" -dolt "$dolt" -timeout 60m
