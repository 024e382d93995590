#!/usr/bin/env bash
# Builds the desktop app's .deb, installs it into a throwaway root, checks what it holds
# and launches the installed app under Xvfb until its window shows, then closes it the
# way a window manager's close button does.
#
#   bash scripts/package.sh             the debug .deb (CI: scripts/test.d/60-package.sh)
#   bash scripts/package.sh --release   the release .deb (a full optimised build: many minutes)
#
# The debug .deb re-uses the app and the `dbdyno` that scripts/test.sh builds (`cargo
# build --workspace --bins ... --features dbdyno-app/custom-protocol`: same packages,
# same features, same ui/dist), the CLI shipped beside the app, so in CI only the
# bundling is new work. Logs and the package's control file go
# to test-output/package/. DBDYNO_PACKAGE_KEEP=1 keeps the throwaway root (its path is
# printed). Needs no root: the package is unpacked into a temporary directory, never
# installed on the machine.
set -euo pipefail
# shellcheck source=scripts/lib.sh
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
cd "$DBDYNO_ROOT"

# What the package must be, whatever the bundler's defaults become: the name users
# install and remove it by, and the CJK font that PDF reports with CJK text need
# (docs/reports.md, "Fonts").
PACKAGE_NAME=db-dyno
CJK_FONT_PACKAGE=fonts-noto-cjk
# Seconds to wait for the first window (a debug WebKit app on 2 busy cores) and for the
# app to exit once asked to close.
WINDOW_TIMEOUT=60
EXIT_TIMEOUT=20

OUT="$DBDYNO_ROOT/test-output/package"
TARGET_DIR="${CARGO_TARGET_DIR:-$DBDYNO_ROOT/target}"
PROFILE=debug
TMP=""
PIDS=()

step() { info "package: $*"; }
fail() { die "package: $*"; }

stop_all() {
    local p
    for p in "${PIDS[@]}"; do kill "$p" 2>/dev/null || true; done
    for p in "${PIDS[@]}"; do wait "$p" 2>/dev/null || true; done
    if [ -n "$TMP" ]; then
        if [ "${DBDYNO_PACKAGE_KEEP:-0}" = 1 ]; then
            info "package: kept $TMP"
        else
            rm -rf "$TMP"
        fi
    fi
}
trap stop_all EXIT

# A value from src-tauri/tauri.conf.json: $1 is a JS expression on it, named `c`.
conf() { node -p "const c = require('./src-tauri/tauri.conf.json'); $1"; }

# The `dbdyno` command line, built as scripts/test.sh builds it (the same packages,
# targets and features: in CI this finds it fresh), staged under the name
# Tauri's bundler wants for an external binary: <name>-<target triple>. Prints the stem
# to give `bundle.externalBin`.
stage_cli() {
    local build=("${WORKSPACE_BUILD[@]}") triple stem
    # A release package builds the binaries alone: no debug build of the tests shares
    # its target directory.
    [ "$PROFILE" = release ] && build=(--release --workspace --bins --features dbdyno-app/custom-protocol)
    # The targets of test.sh's build (WORKSPACE_BUILD, scripts/lib.sh), not `--bin
    # dbdyno`: with one binary selected, cargo built clap, clap_derive, dbdyno-report and
    # dbdyno-cli again in another feature set and put another dbdyno into target/, until
    # the app's build put the first one back 3 s later. The integration tests, beside
    # this script, copy that file to their load clients: one copied the other binary
    # (seen in CI).
    step "cargo build ${build[*]} (log: $OUT/build-cli.log)"
    if ! cargo build "${build[@]}" >"$OUT/build-cli.log" 2>&1; then
        tail -n 40 "$OUT/build-cli.log" >&2
        fail "cargo build of dbdyno failed (log: $OUT/build-cli.log)"
    fi
    triple="$(rustc -vV | sed -n 's/^host: //p')"
    [ -n "$triple" ] || fail "rustc -vV names no host triple"
    # In the throwaway directory, not src-tauri/: nothing to keep out of git, no stale copy.
    stem="$TMP/sidecar/dbdyno"
    mkdir -p "$TMP/sidecar"
    cp "$TARGET_DIR/$PROFILE/dbdyno" "$stem-$triple" || fail "cannot stage $TARGET_DIR/$PROFILE/dbdyno"
    # The shipped copy goes without its debug info (a debug build's 239 MB become 50): the
    # .deb carries it, and the load clients and Measure the server copy it to other hosts.
    # Its symbols stay (12 MB more than a full strip), so that a panic's backtrace still
    # names the functions.
    strip --strip-debug "$stem-$triple" || fail "cannot strip the staged $stem-$triple"
    printf '%s\n' "$stem"
}

# tauri build, then tauri bundle --bundles deb with `dbdyno` as an external binary; prints
# the path of the one .deb it made.
#
# The external binary is given to `tauri bundle` alone. `--config` on `tauri build` would
# reach cargo as TAURI_CONFIG, which tauri-build watches (rerun-if-env-changed) and
# generate_context! embeds: the app crate would compile again here and again in the next
# E2E build, and a plain `cargo build` would never need the file anyway.
build_deb() {
    local cli_stem=$1 bundle_dir="$TARGET_DIR/$PROFILE/bundle/deb" debug_flag=() targets=(--workspace) debs
    [ "$PROFILE" = debug ] && debug_flag=(--debug) && targets=("${WORKSPACE_TARGETS_BUT_BINS[@]}")
    [ -x ui/node_modules/.bin/tauri ] || fail "no tauri CLI in ui/node_modules/.bin (npm ci in ui/ failed?)"
    # Stale packages would hide a build that made none.
    rm -rf "$bundle_dir"
    # --features custom-protocol and, in a debug build, WORKSPACE_BUILD's targets (tauri
    # adds --bins and tauri/custom-protocol itself): the build test.sh and the suites
    # make, so cargo finds it fresh. With `--workspace` alone it compiled the workspace
    # again without the tests' dev-dependencies and linked another target/debug/dbdyno
    # under the integration tests running beside (seen in CI).
    step "tauri build ${debug_flag[*]} --no-bundle (log: $OUT/build.log)"
    if ! ui/node_modules/.bin/tauri build "${debug_flag[@]}" --no-bundle \
        --features custom-protocol --ci -- "${targets[@]}" >"$OUT/build.log" 2>&1; then
        tail -n 40 "$OUT/build.log" >&2
        fail "tauri build failed (log: $OUT/build.log)"
    fi
    grep -E '^\s+(Compiling |Finished `)' "$OUT/build.log" | sed 's/^ */    cargo: /' >&2 || true
    step "tauri bundle ${debug_flag[*]} --bundles deb, with dbdyno (log: $OUT/bundle.log)"
    if ! ui/node_modules/.bin/tauri bundle "${debug_flag[@]}" --bundles deb \
        --features custom-protocol --ci \
        --config "$(node -p 'JSON.stringify({ bundle: { externalBin: [process.argv[1]] } })' "$cli_stem")" \
        >"$OUT/bundle.log" 2>&1; then
        tail -n 40 "$OUT/bundle.log" >&2
        fail "tauri bundle failed (log: $OUT/bundle.log)"
    fi
    mapfile -t debs < <(find "$bundle_dir" -maxdepth 1 -name '*.deb')
    [ ${#debs[@]} -eq 1 ] || fail "expected one .deb in $bundle_dir, found ${#debs[@]}"
    printf '%s\n' "${debs[0]}"
}

# Name, version, architecture and Depends, from the package's control file.
check_metadata() {
    local deb=$1 field value version arch depends group alt ok
    dpkg-deb --field "$deb" >"$OUT/control" || fail "dpkg-deb cannot read $deb"
    value="$(dpkg-deb --field "$deb" Package)"
    [ "$value" = "$PACKAGE_NAME" ] || fail "Package is '$value', expected '$PACKAGE_NAME'"
    version="$(conf 'c.version')"
    value="$(dpkg-deb --field "$deb" Version)"
    [ "$value" = "$version" ] || fail "Version is '$value', tauri.conf.json says '$version'"
    arch="$(dpkg --print-architecture)"
    value="$(dpkg-deb --field "$deb" Architecture)"
    [ "$value" = "$arch" ] || fail "Architecture is '$value', this machine is '$arch'"
    for field in Maintainer Description; do
        [ -n "$(dpkg-deb --field "$deb" "$field")" ] || fail "the control file has no $field"
    done

    depends="$(dpkg-deb --field "$deb" Depends)"
    # Each group ("a (>= 1) | b") split on commas, then its alternatives' bare names.
    local names=()
    while IFS= read -r group; do
        ok=0
        for alt in $(printf '%s' "$group" | tr '|' '\n' | sed 's/(.*)//; s/:.*//'); do
            names+=("$alt")
            is_pkg_installed "$alt" && ok=1
        done
        # The window test below runs on this machine's libraries: they must be the ones
        # the package asks for, or the test proves nothing about an install.
        [ "$ok" = 1 ] || fail "Depends names '$group', which is not installed here (bash scripts/deps.sh)"
    done < <(printf '%s' "$depends" | tr ',' '\n' | sed 's/^ *//; s/ *$//' | grep -v '^$')
    printf '%s\n' "${names[@]}" | grep -qx "$CJK_FONT_PACKAGE" ||
        fail "Depends ($depends) lacks $CJK_FONT_PACKAGE: PDF reports with CJK text need it (bundle.linux.deb.depends)"
    step "metadata ok: $PACKAGE_NAME $version $arch, Depends: $depends"
}

is_pkg_installed() {
    [ "$(dpkg-query -W -f='${db:Status-Status}' "$1" 2>/dev/null || true)" = installed ]
}

# dpkg-deb -x unpacks exactly the files `dpkg -i` would install, as any user and without
# touching the machine's dpkg database. `dpkg --root`/`--instdir` would need root (or
# --force-not-root), a dpkg database inside the root, and every dependency installed
# there too (or --force-depends, which is then no test of them). The md5sums the package
# ships prove the unpacked files are what it holds.
install_into() {
    local deb=$1 root=$2
    mkdir -p "$root"
    dpkg-deb -x "$deb" "$root" || fail "dpkg-deb -x failed"
    dpkg-deb -e "$deb" "$root/DEBIAN" || fail "dpkg-deb -e failed"
    local script
    for script in preinst postinst prerm postrm; do
        [ ! -e "$root/DEBIAN/$script" ] ||
            fail "the package has a $script script, which dpkg-deb -x does not run: this install would not be the real one"
    done
    (cd "$root" && md5sum --quiet -c DEBIAN/md5sums) || fail "unpacked files differ from the package's md5sums"
    step "installed into $root ($(du -sh "$root/usr" | cut -f1))"
}

# The value of key $2 in the desktop entry $1 (its main group's first).
desktop_key() { sed -n "s/^$2=//p" "$1" | head -n 1; }

# The one .desktop entry: valid, naming a binary and an icon the package holds. Prints
# the absolute path of the binary in the root.
check_desktop_entry() {
    local root=$1 entries entry exec_name bin icon product png size found=0
    mapfile -t entries < <(find "$root/usr/share/applications" -name '*.desktop' 2>/dev/null)
    [ ${#entries[@]} -eq 1 ] || fail "expected one .desktop entry in usr/share/applications, found ${#entries[@]}"
    entry=${entries[0]}
    desktop-file-validate "$entry" >&2 || fail "desktop-file-validate rejects $(basename "$entry")"
    product="$(conf 'c.productName')"
    [ "$(desktop_key "$entry" Name)" = "$product" ] || fail "desktop entry Name is '$(desktop_key "$entry" Name)', expected '$product'"
    [ "$(desktop_key "$entry" Type)" = Application ] || fail "desktop entry Type is '$(desktop_key "$entry" Type)'"
    [ -n "$(desktop_key "$entry" Categories)" ] || fail "desktop entry has no Categories (menus file it nowhere): set bundle.category"
    exec_name="$(desktop_key "$entry" Exec | awk '{ print $1 }')"
    bin="$root/usr/bin/$exec_name"
    [ -x "$bin" ] || fail "desktop entry Exec '$exec_name' is not an executable in usr/bin"

    icon="$(desktop_key "$entry" Icon)"
    [ -n "$icon" ] || fail "desktop entry has no Icon"
    # Each NxN/apps/ICON.png must be an N x N PNG. The bundler files the 256 px @2x icon
    # under 256x256@2 (HiDPI directories are named by logical size): left unchecked.
    for png in "$root"/usr/share/icons/hicolor/*/apps/"$icon".png; do
        [ -f "$png" ] || continue
        size="$(basename "$(dirname "$(dirname "$png")")")"
        found=$((found + 1))
        [[ "$size" == *@* ]] && continue
        file -b "$png" | grep -q "^PNG image data, ${size/x/ x }," ||
            fail "icon $size/apps/$icon.png is not a ${size} PNG: $(file -b "$png")"
    done
    [ -f "$root/usr/share/icons/hicolor/128x128/apps/$icon.png" ] ||
        fail "no 128x128 icon '$icon' (found $found sizes)"
    step "desktop entry ok: $(basename "$entry") → $exec_name, icon '$icon' in $found sizes"
    printf '%s\n' "$bin"
}

# The `dbdyno` command the package ships for the load clients and the hardware tests,
# which copy it to other hosts: beside the app, where dbdyno_remote::local_agent_binary()
# looks after $DBDYNO_AGENT_BINARY (crates/remote/src/agent_binary.rs: a file named
# `dbdyno` in the running executable's directory), the very file staged for it, and of the
# app's version (a load client answering with another version is refused before a run).
check_cli() {
    local app_bin=$1 staged=$2 cli version printed
    cli="$(dirname "$app_bin")/dbdyno"
    if [ ! -f "$cli" ] || [ -L "$cli" ]; then
        fail "no dbdyno file beside the app's ${app_bin#"$TMP/root"}: the load clients and Measure the server would not find one"
    fi
    [ -x "$cli" ] || fail "${cli#"$TMP/root"} is not executable"
    # The staged copy, not target/: another build may have replaced that one since.
    cmp -s "$cli" "$staged" || fail "${cli#"$TMP/root"} is not the dbdyno that was staged ($staged)"
    if file -b "$cli" | grep -q 'with debug_info'; then
        fail "${cli#"$TMP/root"} still has its debug info: the staged copy was not stripped"
    fi
    version="$(conf 'c.version')"
    printed="$("$cli" --version 2>&1)" || fail "${cli#"$TMP/root"} --version failed: $printed"
    [ "$printed" = "dbdyno $version" ] ||
        fail "${cli#"$TMP/root"} --version prints '$printed', the app is $version"
    step "dbdyno ok: ${cli#"$TMP/root"} beside the app, '$printed' ($(du -h "$cli" | cut -f1))"
}

# Starts the installed binary on a private X server, waits for its window by title,
# then asks it to close and expects a clean exit.
launch_and_close() {
    local bin=$1 title display_fd_file app_pid win win_pid rc waited
    title="$(conf 'c.app.windows[0].title')"
    command -v Xvfb >/dev/null || fail "Xvfb missing: bash scripts/deps.sh (xvfb)"
    command -v xdotool >/dev/null || fail "xdotool missing: bash scripts/deps.sh"
    # Closing like a window manager: the ICCCM WM_DELETE_WINDOW message (xdotool's
    # windowclose destroys the window instead, which is no clean close).
    cc -O2 -o "$TMP/wm-close" tests/e2e/wm-close.c -lX11 || fail "cannot build tests/e2e/wm-close.c"

    # -displayfd: Xvfb picks a free display and writes its number, so a concurrent E2E
    # run's server is never taken; -nolisten tcp keeps it off the network.
    display_fd_file="$TMP/display"
    Xvfb -displayfd 3 -screen 0 1280x800x24 -nolisten tcp 3>"$display_fd_file" >"$OUT/xvfb.log" 2>&1 &
    PIDS+=($!)
    for _ in $(seq 1 50); do
        [ -s "$display_fd_file" ] && break
        sleep 0.1
    done
    [ -s "$display_fd_file" ] || fail "Xvfb did not start (log: $OUT/xvfb.log)"
    DISPLAY=":$(tr -d '\n' <"$display_fd_file")"
    export DISPLAY

    # The app's history, profiles and WebKit data go to the throwaway root, never the user's.
    mkdir -p "$TMP/home"
    DBDYNO_DATA_DIR="$TMP/home/data" DBDYNO_CONFIG_DIR="$TMP/home/config" \
        XDG_DATA_HOME="$TMP/home/share" XDG_CONFIG_HOME="$TMP/home/config" \
        XDG_CACHE_HOME="$TMP/home/cache" \
        "$bin" >"$OUT/app.log" 2>&1 &
    app_pid=$!
    PIDS+=("$app_pid")
    step "started $bin (pid $app_pid) on $DISPLAY, waiting for the window '$title'"

    win=""
    for waited in $(seq 1 $((WINDOW_TIMEOUT * 5))); do
        if ! kill -0 "$app_pid" 2>/dev/null; then
            wait "$app_pid" && rc=0 || rc=$?
            tail -n 30 "$OUT/app.log" >&2
            fail "the installed app exited (status $rc) before showing a window (log: $OUT/app.log)"
        fi
        win="$(xdotool search --onlyvisible --name "^$(printf '%s' "$title" | sed 's/[][\.*^$+?(){}|]/\\&/g')\$" 2>/dev/null | head -n 1 || true)"
        [ -n "$win" ] && break
        sleep 0.2
    done
    [ -n "$win" ] || {
        tail -n 30 "$OUT/app.log" >&2
        fail "no visible window titled '$title' within ${WINDOW_TIMEOUT}s (log: $OUT/app.log)"
    }
    # GTK sets _NET_WM_PID: the window must be the installed binary's, not another app's.
    win_pid="$(xdotool getwindowpid "$win" 2>/dev/null || true)"
    [ "$win_pid" = "$app_pid" ] || fail "window '$title' belongs to pid '$win_pid', not the app ($app_pid)"
    step "window '$title' ($(xdotool getwindowgeometry "$win" | sed -n 's/^ *Geometry: //p')) after $(awk "BEGIN { printf \"%.1f\", $waited / 5 }") s"

    "$TMP/wm-close" "$win" || fail "could not send WM_DELETE_WINDOW to window $win"
    for _ in $(seq 1 $((EXIT_TIMEOUT * 5))); do
        kill -0 "$app_pid" 2>/dev/null || break
        sleep 0.2
    done
    if kill -0 "$app_pid" 2>/dev/null; then
        fail "the app did not exit within ${EXIT_TIMEOUT}s of its window being closed (log: $OUT/app.log)"
    fi
    wait "$app_pid" && rc=0 || rc=$?
    [ "$rc" -eq 0 ] || {
        tail -n 30 "$OUT/app.log" >&2
        fail "the app exited with status $rc after its window was closed (log: $OUT/app.log)"
    }
    if grep -q 'panicked' "$OUT/app.log"; then
        fail "the app panicked (log: $OUT/app.log)"
    fi
    step "closed cleanly (exit 0)"
}

main() {
    local arg t0 cli_stem deb bin
    for arg in "$@"; do
        case "$arg" in
            --release) PROFILE=release ;;
            -h | --help)
                sed -n '2,13p' "$0" | sed 's/^# \{0,1\}//'
                return 0
                ;;
            *) die "unknown argument: $arg (try --help)" ;;
        esac
    done
    for arg in dpkg-deb dpkg-query md5sum file cc strip desktop-file-validate; do
        command -v "$arg" >/dev/null || fail "$arg missing: bash scripts/deps.sh"
    done
    t0="$(now_s)"
    rm -rf "$OUT"
    mkdir -p "$OUT"
    TMP="$(mktemp -d -t dbdyno-package.XXXXXX)"

    ensure_node
    ensure_cargo
    ensure_ui_dist "$OUT/npm-ui.log"
    cli_stem="$(stage_cli)"
    deb="$(build_deb "$cli_stem")"
    step "built $(basename "$deb") ($(du -h "$deb" | cut -f1)) in $(fmt_duration $(($(now_s) - t0)))"
    check_metadata "$deb"
    install_into "$deb" "$TMP/root"
    bin="$(check_desktop_entry "$TMP/root")"
    check_cli "$bin" "$cli_stem"-*
    launch_and_close "$bin"
    step "all checks passed in $(fmt_duration $(($(now_s) - t0)))"
}

main "$@"
