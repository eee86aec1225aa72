# The lifecycle of a local test daemon (Kafka, MinIO, stripe-mock), sourced by their scripts:
# a pid file checked against the process's command line, a start that outlives the script and
# waits for readiness, a stop that escalates from SIGTERM to SIGKILL, and a one-at-a-time
# build into a cache directory. Each script sets these before calling the functions:
#
#   daemon_name     prefix of its messages                  (kafka)
#   pid_file        where the pid is kept
#   log_file        the daemon's output (appended)
#   pid_marker      text the daemon's command line holds, so a recycled pid is not taken for it
#
# shellcheck shell=bash

say() { printf '%s: %s\n' "$daemon_name" "$*" >&2; }
die() { say "$*"; exit 1; }
now_ms() { date +%s%3N; }
port_open() { (exec 3<>"/dev/tcp/$1/$2") 2>/dev/null; }

# Prints the daemon's pid when the pid file names a live process whose command line holds
# $pid_marker; fails otherwise.
daemon_running_pid() {
  [ -f "$pid_file" ] || return 1
  local pid
  pid=$(cat "$pid_file" 2>/dev/null) || return 1
  [ -n "$pid" ] && kill -0 "$pid" 2>/dev/null || return 1
  tr '\0' ' ' <"/proc/$pid/cmdline" 2>/dev/null | grep -qF -- "$pid_marker" || return 1
  echo "$pid"
}

# Holds an exclusive lock on <dir>/.lock for the rest of the script: one fetch or build at a
# time per cache directory (parallel CI jobs, two terminals).
daemon_lock() {
  mkdir -p "$1"
  exec 8>"$1/.lock"
  if command -v flock >/dev/null; then flock 8; fi
}

# daemon_go_install MODULE@VERSION BINARY LOG [GOFLAGS]: builds a Go module's command into
# BINARY (through a temporary GOBIN, so a build cut short leaves no binary behind), once.
daemon_go_install() {
  local module=$1 binary=$2 log=$3 goflags=${4:-}
  if [ -x "$binary" ]; then return 0; fi
  command -v go >/dev/null || die "go not found: $module is built from source (install Go: apt-get install golang-go, or https://go.dev/dl)"
  local dir; dir=$(dirname "$binary")
  daemon_lock "$dir"
  if [ -x "$binary" ]; then return 0; fi
  local started; started=$(now_ms)
  say "building $module with $(go version | cut -d' ' -f3) into $dir"
  rm -rf "$dir/bin.tmp"
  if ! GOBIN="$dir/bin.tmp" GOFLAGS="$goflags" go install "$module" >"$log" 2>&1; then
    tail -20 "$log" >&2
    die "could not build $module (full output: $log)"
  fi
  mv "$dir/bin.tmp/$(basename "${module%@*}")" "$binary"
  rm -rf "$dir/bin.tmp"
  say "built $binary in $(( ($(now_ms) - started) / 1000 ))s"
}

# daemon_spawn COMMAND...: starts the daemon in a session of its own (it outlives this script
# and the terminal's Ctrl-C; stop sends it SIGTERM), output appended to $log_file, its pid in
# $pid_file and in $daemon_pid. $daemon_log_offset is where this start's output begins.
daemon_spawn() {
  mkdir -p "$(dirname "$pid_file")" "$(dirname "$log_file")"
  : >>"$log_file"
  daemon_log_offset=$(wc -c <"$log_file")
  setsid nohup "$@" >>"$log_file" 2>&1 </dev/null &
  daemon_pid=$!
  echo "$daemon_pid" >"$pid_file"
}

# daemon_wait_ready TIMEOUT WHAT CHECK...: runs CHECK every 0.2 s until it succeeds; dies with
# this start's output when the daemon exits first or TIMEOUT seconds pass.
daemon_wait_ready() {
  local timeout=$1 what=$2
  shift 2
  local deadline=$(( $(date +%s) + timeout ))
  until "$@"; do
    if ! kill -0 "$daemon_pid" 2>/dev/null; then
      tail -c +"$((daemon_log_offset + 1))" "$log_file" | tail -30 >&2
      rm -f "$pid_file"
      die "exited during start-up (log: $log_file)"
    fi
    if [ "$(date +%s)" -ge "$deadline" ]; then
      tail -c +"$((daemon_log_offset + 1))" "$log_file" | tail -30 >&2
      die "not ready on $what after ${timeout}s (pid $daemon_pid still running; log: $log_file)"
    fi
    sleep 0.2
  done
}

# daemon_stop TIMEOUT: SIGTERM, then SIGKILL after TIMEOUT seconds; the pid file goes either way.
daemon_stop() {
  local timeout=$1 pid
  if ! pid=$(daemon_running_pid); then
    rm -f "$pid_file"
    say "not running"
    return 0
  fi
  local started; started=$(now_ms)
  kill -TERM "$pid" 2>/dev/null || true
  local deadline=$(( $(date +%s) + timeout ))
  while kill -0 "$pid" 2>/dev/null; do
    if [ "$(date +%s)" -ge "$deadline" ]; then
      say "no clean stop after ${timeout}s; killing pid $pid"
      kill -KILL "$pid" 2>/dev/null || true
      sleep 0.5
      break
    fi
    sleep 0.1
  done
  rm -f "$pid_file"
  say "stopped (pid $pid) in $(( $(now_ms) - started ))ms"
}
