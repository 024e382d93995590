#!/usr/bin/env bash
# One step split across load clients against the same step from this machine alone:
# oltp_point_select at 32 threads, run by the engine in this process (no --clients) and
# by `local` + two SSH clients (the sandbox sshd at 127.0.0.1 and 127.0.0.2). It is one
# machine either way, so the difference is what the split, the agents, the start
# rendezvous and the exact merge cost. Cases alternate round by round; prints a
# Markdown table of medians. docs/benchmarks.md records a run.
#
#   bash bench/clients_split.sh     # ROUNDS (5), SECONDS_PER_RUN (10), THREADS (32)
#
# Talks only to the sandboxes on loopback.
set -euo pipefail
cd "$(dirname "$0")/.."

ROUNDS=${ROUNDS:-5}
SECONDS_PER_RUN=${SECONDS_PER_RUN:-10}
THREADS=${THREADS:-32}
[ -f "$HOME/.cargo/env" ] && . "$HOME/.cargo/env"

bash scripts/sandbox.sh start >/dev/null
bash scripts/sshd-sandbox.sh start >/dev/null
eval "$(bash scripts/sandbox.sh env)"
eval "$(bash scripts/sshd-sandbox.sh env)"
cargo build --release -q -p dbdyno-cli
DBDYNO="${CARGO_TARGET_DIR:-target}/release/dbdyno"

export MYSQL_PWD="$DBDYNO_TEST_MYSQL_PASSWORD"
CONN=(--mysql-host="$DBDYNO_TEST_MYSQL_HOST" --mysql-port="$DBDYNO_TEST_MYSQL_PORT"
      --mysql-user="$DBDYNO_TEST_MYSQL_USER" --mysql-db="$DBDYNO_TEST_MYSQL_DB")
DATA=(--tables=4 --table-size=100000)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

# Both addresses of the sandbox sshd are trusted through a known_hosts file of our own.
for h in "$DBDYNO_TEST_SSH_HOST" "$DBDYNO_TEST_SSH_HOST2"; do
  echo "[$h]:$DBDYNO_TEST_SSH_PORT $DBDYNO_TEST_SSH_HOST_PUBKEY" >>"$work/known_hosts"
done
ssh_client() { echo "ssh://$DBDYNO_TEST_SSH_USER@$1:$DBDYNO_TEST_SSH_PORT"; }
CLIENTS="local,$(ssh_client "$DBDYNO_TEST_SSH_HOST"),$(ssh_client "$DBDYNO_TEST_SSH_HOST2")"
SSH=(--ssh-key="$DBDYNO_TEST_SSH_KEY" --known-hosts="$work/known_hosts")

"$DBDYNO" oltp_point_select "${CONN[@]}" --tables=4 cleanup >/dev/null
"$DBDYNO" oltp_point_select "${CONN[@]}" "${DATA[@]}" --threads=4 prepare >/dev/null
"$DBDYNO" oltp_point_select "${CONN[@]}" "${DATA[@]}" --threads=4 prewarm >/dev/null

CASES=("this machine alone (no --clients)" "local + 2 SSH clients")
run_case() {
  local extra=()
  [ "$1" = 1 ] && extra=(--clients="$CLIENTS" "${SSH[@]}")
  "$DBDYNO" ladder --scenarios=oltp_point_select "${CONN[@]}" "${DATA[@]}" \
    --threads="$THREADS" --time="$SECONDS_PER_RUN" --no-history --no-monitor --skip-checks \
    --json="$work/run.json" "${extra[@]}" >"$work/out" 2>&1
  python3 - "$work/run.json" <<'PY'
import json, sys
s = json.load(open(sys.argv[1]))["outcome"]["steps"][0]
print(f'{s["transactions"] / s["total_time_s"]:.1f} {s["latency"]["p95_ms"]:.3f} {len(s.get("clients", [])) or 1}')
PY
}
median() { sort -g | awk '{a[NR]=$1} END {print (NR%2 ? a[(NR+1)/2] : (a[NR/2]+a[NR/2+1])/2)}'; }

for r in $(seq "$ROUNDS"); do
  for i in "${!CASES[@]}"; do
    read -r tps p95 n < <(run_case "$i")
    echo "$tps" >>"$work/tps_$i"
    echo "$p95" >>"$work/p95_$i"
    echo "  round $r, ${CASES[$i]}: $tps tps, p95 $p95 ms ($n client(s))" >&2
  done
done

base=$(median <"$work/tps_0")
echo "| oltp_point_select, $THREADS threads, ${SECONDS_PER_RUN}s, $ROUNDS rounds | TPS (median) | p95 ms (median) | vs alone |"
echo "|---|---:|---:|---:|"
for i in "${!CASES[@]}"; do
  tps=$(median <"$work/tps_$i")
  p95=$(median <"$work/p95_$i")
  echo "| ${CASES[$i]} | $tps | $p95 | $(awk -v a="$tps" -v b="$base" 'BEGIN {printf "%+.1f%%", (a / b - 1) * 100}') |"
done
