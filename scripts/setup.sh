#!/usr/bin/env bash
# Installs what optlab's build and tests need, skipping whatever is already there at the
# right version. Sourced by scripts/dev.sh and scripts/test.sh; can also be run by itself.
#
#   rustup target     wasm32-unknown-unknown
#   cargo install     trunk 0.21.14 (--locked), wasm-bindgen-cli = the wasm-bindgen version
#                     in Cargo.lock (also gives wasm-bindgen-test-runner)
#   npm ci            binaryen 132 (wasm-opt, put first on PATH), playwright-core and axe-core
#                     (the browser tests' accessibility audit), as package-lock.json pins them
#   apt-get           chromium chromium-driver llvm-15-tools (FileCheck)
#   cargo fetch       --locked, so trunk's offline build finds every crate
#
# Only registries are used (crates.io, npm, Debian); nothing downloads a binary from GitHub,
# which this kind of machine cannot reach. Logs of long steps go to target/setup-logs/.

# When sourced, keep the caller's shell options; when run, be strict.
if [[ "${BASH_SOURCE[0]}" == "$0" ]]; then
    set -euo pipefail
fi

OPTLAB_ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
TRUNK_VERSION="0.21.14"
APT_PACKAGES=(chromium chromium-driver llvm-15-tools)
SETUP_LOGS="$OPTLAB_ROOT/target/setup-logs"

export PATH="$OPTLAB_ROOT/node_modules/.bin:$HOME/.cargo/bin:$PATH"
# trunk: never download tools, never look for a newer trunk.
export TRUNK_OFFLINE=true
export TRUNK_SKIP_VERSION_CHECK=true

setup_say() { printf '[setup] %s\n' "$*"; }

# Runs "$@" with its output in $SETUP_LOGS/$1.log; on failure shows the log's end.
setup_logged() {
    local name=$1
    shift
    mkdir -p "$SETUP_LOGS"
    local log="$SETUP_LOGS/$name.log"
    if "$@" >"$log" 2>&1; then
        return 0
    fi
    setup_say "FAILED: $* (last lines of $log):"
    tail -n 40 "$log" >&2
    return 1
}

setup_as_root() {
    if [[ $(id -u) -eq 0 ]]; then
        "$@"
    else
        sudo "$@"
    fi
}

setup_secs() { echo $(($(date +%s) - $1)); }

# The version of a package in Cargo.lock.
setup_lock_version() {
    awk -v want="$1" '
        /^\[\[package\]\]/ { name = "" }
        /^name = / { gsub(/"/, "", $3); name = $3 }
        /^version = / && name == want { gsub(/"/, "", $3); print $3; exit }
    ' "$OPTLAB_ROOT/Cargo.lock"
}

setup_apt_missing() {
    local p missing=()
    for p in "${APT_PACKAGES[@]}"; do
        if [[ "$(dpkg-query -W -f='${Status}' "$p" 2>/dev/null)" != "install ok installed" ]]; then
            missing+=("$p")
        fi
    done
    echo "${missing[*]}"
}

setup_apt() {
    local missing
    missing=$(setup_apt_missing)
    if [[ -z "$missing" ]]; then
        setup_say "apt: ${APT_PACKAGES[*]} already installed"
        return 0
    fi
    setup_say "apt: installing $missing (log: $SETUP_LOGS/apt.log)"
    local t0
    t0=$(date +%s)
    # shellcheck disable=SC2086
    setup_logged apt bash -c "
        set -e
        $(declare -f setup_as_root)
        setup_as_root env DEBIAN_FRONTEND=noninteractive apt-get update -q
        setup_as_root env DEBIAN_FRONTEND=noninteractive apt-get install -y -q $missing
    " || return 1
    setup_say "apt: done in $(setup_secs "$t0") s"
}

setup_wasm_target() {
    if rustup target list --installed | grep -qx wasm32-unknown-unknown; then
        setup_say "rustup: wasm32-unknown-unknown already installed"
    else
        local t0
        t0=$(date +%s)
        setup_say "rustup: adding wasm32-unknown-unknown"
        setup_logged rustup-target rustup target add wasm32-unknown-unknown || return 1
        setup_say "rustup: done in $(setup_secs "$t0") s"
    fi
}

setup_trunk() {
    if [[ "$(trunk --version 2>/dev/null)" == "trunk $TRUNK_VERSION" ]]; then
        setup_say "trunk $TRUNK_VERSION already installed"
        return 0
    fi
    local t0
    t0=$(date +%s)
    setup_say "cargo install trunk $TRUNK_VERSION (about 10 min on 2 cores; log: $SETUP_LOGS/trunk.log)"
    setup_logged trunk cargo install trunk --version "$TRUNK_VERSION" --locked --force || return 1
    setup_say "trunk: done in $(setup_secs "$t0") s"
}

setup_wasm_bindgen() {
    local want
    want=$(setup_lock_version wasm-bindgen)
    if [[ -z "$want" ]]; then
        setup_say "no wasm-bindgen in Cargo.lock"
        return 1
    fi
    local trunk_wants
    trunk_wants=$(sed -n 's/^wasm_bindgen *= *"\(.*\)".*/\1/p' "$OPTLAB_ROOT/Trunk.toml")
    if [[ "$trunk_wants" != "$want" ]]; then
        setup_say "Trunk.toml says wasm_bindgen = \"$trunk_wants\" but Cargo.lock has wasm-bindgen $want: make them equal"
        return 1
    fi
    if [[ "$(wasm-bindgen --version 2>/dev/null)" == "wasm-bindgen $want" &&
        "$(wasm-bindgen-test-runner --version 2>/dev/null)" == "wasm-bindgen-test-runner $want" ]]; then
        setup_say "wasm-bindgen-cli $want already installed"
        return 0
    fi
    local t0
    t0=$(date +%s)
    setup_say "cargo install wasm-bindgen-cli $want (about 3 min; log: $SETUP_LOGS/wasm-bindgen.log)"
    # No --locked: the crate's own lock file pins versions this registry no longer serves.
    setup_logged wasm-bindgen cargo install wasm-bindgen-cli --version "$want" --force || return 1
    setup_say "wasm-bindgen-cli: done in $(setup_secs "$t0") s"
}

setup_npm() {
    local want_pw have_pw want_axe have_axe
    want_pw=$(node -p "require('$OPTLAB_ROOT/package.json').devDependencies['playwright-core']")
    have_pw=$(cd "$OPTLAB_ROOT" && node -p "require('playwright-core/package.json').version" 2>/dev/null || true)
    want_axe=$(node -p "require('$OPTLAB_ROOT/package.json').devDependencies['axe-core']")
    have_axe=$(cd "$OPTLAB_ROOT" && node -p "require('axe-core/package.json').version" 2>/dev/null || true)
    if [[ "$(wasm-opt --version 2>/dev/null)" == *"(version_132)"* &&
        "$(command -v wasm-opt)" == "$OPTLAB_ROOT/node_modules/.bin/wasm-opt" &&
        "$have_pw" == "$want_pw" && "$have_axe" == "$want_axe" ]]; then
        setup_say "npm: binaryen 132, playwright-core $want_pw and axe-core $want_axe already installed"
        return 0
    fi
    local t0
    t0=$(date +%s)
    setup_say "npm ci (binaryen, playwright-core, axe-core)"
    (cd "$OPTLAB_ROOT" && setup_logged npm npm ci --no-audit --no-fund) || return 1
    setup_say "npm: done in $(setup_secs "$t0") s"
}

setup_fetch() {
    local t0
    t0=$(date +%s)
    (cd "$OPTLAB_ROOT" && setup_logged cargo-fetch cargo fetch --locked) || return 1
    setup_say "cargo fetch --locked: done in $(setup_secs "$t0") s"
}

# Everything. apt (mostly download) runs in the background throughout, and wasm-bindgen-cli
# builds beside trunk: trunk's last step is a long single-threaded LTO link that leaves the
# second core idle.
setup_all() {
    local t0 apt_pid wbg_pid rc=0
    t0=$(date +%s)
    setup_apt &
    apt_pid=$!
    if setup_wasm_target && setup_npm && setup_fetch; then
        setup_wasm_bindgen &
        wbg_pid=$!
        setup_trunk || rc=1
        wait "$wbg_pid" || rc=1
    else
        rc=1
    fi
    wait "$apt_pid" || rc=1
    if [[ $rc -ne 0 ]]; then
        setup_say "FAILED (see above)"
        return 1
    fi
    setup_say "all tools ready in $(setup_secs "$t0") s"
}

if [[ "${BASH_SOURCE[0]}" == "$0" ]]; then
    setup_all
fi
