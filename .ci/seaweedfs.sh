#!/usr/bin/env bash
# SeaweedFS, a real S3-compatible distributed object store, for the tests of
# remotes/ (S3Blobstore) on a loopback port.
#
#   bash .ci/seaweedfs.sh build   builds weed once and prints its path
#   bash .ci/seaweedfs.sh start   builds if needed, starts weed on 127.0.0.1,
#                                 creates the test bucket and prints, on
#                                 stdout, the lines to eval:
#                                   export VERSO_S3_URL=s3://verso-test/ci?...
#                                   export AWS_ACCESS_KEY_ID=...
#                                   export AWS_SECRET_ACCESS_KEY=...
#                                   export VERSO_S3_PID=<pid>
#                                   export VERSO_S3_DIR=<data dir>
#
# Stop it with: kill "$VERSO_S3_PID"; rm -rf "$VERSO_S3_DIR".
#
# weed is built from the pinned module version below, inside that module's own
# folder in the module cache (its go.mod has replace directives, which
# `go install pkg@version` refuses), so it never enters verso's go.mod. The
# binary is cached in ${XDG_CACHE_HOME:-$HOME/.cache}/verso-ci/weed-<version>;
# the Go build cache of the build is a temporary folder, removed afterwards,
# so the ~GB of SeaweedFS objects do not stay in the user's cache.
#
# Environment: VERSO_S3_PORT (default 8333) is the S3 port; the other ports
# of weed mini (master, volume, filer and admin: the next four, and their gRPC
# ports, 10000 above) are derived from it, so that two instances with
# VERSO_S3_PORT far enough apart do not collide. Everything binds to
# 127.0.0.1; the Iceberg, Lance and WebDAV gateways are off, and so is the
# master's telemetry (it would report to an outside server).
# Progress and logs go to stderr; weed's own log to $VERSO_S3_DIR/weed.log.
set -euo pipefail

WEED_MODULE=github.com/seaweedfs/seaweedfs
WEED_VERSION=v0.0.0-20261109003541-7506e5f91cd6
CACHE_DIR="${XDG_CACHE_HOME:-$HOME/.cache}/verso-ci/weed-$WEED_VERSION"
WEED="$CACHE_DIR/weed"
BUCKET=verso-test
PREFIX=ci
ACCESS_KEY=verso-ci-access
SECRET_KEY=verso-ci-secret-key-not-a-real-one

log() { echo "seaweedfs.sh: $*" >&2; }

build() {
  if [ -x "$WEED" ] && "$WEED" version >/dev/null 2>&1; then
    return 0
  fi
  mkdir -p "$CACHE_DIR"
  local dir gocache start
  start=$(date +%s)
  log "building weed $WEED_VERSION (once; cached in $CACHE_DIR)"
  # Run outside any module so the download does not touch a go.mod.
  dir=$(cd /tmp && GOFLAGS=-mod=mod go mod download -json "$WEED_MODULE@$WEED_VERSION" |
    sed -n 's/^[[:space:]]*"Dir": "\(.*\)",$/\1/p')
  if [ -z "$dir" ] || [ ! -f "$dir/go.mod" ]; then
    log "could not download $WEED_MODULE@$WEED_VERSION from the Go module proxy"
    return 1
  fi
  gocache=$(mktemp -d "${TMPDIR:-/tmp}/weed-gocache.XXXXXX")
  # -p 2: the machines have 2 cores; the link of this large binary is the
  # memory peak (~2 GB), well inside 24 GB.
  if ! (cd "$dir" && GOCACHE="$gocache" GOFLAGS=-buildvcs=false CGO_ENABLED=0 \
    go build -p 2 -trimpath -ldflags='-s -w' -o "$WEED.tmp" ./weed) >&2; then
    rm -rf "$gocache" "$WEED.tmp"
    log "building weed failed"
    return 1
  fi
  rm -rf "$gocache"
  mv "$WEED.tmp" "$WEED"
  log "built weed in $(($(date +%s) - start))s: $WEED"
}

# ports_free BASE: whether nothing listens on loopback at BASE..BASE+4
# and at the gRPC ports 10000 above them.
ports_free() {
  local p
  for p in $(seq "$1" $(($1 + 4))) $(seq $(($1 + 10000)) $(($1 + 10004))); do
    if (exec 3<>"/dev/tcp/127.0.0.1/$p") 2>/dev/null; then
      return 1
    fi
  done
  return 0
}

start() {
  build
  local port=${VERSO_S3_PORT:-}
  if [ -z "$port" ]; then
    # The first base whose ports are all free (another instance, or one
    # still stopping, may hold the default's).
    for port in 8333 21333 31333 41333 ""; do
      if [ -n "$port" ] && ports_free "$port"; then
        break
      fi
    done
    if [ -z "$port" ]; then
      log "no free set of ports for weed among 8333, 21333, 31333 and 41333; set VERSO_S3_PORT"
      return 1
    fi
  fi
  # weed adds 10000 to each HTTP port for its gRPC port: keep all of them
  # below 65536 and apart from each other.
  if [ "$port" -lt 1024 ] || [ "$port" -gt 50000 ]; then
    log "VERSO_S3_PORT must be between 1024 and 50000"
    return 1
  fi
  local master=$((port + 1)) volume=$((port + 2)) filer=$((port + 3)) admin=$((port + 4))
  local dir
  dir=$(mktemp -d "${TMPDIR:-/tmp}/verso-seaweedfs.XXXXXX")
  mkdir -p "$dir/data"
  cat >"$dir/s3.json" <<EOF
{
  "identities": [
    {
      "name": "verso-ci",
      "credentials": [{"accessKey": "$ACCESS_KEY", "secretKey": "$SECRET_KEY"}],
      "actions": ["Admin", "Read", "List", "Tagging", "Write"]
    }
  ]
}
EOF
  log "starting weed mini on 127.0.0.1:$port (data in $dir)"
  # setsid: weed's own process group, so a kill of the caller's group (a CI
  # step ending) does not leave the server half-stopped, and the caller
  # stops it by its PID.
  (
    cd "$dir"
    exec setsid "$WEED" mini \
      -dir="$dir/data" -ip=127.0.0.1 -ip.bind=127.0.0.1 \
      -master.port=$master -volume.port=$volume -filer.port=$filer \
      -s3.port=$port -s3.config="$dir/s3.json" -s3.autoCreateBucket=false \
      -s3.port.iceberg=0 -s3.port.lance=0 -webdav=false \
      -admin.ui=false -admin.port=$admin -admin.port.legacy=0 \
      -master.telemetry=false \
      </dev/null >"$dir/weed.log" 2>&1
  ) &
  local pid=$!
  echo "$pid" >"$dir/weed.pid"

  # Ready when the bucket can be made through S3 itself (signed with the key
  # above): that needs the master, a volume, the filer and the gateway.
  local deadline=$(($(date +%s) + 120)) made=""
  while [ "$(date +%s)" -lt "$deadline" ]; do
    if ! kill -0 "$pid" 2>/dev/null; then
      log "weed exited during start-up; its log ($dir/weed.log) ends with:"
      tail -n 30 "$dir/weed.log" >&2
      return 1
    fi
    if s3_make_bucket "$port"; then
      made=yes
      break
    fi
    sleep 1
  done
  if [ -z "$made" ]; then
    log "weed's S3 port $port did not answer within 120s; its log ($dir/weed.log) ends with:"
    tail -n 30 "$dir/weed.log" >&2
    kill "$pid" 2>/dev/null || true
    return 1
  fi
  log "weed is up (pid $pid), bucket $BUCKET made"
  cat <<EOF
export VERSO_S3_URL='s3://$BUCKET/$PREFIX?endpoint=http://127.0.0.1:$port&region=us-east-1'
export AWS_ACCESS_KEY_ID='$ACCESS_KEY'
export AWS_SECRET_ACCESS_KEY='$SECRET_KEY'
export VERSO_S3_PID=$pid
export VERSO_S3_DIR='$dir'
EOF
}

# s3_make_bucket PORT: a signed CreateBucket (SigV4 through curl's --aws-sigv4);
# an existing bucket counts as made.
s3_make_bucket() {
  local code
  code=$(curl -s -o /dev/null -w '%{http_code}' -X PUT \
    --aws-sigv4 "aws:amz:us-east-1:s3" --user "$ACCESS_KEY:$SECRET_KEY" \
    "http://127.0.0.1:$1/$BUCKET" 2>/dev/null) || return 1
  case "$code" in
    200 | 409) return 0 ;;
    *) return 1 ;;
  esac
}

case "${1:-}" in
  build) build && echo "$WEED" ;;
  start) start ;;
  *)
    echo "usage: $0 build|start" >&2
    exit 2
    ;;
esac
