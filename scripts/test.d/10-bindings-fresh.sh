#!/usr/bin/env bash
# The TypeScript contract (ui/src/bindings.ts) must be what the Rust commands generate:
# regenerate it and fail when it changed (commit the regenerated file).
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
cd "$ROOT"
cargo run -q -p dbdyno-app --example export-bindings
if ! git diff --exit-code -- ui/src/bindings.ts; then
    echo "ui/src/bindings.ts is stale: run 'cargo run -p dbdyno-app --example export-bindings' and commit it" >&2
    exit 1
fi
if [ -n "$(git ls-files --others --exclude-standard -- ui/src/bindings.ts)" ]; then
    echo "ui/src/bindings.ts is not committed" >&2
    exit 1
fi
