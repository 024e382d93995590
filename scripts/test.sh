#!/usr/bin/env bash
# The one command that sets up a fresh Debian/Ubuntu machine and runs every test:
#
#   bash scripts/test.sh
#
# Setup stages (any failure stops the run):
#   system packages (scripts/deps.sh), Rust toolchain, sandbox MariaDB
#   (scripts/sandbox.sh), sandbox sshd (scripts/sshd-sandbox.sh, when present), and a
#   second pair of both for the suites that run beside the integration tests.
# Check stages (all run, the script fails at the end if any failed):
#   ui: npm ci + vite build (a setup stage: the app embeds ui/dist), then npm test and
#   scripts/test-old-node.sh (the front-end's setup under a stand-in Node.js 18) in the
#   background while cargo compiles, with the GUI suite's npm ci (tests/e2e), their
#   output shown when they end,
#   cargo fmt --check, cargo build of every binary, test and example with clippy as the
#   workspace's compiler (-D warnings; it lints every target as cargo compiles it),
#   then the integration tests (tests/it, many at once: tests/support/gate.rs) and,
#   beside them on the second sandboxes, cargo test --workspace (the crates' own tests)
#   and every executable scripts/test.d/*.sh in name order; the integration tests that
#   measure wait for those through a lock file (DBDYNO_MACHINE_LOCK).
#
# Environment:
#   DBDYNO_KEEP_SANDBOX=1    leave the sandboxes running afterwards
#   DBDYNO_TEST_FAIL_FAST=1  stop at the first failing check stage
#   DBDYNO_SKIP_DEPS=1       do not check system packages (machine already set up)
#   DBDYNO_IT_THREADS=N      the integration tests' libtest threads (default 200: one per test)
#
# Sandboxes that were already running before this script are never stopped by it.
set -euo pipefail
# shellcheck source=scripts/lib.sh
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
cd "$DBDYNO_ROOT"

RUN_START="$(now_s)"
TIMINGS=()        # "stage 12s" for the closing summary
FAILED_STAGES=()
STOP_ON_EXIT=()   # sandbox commands (quoted) the exit trap runs with `stop`, in order
BACKGROUND=()     # "name|pid|dir" of the stages running in the background

cleanup() {
    local rc=$? cmd stage pid dir
    # A background stage and everything it started (a script's background jobs ignore
    # SIGINT, and the suites beside the integration tests must not outlive their sandboxes).
    for stage in "${BACKGROUND[@]}"; do
        IFS='|' read -r _ pid dir <<<"$stage"
        # shellcheck disable=SC2046
        kill $(descendants "$pid") 2>/dev/null || true
        rm -rf "$dir"
    done
    if [ "${DBDYNO_KEEP_SANDBOX:-0}" = 1 ]; then
        [ ${#STOP_ON_EXIT[@]} -gt 0 ] && info "DBDYNO_KEEP_SANDBOX=1: sandboxes left running"
    else
        for cmd in "${STOP_ON_EXIT[@]}"; do
            eval "$cmd stop" >/dev/null 2>&1 || warn "could not stop: $cmd"
        done
    fi
    exit "$rc"
}
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

# timed_run NAME COMMAND...: runs the command with errexit on (in a subshell, so a
# failure inside a function is not ignored) and prints its outcome and time, left in
# STAGE_RC and STAGE_SECS. fd 9 (the machine lock of the suites beside the integration
# tests) is closed for it: a server or agent it leaves running must not hold the lock.
timed_run() {
    local name=$1 t0
    shift
    info "[$name] start"
    t0="$(now_s)"
    set +e
    (
        set -e
        "$@"
    ) 9>&-
    STAGE_RC=$?
    set -e
    STAGE_SECS=$(($(now_s) - t0))
    if [ "$STAGE_RC" -eq 0 ]; then
        info "[$name] ok in $(fmt_duration "$STAGE_SECS")"
    else
        info "[$name] FAILED (exit $STAGE_RC) after $(fmt_duration "$STAGE_SECS")"
    fi
}

# run_stage NAME COMMAND...: timed_run, the outcome recorded for the closing summary.
run_stage() {
    timed_run "$@"
    TIMINGS+=("$1 $(fmt_duration "$STAGE_SECS")")
    [ "$STAGE_RC" -eq 0 ] || FAILED_STAGES+=("$1")
    return "$STAGE_RC"
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

# start_background_stage NAME COMMAND...: runs a check stage beside the next ones, its
# output kept in a file, shown when join_background_stages waits for it. A stage beside
# the integration tests holds the machine lock while it runs (the tests that measure
# must have the machine to themselves) and uses sandboxes of its own.
start_background_stage() {
    local name=$1 dir
    shift
    dir="$(mktemp -d -t dbdyno-stage.XXXXXX)"
    info "[$name] start, in the background"
    (
        t0="$(now_s)"
        export DBDYNO_STAGE_ROWS="$dir/rows"
        set +e
        (
            set -e
            "$@"
        ) >"$dir/log" 2>&1
        printf '%s %s\n' "$?" "$(($(now_s) - t0))" >"$dir/result"
    ) &
    BACKGROUND+=("$name|$!|$dir")
}

# Waits for every background stage, prints its output and records it like run_stage.
join_background_stages() {
    local stage name pid dir rc secs elapsed
    for stage in "${BACKGROUND[@]}"; do
        IFS='|' read -r name pid dir <<<"$stage"
        wait "$pid" || true
        info "[$name] output:"
        cat "$dir/log" >&2 || true
        read -r rc secs <"$dir/result" || { rc=1 secs=0; }
        elapsed="$(fmt_duration "$secs")"
        TIMINGS+=("$name $elapsed (in the background)")
        if [ "$rc" -eq 0 ]; then
            info "[$name] ok in $elapsed"
        else
            info "[$name] FAILED (exit $rc) after $elapsed"
        fi
        record_stage_rows "$name" "$rc" "$dir/rows"
        rm -rf "$dir"
    done
    BACKGROUND=()
    if [ ${#FAILED_STAGES[@]} -gt 0 ] && [ "${DBDYNO_TEST_FAIL_FAST:-0}" = 1 ]; then
        die "stage '${FAILED_STAGES[0]}' failed (DBDYNO_TEST_FAIL_FAST=1)"
    fi
}

# record_stage_rows NAME RC ROWS: a background stage made of stages of its own (rows
# "rc seconds name" from beside_stage) records each of them; any other records itself.
record_stage_rows() {
    local name=$1 rc=$2 rows=$3 row_rc row_secs row_name failed=0
    if [ ! -s "$rows" ]; then
        [ "$rc" -eq 0 ] || FAILED_STAGES+=("$name")
        return 0
    fi
    while read -r row_rc row_secs row_name; do
        TIMINGS+=("$row_name $(fmt_duration "$row_secs") (beside)")
        if [ "$row_rc" -ne 0 ]; then
            FAILED_STAGES+=("$row_name")
            failed=1
        fi
    done <"$rows"
    # Failed outside its stages (the sandboxes' environment, the lock).
    if [ "$rc" -ne 0 ] && [ "$failed" -eq 0 ]; then FAILED_STAGES+=("$name"); fi
    return 0
}

# start_sandbox NAME SCRIPT [VAR=VALUE...]: starts a sandbox script with those variables
# (another directory, another port) and prints its environment (`SCRIPT env`) on
# stdout; remembers to stop it on exit unless it was already running before we came.
start_sandbox() {
    local name=$1 script=$2 cmd
    shift 2
    cmd="$(printf '%q ' env "$@" bash "$script")"
    if ! eval "$cmd status" >/dev/null 2>&1; then
        STOP_ON_EXIT+=("$cmd")
    fi
    setup_stage "$name" eval "$cmd start" >&2
    eval "$cmd env" || die "$script env failed"
}

# The suites that run beside the integration tests (the crates' own tests and
# scripts/test.d) get a MariaDB and an sshd of their own: some of them stop their sshd
# mid-test or set their server's globals, which the integration tests must not see.
# Their environment goes to $BESIDE_ENV, read by run_beside_the_integration_tests.
BESIDE_ENV="$DBDYNO_ROOT/test-output/beside.env"
start_sandboxes_beside() {
    mkdir -p "$(dirname "$BESIDE_ENV")"
    start_sandbox "sandbox mariadb beside" scripts/sandbox.sh \
        DBDYNO_SANDBOX_DIR="$DBDYNO_ROOT/.work/sandbox-beside" \
        DBDYNO_SANDBOX_PORT="${DBDYNO_BESIDE_MYSQL_PORT:-33316}" >"$BESIDE_ENV"
    if [ -f scripts/sshd-sandbox.sh ]; then
        start_sandbox "sandbox sshd beside" scripts/sshd-sandbox.sh \
            DBDYNO_SSHD_DIR="$DBDYNO_ROOT/.work/sshd-beside" \
            DBDYNO_SSHD_PORT="${DBDYNO_BESIDE_SSHD_PORT:-22232}" >>"$BESIDE_ENV"
    fi
}

# beside_stage NAME COMMAND...: one suite of run_beside_the_integration_tests: a
# background stage's summary is lost with its subshell, so the outcome goes to a row of
# $DBDYNO_STAGE_ROWS, which join_background_stages records.
beside_stage() {
    timed_run "$@"
    printf '%s %s %s\n' "$STAGE_RC" "$STAGE_SECS" "$1" >>"$DBDYNO_STAGE_ROWS"
    return "$STAGE_RC"
}

# The crates' own tests and every executable scripts/test.d/*.sh, one after another,
# beside the integration tests and against the sandboxes beside. They hold a shared
# flock on $DBDYNO_MACHINE_LOCK while they run; the integration tests that measure
# take it exclusively (tests/support/gate.rs), so they run after these are through,
# while the shared integration tests keep the machine busy beside them.
run_beside_the_integration_tests() {
    local suite rc=0
    # shellcheck disable=SC1090
    . "$BESIDE_ENV"
    exec 9>>"$DBDYNO_MACHINE_LOCK"
    flock -s 9
    beside_stage "cargo test" cargo test --workspace "${CARGO_FEATURES[@]}" || rc=1
    for suite in scripts/test.d/*.sh; do
        [ -e "$suite" ] || continue
        if [ "$rc" -ne 0 ] && [ "${DBDYNO_TEST_FAIL_FAST:-0}" = 1 ]; then
            break
        fi
        if [ -x "$suite" ]; then
            beside_stage "test.d/$(basename "$suite")" "$suite" || rc=1
        else
            info "[test.d/$(basename "$suite")] skipped: not executable"
        fi
    done
    return "$rc"
}

join_by() {
    local sep=$1 out=${2-} item
    shift
    [ $# -gt 0 ] && shift
    for item in "$@"; do out+="$sep$item"; done
    printf '%s' "$out"
}

# The front-end built before cargo compiles the app: with the `custom-protocol` feature
# the app embeds ui/dist (see CARGO_FEATURES).
ui_build() {
    ensure_node
    ensure_ui_dist "$DBDYNO_ROOT/test-output/ui-build.log"
}

# After ui_build, which installed ui/node_modules.
ui_tests() {
    cd ui
    npm test
}

# The GUI suite's WebdriverIO, installed while cargo builds: the suite runs beside the
# integration tests, whose tests alone wait for it, and a fresh clone's npm ci there took
# over a minute of that wait.
e2e_node_modules() {
    ensure_node
    ensure_node_modules tests/e2e "$DBDYNO_ROOT/test-output/npm-e2e.log"
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

use_clippy_as_the_workspace_compiler() {
    local driver
    driver="$(rustup which clippy-driver 2>/dev/null || command -v clippy-driver)" ||
        die "clippy-driver not found: rustup component add clippy"
    export RUSTC_WORKSPACE_WRAPPER="$driver"
    export CLIPPY_ARGS="-D__CLIPPY_HACKERY__warnings__CLIPPY_HACKERY__"
    info "[clippy] lints the workspace as it builds ($driver, warnings denied)"
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

    mkdir -p test-output
    start_sandbox "sandbox mariadb" scripts/sandbox.sh >test-output/sandbox.env
    if [ -f scripts/sshd-sandbox.sh ]; then
        start_sandbox "sandbox sshd" scripts/sshd-sandbox.sh >>test-output/sandbox.env
    fi
    # shellcheck disable=SC1091
    . test-output/sandbox.env
    start_sandboxes_beside

    find_references
    # The front-end's tests need neither cargo's build nor the server: they run while
    # cargo compiles, which leaves a core idle much of the time (one crate at a time).
    if [ -f ui/package.json ]; then
        setup_stage "ui build" ui_build
        start_background_stage "ui tests" ui_tests
        # The front-end's setup on a machine whose Node.js is too old: npm alone too.
        start_background_stage "old Node.js" bash scripts/test-old-node.sh
    fi
    if [ -f tests/e2e/package.json ]; then
        start_background_stage "GUI suite npm ci" e2e_node_modules
    fi
    check_stage "cargo fmt" cargo fmt --all --check
    # Clippy lints every workspace crate as it is built, not in a check of its own:
    # `cargo clippy` checks every dependency once more in check mode (7 min 37 s of a
    # cold run on 2 cores), while clippy-driver as the workspace's compiler adds its
    # lints to the one real build (`cargo clippy` itself sets these two variables).
    # Every cargo command below inherits them, so the build, the tests and the app
    # share one set of artifacts; dependencies are built by plain rustc as always.
    # Every target is linted as it is compiled, here, with warnings denied.
    use_clippy_as_the_workspace_compiler
    # `cargo test` only builds a package's binaries for that package's own integration
    # tests; the `dbdyno` binary that tests/ drives lives in another package, so it is
    # built here (a warm cache makes this a no-op, a cold one does not skip it).
    #
    # One package selection (`--workspace`) and one feature set for every cargo command,
    # the app's `custom-protocol` included (the GUI suite and the package run the app
    # as shipped, with the front-end embedded): cargo builds each crate once, and the
    # GUI suite's and the package's builds find everything fresh. This one command
    # builds the binaries, the examples (`cargo test` builds them) and every test
    # target, the integration tests' included, so that the two cores build them side
    # by side.
    CARGO_FEATURES=(--features dbdyno-app/custom-protocol)
    check_stage "cargo build + clippy" cargo build "${WORKSPACE_BUILD[@]}"
    join_background_stages
    # Beside the integration tests, on sandboxes of their own: the crates' own tests
    # (tests/it is `test = false` in tests/Cargo.toml, so `cargo test --workspace` leaves
    # it out), then scripts/test.d. The integration tests' shared phase leaves a core
    # idle much of the time, and their tests that measure wait for these through the
    # machine lock (tests/support/gate.rs).
    export DBDYNO_MACHINE_LOCK="$DBDYNO_ROOT/test-output/machine.lock"
    start_background_stage "beside the integration tests" run_beside_the_integration_tests
    # The integration tests mostly wait (timed steps, the server, SSH), so many run at
    # once: tests/support/gate.rs lets 6 share the machine and runs the ones that
    # measure alone. A test waiting at the gate holds a libtest thread, hence a thread
    # per test: every test waits at the gate from the start, and the gate, not the
    # tests' names, decides the order (the long shared tests first).
    # `--workspace` and the features, as in the build: every crate gets one feature set,
    # and the commands share their artifacts (`-p dbdyno-tests` alone unifies fewer
    # features and builds some 20 crates, and the tests, a second time).
    check_stage "integration tests" cargo test --workspace "${CARGO_FEATURES[@]}" --test it -- --test-threads="${DBDYNO_IT_THREADS:-200}"
    join_background_stages

    # Kept to two lines so that cargo test's summary stays near the end of the log.
    info "timings: $(join_by ', ' "${TIMINGS[@]}"); total $(fmt_duration $(($(now_s) - RUN_START)))"
    if [ ${#FAILED_STAGES[@]} -gt 0 ]; then
        die "failed stages: $(join_by ', ' "${FAILED_STAGES[@]}")"
    fi
    info "all stages passed"
}

main "$@"
