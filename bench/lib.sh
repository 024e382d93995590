# shellcheck shell=bash
# The setup the benchmarks in this folder share. Source it from the repository root
# (each script does `cd "$(dirname "$0")/.."` first); do not run it.
#
# Only setup lives here: the tools a benchmark needs, the sandbox MariaDB and its
# environment, the release `dbdyno`, the connection options, a database of the
# benchmark's own, a work directory removed on exit, and the median of a column of
# numbers. What a benchmark measures and prints stays in its own script.

# bench_need TOOL...: stops with how to install the first missing one (sysbench,
# /usr/bin/time, python3).
bench_need() {
  local tool
  for tool in "$@"; do
    case $tool in
      sysbench) command -v sysbench >/dev/null || { echo "sysbench is missing: bash scripts/deps.sh" >&2; exit 1; } ;;
      time) [ -x /usr/bin/time ] || { echo "/usr/bin/time is missing: apt-get install time" >&2; exit 1; } ;;
      python3) command -v python3 >/dev/null || { echo "python3 is missing" >&2; exit 1; } ;;
      *) echo "bench_need: unknown tool $tool" >&2; exit 2 ;;
    esac
  done
}

# A rustup install puts cargo on PATH through this file only.
bench_cargo_env() {
  if [ -f "$HOME/.cargo/env" ]; then
    # shellcheck disable=SC1091
    . "$HOME/.cargo/env"
  fi
}

# Starts the sandbox MariaDB when it is not running and exports its DBDYNO_TEST_MYSQL_*
# and DBDYNO_SANDBOX_* (docs/development.md).
bench_sandbox() {
  bash scripts/sandbox.sh start >/dev/null
  eval "$(bash scripts/sandbox.sh env)"
}

# Sets DBDYNO to the `dbdyno` to measure: $DBDYNO_BIN when set (a
# binary already built), else the release build, made now.
# shellcheck disable=SC2034 # DBDYNO is the caller's
bench_dbdyno() {
  if [ -n "${DBDYNO_BIN:-}" ]; then
    DBDYNO=$DBDYNO_BIN
    return
  fi
  cargo build --release -q -p dbdyno-cli
  local target=${CARGO_TARGET_DIR:-target}
  case $target in /*) ;; *) target="$(pwd)/$target" ;; esac
  DBDYNO="$target/release/dbdyno"
}

# bench_conn USER DB: CONN, the sandbox's TCP connection options as user USER on DB
# (sysbench and dbdyno take the same spelling); the password goes in MYSQL_PWD.
# shellcheck disable=SC2034 # CONN is the caller's
bench_conn() {
  CONN=(--mysql-host="$DBDYNO_TEST_MYSQL_HOST" --mysql-port="$DBDYNO_TEST_MYSQL_PORT"
        --mysql-user="$1" --mysql-db="$2")
}

# Cleanup commands run at exit, last registered first, then the work directory goes.
BENCH_AT_EXIT=()
bench_at_exit() { BENCH_AT_EXIT=("$1" "${BENCH_AT_EXIT[@]}"); }
bench_exit() {
  local cmd
  for cmd in "${BENCH_AT_EXIT[@]}"; do eval "$cmd" || true; done
  if [ -n "${work:-}" ]; then rm -rf "$work"; fi
}
trap bench_exit EXIT
# Ctrl-C or a kill still runs the cleanups (bash skips the EXIT trap on a signal it does not handle).
trap 'exit 130' INT TERM

# Sets work to a new temporary directory, removed at exit.
bench_workdir() { work=$(mktemp -d); }

# bench_sql USER PASSWORD SQL...: runs statements as USER over TCP (no database chosen).
bench_sql() {
  local user=$1 password=$2
  shift 2
  mariadb -h"$DBDYNO_TEST_MYSQL_HOST" -P"$DBDYNO_TEST_MYSQL_PORT" -u"$user" -p"$password" -e "$*"
}

# bench_admin SQL: runs statements as the sandbox's administrator account.
bench_admin() { bench_sql "$DBDYNO_TEST_MYSQL_ADMIN_USER" "$DBDYNO_TEST_MYSQL_ADMIN_PASSWORD" "$1"; }

# bench_own_database DB: DB dropped and created empty by the admin account, all of it
# granted to the sandbox's benchmark user, and dropped again at exit, so that nothing
# else using the sandbox (tests, other benchmarks) prepares or cleans up under this one.
bench_own_database() {
  local db=$1
  bench_sql "$DBDYNO_TEST_MYSQL_ADMIN_USER" "$DBDYNO_TEST_MYSQL_ADMIN_PASSWORD" \
    "DROP DATABASE IF EXISTS $db; CREATE DATABASE $db;
     GRANT ALL ON $db.* TO '$DBDYNO_TEST_MYSQL_USER'@'127.0.0.1'"
  bench_at_exit "bench_sql \"\$DBDYNO_TEST_MYSQL_ADMIN_USER\" \"\$DBDYNO_TEST_MYSQL_ADMIN_PASSWORD\" 'DROP DATABASE IF EXISTS $db' >/dev/null 2>&1"
}

# The reference TPC-C (Percona's sysbench-tpcc, run by sysbench): SYSBENCH_TPCC_DIR, by
# default beside this repository's parent; stops when tpcc.lua is not there.
bench_sysbench_tpcc() {
  SYSBENCH_TPCC_DIR=${SYSBENCH_TPCC_DIR:-$(cd .. && pwd)/shared/reference/sysbench-tpcc}
  [ -f "$SYSBENCH_TPCC_DIR/tpcc.lua" ] || { echo "sysbench-tpcc is not in $SYSBENCH_TPCC_DIR: set SYSBENCH_TPCC_DIR" >&2; exit 1; }
}

# The median of the numbers on stdin, one a line (the mean of the middle two for an
# even count).
median() { sort -g | awk '{a[NR]=$1} END {print (NR%2 ? a[(NR+1)/2] : (a[NR/2]+a[NR/2+1])/2)}'; }

# spread: the median and the range of a column of numbers on stdin, "5 (4–7)".
spread() {
  local v; v=$(sort -g)
  printf '%s (%s–%s)' "$(median <<<"$v")" "$(head -1 <<<"$v")" "$(tail -1 <<<"$v")"
}

# The "queries:" count of a sysbench-style summary in file $1.
bench_queries() { awk '/queries:/ && /per sec/ {print $2}' "$1"; }

# bench_syscalls_per_query DIR COMMAND...: runs COMMAND (a run of a fixed number of
# events) under `strace -f -c` in DIR; prints system calls per query. System calls do
# not depend on how busy the cores are.
bench_syscalls_per_query() {
  local dir=$1; shift
  (cd "$dir" && strace -f -c -o "$dir/strace" "$@" >"$dir/out" 2>&1)
  local calls; calls=$(awk '$NF == "total" {print $4}' "$dir/strace")
  echo "$calls $(bench_queries "$dir/out")" | awk '{printf "%.2f", $1 / $2}'
}

# bench_instructions_per_query DIR SHORT LONG COMMAND...: user-space instructions per
# query under callgrind (this VM's perf cannot count them): COMMAND (ending in its
# command word, `run`) run with --events=SHORT and then --events=LONG before that word,
# the difference in instructions over the difference in queries, so that start-up (and
# sysbench's LuaJIT warm-up) drop out.
bench_instructions_per_query() {
  local dir=$1 short=$2 long=$3; shift 3
  local word=${*: -1}; set -- "${@:1:$#-1}"
  local ir=() events
  for events in "$short" "$long"; do
    (cd "$dir" && valgrind --tool=callgrind --callgrind-out-file=/dev/null "$@" --events="$events" "$word" >"$dir/out" 2>"$dir/vg")
    ir+=("$(awk '/Collected :/ {print $NF}' "$dir/vg") $(bench_queries "$dir/out")")
  done
  echo "${ir[0]} ${ir[1]}" | awk '{printf "%.0f", ($3 - $1) / ($4 - $2)}'
}

