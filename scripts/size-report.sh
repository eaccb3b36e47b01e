#!/usr/bin/env bash
# Raw and gzipped (-9) sizes of the wasm and js files in dist/ (build it first:
# `trunk build --release`, or scripts/test.sh). Usage: scripts/size-report.sh [DIST_DIR]
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
DIST="${1:-$ROOT/dist}"

shopt -s nullglob
files=("$DIST"/*.wasm "$DIST"/*.js)
if [[ ${#files[@]} -eq 0 ]]; then
    echo "no .wasm or .js in $DIST: run 'trunk build --release' first" >&2
    exit 1
fi

kb() { awk -v b="$1" 'BEGIN { printf "%.1f KB", b / 1024 }'; }

printf '%-44s %12s %12s\n' file raw gzip
total_raw=0
total_gz=0
for f in "${files[@]}"; do
    raw=$(stat -c %s "$f")
    gz=$(gzip -9 -c "$f" | wc -c)
    total_raw=$((total_raw + raw))
    total_gz=$((total_gz + gz))
    printf '%-44s %12s %12s\n' "$(basename "$f")" "$(kb "$raw")" "$(kb "$gz")"
done
printf '%-44s %12s %12s\n' total "$(kb "$total_raw")" "$(kb "$total_gz")"
