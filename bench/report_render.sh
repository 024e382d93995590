#!/usr/bin/env bash
# Times report rendering on the 3 environments × 4 scenarios × 6 thread counts fixture
# (tests/fixtures/report/three_envs.json): the model, HTML, PDF, Markdown, CSV and JSON,
# each rendered RUNS times (default 10); prints best / median / worst in milliseconds.
# Debug profile, as the project builds (dependencies at opt-level 2).
#
#   bash bench/report_render.sh [RUNS] [a4|letter]
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
runs=${1:-10}
page=${2:-a4}
cargo build -q -p dbdyno-report --example report_bench
out="$(mktemp -d -t dbdyno-report-bench.XXXXXX)"
"${CARGO_TARGET_DIR:-target}/debug/examples/report_bench" tests/fixtures/report/three_envs.json \
    --baseline=idc --runs="$runs" --page-size="$page" --out="$out"
pages=$(pdfinfo "$out/report.pdf" 2>/dev/null | awk '/^Pages:/ { print $2 }' || true)
echo "PDF: ${pages:-?} pages, $(wc -c <"$out/report.pdf") bytes; HTML: $(wc -c <"$out/report.html") bytes"
