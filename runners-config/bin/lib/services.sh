# Shared by bin/flink, bin/kafka and bin/postgres: classpath from a pom, start a JVM in the
# background with a pid file, wait for readiness, stop by pid. Sourced, not executed.
#
# A pid file holds one pid. A pid counts as "ours" only while /proc/PID/cmdline still names the
# expected main class, so a stale pid file never leads to signalling an unrelated process.

RC_DIR="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
RC_REPO_DIR="$(cd "$RC_DIR/.." && pwd)"
RC_JAVA="${JAVA_HOME:+$JAVA_HOME/bin/}java"
RC_START_TIMEOUT="${STREAMFORM_START_TIMEOUT:-90}"   # seconds until a service must be ready
RC_STOP_TIMEOUT="${STREAMFORM_STOP_TIMEOUT:-30}"     # seconds between TERM and KILL
# slf4j-simple writes to stderr, which the launcher sends to the service's log file.
RC_LOG_OPTS=(-Dorg.slf4j.simpleLogger.showDateTime=true
             "-Dorg.slf4j.simpleLogger.dateTimeFormat=yyyy-MM-dd HH:mm:ss,SSS")

rc_die() {
  echo "$RC_NAME: $*" >&2
  exit 1
}

# Holds a lock on the state folder for the rest of the script, so two concurrent
# `start`s cannot both launch. Children get fd 9 closed (see rc_launch), so the lock dies with us.
rc_lock() {
  local state_dir="$1"
  mkdir -p "$state_dir"
  exec 9>"$state_dir/.lock"
  flock -w 120 9 || rc_die "another $RC_NAME command holds $state_dir/.lock"
}

# rc_classpath POM CACHE: prints the runtime classpath of POM's dependencies, computed by Maven
# once and cached in CACHE (recomputed when the pom or the parent pom is newer). Offline first.
# Two starts at once (the end-to-end tests' two instances) each write a file of their own and
# rename it into place, so neither reads the other's half-written file.
rc_classpath() {
  local pom="$1" cache="$2"
  if [[ ! -s "$cache" || "$pom" -nt "$cache" || "$RC_REPO_DIR/pom.xml" -nt "$cache" ]]; then
    mkdir -p "$(dirname "$cache")"
    local mvn_args=(-q -f "$pom" dependency:build-classpath -DincludeScope=runtime
                    "-Dmdep.outputFile=$cache.tmp.$$")
    local mvn_log="$cache.mvn.$$.log"
    echo "$RC_NAME: resolving the classpath of ${pom#"$RC_REPO_DIR/"} (once) ..." >&2
    if ! mvn -o "${mvn_args[@]}" >"$mvn_log" 2>&1; then
      echo "$RC_NAME: offline resolution failed, retrying online" >&2
      mvn "${mvn_args[@]}" >"$mvn_log" 2>&1 || { tail -n 30 "$mvn_log" >&2; rc_die "cannot resolve the classpath (see $mvn_log)"; }
    fi
    mv "$cache.tmp.$$" "$cache"
  fi
  cat "$cache"
}

# rc_pid PIDFILE MAINCLASS: prints the pid and succeeds if that process is alive and is MAINCLASS.
rc_pid() {
  local pidfile="$1" main="$2" pid
  [[ -s "$pidfile" ]] || return 1
  pid="$(<"$pidfile")"
  [[ "$pid" =~ ^[0-9]+$ ]] || return 1
  # a process that is gone has no cmdline: not running, quietly (the redirection's own error is
  # the shell's, so it is sent to /dev/null before the file is opened)
  tr '\0' ' ' 2>/dev/null <"/proc/$pid/cmdline" | grep -qF -- "$main" || return 1
  echo "$pid"
}

# rc_launch PIDFILE LOG COMMAND...: starts COMMAND detached (own session, so the caller's Ctrl-C
# or exit does not reach it), output to LOG, working folder that of PIDFILE, and records its pid.
rc_launch() {
  local pidfile="$1" log="$2"
  shift 2
  mkdir -p "$(dirname "$log")"
  pushd "$(dirname "$pidfile")" >/dev/null
  setsid "$@" </dev/null >"$log" 2>&1 9>&- &
  echo $! >"$pidfile"
  popd >/dev/null
}

# rc_stop PIDFILE MAINCLASS LABEL...: TERM, then KILL after RC_STOP_TIMEOUT; removes the pid file.
# Takes several (PIDFILE MAINCLASS LABEL) triples so that all of them shut down in parallel.
rc_stop() {
  local -a pids=() labels=() pidfiles=()
  local pid i
  while (($# >= 3)); do
    if pid="$(rc_pid "$1" "$2")"; then
      kill -TERM "$pid" 2>/dev/null || true
      pids+=("$pid"); labels+=("$3")
    else
      echo "$RC_NAME: $3 not running"
    fi
    pidfiles+=("$1")
    shift 3
  done
  local deadline=$((SECONDS + RC_STOP_TIMEOUT))
  for i in "${!pids[@]}"; do
    while kill -0 "${pids[$i]}" 2>/dev/null && ((SECONDS < deadline)); do sleep 0.5; done
    if kill -0 "${pids[$i]}" 2>/dev/null; then
      echo "$RC_NAME: ${labels[$i]} (pid ${pids[$i]}) ignored TERM for ${RC_STOP_TIMEOUT}s, killing"
      kill -KILL "${pids[$i]}" 2>/dev/null || true
      while kill -0 "${pids[$i]}" 2>/dev/null; do sleep 0.2; done
    fi
    echo "$RC_NAME: stopped ${labels[$i]} (pid ${pids[$i]})"
  done
  rm -f "${pidfiles[@]}"
}

# rc_port_open PORT: succeeds if something accepts connections on 127.0.0.1:PORT.
rc_port_open() {
  (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null
}

# rc_require_free_ports PORT...: fails if another process already listens on one of them.
rc_require_free_ports() {
  local port
  for port in "$@"; do
    ! rc_port_open "$port" || rc_die "127.0.0.1:$port is already in use by another process (not started by this script: no pid file in its state folder)"
  done
}

# rc_wait_until CHECK LOG... -- PIDFILE...: polls the command CHECK once a second until it
# succeeds. Prints the logs' tails and fails when a process exits or RC_START_TIMEOUT passes.
# (Liveness only, no main-class check: a process just launched may not have exec'd java yet.)
rc_wait_until() {
  local check="$1"
  shift
  local -a logs=()
  while (($#)) && [[ "$1" != -- ]]; do logs+=("$1"); shift; done
  shift
  local deadline=$((SECONDS + RC_START_TIMEOUT)) reason="" pidfile
  while true; do
    $check && return 0
    for pidfile in "$@"; do
      kill -0 "$(<"$pidfile")" 2>/dev/null || reason="$(basename "$pidfile" .pid) exited"
    done
    ((SECONDS < deadline)) || reason="not ready after ${RC_START_TIMEOUT}s"
    [[ -z "$reason" ]] || break
    sleep 1
  done
  local log
  for log in "${logs[@]}"; do
    echo "----- last 40 lines of $log" >&2
    tail -n 40 "$log" >&2
  done
  echo "$RC_NAME: failed to start: $reason (logs above)" >&2
  return 1
}
