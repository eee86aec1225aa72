#!/usr/bin/env bash
# A single-node MinIO (S3-compatible object store) for tests and development.
#
#   deploy/minio/minio.sh start    build the server if needed, start it, wait until ready
#   deploy/minio/minio.sh stop     stop it (SIGTERM, then SIGKILL after MINIO_STOP_TIMEOUT seconds)
#   deploy/minio/minio.sh status   exit 0 and print the address when running, exit 3 otherwise
#   deploy/minio/minio.sh build    only build the server binary into the cache (prints its path)
#   deploy/minio/minio.sh path     print the cached binary's path (exit 3 when not built yet)
#   deploy/minio/minio.sh reset    stop, then delete the data directory
#
# The server is built from source with `go install github.com/minio/minio@<version>` through
# the Go module proxy, once, into a cache reused by every later start. MinIO publishes
# RELEASE.* tags that are not semantic versions, which the module proxy does not serve, so
# the version is a module pseudo-version (the default is the last commit of the archived
# community repository). The first build takes about 10-15 minutes on 2 cores and needs
# Go 1.24+; later starts take a second or two.
#
# Environment (all optional):
#   MINIO_VERSION          module version of github.com/minio/minio   (v0.0.0-20260212201848-7aac2a2c5b7c)
#   MINIO_CACHE_DIR        where the binary is kept                   ($HOME/.cache/transcribe/minio/<version>)
#   MINIO_DATA_DIR         objects, pid file and log file             (<repo>/.data/minio)
#   MINIO_HOST             address the S3 API binds to                (127.0.0.1)
#   MINIO_PORT             S3 API port                                (9000)
#   MINIO_CONSOLE_PORT     web console port                           (9001)
#   MINIO_ROOT_USER        access key                                 (transcribe)
#   MINIO_ROOT_PASSWORD    secret key (8+ characters)                 (transcribe-secret)
#   MINIO_START_TIMEOUT    seconds to wait for readiness              (60)
#   MINIO_STOP_TIMEOUT     seconds to wait for a clean stop           (15)
#   MINIO_NOTIFY_WEBHOOK_* passed through: bucket notifications to a webhook (see docs/decisions/0009)
set -euo pipefail

repo_root=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)

version=${MINIO_VERSION:-v0.0.0-20260212201848-7aac2a2c5b7c}
cache_dir=${MINIO_CACHE_DIR:-${HOME:-/root}/.cache/transcribe/minio/$version}
data_dir=${MINIO_DATA_DIR:-$repo_root/.data/minio}
host=${MINIO_HOST:-127.0.0.1}
port=${MINIO_PORT:-9000}
console_port=${MINIO_CONSOLE_PORT:-9001}
export MINIO_ROOT_USER=${MINIO_ROOT_USER:-transcribe}
export MINIO_ROOT_PASSWORD=${MINIO_ROOT_PASSWORD:-transcribe-secret}
start_timeout=${MINIO_START_TIMEOUT:-60}
stop_timeout=${MINIO_STOP_TIMEOUT:-15}

binary=$cache_dir/minio
pid_file=$data_dir/minio.pid
log_file=$data_dir/minio.log
objects_dir=$data_dir/objects

say() { printf 'minio: %s\n' "$*" >&2; }
die() { say "$*"; exit 1; }
now_ms() { date +%s%3N; }
port_open() { (exec 3<>"/dev/tcp/$1/$2") 2>/dev/null; }

running_pid() {
  [ -f "$pid_file" ] || return 1
  local pid
  pid=$(cat "$pid_file" 2>/dev/null) || return 1
  [ -n "$pid" ] && kill -0 "$pid" 2>/dev/null || return 1
  # A recycled pid is not ours: the command line must name this data directory.
  tr '\0' ' ' <"/proc/$pid/cmdline" 2>/dev/null | grep -qF -- "$objects_dir" || return 1
  echo "$pid"
}

build() {
  if [ -x "$binary" ]; then return 0; fi
  command -v go >/dev/null || die "go not found: MinIO is built from source (install Go 1.24+: apt-get install golang-go, or https://go.dev/dl)"
  mkdir -p "$cache_dir"
  # One build at a time per cache directory (parallel CI jobs, two terminals).
  exec 8>"$cache_dir/.lock"
  if command -v flock >/dev/null; then flock 8; fi
  if [ -x "$binary" ]; then return 0; fi
  local started; started=$(now_ms)
  say "building github.com/minio/minio@$version with $(go version | cut -d' ' -f3) into $cache_dir (first time only; about 10-15 minutes)"
  # -buildvcs=false: there is no VCS checkout, only the module's source from the proxy.
  if ! GOBIN="$cache_dir/bin.tmp" GOFLAGS=-buildvcs=false go install "github.com/minio/minio@$version" >"$cache_dir/build.log" 2>&1; then
    tail -20 "$cache_dir/build.log" >&2
    die "could not build MinIO $version (full output: $cache_dir/build.log)"
  fi
  mv "$cache_dir/bin.tmp/minio" "$binary"
  rmdir "$cache_dir/bin.tmp" 2>/dev/null || true
  say "built $binary in $(( ($(now_ms) - started) / 1000 ))s"
}

start() {
  local pid
  if pid=$(running_pid); then
    say "already running (pid $pid) on http://$host:$port"
    return 0
  fi
  if port_open "$host" "$port"; then die "$host:$port is already taken by another process (set MINIO_PORT)"; fi
  build
  mkdir -p "$objects_dir"
  : >>"$log_file"
  local started; started=$(now_ms)
  # setsid: the server outlives this script and the terminal's Ctrl-C; stop sends it SIGTERM.
  MINIO_BROWSER=off MINIO_UPDATE=off setsid nohup "$binary" server "$objects_dir" \
    --address "$host:$port" --console-address "$host:$console_port" --quiet \
    >>"$log_file" 2>&1 </dev/null &
  pid=$!
  echo "$pid" >"$pid_file"
  local deadline=$(( $(date +%s) + start_timeout ))
  until curl -fsS -o /dev/null "http://$host:$port/minio/health/ready" 2>/dev/null; do
    if ! kill -0 "$pid" 2>/dev/null; then
      tail -30 "$log_file" >&2
      rm -f "$pid_file"
      die "server exited during start-up (log: $log_file)"
    fi
    if [ "$(date +%s)" -ge "$deadline" ]; then
      tail -30 "$log_file" >&2
      die "server not ready on $host:$port after ${start_timeout}s (pid $pid still running; log: $log_file)"
    fi
    sleep 0.2
  done
  say "started (pid $pid) on http://$host:$port in $(( $(now_ms) - started ))ms; access key $MINIO_ROOT_USER; data $objects_dir"
}

stop() {
  local pid
  if ! pid=$(running_pid); then
    rm -f "$pid_file"
    say "not running"
    return 0
  fi
  kill -TERM "$pid" 2>/dev/null || true
  local deadline=$(( $(date +%s) + stop_timeout ))
  while kill -0 "$pid" 2>/dev/null; do
    if [ "$(date +%s)" -ge "$deadline" ]; then
      say "no clean stop after ${stop_timeout}s; killing pid $pid"
      kill -KILL "$pid" 2>/dev/null || true
      break
    fi
    sleep 0.1
  done
  rm -f "$pid_file"
  say "stopped (pid $pid)"
}

status() {
  local pid
  if pid=$(running_pid) && curl -fsS -o /dev/null "http://$host:$port/minio/health/ready" 2>/dev/null; then
    echo "running pid=$pid endpoint=http://$host:$port access_key=$MINIO_ROOT_USER data=$objects_dir"
    return 0
  fi
  echo "stopped"
  return 3
}

case "${1:-}" in
  start) start ;;
  stop) stop ;;
  restart) stop; start ;;
  status) status ;;
  build) build; echo "$binary" ;;
  path) if [ -x "$binary" ]; then echo "$binary"; else echo "not built: run $0 build" >&2; exit 3; fi ;;
  reset) stop; rm -rf "$data_dir"; say "deleted $data_dir" ;;
  *) echo "usage: $0 start|stop|restart|status|build|path|reset" >&2; exit 2 ;;
esac
