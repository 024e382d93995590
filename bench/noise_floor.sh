#!/usr/bin/env bash
# The noise floor: how wide the 95% interval of a step's TPS is on the sandbox, for
# oltp_point_select and oltp_read_write at 1 and 8 threads, 30 s steps, from one run
# (batch means over the step's seconds) and with --repeat=3 (the spread between the
# repeats, which also holds run-to-run effects). A difference smaller than about this
# width cannot be told from noise on these runs; docs/benchmarks.md records a run.
#
#   bash bench/noise_floor.sh                 # 30 s steps, 4 tables × 100k rows
#   SECONDS_PER_STEP=10 bash bench/noise_floor.sh
#
# Prints one Markdown table: per cell, TPS, the interval's half-width in % of TPS, and
# how the interval was made (batch size, or repeats). Talks only to the sandbox on
# 127.0.0.1.
set -euo pipefail
cd "$(dirname "$0")/.."
# shellcheck source=bench/lib.sh
. bench/lib.sh

SECONDS_PER_STEP=${SECONDS_PER_STEP:-30}
TABLES=${TABLES:-4}
TABLE_SIZE=${TABLE_SIZE:-100000}
SCENARIOS=${SCENARIOS:-oltp_point_select,oltp_read_write}
LADDER=${LADDER:-1,8}
REPEATS=${REPEATS:-3}

bench_cargo_env
bench_need python3
bench_sandbox
bench_dbdyno
bench_workdir

# A database of its own, so that nothing else using the sandbox (tests, other
# benchmarks) prepares or cleans up under this one.
DB=${DB:-dbdyno_noise_floor}
bash scripts/sandbox.sh sql -e "CREATE DATABASE IF NOT EXISTS \`$DB\`;
    GRANT ALL ON \`$DB\`.* TO '$DBDYNO_TEST_MYSQL_USER'@'$DBDYNO_TEST_MYSQL_HOST'"

bench_conn "$DBDYNO_TEST_MYSQL_USER" "$DB"
conn=("${CONN[@]}" --tables="$TABLES" --table-size="$TABLE_SIZE")
export MYSQL_PWD="$DBDYNO_TEST_MYSQL_PASSWORD"

# One dataset for both runs: prepared and prewarmed once, cleaned up at the end.
"$DBDYNO" oltp_read_write "${conn[@]}" --threads=4 cleanup >/dev/null
"$DBDYNO" oltp_read_write "${conn[@]}" --threads=4 prepare >/dev/null
"$DBDYNO" oltp_read_write "${conn[@]}" --threads=4 prewarm >/dev/null

# ladder REPEAT NAME: one ladder, then its report model.
ladder() {
    local repeat=$1 name=$2
    echo "ladder --repeat=$repeat: $SCENARIOS at $LADDER threads, ${SECONDS_PER_STEP} s steps" >&2
    "$DBDYNO" ladder "${conn[@]}" --scenarios="$SCENARIOS" --ladder="$LADDER" \
        --time="$SECONDS_PER_STEP" --cooldown=2 --repeat="$repeat" --no-history \
        --json="$work/$name.json" >"$work/$name.log"
    "$DBDYNO" report --input="$work/$name.json" --json="$work/$name.model.json" >/dev/null
}

ladder 1 single
ladder "$REPEATS" repeated
"$DBDYNO" oltp_read_write "${conn[@]}" --threads=4 cleanup >/dev/null

python3 - "$work/single.model.json" "$work/repeated.model.json" "$REPEATS" <<'EOF'
import json, sys

def cells(path):
    model = json.load(open(path))
    out = {}
    for s in model["scenarios"]:
        for cell in s["envs"][0]["cells"]:
            if not cell:
                continue
            tps = cell["intervals"]["tps"]
            half = how = None
            if tps.get("kind") == "estimated" and tps.get("interval"):
                half = tps["interval"]["half_width"] / tps["mean"] * 100 if tps["mean"] else None
                m = tps["method"]
                how = (f"batch means, batches of {m['batch_size']} s" if m["kind"] == "batch_means"
                       else f"{cell.get('repeats', 1)} repeats" if m["kind"] == "repeats"
                       else m["kind"])
            else:
                how = tps.get("reason") or tps.get("note") or "no interval"
            out[(s["scenario"], cell["threads"])] = (cell["tps"], half, how)
    return out

single, repeated = cells(sys.argv[1]), cells(sys.argv[2])
print(f"| scenario | threads | TPS (one run) | ±% one run | how | TPS (--repeat={sys.argv[3]}) | ±% with repeats | how |")
print("|---|---|---|---|---|---|---|---|")
fmt = lambda v: "none" if v is None else f"{v:.1f}%"
for key in sorted(single):
    a, b = single[key], repeated.get(key, (float("nan"), None, "missing"))
    print(f"| {key[0]} | {key[1]} | {a[0]:.1f} | {fmt(a[1])} | {a[2]} | {b[0]:.1f} | {fmt(b[1])} | {b[2]} |")
EOF
