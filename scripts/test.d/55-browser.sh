#!/usr/bin/env bash
# The HTML report in headless Chromium and Firefox ESR: see tests/browser/run.sh.
set -euo pipefail
exec bash "$(dirname "${BASH_SOURCE[0]}")/../../tests/browser/run.sh"
