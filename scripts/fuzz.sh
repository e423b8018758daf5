#!/usr/bin/env bash
# Runs every cargo-fuzz target of fuzz/ for SECONDS each (default 30, the CI budget) and
# fails on a crash, a timeout or an out-of-memory of any of them (RELIABILITY.md).
#
#   scripts/fuzz.sh                 every target for 30 s (what scripts/test.sh runs)
#   scripts/fuzz.sh 3600            the long run: an hour a target
#   scripts/fuzz.sh 60 reply wire   only the targets named, 60 s each
#
# Installs what it needs when missing: the nightly toolchain (cargo-fuzz builds with
# -Zsanitizer=address) and cargo-fuzz from crates.io (`cargo install cargo-fuzz --locked`).
# Each target starts from its committed seed corpus, fuzz/corpus/<target>/, which it only
# reads; what it finds goes to fuzz/target/corpus/<target>/ (kept between runs, not
# committed). A crashing input is saved under fuzz/artifacts/<target>/ and printed; replay
# it with `cargo +nightly fuzz run <target> fuzz/artifacts/<target>/<file>`.
#
# The executions of each target are appended to target/reliability/fuzz.tsv (date, target,
# seconds, executions, result), which scripts/reliability.sh turns into RELIABILITY.md.
set -euo pipefail
cd "$(dirname "$0")/.."

budget="${1:-30}"
shift || true
case "$budget" in
'' | *[!0-9]*)
    echo "usage: scripts/fuzz.sh [SECONDS] [TARGET...]" >&2
    exit 2
    ;;
esac

if ! rustup run nightly rustc --version >/dev/null 2>&1; then
    echo "== rustup toolchain install nightly"
    rustup toolchain install nightly --profile minimal
fi
if ! cargo fuzz --version >/dev/null 2>&1; then
    echo "== cargo install cargo-fuzz --locked"
    cargo install cargo-fuzz --locked
fi
if ! command -v c++ >/dev/null 2>&1; then
    # libfuzzer-sys compiles libFuzzer (C++).
    scripts/install-deps.sh gcc
fi

if [ "$#" -gt 0 ]; then
    targets=("$@")
else
    mapfile -t targets < <(cargo +nightly fuzz list)
fi

echo "== cargo +nightly fuzz build -O (AddressSanitizer, debug assertions)"
cargo +nightly fuzz build -O

mkdir -p target/reliability
stats=target/reliability/fuzz.tsv
failed=()
for target in "${targets[@]}"; do
    echo "== fuzz $target for ${budget}s"
    work="fuzz/target/corpus/$target"
    mkdir -p "$work" "fuzz/corpus/$target"
    log="target/reliability/fuzz-$target.log"
    status=0
    # -timeout: one input running over 10 s is a hang; -rss_limit_mb: 2 GB is an OOM.
    cargo +nightly fuzz run -O "$target" "$work" "fuzz/corpus/$target" -- \
        -max_total_time="$budget" -timeout=10 -rss_limit_mb=2048 -print_final_stats=1 \
        >"$log" 2>&1 || status=$?
    runs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -1)
    runs="${runs:-0}"
    if [ "$status" -eq 0 ]; then
        result=ok
    else
        result=FAILED
        failed+=("$target")
        tail -60 "$log"
    fi
    printf '%s\t%s\t%s\t%s\t%s\n' "$(date -u +%Y-%m-%dT%H:%M:%SZ)" "$target" "$budget" \
        "$runs" "$result" >>"$stats"
    echo "   $target: $runs executions in ${budget}s: $result"
done

if [ "${#failed[@]}" -gt 0 ]; then
    echo "fuzzing FAILED: ${failed[*]} (inputs under fuzz/artifacts/)" >&2
    exit 1
fi
echo "fuzzing passed: ${#targets[@]} targets, ${budget}s each"
