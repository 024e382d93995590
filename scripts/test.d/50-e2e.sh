#!/usr/bin/env bash
# The desktop app end to end (Xvfb + tauri-driver + WebKitWebDriver): see tests/e2e/run.sh.
set -euo pipefail
exec bash "$(dirname "${BASH_SOURCE[0]}")/../../tests/e2e/run.sh"
