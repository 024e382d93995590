#!/usr/bin/env bash
# TPC-C prepare time, DB Dyno against Percona's sysbench-tpcc run by Debian's sysbench
# 1.0.20, on the same sandbox MariaDB with the same options (default: --scale=4
# --tables=1 --threads=4), alternating the two tools round by round (the first tool
# changes every round) so that drift hits both alike. Each prepare starts from an empty
# schema; both datasets are checked (`dbdyno tpcc check`) after the first round. Prints
# one Markdown table; docs/benchmarks.md records a run of it.
#
#   bash bench/tpcc_prepare.sh                    # 3 rounds
#   ROUNDS=5 SCALE=8 THREADS=8 bash bench/tpcc_prepare.sh
#   SYSBENCH_TPCC_DIR=/path/to/sysbench-tpcc bash bench/tpcc_prepare.sh
#   DBDYNO_BIN=path/to/dbdyno bash bench/tpcc_prepare.sh   # a binary already built
#
# The reference's prepare waits a fixed 30 s (`sleep 30` in tpcc_common.lua's
# cmd_prepare, so that the first thread's tables exist before the others load into
# them). The table shows its wall time as is and without those 30 s: the second is the
# work, the figure the ratio is taken on. Client CPU is user + system time of the client
# process from /usr/bin/time; server CPU is the sandbox server's user + system time
# over the prepare (/proc/PID/stat), a figure that other load on the machine does not
# inflate as it does wall time, also shown per row of the dataset (both tools' rows are
# counted after the first round). Each round also records the machine's one-minute load
# average at its end. Talks only to the sandbox on 127.0.0.1.
set -euo pipefail
cd "$(dirname "$0")/.."
# shellcheck source=bench/lib.sh
. bench/lib.sh

ROUNDS=${ROUNDS:-3}
SCALE=${SCALE:-4}
TABLES=${TABLES:-1}
THREADS=${THREADS:-4}
REFERENCE_SLEEP_S=30
DB=dbdyno_tpcc_bench

bench_need sysbench time
bench_sysbench_tpcc
bench_cargo_env
bench_sandbox
bench_dbdyno

admin() { bench_admin "$1"; }
bench_own_database "$DB"
bench_workdir

bench_conn "$DBDYNO_TEST_MYSQL_USER" "$DB"
OPTS=(--scale="$SCALE" --tables="$TABLES" --threads="$THREADS")
export MYSQL_PWD="$DBDYNO_TEST_MYSQL_PASSWORD"

# The server's CPU seconds so far, and its pid (another test restarting the sandbox
# mid-prepare makes the difference meaningless, or the prepare fail: the round is then
# run again).
server_cpu_s() {
  local pid; pid=$(cat "$DBDYNO_SANDBOX_DIR/mysqld.pid")
  awk -v hz="$(getconf CLK_TCK)" -v pid="$pid" '{printf "%.2f %s\n", ($14 + $15) / hz, pid}' "/proc/$pid/stat"
}

# prepare TOOL: one prepare into the empty schema; appends "user system wall server_cpu
# load_average" to $work/TOOL.
prepare() {
  local tool=$1 before after failed=0
  read -r before before_pid < <(server_cpu_s)
  if [ "$tool" = sysbench ]; then
    (cd "$SYSBENCH_TPCC_DIR" && /usr/bin/time -f '%U %S %e' -o "$work/time" \
      sysbench ./tpcc.lua --db-driver=mysql --mysql-password="$MYSQL_PWD" "${CONN[@]}" "${OPTS[@]}" prepare) \
      >"$work/out" 2>&1 || failed=1
  else
    /usr/bin/time -f '%U %S %e' -o "$work/time" "$DBDYNO" tpcc "${CONN[@]}" "${OPTS[@]}" prepare \
      >"$work/out" 2>&1 || failed=1
  fi
  # A restart leaves a new pid file; wait for the server to answer again.
  until bash scripts/sandbox.sh status >/dev/null 2>&1 && [ -s "$DBDYNO_SANDBOX_DIR/mysqld.pid" ]; do sleep 1; done
  read -r after after_pid < <(server_cpu_s)
  if [ "$failed" = 1 ] && [ "$before_pid" = "$after_pid" ]; then
    cat "$work/out" >&2
    exit 1
  fi
  if [ "$before_pid" != "$after_pid" ]; then
    echo "the server restarted during $tool's prepare: once more" >&2
    "$DBDYNO" tpcc "${CONN[@]}" cleanup >/dev/null
    prepare "$tool"
    return
  fi
  echo "$(cat "$work/time") $(awk -v a="$after" -v b="$before" 'BEGIN {printf "%.2f", a - b}') $(cut -d' ' -f1 /proc/loadavg)" >>"$work/$tool"
}

# The rows of the dataset in the schema, every table of every set.
dataset_rows() {
  local q="" set t
  for set in $(seq 1 "$TABLES"); do
    for t in warehouse district customer history orders new_orders order_line stock item; do
      q="$q${q:+ UNION ALL }SELECT COUNT(*) n FROM $DB.$t$set"
    done
  done
  admin "SELECT SUM(n) FROM ($q) c" | tail -1
}

check_and_cleanup() {
  local tool=$1 round=$2
  if [ "$round" = 1 ]; then
    "$DBDYNO" tpcc "${CONN[@]}" --scale="$SCALE" --tables="$TABLES" --threads="$THREADS" check >"$work/check" \
      || { echo "the dataset $tool prepared fails dbdyno tpcc check:" >&2; cat "$work/check" >&2; exit 1; }
    dataset_rows >"$work/$tool.rows"
  fi
  "$DBDYNO" tpcc "${CONN[@]}" cleanup >/dev/null
}

for round in $(seq 1 "$ROUNDS"); do
  if [ $((round % 2)) = 1 ]; then order="dbdyno sysbench"; else order="sysbench dbdyno"; fi
  for tool in $order; do
    prepare "$tool"
    echo "round $round $tool: $(tail -1 "$work/$tool") (user sys wall server_cpu load)" >&2
    check_and_cleanup "$tool" "$round"
  done
done

wall() { awk '{print $3}' "$work/$1" | median; }
cpu() { awk '{print $1 + $2}' "$work/$1" | median; }
server() { awk '{print $4}' "$work/$1" | median; }

sb_wall=$(wall sysbench); db_wall=$(wall dbdyno)
sb_work=$(awk -v w="$sb_wall" -v s="$REFERENCE_SLEEP_S" 'BEGIN {printf "%.2f", w - s}')
ratio=$(awk -v a="$sb_work" -v b="$db_wall" 'BEGIN {printf "%.2f", a / b}')
ratio_wall=$(awk -v a="$sb_wall" -v b="$db_wall" 'BEGIN {printf "%.2f", a / b}')
echo
echo "prepare --scale=$SCALE --tables=$TABLES --threads=$THREADS, $ROUNDS rounds, medians:"
echo
echo "| measure | sysbench-tpcc | dbdyno | ratio (sysbench / dbdyno) | target |"
echo "|---|---|---|---|---|"
echo "| wall time without the reference's 30 s wait (s) | $sb_work | $db_wall | $ratio | >= 2 |"
echo "| wall time as run (s) | $sb_wall | $db_wall | $ratio_wall | |"
echo "| client CPU, user + system (s) | $(cpu sysbench) | $(cpu dbdyno) | | |"
sb_server=$(server sysbench); db_server=$(server dbdyno)
echo "| server CPU, user + system (s) | $sb_server | $db_server | $(awk -v a="$sb_server" -v b="$db_server" 'BEGIN {printf "%.2f", a / b}') | |"
sb_rows=$(cat "$work/sysbench.rows"); db_rows=$(cat "$work/dbdyno.rows")
per_row() { awk -v s="$1" -v r="$2" 'BEGIN {printf "%.2f", s * 1e6 / r}'; }
sb_per_row=$(per_row "$sb_server" "$sb_rows"); db_per_row=$(per_row "$db_server" "$db_rows")
echo "| server CPU per row (µs; rows: $sb_rows / $db_rows) | $sb_per_row | $db_per_row | $(awk -v a="$sb_per_row" -v b="$db_per_row" 'BEGIN {printf "%.2f", a / b}') | |"
echo
echo "every round (user sys wall server_cpu load):"
for tool in sysbench dbdyno; do echo "  $tool: $(tr '\n' ';' <"$work/$tool")"; done
