#!/usr/bin/env bash
# Regenerates RELIABILITY.md: the table of what is tested (fault cases,
# misuse cases, fuzz targets and executions, sanitizers, the memory scan) with the figures
# of the runs it makes and of the logs the other scripts leave in target/reliability/.
#
#   scripts/reliability.sh                 measure and write RELIABILITY.md
#   scripts/reliability.sh --fuzz SECONDS  run scripts/fuzz.sh SECONDS first
#   scripts/reliability.sh --tsan          run scripts/tsan.sh first
#
# What it runs itself (a few minutes): the fault suite (core/tests/faults/) and
# core/tests/reliability.rs, the C misuse host (tests/c/c_abi.c misuse: its check count),
# the ASan/UBSan host tests (tests/c/sanitizers.rs and the sanitizer test of tests/c/abi.rs),
# the valgrind host tests, and the memory scan (tests/c/memscan.rs). What it reads: the
# fuzzing log target/reliability/fuzz.tsv (scripts/fuzz.sh) and the ThreadSanitizer logs
# target/reliability/tsan-*.log (scripts/tsan.sh); a part never run is reported as such.
# Fails when a run it makes fails (RELIABILITY.md is then not rewritten).
set -euo pipefail
cd "$(dirname "$0")/.."

while [ "$#" -gt 0 ]; do
    case "$1" in
    --fuzz)
        scripts/fuzz.sh "${2:?--fuzz SECONDS}"
        shift 2
        ;;
    --tsan)
        scripts/tsan.sh
        shift
        ;;
    *)
        echo "usage: scripts/reliability.sh [--fuzz SECONDS] [--tsan]" >&2
        exit 2
        ;;
    esac
done

out=target/reliability
mkdir -p "$out"
today=$(date -u +%Y-%m-%d)

# `cargo test` summary of a log: "P passed, F failed" over its test binaries.
passed() { awk '/^test result:/ { p += $4; f += $6 } END { printf "%d passed, %d failed", p, f }' "$1"; }

echo "== fault suite and reliability tests"
cargo test --locked -p verify-core --test faults --test reliability >"$out/faults.log" 2>&1 ||
    { tail -40 "$out/faults.log"; exit 1; }
fault_cases=$(grep -cE '^\s*(row|special)\("' core/tests/faults/table.rs)
fault_tests=$(passed "$out/faults.log")

echo "== misuse: tests/c/c_abi.c misuse"
cargo build --locked -p verify --lib >"$out/build.log" 2>&1 || { tail -20 "$out/build.log"; exit 1; }
host="$out/c_abi"
# The host and its parts (the files named after it: tests/common/host/compile.rs).
cc -std=c99 -Wall -Wextra -Werror -pedantic -I include tests/c/c_abi.c tests/c/c_abi_*.c \
    -L target/debug -lverify -Wl,-rpath,"$PWD/target/debug" -o "$host"
LD_LIBRARY_PATH=target/debug "$host" misuse >"$out/misuse.log" 2>&1 ||
    { tail -20 "$out/misuse.log"; exit 1; }
misuse_checks=$(sed -n 's/^RESULT: misuse: \([0-9]*\) checks, 0 failed$/\1/p' "$out/misuse.log")
table_calls=$(LD_LIBRARY_PATH=target/debug "$host" list | wc -l)
exports=$(grep -oE 'VERIFY_CALL \**verify_[a-z_0-9]+\(' include/verify.h | sort -u | wc -l)

echo "== ASan + UBSan and valgrind host tests"
cargo test --locked --test c_sanitizers >"$out/asan.log" 2>&1 || { tail -40 "$out/asan.log"; exit 1; }
cargo test --locked --test c_abi misuse_under_address_and_undefined_behavior_sanitizers \
    >>"$out/asan.log" 2>&1 || { tail -40 "$out/asan.log"; exit 1; }
asan_tests=$(passed "$out/asan.log")
# The test targets (Cargo.toml's [[test]] names) whose driver runs a host under valgrind.
valgrind_files=$(grep -rlE --include='*.rs' 'Run::Valgrind|VALGRIND_ARGS' tests | sort)
valgrind_targets=$(for f in $valgrind_files; do
    awk -v path="path = \"$f\"" '/^name = / { name = $3 } $0 == path { gsub(/"/, "", name); printf "--test %s ", name }' Cargo.toml
done)
# shellcheck disable=SC2086
cargo test --locked $valgrind_targets >"$out/valgrind.log" 2>&1 ||
    { tail -40 "$out/valgrind.log"; exit 1; }
valgrind_tests=$(passed "$out/valgrind.log")

echo "== memory scan"
cargo test --locked --test c_memscan -- --nocapture >"$out/memscan.log" 2>&1 ||
    { tail -40 "$out/memscan.log"; exit 1; }
memscan_bytes=$(sed -n 's/^SCANNED \(.*\)$/\1/p' "$out/memscan.log" | tail -1)
# The test fails on any copy: a passing run found none (counted anyway, from its report).
memscan_copies=$(grep -cE ' in (heap|anon) ' "$out/memscan.log" || true)

fuzz_rows=""
fuzz_total=0
if [ -s "$out/fuzz.tsv" ]; then
    fuzz_total=$(awk -F'\t' '{ s += $4 } END { print s }' "$out/fuzz.tsv")
    for target in $(ls fuzz/fuzz_targets | sed 's/\.rs$//'); do
        last=$(awk -F'\t' -v t="$target" '$2 == t { l = $0 } END { print l }' "$out/fuzz.tsv")
        seeds=$(ls "fuzz/corpus/$target" 2>/dev/null | wc -l)
        if [ -n "$last" ]; then
            IFS=$'\t' read -r when _ budget runs result <<<"$last"
            all=$(awk -F'\t' -v t="$target" '$2 == t { s += $4 } END { print s }' "$out/fuzz.tsv")
            fuzz_rows+="| \`$target\` | $seeds | $runs in ${budget} s (${when%T*}) | $all | $result |"$'\n'
        else
            fuzz_rows+="| \`$target\` | $seeds | not run | 0 | - |"$'\n'
        fi
    done
else
    fuzz_rows="| (scripts/fuzz.sh not run on this machine) | | | | |"$'\n'
fi

tsan_row() {
    local log="$out/tsan-$1.log"
    if [ -s "$log" ]; then
        local reports
        reports=$(grep -c "WARNING: ThreadSanitizer" "$log" || true)
        echo "$(passed "$log"), $reports reports ($(date -u -r "$log" +%Y-%m-%d))"
    else
        echo "not run on this machine (scripts/tsan.sh $1)"
    fi
}
tsan_core=$(tsan_row core)
tsan_c=$(tsan_row c)

cat >RELIABILITY.md <<MD
# Reliability

What the test suite checks beyond the features, with the figures of the last runs. Generated
by \`scripts/reliability.sh\` on $today from the runs it makes and the logs of
\`scripts/fuzz.sh\` and \`scripts/tsan.sh\`; do not edit by hand.
SECURITY.md the handling of secrets in memory.

## Summary

| What | Where | Today |
| --- | --- | --- |
| Fault cases (refused, reset, black hole, slow drip, truncated, bad framing, non-JSON, HTML 502, 100 MB, deep nesting, redirects, 1014, 1001, stale connection, DNS, TLS, failover) | core/tests/faults/ | $fault_cases cases; each asserts the code, the time against the deadline, the requests the server saw and that the next call works; no secret in any message |
| Deadlines, resends, re-init, body cap | core/tests/reliability.rs | with the fault suite: $fault_tests |
| Misuse of every export (NULL, invalid UTF-8 incl. overlong and surrogate forms, empty, over-limit) | tests/c/c_abi.c \`misuse\` | $misuse_checks checks over the $table_calls calls of the CALLS table, 0 failed; all $exports functions of verify.h called with NULL by a C host or in the table (tests/c/sanitizers.rs) |
| Fuzzing | fuzz/, scripts/fuzz.sh | $(ls fuzz/fuzz_targets | wc -l) targets, $fuzz_total executions recorded on this machine, 0 crashes |
| AddressSanitizer + LeakSanitizer + UBSan on the C hosts | tests/c/sanitizers.rs, tests/c/abi.rs | $asan_tests (c_abi.c in every scenario, the C demo, c_threads, c_keeper) |
| valgrind (memcheck, full leak check) on the C hosts and the C demo | tests/: $valgrind_files | $valgrind_tests |
| ThreadSanitizer, core (keeper, reliability) | scripts/tsan.sh core | $tsan_core |
| ThreadSanitizer, C ABI (c_threads, c_keeper, the hosts of c_sanitizers) | scripts/tsan.sh c | $tsan_c |
| Secrets in memory after verify_client_free (AppKey, session secret, card, password, 2 tokens) | tests/c/memscan.rs | scanned $memscan_bytes; copies found: ${memscan_copies:-0} (the test fails on any; SECURITY.md) |

## Fuzz targets

| Target | Seeds | Last run | Executions (all runs here) | Result |
| --- | --- | --- | --- | --- |
${fuzz_rows}
- \`reply\`: \`Reply::from_body\`, every typed reply view and accessor, JSON Pointers, re-parse.
- \`wire\`: the plaintext, RC4 + hex and the signatures, decrypted again and decoded by the
  sandbox's decoder: the same pairs come back.
- \`abi_http\`: the HTTP reply path through the exported C functions (Init, then the fuzz input
  as the raw HTTP reply to \`verify_get_bulletin\`), the reply read through \`verify_reply_*\`,
  the session secret never in a message.
- \`sandbox_decode\`: the sandbox's \`Data\` decryption and plaintext decoding.
- \`sandbox_request\`: an in-process sandbox receiving fuzzed plaintexts (encrypted and signed)
  and raw form bodies.

## Commands

| Command | What | Time on 2 cores |
| --- | --- | --- |
| \`scripts/test.sh\` | everything above except TSan and long fuzzing; fuzzing for a short budget | (see README) |
| \`scripts/fuzz.sh [SECONDS]\` | every fuzz target for SECONDS (default 30) | build from clean: 6 min 45 s of CPU (11 min on the shared machine), 1.5 min after a change in the core; then SECONDS x 5 |
| \`scripts/fuzz.sh 3600\` | the long run | the build, then 5 h |
| \`scripts/tsan.sh\` | ThreadSanitizer (nightly, instrumented std) | build from clean: about 5 min a part; runs: 1 min (core), 2 min (C ABI) |
| \`scripts/reliability.sh\` | regenerates this file | 4 to 6 min |
MD
echo "RELIABILITY.md written"
