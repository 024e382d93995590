#!/usr/bin/env bash
# The newcomer's tour: from a fresh Debian/Ubuntu machine to a real benchmark.
#
#   bash scripts/demo.sh
#
# 1. installs system packages (scripts/deps.sh) and, if needed, Rust; Node.js only when
#    the GUI is to be built (a display, no DBDYNO_GUI_BIN): without a display, nothing
#    here needs or touches Node.js;
# 2. builds the `dbdyno` binary (release);
# 3. starts the sandbox MariaDB (scripts/sandbox.sh) on 127.0.0.1:33306;
# 4. runs a short thread ladder through the binary: 2 scenarios x 1, 4, 8 threads,
#    5 s each, on 4 tables of 20,000 rows that it creates and drops itself, in its own
#    schema (dbdyno_demo);
# 5. writes a report when this build has `dbdyno report`;
# 6. opens the desktop app when there is a display (building it if needed, with a
#    Node.js 22 of its own in .work/node when the machine's is too old), else says how.
#
# Results go to .work/demo/<date-time>/ under the project root. The sandbox is left
# running afterwards so you can look around: scripts/sandbox.sh sql, then
# scripts/sandbox.sh stop when done.
#
# Environment: DBDYNO_SKIP_DEPS=1 skips the package check; DBDYNO_SANDBOX_PORT picks
# another port; DBDYNO_GUI_BIN points at an app binary built elsewhere.
set -euo pipefail
# shellcheck source=scripts/lib.sh
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
cd "$DBDYNO_ROOT"

TARGET_DIR="${CARGO_TARGET_DIR:-$DBDYNO_ROOT/target}"
case "$TARGET_DIR" in /*) ;; *) TARGET_DIR="$DBDYNO_ROOT/$TARGET_DIR" ;; esac
BIN="$TARGET_DIR/release/dbdyno"
RUN_DIR="$DBDYNO_ROOT/.work/demo/$(date +%Y%m%d-%H%M%S)"
RESULTS_JSON="$RUN_DIR/ladder.json"
# The demo's own schema: the tests and your own experiments use `sbtest`, so whatever
# they left there never stops the demo, and the demo never touches it.
DEMO_DB=dbdyno_demo

# The benchmark, in one place. Filled in by start_sandbox (the port comes from it).
LADDER_FLAGS=()

set_ladder_flags() {
    # shellcheck disable=SC2054 # the commas belong to --scenarios and --ladder
    LADDER_FLAGS=(
        --mysql-host="$DBDYNO_TEST_MYSQL_HOST"
        --mysql-port="$DBDYNO_TEST_MYSQL_PORT"
        --mysql-user="$DBDYNO_TEST_MYSQL_USER"
        --mysql-db="$DEMO_DB"
        --tables=4 --table-size=20000
        --scenarios=oltp_point_select,oltp_read_write
        --ladder=1,4,8
        --time=5 --warmup=1
        --prepare --cleanup
        --report-interval=1
        --report="$RUN_DIR"
    )
}


step() { info "$*"; }

has_display() { [ -n "${DISPLAY:-}" ] || [ -n "${WAYLAND_DISPLAY:-}" ]; }

# True when start_gui will build the front-end, the only step that needs Node.js.
will_build_gui() {
    has_display && [ -z "${DBDYNO_GUI_BIN:-}" ] && [ -f src-tauri/Cargo.toml ]
}

install_deps() {
    if [ "${DBDYNO_SKIP_DEPS:-0}" = 1 ]; then
        step "system packages: skipped (DBDYNO_SKIP_DEPS=1)"
    elif will_build_gui; then
        step "system packages"
        bash scripts/deps.sh
    else
        step "system packages (without Node.js: the GUI is not built here)"
        bash scripts/deps.sh --no-node
    fi
    ensure_cargo
}

build_cli() {
    step "building dbdyno (release; the first build takes a few minutes)"
    cargo build --release -p dbdyno-cli
    [ -x "$BIN" ] || die "build finished but $BIN is missing"
}

start_sandbox() {
    step "sandbox MariaDB"
    bash scripts/sandbox.sh start
    eval "$(bash scripts/sandbox.sh env)"
    set_ladder_flags
    bash scripts/sandbox.sh sql -e "CREATE DATABASE IF NOT EXISTS $DEMO_DB;
        GRANT ALL ON $DEMO_DB.* TO '$DBDYNO_TEST_MYSQL_USER'@'127.0.0.1', '$DBDYNO_TEST_MYSQL_USER'@'localhost'" >/dev/null
    # A demo interrupted before its cleanup left its tables: dbdyno's cleanup drops them
    # (only sbtest tables of sysbench's shape, in the demo's schema).
    MYSQL_PWD="$DBDYNO_TEST_MYSQL_PASSWORD" "$BIN" oltp_read_write "${LADDER_FLAGS[@]:0:4}" --tables=4 cleanup >/dev/null
}

run_ladder() {
    mkdir -p "$RUN_DIR"
    step "benchmark: dbdyno ladder ${LADDER_FLAGS[*]}"
    # The binary reads the password from MYSQL_PWD, which keeps it out of `ps`.
    local rc=0
    MYSQL_PWD="$DBDYNO_TEST_MYSQL_PASSWORD" "$BIN" ladder "${LADDER_FLAGS[@]}" --json="$RESULTS_JSON" || rc=$?
    if [ "$rc" -eq 3 ]; then
        # Exit 3: dbdyno refused to touch tables it did not create in this run.
        log "The sandbox's '$DEMO_DB' database holds tables the demo did not create (see above)."
        log "If nobody needs them: bash scripts/sandbox.sh reset, then run the demo again."
    fi
    return "$rc"
}

# True when this build documents the subcommand. `dbdyno help <word>` alone is not
# enough: older builds answer any `help ...` with the general help and exit 0.
has_subcommand() {
    local out
    out="$("$BIN" help "$1" 2>&1)" || return 1
    grep -q "dbdyno $1" <<<"$out"
}

run_report() {
    # `ladder --report=DIR` wrote the report of the recorded run at the end of the ladder.
    local f found=0
    for f in "$RUN_DIR"/report.*; do
        [ -f "$f" ] || continue
        step "report: $f"
        found=1
    done
    [ "$found" = 1 ] || step "report: none written into $RUN_DIR (see the ladder's output above)"
}

# The desktop app's binary: DBDYNO_GUI_BIN, else the debug build of src-tauri (the
# same build the end-to-end tests use; a release bundle is `npx tauri build`, see
# docs/desktop.md).
gui_bin() {
    if [ -n "${DBDYNO_GUI_BIN:-}" ]; then
        printf '%s' "$DBDYNO_GUI_BIN"
        return 0
    fi
    [ -f src-tauri/Cargo.toml ] || return 1
    printf '%s' "$TARGET_DIR/debug/dbdyno-app"
}

# Builds the front-end (ui/dist) and the app with the front-end embedded. ensure_node
# installs Node.js 22 into .work/node first when the machine's is missing or too old.
build_gui() {
    ensure_node
    step "GUI: building the front-end (npm ci, vite build) and the app (first build: a few minutes)"
    (cd ui && npm ci --no-audit --no-fund >/dev/null && npm run build >/dev/null)
    cargo build -p dbdyno-app --features custom-protocol
}

start_gui() {
    local app
    if ! app="$(gui_bin)"; then
        step "GUI: not in this checkout (no src-tauri/); the CLI results are above"
        return 0
    fi
    if ! has_display; then
        step "GUI: no display here. On a desktop (DISPLAY set), start it with:"
        log "      bash scripts/demo.sh        # builds it if needed, then opens it"
        log "      or: (cd ui && npm ci && npm run build) && cargo build -p dbdyno-app --features custom-protocol"
        log "          MYSQL_PWD=sbtest $app"
        return 0
    fi
    if [ -z "${DBDYNO_GUI_BIN:-}" ]; then
        build_gui
    fi
    [ -x "$app" ] || die "the app binary $app is missing"
    # MYSQL_PWD lets the shipped 'local-sandbox' environment log in to the sandbox
    # without storing a password in the keyring first.
    step "GUI: starting $app (log: $RUN_DIR/gui.log); pick the 'local-sandbox' environment"
    MYSQL_PWD="$DBDYNO_TEST_MYSQL_PASSWORD" setsid -f "$app" </dev/null >"$RUN_DIR/gui.log" 2>&1
}

summary() {
    info "done. Results: $RUN_DIR"
    local f
    for f in "$RUN_DIR"/*; do [ -e "$f" ] && log "      $(basename "$f")"; done
    log "    The sandbox MariaDB is still running on 127.0.0.1:$DBDYNO_TEST_MYSQL_PORT:"
    log "      scripts/sandbox.sh sql     # SQL shell as admin"
    log "      scripts/sandbox.sh stop    # stop it"
}

main() {
    local t0
    t0="$(now_s)"
    install_deps
    build_cli
    start_sandbox
    run_ladder
    run_report
    start_gui
    summary
    info "total time $(fmt_duration $(($(now_s) - t0)))"
}

main "$@"
