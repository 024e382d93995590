#!/usr/bin/env bash
# A machine whose Node.js is too old for the front-end tools (Debian 12 and Ubuntu ship
# 18, Ubuntu 22.04 even 12) still gets them running: ensure_node (scripts/lib.sh) puts the
# project's own Node.js 22 from .work/node first on PATH, installing it on first use.
#
# A stand-in `node` that says v18.19.0 to --version (and fails at anything else) goes
# first on PATH, in a temporary directory deleted at exit; nothing of the machine's
# Node.js is changed. Then node and npm must be the project's, and the front-end's
# locked dependencies must install and run (Vitest, a Vite build) on them; this is done
# in a temporary copy of ui/package*.json, so ui/node_modules is left as it is.
# First run: downloads Node.js into .work/node; later runs re-use it (a few seconds,
# mostly `npm ci` from npm's cache).
set -euo pipefail
# shellcheck source=scripts/lib.sh
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
cd "$DBDYNO_ROOT"

TMP="$(mktemp -d -t dbdyno-old-node.XXXXXX)"
trap 'rm -rf "$TMP"' EXIT

mkdir "$TMP/old-bin"
cat >"$TMP/old-bin/node" <<'EOF'
#!/bin/sh
# Stand-in for Debian 12's Node.js 18 (scripts/test-old-node.sh).
if [ "${1:-}" = --version ] || [ "${1:-}" = -v ]; then
    echo v18.19.0
    exit 0
fi
echo "stand-in node (v18.19.0): cannot run: $*" >&2
exit 1
EOF
chmod +x "$TMP/old-bin/node"
PATH="$TMP/old-bin:$PATH"
export PATH
hash -r
[ "$(node --version)" = v18.19.0 ] || die "the stand-in node is not first on PATH"

ensure_node

v="$(node --version)"
node_version_ok "$v" || die "after ensure_node, node --version says $v (want 20.19+ or 22.12+)"
[ "$(command -v node)" = "$DBDYNO_NODE_DIR/bin/node" ] ||
    die "after ensure_node, node is $(command -v node), not the project's ($DBDYNO_NODE_DIR/bin/node)"
npm_v="$(npm --version)" || die "npm --version failed"
# The node npm itself runs on (`npm version` lists it) must be the new one too.
(cd "$TMP" && npm version --json) | grep -q "\"node\": \"${v#v}\"" ||
    die "npm $npm_v does not run on node $v"
info "node $v, npm $npm_v ($(command -v npm))"

# The front-end's locked dependencies, and the tools that need the newer Node.js.
mkdir "$TMP/ui"
cp ui/package.json ui/package-lock.json "$TMP/ui/"
cd "$TMP/ui"
npm ci --no-audit --no-fund >"$TMP/npm-ci.log" 2>&1 || {
    tail -n 30 "$TMP/npm-ci.log" >&2
    die "npm ci failed on node $v"
}
info "vitest $(npx --no-install vitest --version)"
cat >ok.test.js <<'EOF'
import { expect, test } from "vitest";
test("runs", () => expect(1 + 1).toBe(2));
EOF
npx --no-install vitest run ok.test.js >"$TMP/vitest.log" 2>&1 || {
    cat "$TMP/vitest.log" >&2
    die "vitest run failed on node $v"
}
printf '<!doctype html><title>ok</title><script type="module" src="./main.js"></script>\n' >index.html
printf 'document.title = "built";\n' >main.js
npx --no-install vite build --logLevel warn >"$TMP/vite.log" 2>&1 || {
    cat "$TMP/vite.log" >&2
    die "vite build failed on node $v"
}
[ -f dist/index.html ] || die "vite build wrote no dist/index.html"
info "vitest run and vite build ok on node $v"
