# shellcheck shell=bash
# Helpers shared by the scripts in this folder. Source it; do not run it.
#
# Everything here is about the machine and the repository, never about the benchmark:
# where the project root is, how to print a step, how to become root for apt, how to
# find cargo.

# The project root: the parent of this folder, whatever the caller's working directory.
DBDYNO_ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd -P)"
export DBDYNO_ROOT

# Messages go to stderr so that commands whose stdout is meant for `eval` stay clean.
log() { printf '%s\n' "$*" >&2; }
info() { printf '==> %s\n' "$*" >&2; }
warn() { printf 'warning: %s\n' "$*" >&2; }
die() {
    printf 'error: %s\n' "$*" >&2
    exit 1
}

# Runs a command as root: directly when we are root, through sudo otherwise.
as_root() {
    if [ "$(id -u)" -eq 0 ]; then
        "$@"
    elif command -v sudo >/dev/null 2>&1; then
        sudo "$@"
    else
        die "need root for: $* (run as root or install sudo)"
    fi
}

# Whole seconds since the epoch, for stage timings.
now_s() { date +%s; }

# "1m 05s" or "42s".
fmt_duration() {
    local s=$1
    if [ "$s" -ge 60 ]; then
        printf '%dm %02ds' $((s / 60)) $((s % 60))
    else
        printf '%ds' "$s"
    fi
}

# Puts cargo on PATH: rustup installs it in ~/.cargo/bin, which a non-login shell
# (CI, cron, `bash script.sh`) may not have on PATH yet. If there is no Rust toolchain
# at all, installs one with rustup (the project needs a newer Rust than Debian ships),
# unless DBDYNO_INSTALL_RUST=0.
ensure_cargo() {
    if ! command -v cargo >/dev/null 2>&1 && [ -f "$HOME/.cargo/env" ]; then
        # shellcheck disable=SC1091
        . "$HOME/.cargo/env"
    fi
    if ! command -v cargo >/dev/null 2>&1; then
        [ "${DBDYNO_INSTALL_RUST:-1}" = 1 ] ||
            die "cargo not found; install Rust from https://rustup.rs (or unset DBDYNO_INSTALL_RUST)"
        info "cargo not found: installing the stable Rust toolchain with rustup"
        command -v curl >/dev/null 2>&1 || die "curl is needed to install rustup (run scripts/deps.sh)"
        curl --proto '=https' --tlsv1.2 -sSf https://sh.rustup.rs |
            sh -s -- -y --profile minimal --component rustfmt,clippy >/dev/null ||
            die "rustup install failed; install Rust from https://rustup.rs and retry"
        # shellcheck disable=SC1091
        . "$HOME/.cargo/env"
    fi
    export PATH
}

# Makes sure `cargo fmt` and `cargo clippy` exist (a minimal rustup profile lacks them).
ensure_rust_components() {
    local missing=()
    cargo fmt --version >/dev/null 2>&1 || missing+=(rustfmt)
    cargo clippy --version >/dev/null 2>&1 || missing+=(clippy)
    [ ${#missing[@]} -eq 0 ] && return 0
    command -v rustup >/dev/null 2>&1 ||
        die "cargo ${missing[*]} not available and rustup not found; install them for your toolchain"
    info "adding Rust components: ${missing[*]}"
    rustup component add "${missing[@]}" >/dev/null
}

# Dies, saying what to do, unless Node.js and npm are there in a version the front-end
# tools run on (Vite 7 needs Node.js 20.19+ or 22.12+).
ensure_node() {
    if ! command -v node >/dev/null 2>&1 || ! command -v npm >/dev/null 2>&1; then
        die "Node.js and npm not found: scripts/deps.sh installs the distribution's; or install Node.js 20.19+ (nodejs.org)"
    fi
    local v major minor
    v="$(node --version)"
    v="${v#v}"
    major="${v%%.*}"
    minor="${v#*.}"
    minor="${minor%%.*}"
    if [ "$major" -lt 20 ] || { [ "$major" -eq 20 ] && [ "$minor" -lt 19 ]; } ||
        { [ "$major" -eq 21 ]; } || { [ "$major" -eq 22 ] && [ "$minor" -lt 12 ]; }; then
        die "Node.js $v is too old for the front-end tools (Vite 7 needs 20.19+ or 22.12+): install a newer Node.js (Debian 13's nodejs, NodeSource, or nodejs.org)"
    fi
}
