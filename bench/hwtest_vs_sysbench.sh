#!/usr/bin/env bash
# Side-by-side benchmark of dbdyno's native hardware tests against sysbench 1.0.20:
# fileio (rndrw, rndrd, seqwr) on tmpfs (/dev/shm) and on the project's disk (.work/),
# cpu and memory. The same options for both tools, alternating which goes first round
# by round; medians of ROUNDS; one Markdown table of ratios (dbdyno / sysbench) on
# stdout. docs/benchmarks.md records a run of it.
#
#   bash bench/hwtest_vs_sysbench.sh                      # 3 rounds of 10 s
#   ROUNDS=5 SECONDS_PER_RUN=20 FILE_TOTAL_SIZE=4G bash bench/hwtest_vs_sysbench.sh
#   DBDYNO=path/to/dbdyno bash bench/hwtest_vs_sysbench.sh   # skip the release build
#
# Both tools read and write the same file set in the same directory, prepared once per
# round (by sysbench; the two make identical sets). A figure within 10% gives "ok".
# Each run's CPU time (user + system, /usr/bin/time) per event is shown too: on a
# machine where other work competes for the cores, it compares the tools' own cost
# where the rates are noisy.
set -euo pipefail
cd "$(dirname "$0")/.."

ROUNDS=${ROUNDS:-3}
SECONDS_PER_RUN=${SECONDS_PER_RUN:-10}
FILE_TOTAL_SIZE=${FILE_TOTAL_SIZE:-1G}
FILE_NUM=${FILE_NUM:-16}
THREADS=${THREADS:-1}
MODES=${MODES:-"rndrw rndrd seqwr"}
PLACES=${PLACES:-"tmpfs:/dev/shm/dbdyno-hwtest-bench disk:.work/hwtest-bench"}

command -v sysbench >/dev/null || { echo "sysbench is missing: bash scripts/deps.sh" >&2; exit 1; }
[ -x /usr/bin/time ] || { echo "/usr/bin/time is missing: apt-get install time" >&2; exit 1; }
[ -f "$HOME/.cargo/env" ] && . "$HOME/.cargo/env"
if [ -z "${DBDYNO:-}" ]; then
  cargo build --release -q -p dbdyno-cli
  DBDYNO="$(pwd)/${CARGO_TARGET_DIR:-target}/release/dbdyno"
fi
DBDYNO=$(realpath "$DBDYNO")
work=$(mktemp -d)
dirs=()
cleanup() {
  for d in "${dirs[@]}"; do
    (cd "$d" && sysbench fileio --file-num="$FILE_NUM" cleanup >/dev/null 2>&1) || true
    rmdir "$d" 2>/dev/null || true
  done
  rm -rf "$work"
}
trap cleanup EXIT

median() { sort -g | awk '{a[NR]=$1} END {print (NR%2 ? a[(NR+1)/2] : (a[NR/2]+a[NR/2+1])/2)}'; }
# figure FILE LABEL: the number after LABEL in a sysbench-layout report.
figure() { awk -v l="$2" 'index($0, l) { s = substr($0, index($0, l) + length(l)); gsub(/^[ (]+/, "", s); split(s, w, /[ s(]/); print w[1]; exit }' "$1"; }

# run TOOL DIR ARGS...: one run in DIR, its text in $work/out.
run() {
  local tool=$1 dir=$2; shift 2
  local bin=$DBDYNO
  [ "$tool" = sysbench ] && bin=sysbench
  (cd "$dir" && /usr/bin/time -f '%U %S' -o "$work/time" "$bin" "$@") >"$work/out" 2>&1
}

declare -A got
# Figures go to one file per case, label and tool; a label's '/' is spelled '%' there.
record() { # record CASE TOOL: the figures of $work/out
  local case=$1 tool=$2 f=$work/out
  case $case in
    fileio:*:rndrd) echo "$(figure "$f" "reads/s:")" >>"$work/$case:reads%s:$tool" ;;
    fileio:*:seqwr) echo "$(figure "$f" "written, MiB/s:")" >>"$work/$case:written MiB%s:$tool" ;;
    fileio:*)
      echo "$(figure "$f" "reads/s:")" >>"$work/$case:reads%s:$tool"
      echo "$(figure "$f" "writes/s:")" >>"$work/$case:writes%s:$tool"
      echo "$(figure "$f" "fsyncs/s:")" >>"$work/$case:fsyncs%s:$tool" ;;
    cpu*) echo "$(figure "$f" "events per second:")" >>"$work/$case:events%s:$tool" ;;
    memory*) echo "$(figure "$f" "MiB transferred (")" >>"$work/$case:MiB%s:$tool" ;;
  esac
  echo "$(figure "$f" "avg:")" >>"$work/$case:latency avg (ms):$tool"
  # CPU time (user + system) per event: what each tool spends, whatever else runs.
  awk -v e="$(figure "$f" "total number of events:")" '{ printf "%.3f\n", ($1 + $2) * 1e6 / e }' "$work/time" >>"$work/$case:CPU us per event:$tool"
}

echo "Host: $(nproc) cores, $(awk '/MemTotal/ {printf "%.0f GiB", $2/1048576}' /proc/meminfo); $(sysbench --version); $("$DBDYNO" --version)" >&2
echo "fileio: $FILE_NUM files, $FILE_TOTAL_SIZE, $THREADS thread(s); $ROUNDS rounds of ${SECONDS_PER_RUN}s" >&2
COMMON=(--time="$SECONDS_PER_RUN" --threads="$THREADS")
FILEIO=(fileio --file-num="$FILE_NUM" --file-total-size="$FILE_TOTAL_SIZE")
cases=()
for r in $(seq "$ROUNDS"); do
  # Odd rounds sysbench first, even rounds dbdyno first.
  if [ $((r % 2)) = 1 ]; then order="sysbench dbdyno"; else order="dbdyno sysbench"; fi
  for place in $PLACES; do
    name=${place%%:*}; dir=${place#*:}
    mkdir -p "$dir"; [ "$r" = 1 ] && dirs+=("$(realpath "$dir")")
    for mode in $MODES; do
      # seqwr truncates the set: prepare again before each mode and tool.
      for tool in $order; do
        (cd "$dir" && sysbench "${FILEIO[@]}" prepare >/dev/null)
        run "$tool" "$dir" "${FILEIO[@]}" --file-test-mode="$mode" "${COMMON[@]}" run
        record "fileio:$name:$mode" "$tool"
      done
      [ "$r" = 1 ] && cases+=("fileio:$name:$mode")
    done
  done
  for tool in $order; do
    run "$tool" . cpu --cpu-max-prime=20000 "${COMMON[@]}" run; record "cpu:20000" "$tool"
    run "$tool" . memory --memory-block-size=1K "${COMMON[@]}" run; record "memory:seq-write-1K" "$tool"
    run "$tool" . memory --memory-block-size=1M --memory-total-size=400G "${COMMON[@]}" run; record "memory:seq-write-1M" "$tool"
  done
  [ "$r" = 1 ] && cases+=("cpu:20000" "memory:seq-write-1K" "memory:seq-write-1M")
  echo "round $r done" >&2
done

echo "| case | figure | sysbench 1.0.20 | dbdyno | ratio | within 10% |"
echo "|---|---|---|---|---|---|"
for c in "${cases[@]}"; do
  for f in "$work/$c":*:sysbench; do
    label=${f#"$work/$c:"}; label=${label%:sysbench}
    s=$(median <"$f"); d=$(median <"$work/$c:$label:dbdyno")
    label=${label//%//}
    awk -v c="$c" -v l="$label" -v s="$s" -v d="$d" 'BEGIN {
      r = (s > 0) ? d / s : 0
      ok = (l ~ /latency|CPU/) ? "(info)" : ((r >= 0.9 && r <= 1.1) ? "ok" : "NO")
      printf "| %s | %s | %s | %s | %.2f | %s |\n", c, l, s, d, r, ok }'
  done
done
