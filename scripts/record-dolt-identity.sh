#!/usr/bin/env bash
# Records what Dolt answers for the identity that commits made over SQL
# record (committer and email of dolt_log), for the superuser root and for
# an account jane@'%', both connecting over the loopback, into
# server/testdata/dolt/identity.golden, which server's TestCommitIdentity
# compares verso's answers with.
#
# Usage: scripts/record-dolt-identity.sh [path to dolt]   (default: ../shared/tools/dolt)
# Needs the mysql client. Tests never run Dolt: they read the golden file.
set -euo pipefail
cd "$(dirname "$0")/.."
dolt="$(realpath "${1:-../shared/tools/dolt}")"
port="${DOLT_PORT:-3431}"
dir="$(mktemp -d)"
trap 'kill $pid 2>/dev/null || true; rm -rf "$dir"' EXIT
(cd "$dir" && "$dolt" sql-server -H 127.0.0.1 -P "$port" >"$dir/log" 2>&1) &
pid=$!
for _ in $(seq 50); do mysql -h 127.0.0.1 -P "$port" -u root -e "SELECT 1" >/dev/null 2>&1 && break; sleep 0.2; done
q() { mysql -h 127.0.0.1 -P "$port" --batch --skip-column-names "$@"; }
out=server/testdata/dolt/identity.golden
{
  echo "# dolt_log's committer and email after CALL dolt_commit over the loopback, as $("$dolt" version | head -1) answers (scripts/record-dolt-identity.sh)"
  q -u root -e "CREATE DATABASE d; USE d; CREATE TABLE t (id INT PRIMARY KEY); CALL dolt_commit('-Am', 'x'); CREATE USER jane@'%' IDENTIFIED BY 'pw'; GRANT ALL ON *.* TO jane@'%';" >/dev/null
  printf 'root\t'; q -u root -e "USE d; SELECT CONCAT(committer, ' ', email) FROM dolt_log LIMIT 1"
  q -u jane -ppw -e "USE d; INSERT INTO t VALUES (1); CALL dolt_commit('-am', 'y')" >/dev/null
  printf 'jane\t'; q -u jane -ppw -e "USE d; SELECT CONCAT(committer, ' ', email) FROM dolt_log LIMIT 1"
} >"$out"
cat "$out"
