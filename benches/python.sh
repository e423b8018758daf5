#!/usr/bin/env bash
# benches/python.sh: a call through the Python package against the same call from C, in one
# run (the goal: Python's median wall time at most 1.5 times C's).
#
#   benches/python.sh [CALLS]        CALLS per measurement [BENCH_LATENCY_CALLS or 20000]
#
# Builds `cargo build --release -p verify -p verify-sandbox` (as benches/run.sh), compiles
# benches/verify_bench.c into target/bench/, starts target/release/verify-sandbox with
# benches/fixtures.json on a free port, then runs in turn, BENCH_PY_ROUNDS times [3], against
# that sandbox with target/release/libverify.so: `verify_bench URL 90001 KEY latency CALLS`
# (verify_get_bulletin and verify_reply_free) and `benches/python_call.py URL 90001 KEY CALLS`
# (python3 with bindings/python/src on its path and VERIFY_LIBRARY naming the same library:
# `client.get_bulletin()`, the typed result with its datetime). Prints each round's medians,
# then one row: the median over the rounds of C's and Python's medians, their ratio and the
# target. Exits 1 when the ratio is over 1.50 and BENCH_STRICT=1. Stops the sandbox on exit.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
root=$PWD
calls=${1:-${BENCH_LATENCY_CALLS:-20000}}
rounds=${BENCH_PY_ROUNDS:-3}
app_id=90001
app_key=BENCHKEY0123456789ABCDEFGHIJKLMN   # as in benches/fixtures.json

scripts/install-deps.sh gcc python3 >&2
cargo build --release -p verify -p verify-sandbox >&2
mkdir -p target/bench
vb=target/bench/verify_bench
cc -std=c99 -O2 -Wall -Wextra -Werror -pedantic -I include benches/verify_bench.c \
    -L target/release -lverify -lpthread -Wl,-rpath,"$root/target/release" -o "$vb"

work=$(mktemp -d "${TMPDIR:-/tmp}/verify-pybench.XXXXXX")
sandbox_pid=""
cleanup() {
    if [ -n "$sandbox_pid" ]; then kill "$sandbox_pid" 2>/dev/null || true; wait "$sandbox_pid" 2>/dev/null || true; fi
    rm -rf "$work"
}
trap cleanup EXIT
target/release/verify-sandbox --port 0 --fixtures benches/fixtures.json >"$work/sandbox.out" 2>"$work/sandbox.err" &
sandbox_pid=$!
base_url=""
deadline=$((SECONDS + 30))
while [ -z "$base_url" ]; do
    base_url=$(sed -n 's|^listening on \(http://.*\)|\1|p' "$work/sandbox.out" 2>/dev/null || true)
    kill -0 "$sandbox_pid" 2>/dev/null || { cat "$work/sandbox.err" >&2; exit 1; }
    [ "$SECONDS" -lt "$deadline" ] || { echo "python.sh: the sandbox did not start" >&2; exit 1; }
    [ -n "$base_url" ] || sleep 0.1
done

field() { sed -n "s/.* $1=\\([0-9]*\\).*/\\1/p" <<<"$2"; }
median() { sort -n | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'; }
: >"$work/c"
: >"$work/py"
for round in $(seq "$rounds"); do
    c=$("$vb" "$base_url" "$app_id" "$app_key" latency "$calls")
    py=$(PYTHONPATH=bindings/python/src VERIFY_LIBRARY="$root/target/release/libverify.so" \
        python3 benches/python_call.py "$base_url" "$app_id" "$app_key" "$calls")
    field median_ns "$c" >>"$work/c"
    field median_ns "$py" >>"$work/py"
    echo "round $round: C median $(field median_ns "$c") ns p99 $(field p99_ns "$c") ns;" \
        "Python median $(field median_ns "$py") ns p99 $(field p99_ns "$py") ns" >&2
done
c_ns=$(median <"$work/c")
py_ns=$(median <"$work/py")
ratio=$(awk -v p="$py_ns" -v c="$c_ns" 'BEGIN { printf "%.2f", p / c }')
verdict=$(awk -v r="$ratio" 'BEGIN { print (r <= 1.50) ? "PASS" : "MISS" }')
python=$(python3 -c 'import platform; print(platform.python_implementation(), platform.python_version())')
printf '| Python call (%s), http warm call, wall time, median (%s calls, median of %s rounds) | %.1f µs | %.1f µs | %s | ≤ 1.50 | %s |\n' \
    "$python" "$calls" "$rounds" "$(awk -v v="$c_ns" 'BEGIN { print v / 1000 }')" \
    "$(awk -v v="$py_ns" 'BEGIN { print v / 1000 }')" "$ratio" "$verdict"
if [ "$verdict" = MISS ] && [ "${BENCH_STRICT:-0}" = 1 ]; then exit 1; fi
