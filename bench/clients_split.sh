#!/usr/bin/env bash
# One step split across load clients against the same step from this machine alone:
# oltp_point_select at 32 threads, run by the engine in this process (no --clients), by
# `local` + two SSH clients (the sandbox sshd at 127.0.0.1 and 127.0.0.2), and by three
# independent processes with the same shares and no split at all. It is one machine
# throughout, so split against three processes is what the split, the agents, the start
# rendezvous and the exact merge cost. The cases rotate round by round; prints a
# Markdown table of medians and the medians of per-round ratios. docs/benchmarks.md
# records a run.
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

CASES=("this machine alone (no --clients)" "local + 2 SSH clients" "3 processes, no split")
# The third case runs three ordinary `dbdyno` processes at once with the clients'
# shares (11 + 11 + 10 threads), no coordinator, no agents, no merge: the same number of
# client processes on the same two cores. The split's own cost is case 2 against it;
# case 2 against case 1 also holds what three processes instead of one cost the box.
run_one() {  # threads, json file, extra options...
  local threads=$1 json=$2
  shift 2
  "$DBDYNO" ladder --scenarios=oltp_point_select "${CONN[@]}" "${DATA[@]}" \
    --threads="$threads" --time="$SECONDS_PER_RUN" --no-history --no-monitor --skip-checks \
    --json="$json" "$@" >"$json.out" 2>&1
}
run_case() {
  case "$1" in
    0) run_one "$THREADS" "$work/run.json" ;;
    1) run_one "$THREADS" "$work/run.json" --clients="$CLIENTS" "${SSH[@]}" ;;
    2)
      local shares=($((THREADS / 3 + (THREADS % 3 > 0))) $((THREADS / 3 + (THREADS % 3 > 1))) $((THREADS / 3)))
      local k pids=()
      for k in 0 1 2; do
        run_one "${shares[$k]}" "$work/run$k.json" &
        pids+=($!)
      done
      wait "${pids[@]}"
      ;;
  esac
  python3 - "$1" "$work" <<'PY'
import json, sys
case, work = sys.argv[1], sys.argv[2]
files = [f"{work}/run{k}.json" for k in range(3)] if case == "2" else [f"{work}/run.json"]
steps = [json.load(open(f))["outcome"]["steps"][0] for f in files]
tps = sum(s["transactions"] / s["total_time_s"] for s in steps)
# Three separate runs have no merged percentile: the p95 shown is their largest.
p95 = max(s["latency"]["p95_ms"] for s in steps)
print(f'{tps:.1f} {p95:.3f} {len(steps[0].get("clients", [])) or len(files)}')
PY
}
median() { sort -g | awk '{a[NR]=$1} END {print (NR%2 ? a[(NR+1)/2] : (a[NR/2]+a[NR/2+1])/2)}'; }

# The first case alternates round by round: the server's state after one run (purge,
# pages just read) must not favour whichever case always comes second.
for r in $(seq "$ROUNDS"); do
  order=(0 1 2)
  case $((r % 3)) in
    2) order=(1 2 0) ;;
    0) order=(2 0 1) ;;
  esac
  for i in "${order[@]}"; do
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
# Round by round: the runs of a round share the machine's mood of the moment.
paired() { paste "$work/tps_$1" "$work/tps_$2" | awk '{print $1 / $2}' | median; }
pct() { awk -v r="$1" 'BEGIN {printf "%+.1f%%", (r - 1) * 100}'; }
echo
echo "Median of the per-round ratios: split / alone $(pct "$(paired 1 0)"), split / 3 processes $(pct "$(paired 1 2)"), 3 processes / alone $(pct "$(paired 2 0)")"
