#!/usr/bin/env bash
# TPC-C throughput, DB Dyno against Percona's sysbench-tpcc run by Debian's sysbench
# 1.0.20, on the same sandbox MariaDB, the same dataset and the same options (default:
# --scale=4 --tables=1 --threads=8, 20 s per run), alternating the two tools round by
# round (the first tool changes every round) so that drift hits both alike. Prints one
# Markdown table of medians; docs/benchmarks.md records a run of it.
#
#   bash bench/tpcc_run.sh                          # 3 rounds
#   ROUNDS=5 SECONDS_PER_RUN=30 THREADS=16 bash bench/tpcc_run.sh
#   SYSBENCH_TPCC_DIR=/path/to/sysbench-tpcc bash bench/tpcc_run.sh
#   DBDYNO_BIN=path/to/dbdyno bash bench/tpcc_run.sh  # a binary already built
#
# tpmC is measured on the server, the same way for both tools: committed New-Orders are
# the growth of SUM(d_next_o_id) over the run (NOPM), plus the 1% that roll back by
# design, which sysbench counts as its "ignored errors". Client CPU is user + system
# time of the client process (/usr/bin/time) per transaction. The dataset is made once
# by the reference's prepare. Talks only to the sandbox on 127.0.0.1.
set -euo pipefail
cd "$(dirname "$0")/.."
# shellcheck source=bench/lib.sh
. bench/lib.sh

ROUNDS=${ROUNDS:-3}
SCALE=${SCALE:-4}
THREADS=${THREADS:-8}
SECONDS_PER_RUN=${SECONDS_PER_RUN:-20}
DB=dbdyno_tpcc_run_bench

bench_need sysbench time
bench_sysbench_tpcc
bench_cargo_env
bench_sandbox
bench_dbdyno

# The admin account: the benchmark's own schema, not sbtest.
USER_=$DBDYNO_TEST_MYSQL_ADMIN_USER
export MYSQL_PWD=$DBDYNO_TEST_MYSQL_ADMIN_PASSWORD
bench_conn "$USER_" "$DB"
OPTS=(--scale="$SCALE" --tables=1 --threads="$THREADS" --time="$SECONDS_PER_RUN")
sql() { mariadb -h"$DBDYNO_TEST_MYSQL_HOST" -P"$DBDYNO_TEST_MYSQL_PORT" -u"$USER_" -N -B "$DB" -e "$1"; }
bench_workdir
bench_own_database "$DB"

echo "preparing scale $SCALE with the reference (its prepare waits 30 s first) ..." >&2
(cd "$SYSBENCH_TPCC_DIR" && sysbench ./tpcc.lua --db-driver=mysql "${CONN[@]}" --mysql-password="$MYSQL_PWD" \
  --scale="$SCALE" --tables=1 --threads="$SCALE" prepare >/dev/null)

TOOLS=(sysbench-tpcc dbdyno)
run_tool() {
  case $1 in
    sysbench-tpcc) (cd "$SYSBENCH_TPCC_DIR" && sysbench ./tpcc.lua --db-driver=mysql "${CONN[@]}" \
                      --mysql-password="$MYSQL_PWD" "${OPTS[@]}" run) ;;
    dbdyno) "$DBDYNO" tpcc "${CONN[@]}" "${OPTS[@]}" --no-history --skip-checks run ;;
  esac
}

for r in $(seq "$ROUNDS"); do
  order=("${TOOLS[@]}")
  [ $((r % 2)) -eq 0 ] && order=("${TOOLS[1]}" "${TOOLS[0]}")
  for tool in "${order[@]}"; do
    before=$(sql "SELECT SUM(d_next_o_id) FROM district1")
    /usr/bin/time -f '%U %S' -o "$work/time" bash -c "$(declare -f run_tool); $(declare -p CONN OPTS); \
      SYSBENCH_TPCC_DIR='$SYSBENCH_TPCC_DIR' DBDYNO='$DBDYNO' run_tool $tool" >"$work/out" 2>&1
    after=$(sql "SELECT SUM(d_next_o_id) FROM district1")
    secs=$(awk '/total time:/ {gsub(/s/, "", $3); print $3; exit}' "$work/out")
    txns=$(awk '/transactions:/ {print $2; exit}' "$work/out")
    tps=$(awk '/transactions:/ {gsub(/\(/, "", $3); print $3; exit}' "$work/out")
    rollbacks=$(awk '/ignored errors:/ {print $3; exit}' "$work/out")
    awk -v a="$after" -v b="$before" -v s="$secs" 'END {printf "%.1f\n", (a - b) * 60 / s}' /dev/null >>"$work/nopm_$tool"
    awk -v a="$after" -v b="$before" -v e="$rollbacks" -v s="$secs" 'END {printf "%.1f\n", (a - b + e) * 60 / s}' /dev/null >>"$work/tpmc_$tool"
    echo "$tps" >>"$work/tps_$tool"
    awk -v t="$txns" '{printf "%.1f\n", ($1 + $2) * 1e6 / t}' "$work/time" >>"$work/cpu_$tool"
    echo "  round $r, $tool: $tps tps, tpmC $(tail -1 "$work/tpmc_$tool"), NOPM $(tail -1 "$work/nopm_$tool"), $(tail -1 "$work/cpu_$tool") us CPU/txn" >&2
  done
done

echo
echo "TPC-C scale $SCALE, $THREADS threads, ${SECONDS_PER_RUN} s per run, median of $ROUNDS alternating rounds:"
echo
echo "| tool | tpmC | NOPM | TPS | client CPU per transaction (µs) |"
echo "|---|---:|---:|---:|---:|"
for tool in "${TOOLS[@]}"; do
  echo "| $tool | $(median <"$work/tpmc_$tool") | $(median <"$work/nopm_$tool") | $(median <"$work/tps_$tool") | $(median <"$work/cpu_$tool") |"
done
