#!/usr/bin/env bash
# TLS side by side: dbdyno against Debian's sysbench 1.0.20 on one TLS server, both with
# `--mysql-ssl=on` (encrypt, no certificate check), alternating round by round. Prints
# one Markdown table; docs/benchmarks.md records a run of it.
#
#   bash bench/tls_vs_sysbench.sh                      # 3 rounds of 10 s, 8 threads
#   ROUNDS=5 SECONDS_PER_RUN=20 THREADS=16 bash bench/tls_vs_sysbench.sh
#
# The server is a private MariaDB of this script's own (`.work/sandbox-tls`, a CA and a
# certificate made with openssl, require_secure_transport=ON so that nothing runs in the
# clear, performance_schema on to read each connection's TLS version and cipher). Per
# tool: QPS and client CPU per query over the rounds (median and min–max), user-space
# instructions per query (callgrind: this VM's perf cannot count them), context switches
# per query (/usr/bin/time) and system calls per query from one run of a fixed number of
# events under `strace -f -c`: instructions and system calls do not depend on how busy
# the two cores are.
# Talks only to the private server on 127.0.0.1.
set -euo pipefail
cd "$(dirname "$0")/.."
. bench/lib.sh

ROUNDS=${ROUNDS:-3}
SECONDS_PER_RUN=${SECONDS_PER_RUN:-10}
THREADS=${THREADS:-8}
WORKLOADS=${WORKLOADS:-"oltp_point_select oltp_read_only"}
STRACE_EVENTS=${STRACE_EVENTS:-4000}
CALLGRIND_EVENTS_SHORT=${CALLGRIND_EVENTS_SHORT:-1000}
CALLGRIND_EVENTS_LONG=${CALLGRIND_EVENTS_LONG:-5000}
PORT=${TLS_PORT:-33346}

bench_need sysbench time python3
command -v openssl >/dev/null || { echo "openssl is missing: apt-get install openssl" >&2; exit 1; }
command -v strace >/dev/null || { echo "strace is missing: apt-get install strace" >&2; exit 1; }
command -v valgrind >/dev/null || { echo "valgrind is missing: apt-get install valgrind" >&2; exit 1; }
bench_cargo_env
bench_sandbox   # the accounts' names and passwords; the TLS server gets the same ones
bench_dbdyno
bench_workdir

# The CA and the server's certificate for 127.0.0.1.
openssl req -x509 -newkey rsa:2048 -nodes -days 2 -keyout "$work/ca.key" -out "$work/ca.pem" -subj "/CN=DB Dyno bench CA" 2>/dev/null
openssl req -newkey rsa:2048 -nodes -keyout "$work/server.key" -out "$work/server.csr" -subj "/CN=127.0.0.1" 2>/dev/null
printf 'subjectAltName = IP:127.0.0.1\nbasicConstraints = CA:FALSE\nextendedKeyUsage = serverAuth\n' >"$work/server.ext"
openssl x509 -req -in "$work/server.csr" -CA "$work/ca.pem" -CAkey "$work/ca.key" -CAcreateserial -days 2 -out "$work/server.pem" -extfile "$work/server.ext" 2>/dev/null
# sysbench 1.0.20's --mysql-ssl=on reads client-key.pem, client-cert.pem and cacert.pem
# from the directory it runs in (its drv_mysql.c names them; there are no options for
# them), and fails with "TLS/SSL error: No such file or directory" without them: a client
# certificate of the same CA, and sysbench run from $work. dbdyno needs none of them.
openssl req -newkey rsa:2048 -nodes -keyout "$work/client-key.pem" -out "$work/client.csr" -subj "/CN=sbtest" 2>/dev/null
openssl x509 -req -in "$work/client.csr" -CA "$work/ca.pem" -CAkey "$work/ca.key" -CAcreateserial -days 2 -out "$work/client-cert.pem" 2>/dev/null
cp "$work/ca.pem" "$work/cacert.pem"

tls_sandbox() {
  DBDYNO_SANDBOX_DIR="$PWD/.work/sandbox-tls" DBDYNO_SANDBOX_PORT=$PORT \
    DBDYNO_SANDBOX_EXTRA_CNF="ssl_ca = $work/ca.pem
ssl_cert = $work/server.pem
ssl_key = $work/server.key
require_secure_transport = ON
performance_schema = ON" bash scripts/sandbox.sh "$@"
}
tls_sandbox start >/dev/null
bench_at_exit "tls_sandbox stop >/dev/null"
admin() { tls_sandbox sql -N -e "$1"; }

CONN=(--mysql-host=127.0.0.1 --mysql-port="$PORT" --mysql-user="$DBDYNO_TEST_MYSQL_USER"
      --mysql-db="$DBDYNO_TEST_MYSQL_DB" --mysql-ssl=on)
DATA=(--tables=4 --table-size=100000)
export MYSQL_PWD="$DBDYNO_TEST_MYSQL_PASSWORD"
"$DBDYNO" oltp_read_write "${CONN[@]}" "${DATA[@]}" --threads=4 prepare >/dev/null
"$DBDYNO" oltp_read_write "${CONN[@]}" "${DATA[@]}" --threads=4 prewarm >/dev/null

# run TOOL ARGS...: one command; its output in $work/out, "user sys wall vcsw ivcsw" in $work/time.
run() {
  local tool=$1; shift
  local cmd=("$DBDYNO"); [ "$tool" = sysbench ] && cmd=(sysbench)
  local extra=(); [ "$tool" = sysbench ] && extra=(--mysql-password="$MYSQL_PWD")
  (cd "$work" && /usr/bin/time -f '%U %S %e %w %c' -o "$work/time" "${cmd[@]}" "$@" "${extra[@]}" >"$work/out" 2>&1)
}
queries() { bench_queries "$work/out"; }
qps() { awk '/queries:/ && /per sec/ {gsub(/\(/, "", $3); print $3}' "$work/out"; }

echo "Host: $(nproc) cores; $(mariadb --version | sed 's/,.*//'); $THREADS threads, $ROUNDS rounds of ${SECONDS_PER_RUN}s" >&2
rows=()
for w in $WORKLOADS; do
  for r in $(seq "$ROUNDS"); do
    for tool in sysbench dbdyno; do
      # The TLS each of the tool's connections negotiated, read while it runs.
      ( sleep 2; admin "SELECT v.VARIABLE_VALUE FROM performance_schema.status_by_thread v JOIN performance_schema.threads t USING (THREAD_ID) WHERE t.PROCESSLIST_USER = '$DBDYNO_TEST_MYSQL_USER' AND v.VARIABLE_NAME IN ('Ssl_version', 'Ssl_cipher') ORDER BY v.VARIABLE_NAME DESC" | sort | uniq -c | sort -rn | awk '{$1=""; sub(/^ +/, ""); print}' | paste -sd' ' >"$work/tls_$tool" ) &
      run "$tool" "$w" "${CONN[@]}" "${DATA[@]}" --threads="$THREADS" --time="$SECONDS_PER_RUN" run
      wait
      read -r user sys _wall vcs ics <"$work/time"
      q=$(queries)
      qps >>"$work/qps_${tool}_$w"
      echo "$user $sys $q" | awk '{printf "%.2f\n", ($1 + $2) * 1e6 / $3}' >>"$work/cpu_${tool}_$w"
      echo "$vcs $ics $q" | awk '{printf "%.3f\n", ($1 + $2) / $3}' >>"$work/csw_${tool}_$w"
      echo "  $w round $r $tool: $(qps) qps, TLS $(cat "$work/tls_$tool")" >&2
    done
  done
  for tool in sysbench dbdyno; do
    cmd=("$DBDYNO"); [ "$tool" = sysbench ] && cmd=(sysbench --mysql-password="$MYSQL_PWD")
    sc=$(bench_syscalls_per_query "$work" "${cmd[@]}" "$w" "${CONN[@]}" "${DATA[@]}" --threads="$THREADS" --time=0 --events="$STRACE_EVENTS" run)
    ipq=$(bench_instructions_per_query "$work" "$CALLGRIND_EVENTS_SHORT" "$CALLGRIND_EVENTS_LONG" \
      "${cmd[@]}" "$w" "${CONN[@]}" "${DATA[@]}" --threads="$THREADS" --time=0 run)
    rows+=("| $w | $tool | $(spread <"$work/qps_${tool}_$w") | $(spread <"$work/cpu_${tool}_$w") | $ipq | $(spread <"$work/csw_${tool}_$w") | $sc | $(cat "$work/tls_$tool") |")
  done
done

echo
echo "| workload | tool | QPS | client CPU µs/query | instructions/query | context switches/query | syscalls/query | TLS negotiated |"
echo "|---|---|---|---|---|---|---|---|"
printf '%s\n' "${rows[@]}"
