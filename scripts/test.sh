#!/usr/bin/env bash
# The one command that sets up a fresh Debian/Ubuntu machine and runs every test:
#
#   bash scripts/test.sh
#
# Setup stages (any failure stops the run):
#   system packages (scripts/deps.sh), Rust toolchain, sandbox MariaDB
#   (scripts/sandbox.sh), sandbox sshd (scripts/sshd-sandbox.sh, when present).
# Check stages (all run, the script fails at the end if any failed):
#   cargo fmt --check, cargo clippy -D warnings, cargo build --workspace --bins,
#   cargo test --workspace,
#   ui: npm ci + npm test (when ui/package.json exists),
#   every executable scripts/test.d/*.sh, in name order.
#
# Environment:
#   DBDYNO_KEEP_SANDBOX=1    leave the sandboxes running afterwards
#   DBDYNO_TEST_FAIL_FAST=1  stop at the first failing check stage
#   DBDYNO_SKIP_DEPS=1       do not check system packages (machine already set up)
#
# Sandboxes that were already running before this script are never stopped by it.
set -euo pipefail
# shellcheck source=scripts/lib.sh
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
cd "$DBDYNO_ROOT"

RUN_START="$(now_s)"
TIMINGS=()        # "stage 12s" for the closing summary
FAILED_STAGES=()
STOP_ON_EXIT=()   # commands run by the exit trap, in order

cleanup() {
    local rc=$? cmd
    if [ "${DBDYNO_KEEP_SANDBOX:-0}" = 1 ]; then
        [ ${#STOP_ON_EXIT[@]} -gt 0 ] && info "DBDYNO_KEEP_SANDBOX=1: sandboxes left running"
    else
        for cmd in "${STOP_ON_EXIT[@]}"; do
            bash "$cmd" stop >/dev/null 2>&1 || warn "could not stop: $cmd"
        done
    fi
    exit "$rc"
}
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

# run_stage NAME COMMAND...: runs the command with errexit on (in a subshell, so a
# failure inside a function is not ignored), prints its time, records the outcome.
run_stage() {
    local name=$1 t0 rc elapsed
    shift
    info "[$name] start"
    t0="$(now_s)"
    set +e
    (
        set -e
        "$@"
    )
    rc=$?
    set -e
    elapsed="$(fmt_duration $(($(now_s) - t0)))"
    TIMINGS+=("$name $elapsed")
    if [ "$rc" -eq 0 ]; then
        info "[$name] ok in $elapsed"
    else
        info "[$name] FAILED (exit $rc) after $elapsed"
        FAILED_STAGES+=("$name")
    fi
    return "$rc"
}

# A setup stage that fails ends the run: nothing after it can be trusted.
setup_stage() {
    run_stage "$@" || die "setup stage '$1' failed; nothing was tested"
}

# A check stage that fails is recorded; the others still run unless fail-fast.
check_stage() {
    if ! run_stage "$@" && [ "${DBDYNO_TEST_FAIL_FAST:-0}" = 1 ]; then
        die "stage '$1' failed (DBDYNO_TEST_FAIL_FAST=1)"
    fi
    return 0
}

# Starts a sandbox script and imports its environment; remembers to stop it on exit
# unless it was already running before we came.
start_sandbox() {
    local name=$1 script=$2 t0 env_out
    if ! bash "$script" status >/dev/null 2>&1; then
        STOP_ON_EXIT+=("$script")
    fi
    setup_stage "$name" bash "$script" start
    env_out="$(bash "$script" env)" || die "$script env failed"
    eval "$env_out"
}

join_by() {
    local sep=$1 out=${2-} item
    shift
    [ $# -gt 0 ] && shift
    for item in "$@"; do out+="$sep$item"; done
    printf '%s' "$out"
}

ui_tests() {
    ensure_node
    cd ui
    npm ci --no-audit --no-fund
    npm test
}

# Reference implementations the tests compare with (Percona's sysbench-tpcc for the
# tpcc workload) are kept unchanged beside the project, not in it, and no registry
# offers them. Found: their comparison tests must run (a vanished reference fails
# them). Not found: those comparisons are skipped, and said so here and in the log.
find_references() {
    local tpcc="${DBDYNO_SYSBENCH_TPCC_DIR:-$DBDYNO_ROOT/../shared/reference/sysbench-tpcc}"
    if [ -f "$tpcc/tpcc.lua" ]; then
        DBDYNO_SYSBENCH_TPCC_DIR="$(cd "$tpcc" && pwd)"
        export DBDYNO_SYSBENCH_TPCC_DIR DBDYNO_REQUIRE_REFERENCE=1
        info "[references] sysbench-tpcc: $DBDYNO_SYSBENCH_TPCC_DIR"
    else
        warn "[references] sysbench-tpcc not found beside the project: the tpcc comparisons with it are skipped (set DBDYNO_SYSBENCH_TPCC_DIR)"
    fi
}

main() {
    if [ "${DBDYNO_SKIP_DEPS:-0}" = 1 ]; then
        info "[system packages] skipped (DBDYNO_SKIP_DEPS=1)"
    else
        setup_stage "system packages" bash scripts/deps.sh
    fi

    local t0
    t0="$(now_s)"
    ensure_cargo
    # CI runs on a fresh clone each time; a build cache outside the clone (the same
    # machine keeps it between runs) saves the full rebuild of Tauri, printpdf and sqlx.
    # A cold cache only makes the run slower, never different.
    if [ -n "${CI:-}" ] && [ -z "${CARGO_TARGET_DIR:-}" ]; then
        export CARGO_TARGET_DIR="$HOME/.cache/dbdyno/target"
        mkdir -p "$CARGO_TARGET_DIR"
        # Keep a CI build small: no incremental state, line tables instead of full
        # debug info (test binaries linking Tauri and printpdf are ~600 MB otherwise).
        export CARGO_INCREMENTAL=0
        export CARGO_PROFILE_DEV_DEBUG=line-tables-only
        info "[ci] cargo build cache: $CARGO_TARGET_DIR"
    fi
    ensure_rust_components
    TIMINGS+=("rust toolchain $(fmt_duration $(($(now_s) - t0)))")
    info "[rust toolchain] $(cargo --version)"

    start_sandbox "sandbox mariadb" scripts/sandbox.sh
    if [ -f scripts/sshd-sandbox.sh ]; then
        start_sandbox "sandbox sshd" scripts/sshd-sandbox.sh
    fi

    find_references
    check_stage "cargo fmt" cargo fmt --all --check
    check_stage "cargo clippy" cargo clippy --workspace --all-targets -- -D warnings
    # `cargo test` only builds a package's binaries for that package's own integration
    # tests; the `dbdyno` binary that tests/ drives lives in another package, so it is
    # built here (a warm cache makes this a no-op, a cold one does not skip it).
    check_stage "cargo build" cargo build --workspace --bins
    check_stage "cargo test" cargo test --workspace

    if [ -f ui/package.json ]; then
        check_stage "ui tests" ui_tests
    fi

    local suite
    if [ -d scripts/test.d ]; then
        for suite in scripts/test.d/*.sh; do
            [ -e "$suite" ] || continue
            if [ -x "$suite" ]; then
                check_stage "test.d/$(basename "$suite")" "$suite"
            else
                info "[test.d/$(basename "$suite")] skipped: not executable"
            fi
        done
    fi

    # Kept to two lines so that cargo test's summary stays near the end of the log.
    info "timings: $(join_by ', ' "${TIMINGS[@]}"); total $(fmt_duration $(($(now_s) - RUN_START)))"
    if [ ${#FAILED_STAGES[@]} -gt 0 ]; then
        die "failed stages: $(join_by ', ' "${FAILED_STAGES[@]}")"
    fi
    info "all stages passed"
}

main "$@"
