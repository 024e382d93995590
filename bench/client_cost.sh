#!/usr/bin/env bash
# The client's cost per query, DB Dyno against Debian's sysbench 1.0.20, on the sandbox
# MariaDB: oltp_point_select and oltp_read_only, over TCP (127.0.0.1) and the Unix
# socket, at 8 threads. Prints one Markdown table; docs/benchmarks.md records a run.
#
#   bash bench/client_cost.sh                     # 5 rounds of 8 s for the wall-clock figures
#   ROUNDS=7 THREADS=16 bash bench/client_cost.sh
#   DBDYNO_BIN=path/to/dbdyno bash bench/client_cost.sh
#
# Per case and tool:
# - instructions per query in user space (callgrind: two runs of a fixed number of
#   events, the slope between them, so start-up cancels). The figure to trust for a
#   change of a few percent: it does not depend on how busy the two cores are;
# - system calls per query (`strace -f -c` over a fixed number of events) and context
#   switches per query (/usr/bin/time), also counts;
# - client CPU per query and QPS from wall-clock runs, median and range over ROUNDS
#   alternating rounds: what a user sees, but on two shared cores a ratio of these
#   swings by more than the effects chased here (docs/benchmarks.md, "noise floor").
# Talks only to the sandbox on 127.0.0.1 and its socket.
set -euo pipefail
cd "$(dirname "$0")/.."
# shellcheck source=bench/lib.sh
. bench/lib.sh

ROUNDS=${ROUNDS:-5}
SECONDS_PER_RUN=${SECONDS_PER_RUN:-8}
THREADS=${THREADS:-8}
WORKLOADS=${WORKLOADS:-"oltp_point_select oltp_read_only"}
TRANSPORTS=${TRANSPORTS:-"tcp socket"}
STRACE_EVENTS=${STRACE_EVENTS:-4000}
CALLGRIND_EVENTS_SHORT=${CALLGRIND_EVENTS_SHORT:-1000}
CALLGRIND_EVENTS_LONG=${CALLGRIND_EVENTS_LONG:-5000}
DB=dbdyno_client_cost_bench

bench_need sysbench time
command -v strace >/dev/null || { echo "strace is missing: apt-get install strace" >&2; exit 1; }
command -v valgrind >/dev/null || { echo "valgrind is missing: apt-get install valgrind" >&2; exit 1; }
bench_cargo_env
bench_sandbox
bench_dbdyno
bench_own_database "$DB"
bench_workdir
export MYSQL_PWD="$DBDYNO_TEST_MYSQL_PASSWORD"
# The socket account is the same user at localhost.
bench_sql "$DBDYNO_TEST_MYSQL_ADMIN_USER" "$DBDYNO_TEST_MYSQL_ADMIN_PASSWORD" \
  "GRANT ALL ON $DB.* TO '$DBDYNO_TEST_MYSQL_USER'@'localhost'"

conn() {
  case $1 in
    tcp) echo "--mysql-host=127.0.0.1 --mysql-port=$DBDYNO_TEST_MYSQL_PORT" ;;
    socket) echo "--mysql-host=localhost --mysql-socket=$DBDYNO_TEST_MYSQL_SOCKET" ;;
  esac
}
DATA=(--mysql-user="$DBDYNO_TEST_MYSQL_USER" --mysql-db="$DB" --tables=4 --table-size=100000)
# shellcheck disable=SC2046 # conn's words are options
"$DBDYNO" oltp_read_only $(conn tcp) "${DATA[@]}" --threads=4 prepare >/dev/null
# shellcheck disable=SC2046
"$DBDYNO" oltp_read_only $(conn tcp) "${DATA[@]}" --threads=4 prewarm >/dev/null

tool_cmd() {
  if [ "$1" = sysbench ]; then echo "sysbench --mysql-password=$MYSQL_PWD"; else echo "$DBDYNO"; fi
}

echo "Host: $(nproc) cores; $(mariadb --version | sed 's/,.*//'); $THREADS threads, $ROUNDS rounds of ${SECONDS_PER_RUN}s" >&2
rows=()
for w in $WORKLOADS; do
  for tr in $TRANSPORTS; do
    key="${w}_$tr"
    for r in $(seq "$ROUNDS"); do
      if [ $((r % 2)) = 1 ]; then order="sysbench dbdyno"; else order="dbdyno sysbench"; fi
      for tool in $order; do
        # shellcheck disable=SC2046
        /usr/bin/time -f '%U %S %e %w %c' -o "$work/time" $(tool_cmd "$tool") "$w" $(conn "$tr") "${DATA[@]}" \
          --threads="$THREADS" --time="$SECONDS_PER_RUN" run >"$work/out" 2>&1
        read -r user sys _wall vcs ics <"$work/time"
        q=$(bench_queries "$work/out")
        awk '/queries:/ && /per sec/ {gsub(/\(/, "", $3); print $3}' "$work/out" >>"$work/qps_${tool}_$key"
        echo "$user $sys $q" | awk '{printf "%.2f\n", ($1 + $2) * 1e6 / $3}' >>"$work/cpu_${tool}_$key"
        echo "$vcs $ics $q" | awk '{printf "%.3f\n", ($1 + $2) / $3}' >>"$work/csw_${tool}_$key"
        echo "  $key round $r $tool: $(tail -1 "$work/qps_${tool}_$key") qps, $(tail -1 "$work/cpu_${tool}_$key") µs/query" >&2
      done
    done
    for tool in sysbench dbdyno; do
      # shellcheck disable=SC2046
      sc=$(bench_syscalls_per_query "$work" $(tool_cmd "$tool") "$w" $(conn "$tr") "${DATA[@]}" \
        --threads="$THREADS" --time=0 --events="$STRACE_EVENTS" run)
      # shellcheck disable=SC2046
      ipq=$(bench_instructions_per_query "$work" "$CALLGRIND_EVENTS_SHORT" "$CALLGRIND_EVENTS_LONG" \
        $(tool_cmd "$tool") "$w" $(conn "$tr") "${DATA[@]}" --threads="$THREADS" --time=0 run)
      echo "$ipq" >"$work/ipq_${tool}_$key"
      echo "  $key $tool: $ipq instructions/query, $sc syscalls/query" >&2
      rows+=("| $w | $tr | $tool | $ipq | $sc | $(spread <"$work/csw_${tool}_$key") | $(spread <"$work/cpu_${tool}_$key") | $(spread <"$work/qps_${tool}_$key") |")
    done
    ratio=$(awk -v d="$(cat "$work/ipq_dbdyno_$key")" -v s="$(cat "$work/ipq_sysbench_$key")" 'BEGIN {printf "%.2f", d / s}')
    rows+=("| $w | $tr | ratio dbdyno / sysbench | $ratio | | | | |")
  done
done

echo
echo "| workload | transport | tool | instructions/query | syscalls/query | context switches/query | client CPU µs/query | QPS |"
echo "|---|---|---|---|---|---|---|---|"
printf '%s\n' "${rows[@]}"
