#!/usr/bin/env bash
# The HTML report in real browsers (report.test.mjs): writes a comparison report and a
# single-run report from the fixtures with the dbdyno the other stages build, then opens
# them in headless Chromium and Firefox ESR. Screenshots and the printed PDF go to
# test-output/browser/.
set -euo pipefail
# shellcheck source=../../scripts/lib.sh
. "$(dirname "${BASH_SOURCE[0]}")/../../scripts/lib.sh"
ROOT="$DBDYNO_ROOT"
cd "$ROOT"
OUT="$ROOT/test-output/browser"
rm -rf "$OUT" && mkdir -p "$OUT"
TARGET_DIR="${CARGO_TARGET_DIR:-$ROOT/target}"

for bin in chromium firefox-esr pdftotext; do
    if ! command -v "$bin" >/dev/null; then
        # A developer's machine may lack a browser (Ubuntu ships both as snaps); CI may not.
        [ "${CI:-}" = true ] && die "$bin missing: bash scripts/deps.sh (CI must run the browser stage)"
        warn "SKIPPED: $bin missing (bash scripts/deps.sh installs Debian's)"
        exit 0
    fi
done
ensure_node
ensure_node_modules tests/browser "$OUT/npm.log"
# The same build as the GUI and package stages: nothing new to compile after them.
info "browser: cargo build ${WORKSPACE_BUILD[*]}"
cargo build "${WORKSPACE_BUILD[@]}" >"$OUT/build.log" 2>&1 ||
    { tail -n 30 "$OUT/build.log" >&2; die "cargo build failed (log: $OUT/build.log)"; }

REPORTS="$OUT/reports"
mkdir -p "$REPORTS"
fixtures=tests/fixtures/report
# Exit code 4: the fixture's environments regress against the baseline, as they should.
rc=0
"$TARGET_DIR/debug/dbdyno" report --input="$fixtures/three_envs.json" --baseline=idc \
    --html="$REPORTS/comparison.html" >"$OUT/report.log" 2>&1 || rc=$?
[ "$rc" = 0 ] || [ "$rc" = 4 ] ||
    { cat "$OUT/report.log" >&2; die "dbdyno report (comparison) failed"; }
"$TARGET_DIR/debug/dbdyno" report --input="$fixtures/seed_000.json" \
    --html="$REPORTS/single.html" >>"$OUT/report.log" 2>&1 ||
    { cat "$OUT/report.log" >&2; die "dbdyno report (single run) failed"; }

# Browsers want a writable home for their profiles; never the user's.
HOME_DIR="$(mktemp -d -t dbdyno-browser.XXXXXX)"
trap 'rm -rf "$HOME_DIR"' EXIT
t0="$(now_s)"
rc=0
(cd tests/browser && HOME="$HOME_DIR" REPORTS="$REPORTS" OUT="$OUT" npm test) || rc=$?
info "browser: took $(fmt_duration $(($(now_s) - t0))); screenshots in $OUT"
exit "$rc"
