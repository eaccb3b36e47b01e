#!/usr/bin/env bash
# Runs every test of optlab and exits non-zero if any fails. Installs missing tools first
# (scripts/setup.sh). Stages:
#
#   native      cargo test --workspace --locked (core's corpus suites find ../shared), then
#               the corpus table: per folder, files that parse, are rejected as expected,
#               or are not read yet (core/tests/corpus/not-read-yet.txt, a shrink-only list)
#   clippy      cargo clippy --workspace --all-targets --locked -- -D warnings
#   filecheck   FileCheck conformance: Swift's dead_code_elimination.sil through optlab dce,
#               and address_lowering.sil through AddressLowering (per function, with a tally)
#   fuzz        optlab-fuzz, fixed seed: mutated corpus files through every stage of core;
#               fails on any panic or abort (memory or time cap)
#   wasm        trunk build --release (offline) → dist/
#   wasm-test   wasm-bindgen-test of optlab-web in headless Chromium
#   e2e         node --test tests/browser/ (playwright-core + /usr/bin/chromium) against dist/
#
# A failing stage does not stop the others (except that e2e needs the wasm build); the
# summary at the end has one line per stage. Usage: scripts/test.sh [STAGE...]
set -uo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT"
# shellcheck source=scripts/setup.sh
source "$ROOT/scripts/setup.sh"

SHARED="$(cd "$ROOT/.." && pwd)/shared"
ALL_STAGES=(native clippy filecheck fuzz wasm wasm-test e2e)
STAGES=("${@:-${ALL_STAGES[@]}}")
SUMMARY=()
FAILED=0
SERVER_PID=""

cleanup() {
    if [[ -n "$SERVER_PID" ]]; then
        kill "$SERVER_PID" 2>/dev/null || true
        wait "$SERVER_PID" 2>/dev/null || true
    fi
}
trap cleanup EXIT
trap 'exit 130' INT TERM

banner() { printf '\n==== %s ====\n' "$*"; }

# run_stage NAME FUNCTION: runs it, times it, records PASS/FAIL/SKIP. A function returns 0
# (pass), 1 (fail) or 2 (skipped; it prints why).
run_stage() {
    local name=$1 fn=$2 t0 rc
    banner "$name"
    t0=$(date +%s)
    "$fn"
    rc=$?
    local secs=$(($(date +%s) - t0))
    case $rc in
        0) SUMMARY+=("$(printf '%-10s PASS  %4d s' "$name" "$secs")") ;;
        2) SUMMARY+=("$(printf '%-10s SKIP  %4d s  %s' "$name" "$secs" "${SKIP_REASON:-}")") ;;
        *)
            SUMMARY+=("$(printf '%-10s FAIL  %4d s' "$name" "$secs")")
            FAILED=1
            ;;
    esac
}

stage_native() {
    if [[ ! -d "$SHARED/corpus" ]]; then
        echo "NOTICE: $SHARED not found: the corpus and conformance suites skip themselves."
    fi
    cargo test --workspace --locked || return 1
    # What each corpus file is expected to do, and how many do it, per corpus folder (the
    # test passed above; this prints its table).
    if [[ -d "$SHARED/corpus" ]]; then
        cargo test --locked -q -p optlab-core --test corpus_expectations -- --nocapture --test-threads 1 every_corpus_file 2>&1 \
            | grep -E '^(corpus folder|bril|swift|all|shrink-only)[/ ]' || true
    fi
}

stage_clippy() {
    cargo clippy --workspace --all-targets --locked -- -D warnings
}

# FileCheck conformance: Swift's own DCE test file, run through `optlab dce --renumber` and
# checked against its `// CHECK` lines by LLVM's real FileCheck (llvm-15-tools, from setup.sh).
# The per-function results on the OSSA files are asserted by core/tests/dce_filecheck.rs
# (native stage); this stage is the whole-file run exactly as Swift's RUN line does it.
stage_filecheck() {
    local sil="$SHARED/corpus/swift/dead_code_elimination.sil"
    if [[ ! -f "$sil" ]]; then
        SKIP_REASON="$SHARED absent"
        echo "NOTICE: $SKIP_REASON: skipping the FileCheck conformance suite"
        return 2
    fi
    local fc=/usr/lib/llvm-15/bin/FileCheck
    [[ -x "$fc" ]] || { echo "FileCheck not found at $fc (scripts/setup.sh installs llvm-15-tools)"; return 1; }
    cargo build --locked -q -p optlab-cli || return 1
    local target="${CARGO_TARGET_DIR:-$ROOT/target}"
    local out="$target/dead_code_elimination.dce.sil"
    "$target/debug/optlab" dce --renumber "$sil" >"$out" || return 1
    "$fc" "$sil" --input-file "$out" || return 1
    echo "FileCheck: $(grep -c '// CHECK' "$sil") check lines of dead_code_elimination.sil pass"
    # AddressLowering on Swift's address_lowering.sil, function by function (as its RUN line,
    # -emit-sorted-sil, with each function's own check lines): the tally and every function
    # that does not pass, with the reason; the test fails on any change to that list.
    cargo test --locked -q -p optlab-core --test address_lowering_filecheck -- --nocapture 2>&1 \
        | grep -E '^(address_lowering.sil:|  [A-Za-z0-9_]+: |      expected:|test result)' || return 1
    # grep succeeded; the test's own verdict:
    cargo test --locked -q -p optlab-core --test address_lowering_filecheck >/dev/null 2>&1 || return 1
}

# A fixed-seed run of the mutation fuzzer (fuzz/src/main.rs): the same inputs every time, so
# a failure here is reproducible with the same command (`--only INDEX` for one input); the
# reproducer, minimised, is in target/fuzz-findings/. Built with the `fuzz` profile (no LTO,
# unwinding panics) to keep this stage under two minutes on two cores.
FUZZ_SEED=1
FUZZ_COUNT=4000
stage_fuzz() {
    if [[ ! -d "$SHARED/corpus" ]]; then
        SKIP_REASON="$SHARED absent"
        echo "NOTICE: $SKIP_REASON: skipping the fuzz stage (its inputs are the corpus, mutated)"
        return 2
    fi
    cargo build --locked -q -p optlab-fuzz --profile fuzz || return 1
    local target="${CARGO_TARGET_DIR:-$ROOT/target}"
    "$target/fuzz/optlab-fuzz" --seed "$FUZZ_SEED" --count "$FUZZ_COUNT" \
        --corpus "$SHARED/corpus" --out "$target/fuzz-findings"
}

stage_wasm() {
    rm -rf "$ROOT/dist"
    trunk build --release || return 1
    ls -l "$ROOT"/dist/*.wasm "$ROOT"/dist/*.js || return 1
}

stage_wasm_test() {
    # No debuginfo in these wasm test builds: about 20% less to compile on a fresh machine.
    CARGO_PROFILE_TEST_DEBUG=false \
        CARGO_TARGET_WASM32_UNKNOWN_UNKNOWN_RUNNER=wasm-bindgen-test-runner \
        CHROMEDRIVER=/usr/bin/chromedriver \
        cargo test --target wasm32-unknown-unknown -p optlab-web --locked
}

free_port() {
    python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'
}

stage_e2e() {
    if ! ls "$ROOT"/dist/*.wasm >/dev/null 2>&1; then
        echo "no dist/ build (the wasm stage failed or did not run)"
        return 1
    fi
    local port
    port=$(free_port)
    python3 -m http.server "$port" --bind 127.0.0.1 --directory "$ROOT/dist" >"$ROOT/target/http-server.log" 2>&1 &
    SERVER_PID=$!
    local i
    for i in $(seq 1 50); do
        if python3 -c "import urllib.request as u; u.urlopen('http://127.0.0.1:$port/', timeout=1)" 2>/dev/null; then
            break
        fi
        sleep 0.2
    done
    mkdir -p "$ROOT/tests/artifacts"
    rm -f "$ROOT/tests/artifacts/timings.jsonl"
    local rc=0
    OPTLAB_URL="http://127.0.0.1:$port/" OPTLAB_ARTIFACTS="$ROOT/tests/artifacts" \
        node --test --test-reporter=spec tests/browser/ || rc=1
    # Speed targets are reported, not asserted (harness.mjs, reportTiming): one line for all.
    if [ -f "$ROOT/tests/artifacts/timings.jsonl" ]; then
        node -e 'const l = require("fs").readFileSync(process.argv[1], "utf8").trim().split("\n").map(JSON.parse);
            const over = l.filter((t) => t.over);
            console.log(`page timings: ${l.length} measured, ${over.length} over target` + over.map((t) => `\n  over: ${t.name}: ${t.ms} ms (target < ${t.targetMs} ms)`).join(""));' \
            "$ROOT/tests/artifacts/timings.jsonl"
    fi
    kill "$SERVER_PID" 2>/dev/null
    wait "$SERVER_PID" 2>/dev/null
    SERVER_PID=""
    return $rc
}

T_START=$(date +%s)
banner "setup"
mkdir -p "$ROOT/target"
if ! setup_all; then
    echo "setup failed"
    printf '\n==== summary ====\n%-10s FAIL\n' setup
    exit 1
fi

for stage in "${STAGES[@]}"; do
    case $stage in
        native) run_stage native stage_native ;;
        clippy) run_stage clippy stage_clippy ;;
        filecheck) run_stage filecheck stage_filecheck ;;
        fuzz) run_stage fuzz stage_fuzz ;;
        wasm) run_stage wasm stage_wasm ;;
        wasm-test) run_stage wasm-test stage_wasm_test ;;
        e2e) run_stage e2e stage_e2e ;;
        *)
            echo "unknown stage: $stage (stages: ${ALL_STAGES[*]})"
            exit 2
            ;;
    esac
done

banner "summary"
printf '%s\n' "${SUMMARY[@]}"
echo "total $(($(date +%s) - T_START)) s"
n_pass=$(printf '%s\n' "${SUMMARY[@]}" | grep -c ' PASS ')
n_fail=$(printf '%s\n' "${SUMMARY[@]}" | grep -c ' FAIL ')
n_skip=$(printf '%s\n' "${SUMMARY[@]}" | grep -c ' SKIP ')
if [[ $FAILED -ne 0 ]]; then
    echo "SOME STAGES FAILED"
else
    echo "all stages passed"
fi
echo "stages: $n_pass passed, $n_fail failed, $n_skip skipped"
exit $FAILED
