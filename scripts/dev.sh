#!/usr/bin/env bash
# Installs what is missing (scripts/setup.sh), then serves the app on http://127.0.0.1:8080
# with trunk (offline; rebuilds on change). Extra arguments go to `trunk serve`,
# e.g. `scripts/dev.sh --release` or `scripts/dev.sh --port 9000`.
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT"
# shellcheck source=scripts/setup.sh
source "$ROOT/scripts/setup.sh"
setup_all

echo "[dev] serving on http://127.0.0.1:8080 (Ctrl-C to stop)"
exec trunk serve "$@"
