#!/usr/bin/env bash
# Raw and gzipped (-9) sizes of what dist/ serves (build it first: `trunk build --release`, or
# scripts/test.sh), grouped the way a visitor downloads them:
#   first visit  index.html and every file it names (the first-visit build: CSS, the small
#                app's JS and wasm) — all of it arrives before the first graph (budget 350 KB
#                gzipped, issue 18; tests/browser/size.test.mjs measures it in Chromium);
#   full app     optlab-full.js and _bg.wasm, loaded after the first graph (web/src/handoff.rs);
#   layout worker  loaded by either app for a graph of more than 60 blocks.
# Usage: scripts/size-report.sh [DIST_DIR]
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
DIST="${1:-$ROOT/dist}"

if [[ ! -f "$DIST/index.html" ]]; then
    echo "no index.html in $DIST: run 'trunk build --release' first" >&2
    exit 1
fi

kb() { awk -v b="$1" 'BEGIN { printf "%.1f KB", b / 1024 }'; }

# group TITLE FILE...: one line per file and the group's total.
group() {
    local title=$1 total_raw=0 total_gz=0 f raw gz
    shift
    printf '\n%s\n' "$title"
    for f in "$@"; do
        [[ -f "$DIST/$f" ]] || continue
        raw=$(stat -c %s "$DIST/$f")
        gz=$(gzip -9 -c "$DIST/$f" | wc -c)
        total_raw=$((total_raw + raw))
        total_gz=$((total_gz + gz))
        printf '  %-44s %12s %12s\n' "$f" "$(kb "$raw")" "$(kb "$gz")"
    done
    printf '  %-44s %12s %12s\n' "total" "$(kb "$total_raw")" "$(kb "$total_gz")"
}

# The files index.html names (./name.ext in href= or src= or import), in order, once each.
mapfile -t named < <(grep -oE '\./[A-Za-z0-9_.-]+\.(js|wasm|css|svg)' "$DIST/index.html" | sed 's|^\./||' | awk '!seen[$0]++')

printf '%-46s %12s %12s\n' file raw gzip
group "first visit (before the first graph)" index.html "${named[@]}"
group "full app (after the first graph)" optlab-full.js optlab-full_bg.wasm css/dom.css css/dce.css css/lcm.css css/copyprop.css css/types.css css/ownership.css css/lowering.css css/ssa.css
group "layout worker (graphs of more than 60 blocks)" optlab-layout_loader.js optlab-layout.js optlab-layout_bg.wasm
