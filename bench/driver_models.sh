#!/usr/bin/env bash
# One connection per OS thread (the engine, the sync `mysql` crate) against several
# connections per OS thread on an event loop (mysql_async on tokio: bench/async-probe),
# with sysbench as the reference: oltp_point_select, 8 connections in every case, same
# sandbox data, alternating round by round. Prints a Markdown table (medians) of QPS and
# client CPU per query; docs/benchmarks.md records a run.
#
#   bash bench/driver_models.sh            # ROUNDS (3), SECONDS_PER_RUN (8)
#
# Talks only to the sandbox on 127.0.0.1 (TCP).
set -euo pipefail
cd "$(dirname "$0")/.."
# shellcheck source=bench/lib.sh
. bench/lib.sh

ROUNDS=${ROUNDS:-3}
SECONDS_PER_RUN=${SECONDS_PER_RUN:-8}
bench_need sysbench time
bench_cargo_env
bench_sandbox
bench_dbdyno
(cd bench/async-probe && cargo build --release -q)
PROBE="${CARGO_TARGET_DIR:-bench/async-probe/target}/release/async-probe"

export MYSQL_PWD="$DBDYNO_TEST_MYSQL_PASSWORD"
export PROBE_URL="mysql://$DBDYNO_TEST_MYSQL_USER:$MYSQL_PWD@$DBDYNO_TEST_MYSQL_HOST:$DBDYNO_TEST_MYSQL_PORT/$DBDYNO_TEST_MYSQL_DB?prefer_socket=false"
bench_conn "$DBDYNO_TEST_MYSQL_USER" "$DBDYNO_TEST_MYSQL_DB"
DATA=(--tables=4 --table-size=100000)
bench_workdir

"$DBDYNO" oltp_read_write "${CONN[@]}" --tables=4 cleanup >/dev/null
"$DBDYNO" oltp_read_write "${CONN[@]}" "${DATA[@]}" --threads=4 prepare >/dev/null
"$DBDYNO" oltp_read_write "${CONN[@]}" "${DATA[@]}" --threads=4 prewarm >/dev/null

CASES=("sysbench, 8 threads" "dbdyno, 8 threads" "mysql_async, 1 thread x 8" "mysql_async, 2 threads x 4" "mysql_async, 8 threads x 1")
run_case() {
  case $1 in
    0) sysbench oltp_point_select "${CONN[@]}" --mysql-password="$MYSQL_PWD" "${DATA[@]}" --threads=8 --time="$SECONDS_PER_RUN" run ;;
    1) "$DBDYNO" oltp_point_select "${CONN[@]}" "${DATA[@]}" --threads=8 --time="$SECONDS_PER_RUN" --no-history run ;;
    2) "$PROBE" 1 8 "$SECONDS_PER_RUN" ;;
    3) "$PROBE" 2 4 "$SECONDS_PER_RUN" ;;
    4) "$PROBE" 8 1 "$SECONDS_PER_RUN" ;;
  esac
}

for r in $(seq "$ROUNDS"); do
  for i in "${!CASES[@]}"; do
    /usr/bin/time -f '%U %S' -o "$work/time" bash -c "$(declare -f run_case); $(declare -p CONN DATA); DBDYNO='$DBDYNO' PROBE='$PROBE' SECONDS_PER_RUN=$SECONDS_PER_RUN run_case $i" >"$work/out" 2>&1
    q=$(awk '/queries:/ {print $2; exit}' "$work/out")
    qps=$(awk '/queries:/ {gsub(/\(/, "", $3); print $3; exit}' "$work/out")
    awk -v q="$q" '{printf "%.2f\n", ($1 + $2) * 1e6 / q}' "$work/time" >>"$work/cpu_$i"
    echo "$qps" >>"$work/qps_$i"
    echo "  round $r, ${CASES[$i]}: $qps qps, $(tail -1 "$work/cpu_$i") us CPU/query" >&2
  done
done

echo "| client | QPS | client CPU per query (us) | CPU ratio to sysbench |"
echo "|---|---|---|---|"
base=$(median <"$work/cpu_0")
for i in "${!CASES[@]}"; do
  c=$(median <"$work/cpu_$i")
  echo "| ${CASES[$i]} | $(median <"$work/qps_$i") | $c | $(echo "$c $base" | awk '{printf "%.2f", $1 / $2}') |"
done
