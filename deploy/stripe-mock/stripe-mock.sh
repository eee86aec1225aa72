#!/usr/bin/env bash
# Stripe's own API mock (github.com/stripe/stripe-mock) for the billing tests.
#
#   deploy/stripe-mock/stripe-mock.sh build   go install the server into the cache (prints its path)
#   deploy/stripe-mock/stripe-mock.sh start   build if needed, start it, wait until it answers
#   deploy/stripe-mock/stripe-mock.sh stop    stop the server this script started
#
# Environment (all optional):
#   STRIPE_MOCK_VERSION    module version          (v0.203.0)
#   STRIPE_MOCK_CACHE_DIR  where the binary is kept ($HOME/.cache/transcribe/stripe-mock/<version>)
#   STRIPE_MOCK_PORT       HTTP port               (12111)
#   STRIPE_MOCK_DATA_DIR   pid and log files       (<repo>/.data/stripe-mock)
# Tests find it through STRIPE_MOCK_URL (http://127.0.0.1:$STRIPE_MOCK_PORT).
set -euo pipefail

repo_root=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
version=${STRIPE_MOCK_VERSION:-v0.203.0}
cache_dir=${STRIPE_MOCK_CACHE_DIR:-${HOME:-/root}/.cache/transcribe/stripe-mock/$version}
port=${STRIPE_MOCK_PORT:-12111}
data_dir=${STRIPE_MOCK_DATA_DIR:-$repo_root/.data/stripe-mock}
binary=$cache_dir/stripe-mock
pid_file=$data_dir/stripe-mock.pid
log_file=$data_dir/stripe-mock.log

say() { printf 'stripe-mock: %s\n' "$*" >&2; }
port_open() { (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null; }

build() {
  if [ -x "$binary" ]; then echo "$binary"; return; fi
  command -v go >/dev/null || { say "go is required to build stripe-mock"; exit 1; }
  mkdir -p "$cache_dir"
  say "building github.com/stripe/stripe-mock@$version"
  GOBIN="$cache_dir" go install "github.com/stripe/stripe-mock@$version" >&2
  echo "$binary"
}

running_pid() {
  [ -f "$pid_file" ] || return 1
  local pid; pid=$(cat "$pid_file")
  [ -n "$pid" ] && kill -0 "$pid" 2>/dev/null && grep -q stripe-mock "/proc/$pid/cmdline" 2>/dev/null && echo "$pid"
}

start() {
  build >/dev/null
  if running_pid >/dev/null; then say "already running on port $port"; return; fi
  mkdir -p "$data_dir"
  nohup "$binary" -http-port "$port" -https-port "$((port + 1))" >"$log_file" 2>&1 &
  echo $! >"$pid_file"
  for _ in $(seq 1 100); do
    if port_open "$port"; then say "listening on http://127.0.0.1:$port"; return; fi
    sleep 0.1
  done
  say "did not start; see $log_file"; exit 1
}

stop() {
  local pid
  if pid=$(running_pid); then kill "$pid"; rm -f "$pid_file"; say "stopped"; else say "not running"; fi
}

case "${1:-}" in
  build) build ;;
  start) start ;;
  stop) stop ;;
  *) echo "usage: $0 build|start|stop" >&2; exit 2 ;;
esac
