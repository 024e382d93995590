#!/usr/bin/env bash
# Side-by-side benchmark of dbdyno's engine against Debian's sysbench 1.0.20, on the
# same server and the same data, alternating the two tools round by round so that
# drift (page cache, other load) hits both equally. Prints one Markdown table with the
# ratios; docs/benchmarks.md records a run of it.
#
#   bash bench/engine_vs_sysbench.sh            # sandbox MariaDB, 3 rounds of 10 s
#   ROUNDS=5 SECONDS_PER_RUN=20 bash bench/engine_vs_sysbench.sh
#
# Measured per run: QPS as each tool prints it, and the client's CPU (user + system,
# from /usr/bin/time) divided by the queries it sent: the client CPU per query.
# A case is workload:threads[:socket]; with ":socket" both tools talk to the sandbox's
# Unix socket instead of TCP.
#
# Then many connections (MANY, thread counts; MANY= to skip): oltp_point_select at each
# count, both tools, QPS, client CPU per query, peak RSS and the time spent outside the
# measured window (opening and closing every connection: wall time minus --time). The
# server's max_connections is raised for it (to the largest count + 152) and put back
# afterwards; for 4,096 threads the server's open_files_limit must hold that many
# connections and its table cache (the checks' "Files and memory for the connections"). A tool that does
# not finish within MANY_TIMEOUT seconds is killed and reported as a hang.
# Talks only to the sandbox on 127.0.0.1 and its socket.
set -euo pipefail
cd "$(dirname "$0")/.."

ROUNDS=${ROUNDS:-3}
SECONDS_PER_RUN=${SECONDS_PER_RUN:-10}
TABLES=${TABLES:-4}
TABLE_SIZE=${TABLE_SIZE:-100000}
PREPARE_THREADS=${PREPARE_THREADS:-4}
# Cases: workload:threads (CASES= to run only the many-connections part)
CASES=${CASES-"oltp_point_select:8 oltp_point_select:32 oltp_read_only:8 oltp_point_select:8:socket"}
MANY=${MANY-"512 1024 2048"}
MANY_SECONDS=${MANY_SECONDS:-8}
MANY_TIMEOUT=${MANY_TIMEOUT:-120}

command -v sysbench >/dev/null || { echo "sysbench is missing: bash scripts/deps.sh" >&2; exit 1; }
[ -x /usr/bin/time ] || { echo "/usr/bin/time is missing: apt-get install time" >&2; exit 1; }
[ -f "$HOME/.cargo/env" ] && . "$HOME/.cargo/env"

bash scripts/sandbox.sh start >/dev/null
eval "$(bash scripts/sandbox.sh env)"
if [ -z "${DBDYNO:-}" ]; then  # DBDYNO=path/to/dbdyno skips the release build
  cargo build --release -q -p dbdyno-cli
  DBDYNO="${CARGO_TARGET_DIR:-target}/release/dbdyno"
fi

CONN=(--mysql-host="$DBDYNO_TEST_MYSQL_HOST" --mysql-port="$DBDYNO_TEST_MYSQL_PORT"
      --mysql-user="$DBDYNO_TEST_MYSQL_USER" --mysql-db="$DBDYNO_TEST_MYSQL_DB")
SOCKET_CONN=(--mysql-socket="$DBDYNO_TEST_MYSQL_SOCKET"
      --mysql-user="$DBDYNO_TEST_MYSQL_USER" --mysql-db="$DBDYNO_TEST_MYSQL_DB")
DATA=(--tables="$TABLES" --table-size="$TABLE_SIZE")
export MYSQL_PWD="$DBDYNO_TEST_MYSQL_PASSWORD"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

# run_tool TOOL ARGS... : runs one command under /usr/bin/time; leaves output in $work/out
# $work/time holds "user system wall maxrss_kb"; the exit code is the tool's (124: killed
# by the timeout).
run_tool() {
  local tool=$1; shift
  local limit=${TOOL_TIMEOUT:-0} rc=0
  if [ "$tool" = sysbench ]; then
    timeout -s KILL "$limit" /usr/bin/time -f '%U %S %e %M' -o "$work/time" sysbench "$@" --mysql-password="$MYSQL_PWD" >"$work/out" 2>&1 || rc=$?
  else
    timeout -s KILL "$limit" /usr/bin/time -f '%U %S %e %M' -o "$work/time" "$DBDYNO" "$@" >"$work/out" 2>&1 || rc=$?
  fi
  return "$rc"
}

median() { sort -g | awk '{a[NR]=$1} END {print (NR%2 ? a[(NR+1)/2] : (a[NR/2]+a[NR/2+1])/2)}'; }

cleanup_tables() { "$DBDYNO" oltp_read_write "${CONN[@]}" --tables="$TABLES" cleanup >/dev/null; }

declare -A results
echo "Host: $(nproc) cores, $(awk '/MemTotal/ {printf "%.0f GiB", $2/1048576}' /proc/meminfo); $(mariadb --version | sed 's/,.*//')" >&2
echo "Data: $TABLES tables x $TABLE_SIZE rows; $ROUNDS rounds; ${SECONDS_PER_RUN}s per run" >&2

# 1. prepare, both tools, same tables, size and threads
for layout in "$TABLES:$PREPARE_THREADS" "1:2"; do
  t=${layout%%:*}; th=${layout##*:}
  for r in $(seq "$ROUNDS"); do
    for tool in sysbench dbdyno; do
      cleanup_tables
      run_tool "$tool" oltp_read_write "${CONN[@]}" --tables="$t" --table-size="$TABLE_SIZE" --threads="$th" prepare
      wall=$(awk '{print $3}' "$work/time")
      echo "$((t * TABLE_SIZE)) $wall" | awk '{printf "%.0f\n", $1/$2}' >>"$work/prep_${tool}_$t"
      echo "  prepare $t table(s) x $TABLE_SIZE, $th threads, round $r, $tool: ${wall}s" >&2
    done
  done
  results["prep_sysbench_$t"]=$(median <"$work/prep_sysbench_$t")
  results["prep_dbdyno_$t"]=$(median <"$work/prep_dbdyno_$t")
done

# 2. the measured workloads on one dataset, prewarmed
cleanup_tables
"$DBDYNO" oltp_read_write "${CONN[@]}" "${DATA[@]}" --threads="$PREPARE_THREADS" prepare >/dev/null
"$DBDYNO" oltp_read_write "${CONN[@]}" "${DATA[@]}" --threads="$PREPARE_THREADS" prewarm >/dev/null
for case in $CASES; do
  IFS=: read -r w th transport <<<"$case"
  conn=("${CONN[@]}"); [ "${transport:-tcp}" = socket ] && conn=("${SOCKET_CONN[@]}")
  for r in $(seq "$ROUNDS"); do
    for tool in sysbench dbdyno; do
      run_tool "$tool" "$w" "${conn[@]}" "${DATA[@]}" --threads="$th" --time="$SECONDS_PER_RUN" run
      qps=$(awk '/queries:/ && /per sec/ {gsub(/\(/, "", $3); print $3}' "$work/out")
      queries=$(awk '/queries:/ && /per sec/ {print $2}' "$work/out")
      cpu=$(awk '{print $1 + $2}' "$work/time")
      us=$(echo "$cpu $queries" | awk '{printf "%.2f", $1 * 1e6 / $2}')
      echo "$qps" >>"$work/qps_${tool}_$case"
      echo "$us" >>"$work/cpu_${tool}_$case"
      echo "  $w $th threads ${transport:-tcp} round $r $tool: $qps qps, $us us CPU/query" >&2
    done
  done
done

# 3. many connections: oltp_point_select at MANY threads, one run per tool and count
admin_sql() { bash scripts/sandbox.sh sql -e "$1"; }
if [ -n "$MANY" ]; then
  old_max=$(admin_sql "SELECT @@max_connections" | tail -1)
  trap 'admin_sql "SET GLOBAL max_connections = $old_max" || true; rm -rf "$work"' EXIT
  # The largest count, the tools' control connections and room for the administrator.
  many_max=$(printf '%s\n' $MANY | sort -n | tail -1)
  admin_sql "SET GLOBAL max_connections = $((many_max + 152))"
  for th in $MANY; do
    for tool in sysbench dbdyno; do
      rc=0
      TOOL_TIMEOUT=$MANY_TIMEOUT run_tool "$tool" oltp_point_select "${CONN[@]}" "${DATA[@]}" --threads="$th" --time="$MANY_SECONDS" run || rc=$?
      if [ "$rc" -ne 0 ] || ! grep -q 'queries:' "$work/out"; then
        why="exit $rc"; [ "$rc" -eq 137 ] && why="hang: killed after ${MANY_TIMEOUT}s"
        grep -q 'FATAL' "$work/out" && why="$(grep -m1 FATAL "$work/out" | cut -c1-80)"
        results["many_${tool}_$th"]="failed ($why) | | | "
        echo "  many $th threads $tool: failed ($why)" >&2
        continue
      fi
      read -r user sys wall rss_kb <"$work/time"
      qps=$(awk '/queries:/ && /per sec/ {gsub(/\(/, "", $3); print $3}' "$work/out")
      queries=$(awk '/queries:/ && /per sec/ {print $2}' "$work/out")
      us=$(echo "$user $sys $queries" | awk '{printf "%.2f", ($1 + $2) * 1e6 / $3}')
      outside=$(echo "$wall $MANY_SECONDS" | awk '{printf "%.1f", $1 - $2}')
      rss=$(echo "$rss_kb" | awk '{printf "%.0f", $1 / 1024}')
      results["many_${tool}_$th"]="$qps | $us | $rss | $outside"
      echo "  many $th threads $tool: $qps qps, $us us CPU/query, ${rss} MB peak RSS, ${outside}s outside the window" >&2
    done
  done
  admin_sql "SET GLOBAL max_connections = $old_max"
fi

ratio() { echo "$1 $2" | awk '{printf "%.2f", $1 / $2}'; }
echo
echo "| measure | sysbench 1.0.20 | dbdyno | ratio (dbdyno / sysbench) | target |"
echo "|---|---|---|---|---|"
for case in $CASES; do
  IFS=: read -r w th transport <<<"$case"
  label="$w $th threads, ${transport:-tcp}"
  sq=$(median <"$work/qps_sysbench_$case"); dq=$(median <"$work/qps_dbdyno_$case")
  sc=$(median <"$work/cpu_sysbench_$case"); dc=$(median <"$work/cpu_dbdyno_$case")
  echo "| $label: QPS | $sq | $dq | $(ratio "$dq" "$sq") | >= 1.0 |"
  echo "| $label: client CPU per query (us) | $sc | $dc | $(ratio "$dc" "$sc") | <= 1.0 (goal 0.95) |"
done
for t in "$TABLES" 1; do
  th=$PREPARE_THREADS; [ "$t" = 1 ] && th=2
  echo "| prepare $t table(s) x $TABLE_SIZE, $th threads: rows/s | ${results[prep_sysbench_$t]} | ${results[prep_dbdyno_$t]} | $(ratio "${results[prep_dbdyno_$t]}" "${results[prep_sysbench_$t]}") | >= 2 |"
done
cleanup_tables
if [ -n "$MANY" ]; then
  echo
  echo "| oltp_point_select, tcp, ${MANY_SECONDS}s | tool | QPS | client CPU per query (us) | peak RSS (MB) | s outside the window (open + close) |"
  echo "|---|---|---|---|---|---|"
  for th in $MANY; do
    for tool in sysbench dbdyno; do
      echo "| $th threads | $tool | ${results[many_${tool}_$th]} |"
    done
  done
fi
