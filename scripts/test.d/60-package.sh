#!/usr/bin/env bash
# The .deb: built from the E2E stage's debug app, installed into a throwaway root, its
# window opened under Xvfb and closed (see scripts/package.sh).
set -euo pipefail
exec bash "$(dirname "${BASH_SOURCE[0]}")/../package.sh"
