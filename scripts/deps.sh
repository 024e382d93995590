#!/usr/bin/env bash
# Installs the system packages DB Dyno needs on Debian 12 / Ubuntu 22.04+, and nothing
# else. Idempotent: when everything is already installed it touches neither the network
# nor apt and returns in well under a second.
#
#   scripts/deps.sh            install what is missing
#   scripts/deps.sh --check    only list what is missing (exit 1 if anything is)
#   scripts/deps.sh --no-node  leave out Node.js/npm (what the headless demo uses)
#
# Runs as root, or through sudo otherwise. Never starts services: the project runs its
# own MariaDB (scripts/sandbox.sh), so a policy-rc.d that forbids starting the system
# one is fine.
set -euo pipefail
# shellcheck source=scripts/lib.sh
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

# One line per need, so a package can be traced to the reason it is here.
PACKAGES=(
    # the database under test, its client, and the reference benchmark we compare with
    mariadb-server mariadb-client sysbench
    # sshd for the remote-sampler tests (scripts/sshd-sandbox.sh: sshd, ssh-keygen, ps, ss)
    openssh-server openssh-client procps iproute2
    # building Rust crates with native dependencies (build-essential's binutils also
    # strips the debug info off the dbdyno the .deb ships: scripts/package.sh)
    build-essential pkg-config libssl-dev libdbus-1-dev
    # the Tauri GUI (webkit, gtk, tray icon, svg icons)
    libwebkit2gtk-4.1-dev libgtk-3-dev libayatana-appindicator3-dev librsvg2-dev
    # GUI end-to-end tests without a screen: virtual X server (xvfb-run needs xauth)
    # and the WebDriver for WebKitGTK
    xvfb xauth webkit2gtk-driver
    # ... and the native GTK dialogs it opens (save, open, close confirmation), typed into
    # with xdotool: WebDriver reaches only the page
    xdotool
    # the .deb's check (scripts/package.sh): its desktop entry validated
    desktop-file-utils
    # report tests: render PDFs to images and text; CJK glyphs for non-Latin labels
    poppler-utils fonts-noto-cjk fonts-droid-fallback fonts-dejavu-core time
    # kernel keyring for the credential store tests
    keyutils
    # both cores kept busy while the tests with a time bound run (scripts/stress-timing-tests.sh)
    stress-ng
    # tooling: downloads (rustup), file type checks in tests
    curl ca-certificates file
    # the TLS test's CA and certificates (tests/it/tls.rs, bench/tls_vs_sysbench.sh)
    openssl
    # a real Prometheus scrapes --metrics-addr (tests/it/metrics.rs); its service is
    # never started (the policy-rc.d note above), the test runs its own
    prometheus
    # the HTML report opened in real browsers (tests/browser): Debian's headless-capable
    # builds, driven by puppeteer-core (no browser download of its own)
    chromium firefox-esr
)

is_installed() {
    [ "$(dpkg-query -W -f='${db:Status-Status}' "$1" 2>/dev/null || true)" = installed ]
}

# True if apt knows an installable version of the package.
has_candidate() {
    local cand
    cand="$(apt-cache policy "$1" 2>/dev/null | awk '/Candidate:/ { print $2 }')"
    [ -n "$cand" ] && [ "$cand" != "(none)" ]
}

# Installs those of the given packages that apt has a candidate for; warns about the
# others. Dies when apt-get fails, unless the first argument is "optional" ("required"
# otherwise): then it only warns. Needs $apt_log and the apt command in $apt.
install_available() {
    local need=$1 p
    shift
    local install=() skipped=()
    for p in "$@"; do
        if has_candidate "$p"; then
            install+=("$p")
        else
            skipped+=("$p")
        fi
    done
    for p in "${skipped[@]}"; do
        warn "package '$p' is not available in this distribution's apt sources: skipped"
    done
    [ ${#install[@]} -eq 0 ] && return 0

    info "installing: ${install[*]}"
    if ! as_root "${apt[@]}" install --no-install-recommends "${install[@]}" >"$apt_log" 2>&1; then
        tail -n 30 "$apt_log" >&2
        [ "$need" = optional ] || die "apt-get install failed (full output above is the last 30 lines)"
        warn "could not install ${install[*]} (above); only the front-end needs them, and its scripts say what to do"
        return 0
    fi
    info "installed ${#install[@]} package(s)"
}

main() {
    local check_only=0 with_node=1 arg
    for arg in "$@"; do
        case "$arg" in
            --check) check_only=1 ;;
            --no-node) with_node=0 ;;
            -h | --help)
                sed -n '2,12p' "$0" | sed 's/^# \{0,1\}//'
                return 0
                ;;
            *) die "unknown argument: $arg (try --help)" ;;
        esac
    done

    if ! command -v dpkg-query >/dev/null 2>&1 || ! command -v apt-get >/dev/null 2>&1; then
        die "this script supports Debian and Ubuntu (apt) only; install by hand: ${PACKAGES[*]}"
    fi

    # Node.js and npm for the front-end (Vite, Vitest) and the GUI tests, only when the
    # machine has no npm at all: the distribution's is old (18; Ubuntu 22.04: 12), but
    # its npm is all ensure_node (scripts/lib.sh) needs to fetch the Node.js 22 the
    # tools run on into .work/node. A Node.js installed otherwise (NodeSource, nvm, a
    # tarball) is used as it is when recent enough. Installed apart from the rest, and
    # a failure there only warns: only the front-end needs it, and ensure_node says what
    # to do when it runs.
    local node_packages=()
    if [ "$with_node" = 1 ] && ! command -v npm >/dev/null 2>&1; then
        node_packages=(nodejs npm)
    fi

    local missing=() node_missing=() p
    for p in "${PACKAGES[@]}"; do
        is_installed "$p" || missing+=("$p")
    done
    for p in "${node_packages[@]}"; do
        is_installed "$p" || node_missing+=("$p")
    done
    local n_missing=$((${#missing[@]} + ${#node_missing[@]}))

    if [ "$n_missing" -eq 0 ]; then
        info "system packages: all $((${#PACKAGES[@]} + ${#node_packages[@]})) present"
        return 0
    fi
    if [ "$check_only" = 1 ]; then
        local all=("${missing[@]}" "${node_missing[@]}")
        log "missing system packages: ${all[*]}"
        return 1
    fi

    apt_log="$(mktemp -t dbdyno-apt.XXXXXX)"
    # shellcheck disable=SC2064
    trap "rm -f '$apt_log'" EXIT

    apt=(env DEBIAN_FRONTEND=noninteractive apt-get -q -y
        -o DPkg::Lock::Timeout=300 -o Dpkg::Use-Pty=0)

    info "apt-get update ($n_missing package(s) missing)"
    if ! as_root "${apt[@]}" update >"$apt_log" 2>&1; then
        tail -n 20 "$apt_log" >&2
        die "apt-get update failed"
    fi

    install_available required "${missing[@]}"
    install_available optional "${node_missing[@]}"
}

main "$@"
