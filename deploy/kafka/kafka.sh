#!/usr/bin/env bash
# Local Apache Kafka broker (KRaft, one combined broker+controller on 127.0.0.1) from Maven Central jars.
# Run `bash deploy/kafka/kafka.sh --help` for the interface.
set -euo pipefail

SCRIPT_DIR="$(cd -- "$(dirname -- "${BASH_SOURCE[0]}")" && pwd -P)"
ROOT="$(cd -- "$SCRIPT_DIR/../.." && pwd -P)"
PROG="deploy/kafka/kafka.sh"

POM="$SCRIPT_DIR/pom.xml"
LOG4J_CONF="$SCRIPT_DIR/log4j2.properties"
TEMPLATE="$SCRIPT_DIR/server.properties.template"
PROBE_JAVA="$SCRIPT_DIR/Probe.java"

LIBS="$ROOT/.kafka/libs"
MARKER="$LIBS/.fetch-complete"
RUN="${KAFKA_RUN_DIR:-.kafka/run}"
[[ "$RUN" = /* ]] || RUN="$ROOT/$RUN"
DATA="$RUN/data"
CONF="$DATA/server.properties"
PID_FILE="$RUN/kafka.pid"
BOOT_FILE="$RUN/bootstrap"
LOG_FILE="$RUN/kafka.log"
LOCK_FILE="$RUN/.lock"

READY_TIMEOUT="${KAFKA_READY_TIMEOUT:-90}"
HEAP_OPTS="${KAFKA_HEAP_OPTS:--Xms256m -Xmx1g}"
if [[ -n "${JAVA_HOME:-}" && -x "${JAVA_HOME}/bin/java" ]]; then JAVA="${JAVA_HOME}/bin/java"; else JAVA="java"; fi
MVN="${MVN:-mvn}"
DEP_PLUGIN="org.apache.maven.plugins:maven-dependency-plugin:3.8.1"

usage() {
  cat <<EOF
Usage: bash $PROG COMMAND

A throw-away Apache Kafka broker (KRaft, single combined broker+controller, PLAINTEXT on
127.0.0.1) run from Maven Central jars. Needs Java 17+ and Maven (for the first fetch only).

Commands:
  fetch    Download the broker jars (deploy/kafka/pom.xml) into .kafka/libs. Skipped when a previous
           fetch completed for the same pom.xml; an interrupted fetch is redone from scratch.
  up       Fetch if needed, then start the broker in the background and wait until it answers a
           metadata request. If the broker recorded in the run dir is already up, just print its
           address. Every start uses a fresh, empty data dir. Last line of stdout: HOST:PORT.
  down     Stop the recorded broker (SIGTERM, up to 30 s, then SIGKILL). Exit 0 if none was running.
  status   Print HOST:PORT and exit 0 if the recorded broker is up and answering, else exit 1.
  help, -h, --help
           This text.

Environment:
  KAFKA_PORT             broker (PLAINTEXT) port for 'up'; default: a free loopback port
  KAFKA_CONTROLLER_PORT  KRaft controller port; default: a free loopback port
  KAFKA_READY_TIMEOUT    seconds 'up' waits for the broker (default 90)
  KAFKA_RUN_DIR          run dir, relative to the repository root or absolute (default .kafka/run);
                         use different run dirs to run several brokers side by side
  KAFKA_HEAP_OPTS        JVM heap flags (default "-Xms256m -Xmx1g")
  KAFKA_OPTS             extra JVM flags for the broker
  KAFKA_PYTHON           Python with kafka-python, used for the readiness probe
                         (default .venv/bin/python, then python3). Without kafka-python, or with
                         KAFKA_PYTHON=none, deploy/kafka/Probe.java (Kafka's Java admin client) is used
  KAFKA_MVN_ARGS         extra Maven arguments for 'fetch' (e.g. "-o" or "-Dmaven.repo.local=/path")
  JAVA_HOME, MVN         which java / mvn to use

Files (relative to the repository root, which is found from this script's location):
  .kafka/libs/                  jars; .kafka/libs/.fetch-complete marks a complete fetch
  <run dir>/kafka.pid           pid of the broker JVM (written at start, removed by 'down')
  <run dir>/bootstrap           "127.0.0.1:PORT" (written once the broker answers, removed by 'down')
  <run dir>/kafka.log           broker stdout+stderr (quiet: WARN, plus "Kafka Server started"); kept after 'down'
  <run dir>/data/               server.properties and the KRaft log dir; wiped on every 'up'

Examples:
  bash $PROG up                          # prints e.g. 127.0.0.1:40123
  BOOTSTRAP=\$(bash $PROG up | tail -n 1)
  KAFKA_PORT=9092 bash $PROG up
  bash $PROG status && bash $PROG down
EOF
}

log() { printf '%s\n' "kafka.sh: $*" >&2; }
die() { log "error: $*"; exit 1; }

# ---------------------------------------------------------------- helpers

kafka_version() {
  sed -n 's:.*<kafka.version>\(.*\)</kafka.version>.*:\1:p' "$POM" | head -n 1
}

pom_hash() { sha256sum "$POM" | cut -d' ' -f1; }

libs_complete() {
  local v
  v="$(kafka_version)"
  [[ -f "$MARKER" && -f "$LIBS/kafka_2.13-$v.jar" ]] && [[ "$(cat "$MARKER")" == "pom-sha256 $(pom_hash)" ]]
}

lock() {
  mkdir -p "$RUN"
  exec 9>"$LOCK_FILE"
  flock -w 180 9 || die "another kafka.sh holds $LOCK_FILE for more than 180 s"
}

# Alive and not a zombie.
pid_alive() {
  local pid="$1" state
  [[ -r "/proc/$pid/stat" ]] || return 1
  state="$(sed 's/^.*) //' "/proc/$pid/stat" 2>/dev/null | cut -d' ' -f1)" || return 1
  [[ -n "$state" && "$state" != "Z" && "$state" != "X" ]]
}

# True only for a live java process running kafka.Kafka with *our* server.properties.
is_our_kafka() {
  local pid="$1" args exe
  [[ "$pid" =~ ^[0-9]+$ ]] || return 1
  pid_alive "$pid" || return 1
  args="$(tr '\0' '\n' <"/proc/$pid/cmdline" 2>/dev/null)" || return 1
  exe="$(head -n 1 <<<"$args")"
  [[ "$(basename -- "$exe")" == java ]] || return 1
  grep -qxF 'kafka.Kafka' <<<"$args" || return 1
  grep -qxF "$CONF" <<<"$args" || return 1
}

recorded_pid() {
  local pid
  [[ -f "$PID_FILE" ]] || return 1
  pid="$(tr -d '[:space:]' <"$PID_FILE")"
  [[ "$pid" =~ ^[0-9]+$ ]] || return 1
  printf '%s' "$pid"
}

find_python() {   # any python3, for picking ports
  local c
  for c in "${KAFKA_PYTHON:-}" "$ROOT/.venv/bin/python" python3; do
    [[ -n "$c" ]] && command -v "$c" >/dev/null 2>&1 && { printf '%s' "$c"; return 0; }
  done
  return 1
}

PROBE_PY_CACHE=""
find_probe_python() {   # a python that has kafka-python
  local c
  if [[ -n "$PROBE_PY_CACHE" ]]; then [[ "$PROBE_PY_CACHE" != none ]] && printf '%s' "$PROBE_PY_CACHE"; [[ "$PROBE_PY_CACHE" != none ]]; return; fi
  if [[ "${KAFKA_PYTHON:-}" == none ]]; then PROBE_PY_CACHE=none; return 1; fi
  for c in "${KAFKA_PYTHON:-}" "$ROOT/.venv/bin/python" python3; do
    if [[ -n "$c" ]] && command -v "$c" >/dev/null 2>&1 && "$c" -c 'import kafka.admin' >/dev/null 2>&1; then
      PROBE_PY_CACHE="$c"; printf '%s' "$c"; return 0
    fi
  done
  PROBE_PY_CACHE=none
  return 1
}

# probe ADDR SECONDS: succeed once a metadata round trip (DescribeCluster) to ADDR works, retrying for up to SECONDS.
probe() {
  local addr="$1" secs="$2" py
  (( secs < 3 )) && secs=3
  if py="$(find_probe_python)"; then
    timeout --foreground --kill-after=5 "$((secs + 10))" "$py" - "$addr" "$secs" <<'PY'
import sys, time, logging
logging.disable(logging.CRITICAL)
from kafka import KafkaAdminClient
addr, secs = sys.argv[1], float(sys.argv[2])
deadline = time.monotonic() + secs
last = None
while True:
    admin = None
    try:
        admin = KafkaAdminClient(bootstrap_servers=addr, bootstrap_timeout_ms=2000,
                                 request_timeout_ms=5000, client_id="kafka.sh-probe")
        info = admin.describe_cluster()
        if info.get("brokers"):
            sys.exit(0)
        last = "no brokers in metadata: %r" % (info,)
    except Exception as e:  # not ready yet
        last = "%s: %s" % (type(e).__name__, e)
    finally:
        if admin is not None:
            try:
                admin.close()
            except Exception:
                pass
    if time.monotonic() >= deadline:
        print("probe failed: %s" % last, file=sys.stderr)
        sys.exit(1)
    time.sleep(0.5)
PY
  else
    # No kafka-python: use the Kafka Java admin client through the JDK source launcher.
    timeout --foreground --kill-after=5 "$((secs + 30))" "$JAVA" -Xmx128m -XX:TieredStopAtLevel=1 \
      "-Dlog4j2.configurationFile=$LOG4J_CONF" -cp "$LIBS/*" "$PROBE_JAVA" "$addr" "$secs"
  fi
}

# port_free PORT: nothing can be bound on 127.0.0.1:PORT?
port_free() {
  local py
  if py="$(find_python)"; then
    "$py" -c 'import socket,sys
s=socket.socket()
try: s.bind(("127.0.0.1", int(sys.argv[1])))
except OSError: sys.exit(1)' "$1"
  else
    # no python: "free" means nothing accepts connections there
    if (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null; then return 1; fi
    return 0
  fi
}

# Prints N distinct free loopback ports, one per line.
free_ports() {
  local n="$1" py p i
  if py="$(find_python)"; then
    "$py" -c 'import socket,sys
ss=[socket.socket() for _ in range(int(sys.argv[1]))]
for s in ss: s.bind(("127.0.0.1", 0))
print("\n".join(str(s.getsockname()[1]) for s in ss))' "$n"
  else
    for ((i = 0; i < n; i++)); do
      while :; do p=$((20000 + RANDOM % 30000)); port_free "$p" && break; done
      echo "$p"
    done
  fi
}

# shellcheck disable=SC2016  # the '${...}' below are literal placeholders
render_config() {   # PORT CONTROLLER_PORT
  local port="$1" cport="$2" line out=""
  while IFS= read -r line || [[ -n "$line" ]]; do
    line="${line//'${PORT}'/$port}"
    line="${line//'${CONTROLLER_PORT}'/$cport}"
    line="${line//'${DATA_DIR}'/$DATA}"
    out+="$line"$'\n'
  done <"$TEMPLATE"
  if grep -q '\${' <<<"$out"; then die "unrendered placeholder left in $TEMPLATE"; fi
  printf '%s' "$out" >"$CONF"
}

# Kafka cluster id: 16 random bytes, URL-safe base64 without padding. Kafka's own Uuid.randomUuid
# never hands out ids starting with '-' (they look like options on a command line); neither do we.
cluster_id() {
  local id
  while :; do
    id="$(head -c 16 /dev/urandom | base64 | tr '+/' '-_' | tr -d '=\n')"
    [[ "$id" != -* && "$id" != AAAAAAAAAAAAAAAAAAAAAA ]] && break
  done
  printf '%s' "$id"
}

check_java() {
  local v major
  command -v "$JAVA" >/dev/null 2>&1 || die "java not found (install OpenJDK 17+ or set JAVA_HOME)"
  v="$("$JAVA" -version 2>&1 | sed -n 's/.*version "\([^"]*\)".*/\1/p' | head -n 1)"
  major="${v%%.*}"
  [[ "$major" =~ ^[0-9]+$ && "$major" -ge 17 ]] || die "Kafka 4.x needs Java 17+, found '${v:-unknown}' ($JAVA)"
}

stop_pid() {   # stop_pid PID: SIGTERM, 30 s, SIGKILL
  local pid="$1" i
  kill -TERM "$pid" 2>/dev/null || true
  for ((i = 0; i < 300; i++)); do
    pid_alive "$pid" || return 0
    sleep 0.1
  done
  if is_our_kafka "$pid"; then
    log "broker (pid $pid) still running after 30 s; sending SIGKILL"
    kill -KILL "$pid" 2>/dev/null || true
    for ((i = 0; i < 100; i++)); do pid_alive "$pid" || return 0; sleep 0.1; done
    die "could not kill pid $pid"
  fi
}

# ---------------------------------------------------------------- commands

do_fetch() {   # caller holds the lock
  local v tmp start j
  v="$(kafka_version)"
  [[ -n "$v" ]] || die "no <kafka.version> in $POM"
  if libs_complete; then
    return 0
  fi
  command -v "$MVN" >/dev/null 2>&1 || die "mvn not found; install Maven 3.8+ (needed once, to fetch the jars)"
  tmp="$ROOT/.kafka/libs.partial"
  rm -rf -- "$tmp"
  mkdir -p "$ROOT/.kafka"
  log "fetching Kafka $v jars from Maven Central into .kafka/libs ..."
  start=$SECONDS
  # Maven 3.8.7 prints bare ESC[0m codes even with -B -q; strip them (pipefail keeps mvn's exit status).
  # shellcheck disable=SC2086
  if ! "$MVN" -B -q ${KAFKA_MVN_ARGS:-} -f "$POM" "$DEP_PLUGIN:copy-dependencies" \
       -DincludeScope=runtime -DoutputDirectory="$tmp" 2>&1 | sed -e 's/\x1b\[[0-9;]*m//g' -e '/^$/d' >&2; then
    rm -rf -- "$tmp"
    die "Maven could not fetch the jars (see above). Check access to Maven Central (or ~/.m2/settings.xml mirrors), then rerun: bash $PROG fetch"
  fi
  for j in "kafka_2.13-$v.jar" "kafka-clients-$v.jar"; do
    [[ -f "$tmp/$j" ]] || die "fetch finished but $j is missing from $tmp"
  done
  ls "$tmp"/log4j-core-*.jar "$tmp"/log4j-slf4j-impl-*.jar >/dev/null 2>&1 || die "fetch finished but log4j jars are missing"
  printf 'pom-sha256 %s\n' "$(pom_hash)" >"$tmp/.fetch-complete"
  rm -rf -- "$LIBS"
  mv -- "$tmp" "$LIBS"
  log "fetched $(find "$LIBS" -name '*.jar' | wc -l) jars, $(du -sh "$LIBS" | cut -f1), in $((SECONDS - start)) s"
}

cmd_fetch() {
  lock
  if libs_complete; then log "jars already in .kafka/libs (Kafka $(kafka_version))"; return 0; fi
  do_fetch
}

# Succeeds (and prints the address) when the recorded broker is alive and answers.
running_addr() {
  local pid addr
  pid="$(recorded_pid)" || return 1
  is_our_kafka "$pid" || return 1
  [[ -s "$BOOT_FILE" ]] || return 1
  addr="$(tr -d '[:space:]' <"$BOOT_FILE")"
  probe "$addr" 3 2>/dev/null || return 1
  printf '%s\n' "$addr"
}

cmd_status() {
  local addr pid
  if addr="$(running_addr)"; then
    printf '%s\n' "$addr"
    return 0
  fi
  if pid="$(recorded_pid)" && is_our_kafka "$pid"; then
    log "broker pid $pid is running but not answering"
  else
    log "no broker running"
  fi
  return 1
}

cmd_down() {
  local pid
  lock
  if ! pid="$(recorded_pid)"; then
    rm -f -- "$BOOT_FILE" "$PID_FILE"
    log "no broker running"
    return 0
  fi
  if ! is_our_kafka "$pid"; then
    log "pid $pid in $PID_FILE is not a running kafka.Kafka of this checkout; leaving it alone, removing the stale pid file"
    rm -f -- "$BOOT_FILE" "$PID_FILE"
    return 0
  fi
  log "stopping broker (pid $pid) ..."
  stop_pid "$pid"
  rm -f -- "$BOOT_FILE" "$PID_FILE"
  log "stopped"
}

STARTING_PID=""
abort_start() {
  if [[ -n "$STARTING_PID" ]] && is_our_kafka "$STARTING_PID"; then
    kill -KILL "$STARTING_PID" 2>/dev/null || true
  fi
  rm -f -- "$BOOT_FILE" "$PID_FILE"
}

fail_start() {   # fail_start MESSAGE
  log "error: $1"
  if [[ -f "$LOG_FILE" ]]; then
    log "last 40 lines of $LOG_FILE:"
    tail -n 40 "$LOG_FILE" >&2 || true
  fi
  abort_start
  log "the broker was stopped. Things to try: read the full log ($LOG_FILE);"
  log "  rerun with a longer wait (KAFKA_READY_TIMEOUT=180 bash $PROG up) or another port (KAFKA_PORT=...);"
  log "  refetch the jars (rm -rf .kafka/libs && bash $PROG fetch); check 'java -version' is 17+."
  exit 1
}

cmd_up() {
  local pid addr port cport ports cid start deadline remaining
  [[ "$READY_TIMEOUT" =~ ^[0-9]+$ ]] || die "KAFKA_READY_TIMEOUT must be a number of seconds"
  lock
  do_fetch

  if pid="$(recorded_pid)" && is_our_kafka "$pid"; then
    if addr="$(running_addr)"; then
      if [[ -n "${KAFKA_PORT:-}" && "$addr" != "127.0.0.1:$KAFKA_PORT" ]]; then
        die "a broker is already up at $addr, but KAFKA_PORT=$KAFKA_PORT; run 'bash $PROG down' first"
      fi
      log "already up (pid $pid)"
      printf '%s\n' "$addr"
      return 0
    fi
    log "recorded broker (pid $pid) is not answering; restarting it"
    stop_pid "$pid"
  fi
  rm -f -- "$BOOT_FILE" "$PID_FILE"

  check_java
  if [[ -n "${KAFKA_PORT:-}" ]]; then
    [[ "$KAFKA_PORT" =~ ^[0-9]+$ ]] || die "KAFKA_PORT must be a port number"
    port="$KAFKA_PORT"
    port_free "$port" || die "127.0.0.1:$port is in use; pick another KAFKA_PORT or unset it"
  fi
  if [[ -n "${KAFKA_CONTROLLER_PORT:-}" ]]; then
    [[ "$KAFKA_CONTROLLER_PORT" =~ ^[0-9]+$ ]] || die "KAFKA_CONTROLLER_PORT must be a port number"
    cport="$KAFKA_CONTROLLER_PORT"
    port_free "$cport" || die "127.0.0.1:$cport is in use; pick another KAFKA_CONTROLLER_PORT or unset it"
  fi
  ports="$(free_ports 2)"
  if [[ -z "${port:-}" ]]; then port="$(sed -n 1p <<<"$ports")"; [[ "$port" == "${cport:-}" ]] && port="$(sed -n 2p <<<"$ports")"; fi
  if [[ -z "${cport:-}" ]]; then cport="$(sed -n 2p <<<"$ports")"; [[ "$cport" == "$port" ]] && cport="$(sed -n 1p <<<"$ports")"; fi
  [[ "$port" != "$cport" ]] || die "KAFKA_PORT and KAFKA_CONTROLLER_PORT must differ"
  addr="127.0.0.1:$port"

  rm -rf -- "$DATA"
  mkdir -p "$DATA"
  render_config "$port" "$cport"
  cid="$(cluster_id)"
  : >"$LOG_FILE"
  start=$SECONDS
  log "formatting KRaft storage (cluster id $cid) ..."
  if ! "$JAVA" -Xmx256m -XX:TieredStopAtLevel=1 -XX:+UseSerialGC -Djava.awt.headless=true \
       "-Dlog4j2.configurationFile=$LOG4J_CONF" -cp "$LIBS/*" \
       kafka.tools.StorageTool format --standalone --cluster-id "$cid" --config "$CONF" >>"$LOG_FILE" 2>&1 9>&-; then
    fail_start "formatting the KRaft storage failed"
  fi

  log "starting broker on $addr (controller 127.0.0.1:$cport) ..."
  trap 'log "interrupted"; abort_start; exit 130' INT TERM HUP
  # shellcheck disable=SC2086
  setsid "$JAVA" $HEAP_OPTS -XX:+UseG1GC -XX:MaxGCPauseMillis=20 -XX:InitiatingHeapOccupancyPercent=35 \
    -XX:+ExplicitGCInvokesConcurrent -XX:+ExitOnOutOfMemoryError -Djava.awt.headless=true \
    "-Dlog4j2.configurationFile=$LOG4J_CONF" ${KAFKA_OPTS:-} -cp "$LIBS/*" \
    kafka.Kafka "$CONF" </dev/null >>"$LOG_FILE" 2>&1 9>&- &
  STARTING_PID=$!
  printf '%s\n' "$STARTING_PID" >"$PID_FILE"

  deadline=$((start + READY_TIMEOUT))
  while ! grep -q 'Kafka Server started' "$LOG_FILE"; do
    pid_alive "$STARTING_PID" || fail_start "the broker JVM exited during startup"
    (( SECONDS < deadline )) || fail_start "no 'Kafka Server started' in $LOG_FILE after ${READY_TIMEOUT} s"
    sleep 0.2
  done
  is_our_kafka "$STARTING_PID" || fail_start "pid $STARTING_PID is not the kafka.Kafka JVM (setsid forked?)"
  remaining=$((deadline - SECONDS))
  probe "$addr" "$remaining" || {
    pid_alive "$STARTING_PID" || fail_start "the broker JVM exited during startup"
    fail_start "the broker logged 'Kafka Server started' but did not answer a metadata request at $addr within ${READY_TIMEOUT} s"
  }
  printf '%s\n' "$addr" >"$BOOT_FILE"
  trap - INT TERM HUP
  log "up in $((SECONDS - start)) s (pid $STARTING_PID, log $LOG_FILE)"
  printf '%s\n' "$addr"
}

case "${1:-}" in
  fetch) cmd_fetch ;;
  up) cmd_up ;;
  down) cmd_down ;;
  status) cmd_status ;;
  help | -h | --help) usage ;;
  "") usage >&2; exit 2 ;;
  *) log "unknown command: $1"; usage >&2; exit 2 ;;
esac
