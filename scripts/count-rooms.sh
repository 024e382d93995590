#!/usr/bin/env bash
# Re-measures the workspace's rooms (see scripts/count_rooms.py): non-test lines per
# crate, import circles inside crates, Verdict types, untyped JSON between crates.
#
#   bash scripts/count-rooms.sh            the current tree
#   bash scripts/count-rooms.sh REV        a commit (extracted to a temp dir), e.g. main~10
#   bash scripts/count-rooms.sh -- --json  the figures as JSON
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
if [ $# -gt 0 ] && [ "$1" != "--" ]; then
    rev=$1
    shift
    tmp="$(mktemp -d)"
    trap 'rm -rf "$tmp"' EXIT
    git -C "$root" archive "$rev" crates src-tauri | tar -x -C "$tmp"
    set -- --root "$tmp" "$@"
fi
[ "${1:-}" = "--" ] && shift
exec python3 "$root/scripts/count_rooms.py" "$@"
