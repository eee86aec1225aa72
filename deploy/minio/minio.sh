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

daemon_name=minio
# A recycled pid is not ours: the command line must name this data directory.
pid_marker=$objects_dir
# shellcheck source=../scripts/daemon.sh
. "$repo_root/deploy/scripts/daemon.sh"

# -buildvcs=false: there is no VCS checkout, only the module's source from the proxy.
# The first build takes about 10-15 minutes on 2 cores.
build() { daemon_go_install "github.com/minio/minio@$version" "$binary" "$cache_dir/build.log" -buildvcs=false; }

ready() { curl -fsS -o /dev/null "http://$host:$port/minio/health/ready" 2>/dev/null; }

start() {
  local pid
  if pid=$(daemon_running_pid); then
    say "already running (pid $pid) on http://$host:$port"
    return 0
  fi
  if port_open "$host" "$port"; then die "$host:$port is already taken by another process (set MINIO_PORT)"; fi
  build
  mkdir -p "$objects_dir"
  local started; started=$(now_ms)
  daemon_spawn env MINIO_BROWSER=off MINIO_UPDATE=off "$binary" server "$objects_dir" \
    --address "$host:$port" --console-address "$host:$console_port" --quiet
  daemon_wait_ready "$start_timeout" "$host:$port" ready
  say "started (pid $daemon_pid) on http://$host:$port in $(( $(now_ms) - started ))ms; access key $MINIO_ROOT_USER; data $objects_dir"
}

stop() { daemon_stop "$stop_timeout"; }

status() {
  local pid
  if pid=$(daemon_running_pid) && ready; then
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
