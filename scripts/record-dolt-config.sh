#!/usr/bin/env bash
# Records the example config file that `dolt sql-server --help` prints
# ("all supported items and their default values") into
# cmd/verso/testdata/dolt/config.yaml, which cmd/verso's
# TestDoltSampleConfig reads: verso must accept it unchanged.
#
# Usage: scripts/record-dolt-config.sh [path to dolt]   (default: ../shared/tools/dolt)
# Tests never run Dolt: they read the recorded file.
set -euo pipefail
cd "$(dirname "$0")/.."
dolt="$(realpath "${1:-../shared/tools/dolt}")"
out=cmd/verso/testdata/dolt/config.yaml
{
  echo "# The example config of \`dolt sql-server --help\`, $("$dolt" version | head -1) (scripts/record-dolt-config.sh)"
  "$dolt" sql-server --help | awk '
    /showing all supported items/ { on = 1; next }
    on && /ENVIRONMENT VARIABLE INTERPOLATION/ { exit }
    on && NF { sub(/^\t\t/, ""); print }'
} >"$out"
cat "$out"
