#!/usr/bin/env bash
# Stripe's own API mock (github.com/stripe/stripe-mock) for the billing tests.
#
#   deploy/stripe-mock/stripe-mock.sh build   go install the server into the cache (prints its path)
#   deploy/stripe-mock/stripe-mock.sh start   build if needed, start it, wait until it answers
#   deploy/stripe-mock/stripe-mock.sh stop    stop the server this script started
#
# Environment (all optional):
#   STRIPE_MOCK_VERSION        module version          (v0.203.0)
#   STRIPE_MOCK_CACHE_DIR      where the binary is kept ($HOME/.cache/transcribe/stripe-mock/<version>)
#   STRIPE_MOCK_PORT           HTTP port               (12111; HTTPS on the next one)
#   STRIPE_MOCK_DATA_DIR       pid and log files       (<repo>/.data/stripe-mock)
#   STRIPE_MOCK_START_TIMEOUT  seconds to wait until it answers (10)
#   STRIPE_MOCK_STOP_TIMEOUT   seconds to wait for a clean stop (10)
# Tests find it through STRIPE_MOCK_URL (http://127.0.0.1:$STRIPE_MOCK_PORT).
set -euo pipefail

repo_root=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
version=${STRIPE_MOCK_VERSION:-v0.203.0}
cache_dir=${STRIPE_MOCK_CACHE_DIR:-${HOME:-/root}/.cache/transcribe/stripe-mock/$version}
port=${STRIPE_MOCK_PORT:-12111}
data_dir=${STRIPE_MOCK_DATA_DIR:-$repo_root/.data/stripe-mock}
start_timeout=${STRIPE_MOCK_START_TIMEOUT:-10}
stop_timeout=${STRIPE_MOCK_STOP_TIMEOUT:-10}
binary=$cache_dir/stripe-mock
pid_file=$data_dir/stripe-mock.pid
log_file=$data_dir/stripe-mock.log

daemon_name=stripe-mock
pid_marker=stripe-mock
# shellcheck source=../scripts/daemon.sh
. "$repo_root/deploy/scripts/daemon.sh"

build() { daemon_go_install "github.com/stripe/stripe-mock@$version" "$binary" "$cache_dir/build.log"; }

start() {
  build
  if daemon_running_pid >/dev/null; then say "already running on port $port"; return; fi
  # Another checkout's stripe-mock answers the same API: the tests only need the port.
  if port_open 127.0.0.1 "$port"; then say "port $port already answers; using that server"; return; fi
  daemon_spawn "$binary" -http-port "$port" -https-port "$((port + 1))"
  daemon_wait_ready "$start_timeout" "127.0.0.1:$port" port_open 127.0.0.1 "$port"
  say "listening on http://127.0.0.1:$port"
}

stop() { daemon_stop "$stop_timeout"; }

case "${1:-}" in
  build) build; echo "$binary" ;;
  start) start ;;
  stop) stop ;;
  *) echo "usage: $0 build|start|stop" >&2; exit 2 ;;
esac
