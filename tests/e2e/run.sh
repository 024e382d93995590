#!/usr/bin/env bash
# The desktop app's end-to-end suite: builds the front-end and the app (debug, with the
# front-end embedded), installs tauri-driver if missing, starts Xvfb and tauri-driver
# on loopback, and runs flow.test.mjs (the whole app) and newcomer.test.mjs (a new user's
# session with the shipped example, in directories of its own) against the sandbox
# MariaDB and sshd.
#
#   bash tests/e2e/run.sh            (scripts/test.d/50-e2e.sh calls it in CI)
#
# Screenshots and logs: test-output/e2e/. The app's history and profiles go to a temp
# directory (DBDYNO_DATA_DIR / DBDYNO_CONFIG_DIR), never the user's.
# Environment: DBDYNO_E2E_KEEP=1 keeps the temp directory; TAURI_DRIVER_PORT (4444);
# E2E_SPECS="newcomer.test.mjs" runs only those files of tests/e2e.
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
cd "$ROOT"
# shellcheck source=scripts/lib.sh
. scripts/lib.sh

OUT="$ROOT/test-output/e2e"
TARGET_DIR="${CARGO_TARGET_DIR:-$ROOT/target}"
APP_BIN="$TARGET_DIR/debug/dbdyno-app"
PORT="${TAURI_DRIVER_PORT:-4444}"
TAURI_DRIVER_VERSION=2.1.0
SCHEMA=dbdyno_e2e
PIDS=()

stop_all() {
    local p
    for p in "${PIDS[@]}"; do kill "$p" 2>/dev/null || true; done
    for p in "${PIDS[@]}"; do wait "$p" 2>/dev/null || true; done
    # The fix the suite applies is a global of the sandbox it ran against (test.sh gives
    # it one of its own): put the default back, which its next run expects, and drop the
    # suite's schema.
    bash scripts/sandbox.sh sql -e "SET GLOBAL max_prepared_stmt_count = DEFAULT; DROP DATABASE IF EXISTS $SCHEMA" >/dev/null 2>&1 || true
    if [ "${DBDYNO_E2E_KEEP:-0}" != 1 ] && [ -n "${TMP:-}" ]; then rm -rf "$TMP"; fi
}
trap stop_all EXIT

rm -rf "$OUT"
mkdir -p "$OUT"
t0="$(now_s)"
ensure_node

# The front-end is rebuilt only when a source is newer than ui/dist (scripts/lib.sh).
ensure_ui_dist "$OUT/npm-ui.log"
# The packages and features scripts/test.sh builds with (`--workspace`, the app's
# `custom-protocol` for the embedded front-end): after it, this build finds everything
# fresh. (`-p dbdyno-app` alone unified fewer features and built most of the workspace a
# second time: 6 min 52 s of a cold run with tauri-driver, on 2 cores.)
info "e2e: app (cargo build ${WORKSPACE_BUILD[*]})"
cargo build "${WORKSPACE_BUILD[@]}"
[ -x "$APP_BIN" ] || die "no app binary at $APP_BIN"

if ! command -v tauri-driver >/dev/null 2>&1; then
    info "e2e: cargo install tauri-driver@$TAURI_DRIVER_VERSION --locked"
    # Not through clippy (scripts/test.sh lints our workspace with it): tauri-driver's
    # own warnings are not ours to deny.
    env -u RUSTC_WORKSPACE_WRAPPER -u CLIPPY_ARGS \
        cargo install tauri-driver --version "$TAURI_DRIVER_VERSION" --locked
fi
command -v WebKitWebDriver >/dev/null || die "WebKitWebDriver missing: bash scripts/deps.sh (webkit2gtk-driver)"
command -v xdotool >/dev/null || die "xdotool missing (it answers the app's native dialogs): bash scripts/deps.sh"
command -v pdftotext >/dev/null || die "pdftotext missing (it reads the exported PDF back): bash scripts/deps.sh (poppler-utils)"
# scripts/test.sh installs these while cargo builds; here only when the lock file moved.
ensure_node_modules tests/e2e "$OUT/npm-e2e.log"
info "e2e: builds ready in $(fmt_duration $(($(now_s) - t0)))"

bash scripts/sandbox.sh start >/dev/null
eval "$(bash scripts/sandbox.sh env)"
bash scripts/sshd-sandbox.sh start >/dev/null
eval "$(bash scripts/sshd-sandbox.sh env)"

TMP="$(mktemp -d -t dbdyno-e2e.XXXXXX)"
export DBDYNO_DATA_DIR="$TMP/data" DBDYNO_CONFIG_DIR="$TMP/config"
export E2E_OUT="$OUT" E2E_SCHEMA="$SCHEMA" DBDYNO_APP_BIN="$APP_BIN" TAURI_DRIVER_PORT="$PORT"
# The command line beside the app: flow.test.mjs records a nightly series with it.
export DBDYNO_CLI_BIN="$TARGET_DIR/debug/dbdyno"
# Closes the window the way a window manager would (tests/e2e/wm-close.c; libX11 comes
# with the GTK development packages).
cc -O2 -o "$TMP/wm-close" tests/e2e/wm-close.c -lX11 || die "cannot build tests/e2e/wm-close.c"
export E2E_WM_CLOSE="$TMP/wm-close"
bash scripts/sandbox.sh sql -e "DROP DATABASE IF EXISTS $SCHEMA" >/dev/null

# A private X server; -nolisten tcp keeps it off the network. Its screen holds the
# largest window newcomer.test.mjs lays the Plan screen out in (1920×1080).
DISPLAY_NUM=99
while [ -e "/tmp/.X11-unix/X$DISPLAY_NUM" ]; do DISPLAY_NUM=$((DISPLAY_NUM + 1)); done
Xvfb ":$DISPLAY_NUM" -screen 0 1920x1080x24 -nolisten tcp >"$OUT/xvfb.log" 2>&1 &
PIDS+=($!)
export DISPLAY=":$DISPLAY_NUM"

tauri-driver --port "$PORT" --native-driver "$(command -v WebKitWebDriver)" >"$OUT/tauri-driver.log" 2>&1 &
PIDS+=($!)
for _ in $(seq 1 50); do
    (exec 3<>"/dev/tcp/127.0.0.1/$PORT") 2>/dev/null && break
    sleep 0.2
done

info "e2e: running the flow (display $DISPLAY, tauri-driver on 127.0.0.1:$PORT)"
t1="$(now_s)"
rc=0
if [ -n "${E2E_SPECS:-}" ]; then
    # shellcheck disable=SC2086 # a list of file names
    (cd tests/e2e && node --test --test-concurrency=1 $E2E_SPECS) || rc=$?
else
    (cd tests/e2e && npm test) || rc=$?
fi
info "e2e: flow took $(fmt_duration $(($(now_s) - t1))); screenshots in $OUT"
ls "$OUT"/*.png 2>/dev/null | sed 's/^/    /' || true
exit "$rc"
