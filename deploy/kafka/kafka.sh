#!/usr/bin/env bash
# A single-node Kafka (KRaft: broker and controller in one JVM) for tests and development.
#
#   deploy/kafka/kafka.sh start    fetch the jars if needed, format storage once, start, wait until ready
#   deploy/kafka/kafka.sh stop     stop it (SIGTERM, then SIGKILL after KAFKA_STOP_TIMEOUT seconds)
#   deploy/kafka/kafka.sh status   exit 0 and print the pid when running, exit 3 otherwise
#   deploy/kafka/kafka.sh fetch    only fetch the jars into the cache
#   deploy/kafka/kafka.sh reset    stop, then delete the data directory (topics, offsets, cluster id)
#
# The broker's jars come from Maven Central: org.apache.kafka:kafka_2.13 and its runtime
# dependencies, copied by `mvn dependency:copy-dependencies` from a small generated pom into
# a cache directory that is reused by every later start. Needs Java 17+ and Maven.
#
# Environment (all optional):
#   KAFKA_VERSION            kafka_2.13 release on Maven Central      (4.3.1)
#   KAFKA_CACHE_DIR          where the jars are kept                   ($HOME/.cache/transcribe/kafka/<version>)
#   KAFKA_DATA_DIR           log dirs, config, pid file and log file   (<repo>/.data/kafka)
#   KAFKA_HOST               address both listeners bind to            (127.0.0.1)
#   KAFKA_PORT               client (broker) port                      (9092)
#   KAFKA_CONTROLLER_PORT    KRaft controller port                     (9093)
#   KAFKA_NUM_PARTITIONS     partitions of auto-created topics         (1; the adapter creates its own)
#   KAFKA_HEAP_OPTS          JVM heap                                  (-Xms256m -Xmx768m)
#   KAFKA_JVM_OPTS           other JVM options                         (-XX:+UseSerialGC -XX:TieredStopAtLevel=1)
#   KAFKA_START_TIMEOUT      seconds to wait for readiness             (90)
#   KAFKA_STOP_TIMEOUT       seconds to wait for a clean stop          (30)
#   MAVEN_ARGS               extra arguments for mvn (e.g. -s settings.xml, -o)
set -euo pipefail

repo_root=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)

version=${KAFKA_VERSION:-4.3.1}
cache_dir=${KAFKA_CACHE_DIR:-${HOME:-/root}/.cache/transcribe/kafka/$version}
data_dir=${KAFKA_DATA_DIR:-$repo_root/.data/kafka}
host=${KAFKA_HOST:-127.0.0.1}
port=${KAFKA_PORT:-9092}
controller_port=${KAFKA_CONTROLLER_PORT:-9093}
num_partitions=${KAFKA_NUM_PARTITIONS:-1}
heap_opts=${KAFKA_HEAP_OPTS:--Xms256m -Xmx768m}
# C1 only and the serial collector: a test broker starts in about half the time (its
# throughput is far beyond what the tests need).
jvm_opts=${KAFKA_JVM_OPTS:--XX:+UseSerialGC -XX:TieredStopAtLevel=1}
start_timeout=${KAFKA_START_TIMEOUT:-90}
stop_timeout=${KAFKA_STOP_TIMEOUT:-30}

libs_dir=$cache_dir/libs
pid_file=$data_dir/kafka.pid
log_file=$data_dir/kafka.log
config_file=$data_dir/server.properties
log4j_file=$data_dir/log4j2.properties
logs_dir=$data_dir/logs

daemon_name=kafka
# A recycled pid is not ours: the command line must name this data directory's config.
pid_marker=$config_file
# shellcheck source=../scripts/daemon.sh
. "$repo_root/deploy/scripts/daemon.sh"

fetch() {
  if [ -f "$libs_dir/.complete" ]; then return 0; fi
  command -v java >/dev/null || die "java not found (Kafka $version needs Java 17+: apt-get install openjdk-17-jre-headless)"
  command -v mvn >/dev/null || die "mvn not found (apt-get install maven)"
  daemon_lock "$cache_dir"
  if [ -f "$libs_dir/.complete" ]; then return 0; fi
  local started; started=$(now_ms)
  say "fetching org.apache.kafka:kafka_2.13:$version and its dependencies from Maven Central into $cache_dir"
  cat >"$cache_dir/pom.xml" <<EOF
<?xml version="1.0" encoding="UTF-8"?>
<project xmlns="http://maven.apache.org/POM/4.0.0">
  <modelVersion>4.0.0</modelVersion>
  <groupId>transcribe.local</groupId>
  <artifactId>kafka-broker-runtime</artifactId>
  <version>$version</version>
  <packaging>pom</packaging>
  <dependencies>
    <dependency>
      <groupId>org.apache.kafka</groupId>
      <artifactId>kafka_2.13</artifactId>
      <version>$version</version>
    </dependency>
  </dependencies>
</project>
EOF
  rm -rf "$libs_dir.tmp"
  if ! mvn -B ${MAVEN_ARGS:-} -f "$cache_dir/pom.xml" \
      dependency:copy-dependencies -DincludeScope=runtime -DoutputDirectory="$libs_dir.tmp" >"$cache_dir/mvn.log" 2>&1; then
    tail -20 "$cache_dir/mvn.log" >&2
    die "could not fetch Kafka $version from Maven Central (full output: $cache_dir/mvn.log)"
  fi
  # kafka_2.13 leaves the SLF4J binding to the distribution; without one the broker logs
  # nothing. The official tarball ships log4j-slf4j-impl of the same version as log4j-core.
  local log4j_jar log4j_version
  log4j_jar=$(ls "$libs_dir.tmp"/log4j-core-*.jar 2>/dev/null | head -1)
  log4j_version=$(basename "${log4j_jar:-log4j-core-2.25.4.jar}" .jar); log4j_version=${log4j_version#log4j-core-}
  if ! mvn -B ${MAVEN_ARGS:-} -f "$cache_dir/pom.xml" dependency:copy \
      -Dartifact="org.apache.logging.log4j:log4j-slf4j-impl:$log4j_version" -DoutputDirectory="$libs_dir.tmp" >>"$cache_dir/mvn.log" 2>&1; then
    tail -20 "$cache_dir/mvn.log" >&2
    die "could not fetch log4j-slf4j-impl $log4j_version (full output: $cache_dir/mvn.log)"
  fi
  ls "$libs_dir.tmp"/kafka_2.13-*.jar >/dev/null 2>&1 || die "kafka_2.13 jar missing after fetch; see $cache_dir/mvn.log"
  rm -rf "$libs_dir"
  mv "$libs_dir.tmp" "$libs_dir"
  touch "$libs_dir/.complete"
  say "fetched $(ls "$libs_dir" | wc -l) jars ($(du -sh "$libs_dir" | cut -f1)) in $(( ($(now_ms) - started) / 1000 ))s"
}

write_config() {
  mkdir -p "$data_dir" "$logs_dir"
  cat >"$config_file" <<EOF
# Generated by deploy/kafka/kafka.sh; edits are overwritten at the next start.
process.roles=broker,controller
node.id=1
controller.quorum.voters=1@$host:$controller_port
listeners=PLAINTEXT://$host:$port,CONTROLLER://$host:$controller_port
advertised.listeners=PLAINTEXT://$host:$port
controller.listener.names=CONTROLLER
inter.broker.listener.name=PLAINTEXT
listener.security.protocol.map=CONTROLLER:PLAINTEXT,PLAINTEXT:PLAINTEXT
log.dirs=$logs_dir
num.partitions=$num_partitions
# Topics are created by the event bus adapter with their configured partition counts.
auto.create.topics.enable=false
# One node: every internal topic has a single replica.
offsets.topic.replication.factor=1
offsets.topic.num.partitions=10
transaction.state.log.replication.factor=1
transaction.state.log.min.isr=1
transaction.state.log.num.partitions=5
share.coordinator.state.topic.replication.factor=1
share.coordinator.state.topic.min.isr=1
# A consumer group's first member starts at once instead of waiting 3 s for others.
group.initial.rebalance.delay.ms=0
log.retention.hours=168
EOF
  cat >"$log4j_file" <<'EOF'
status = warn
appender.out.type = Console
appender.out.name = out
appender.out.layout.type = PatternLayout
appender.out.layout.pattern = [%d] %p %m (%c)%n
rootLogger.level = info
rootLogger.appenderRef.out.ref = out
logger.noisy1.name = org.apache.kafka.clients
logger.noisy1.level = warn
logger.noisy2.name = kafka.log
logger.noisy2.level = warn
logger.noisy3.name = org.apache.kafka.storage
logger.noisy3.level = warn
logger.noisy4.name = state.change.logger
logger.noisy4.level = warn
EOF
}

java_cmd() {
  local -a heap extra
  read -r -a heap <<<"$heap_opts"
  read -r -a extra <<<"$jvm_opts"
  java_args=(java "${heap[@]}" "${extra[@]}" -Djava.awt.headless=true
    -Dlog4j2.configurationFile="$log4j_file" -cp "$libs_dir/*")
}

format_storage() {
  [ -f "$logs_dir/meta.properties" ] && return 0
  # A Kafka Uuid: 16 random bytes, base64url without padding (22 characters).
  local cluster_id
  # One that starts with "-" would be read as an option by the storage tool.
  cluster_id=-
  while [ "${cluster_id#-}" != "$cluster_id" ]; do
    cluster_id=$(head -c 16 /dev/urandom | base64 | tr '+/' '-_' | tr -d '=\n')
  done
  say "formatting $logs_dir (cluster id $cluster_id)"
  java_cmd
  "${java_args[@]}" kafka.tools.StorageTool format -t "$cluster_id" -c "$config_file" --ignore-formatted >>"$log_file" 2>&1 \
    || { tail -20 "$log_file" >&2; die "formatting storage failed (log: $log_file)"; }
}

kafka_started() { port_open "$host" "$port" && tail -c +"$((daemon_log_offset + 1))" "$log_file" | grep -q "Kafka Server started"; }

start() {
  local pid
  if pid=$(daemon_running_pid); then
    say "already running (pid $pid) on $host:$port"
    return 0
  fi
  if port_open "$host" "$port"; then die "$host:$port is already taken by another process (set KAFKA_PORT)"; fi
  if port_open "$host" "$controller_port"; then die "$host:$controller_port is already taken by another process (set KAFKA_CONTROLLER_PORT)"; fi
  fetch
  write_config
  local started; started=$(now_ms)
  format_storage
  java_cmd
  daemon_spawn "${java_args[@]}" kafka.Kafka "$config_file"
  daemon_wait_ready "$start_timeout" "$host:$port" kafka_started
  say "started Kafka $version (pid $daemon_pid) on $host:$port in $(( ($(now_ms) - started) ))ms; data $data_dir, log $log_file"
}

stop() { daemon_stop "$stop_timeout"; }

status() {
  local pid
  if pid=$(daemon_running_pid); then
    if port_open "$host" "$port"; then
      echo "running pid=$pid address=$host:$port version=$version data=$data_dir"
      return 0
    fi
    echo "starting pid=$pid address=$host:$port (port not answering yet)"
    return 3
  fi
  echo "stopped"
  return 3
}

case "${1:-}" in
  start) start ;;
  stop) stop ;;
  restart) stop; start ;;
  status) status ;;
  fetch) fetch; say "jars in $libs_dir" ;;
  reset) stop; rm -rf "$data_dir"; say "deleted $data_dir" ;;
  *) echo "usage: $0 start|stop|restart|status|fetch|reset" >&2; exit 2 ;;
esac
