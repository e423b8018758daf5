#!/usr/bin/env bash
# benches/run.sh: the benchmark of libverify against a hand-written libcurl + OpenSSL client.
#
#   benches/run.sh            full run (about 2 minutes after the build): prints the table
#   benches/run.sh --check    smoke check: builds everything and runs every mode with tiny
#                             counts (a few seconds); the figures mean nothing, no PASS/MISS
#
# What it does: installs what it needs (scripts/install-deps.sh gcc valgrind pkg-config, and
# with apt-get the headers libcurl4-openssl-dev libssl-dev when missing), builds
# `cargo build --release -p verify -p verify-sandbox` once, compiles benches/verify_bench.c
# (links libverify) and benches/baseline/baseline.c (libcurl + OpenSSL) with -O2 into
# target/bench/, starts the sandbox on a free port with benches/fixtures.json, measures, prints
# the table with the targets, and stops the sandbox (also on failure or Ctrl-C). Rerunnable.
# The table is also written to target/bench/last-run.txt. BENCHMARKS.md explains each figure.
#
# Counts can be changed with environment variables (defaults in brackets):
#   BENCH_LATENCY_CALLS [20000]  BENCH_CG_CALLS_1 [200]  BENCH_CG_CALLS_2 [2200]
#   BENCH_THROUGHPUT_SECONDS [3]  BENCH_RSS_CALLS [100000]  BENCH_CONN_CALLS [1000]
# BENCH_STRICT=1 makes the exit status 1 when a target is missed (default: 0, the table tells).
set -euo pipefail

cd "$(dirname "${BASH_SOURCE[0]}")/.."
root=$PWD

check=0
case "${1:-}" in
    "") ;;
    --check) check=1 ;;
    *) echo "usage: $0 [--check]" >&2; exit 2 ;;
esac

if [ "$check" -eq 1 ]; then
    lat_n=200; cg_n1=10; cg_n2=30; tp_seconds=0.3; rss_n=1500; conn_n=100
else
    lat_n=${BENCH_LATENCY_CALLS:-20000}
    cg_n1=${BENCH_CG_CALLS_1:-200}
    cg_n2=${BENCH_CG_CALLS_2:-2200}
    tp_seconds=${BENCH_THROUGHPUT_SECONDS:-3}
    rss_n=${BENCH_RSS_CALLS:-100000}
    conn_n=${BENCH_CONN_CALLS:-1000}
fi

app_id=90001
app_key=BENCHKEY0123456789ABCDEFGHIJKLMN   # as in benches/fixtures.json
step() { printf '\n==> %s\n' "$*" >&2; }

sandbox_pid=""
work=""
cleanup() {
    if [ -n "$sandbox_pid" ]; then
        kill "$sandbox_pid" 2>/dev/null || true
        wait "$sandbox_pid" 2>/dev/null || true
    fi
    if [ -n "$work" ]; then
        rm -rf "$work"
    fi
}
trap cleanup EXIT

# ---------------------------------------------------------------------------------------
step "tools (scripts/install-deps.sh gcc valgrind pkg-config; libcurl and OpenSSL headers)"
scripts/install-deps.sh gcc valgrind pkg-config >&2
have_headers() {
    printf '#include <curl/curl.h>\n#include <openssl/evp.h>\n#include <openssl/md5.h>\n' |
        cc -E $(pkg-config --cflags libcurl libcrypto 2>/dev/null) - >/dev/null 2>&1 &&
        pkg-config --exists libcurl libcrypto
}
if ! have_headers; then
    sudo=()
    if [ "$(id -u)" -ne 0 ]; then sudo=(sudo); fi
    export DEBIAN_FRONTEND=noninteractive
    echo "run.sh: installing libcurl4-openssl-dev libssl-dev" >&2
    ${sudo[@]+"${sudo[@]}"} apt-get update >&2
    ${sudo[@]+"${sudo[@]}"} apt-get install -y --no-install-recommends \
        libcurl4-openssl-dev libssl-dev >&2
    have_headers || { echo "run.sh: libcurl/OpenSSL headers still missing" >&2; exit 1; }
fi

step "build (cargo build --release -p verify -p verify-sandbox)"
cargo build --release -p verify -p verify-sandbox >&2

mkdir -p target/bench
work=$(mktemp -d "${TMPDIR:-/tmp}/verify-bench.XXXXXX")
vb=target/bench/verify_bench
bl=target/bench/baseline

step "compile the C hosts (-O2, C99, -Wall -Wextra -Werror -pedantic)"
cc -std=c99 -O2 -Wall -Wextra -Werror -pedantic -I include benches/verify_bench.c \
    -L target/release -lverify -lpthread -Wl,-rpath,"$root/target/release" -o "$vb"
# shellcheck disable=SC2046  # pkg-config output is meant to be split
cc -std=c99 -O2 -Wall -Wextra -Werror -pedantic benches/baseline/baseline.c \
    $(pkg-config --cflags --libs libcurl libcrypto) -o "$bl"

step "start the sandbox (target/release/verify-sandbox --port 0 --fixtures benches/fixtures.json)"
target/release/verify-sandbox --port 0 --fixtures benches/fixtures.json \
    >"$work/sandbox.out" 2>"$work/sandbox.err" &
sandbox_pid=$!
base_url=""
deadline=$((SECONDS + 30))
while [ -z "$base_url" ]; do
    line=$(head -n 1 "$work/sandbox.out" 2>/dev/null || true)
    case "$line" in "listening on "*) base_url=${line#listening on } ;; esac
    [ -n "$base_url" ] && break
    if ! kill -0 "$sandbox_pid" 2>/dev/null; then
        echo "run.sh: the sandbox exited before listening:" >&2
        cat "$work/sandbox.err" >&2
        sandbox_pid=""
        exit 1
    fi
    if [ "$SECONDS" -ge "$deadline" ]; then
        echo "run.sh: the sandbox did not print its address within 30 s" >&2
        exit 1
    fi
    sleep 0.1
done
echo "sandbox (pid $sandbox_pid) at $base_url" >&2

# Control API GET with bash's /dev/tcp (no curl needed): prints the body.
control_get() {
    local hostport=${base_url#http://} path=$1 reply
    exec 3<>"/dev/tcp/${hostport%:*}/${hostport#*:}"
    printf 'GET %s HTTP/1.1\r\nHost: %s\r\nConnection: close\r\n\r\n' "$path" "$hostport" >&3
    reply=$(cat <&3)
    exec 3<&-
    printf '%s\n' "${reply#*$'\r\n\r\n'}"
}
# `key=value` field of a line printed by a bench program.
field() { sed -n "s/.* $1=\\([^ ]*\\).*/\\1/p" <<<"$2"; }
json_int() { sed -n "s/.*\"$1\":\\([0-9]*\\).*/\\1/p" <<<"$2"; }

vb_run() { "$vb" "$base_url" "$app_id" "$app_key" "$@"; }
bl_run() { "$bl" "$base_url" "$app_id" "$app_key" "$@"; }

# ---------------------------------------------------------------------------------------
step "5. TCP connections opened by $conn_n sequential calls (one client)"
before=$(json_int connections_accepted "$(control_get /_sandbox/stats)")
vb_run calls "$conn_n" >&2
after=$(json_int connections_accepted "$(control_get /_sandbox/stats)")
# The second stats request is itself one accepted connection.
conns=$((after - before - 1))
# Cross-check with the request log: distinct `conn` ids of this run's requests (Init + calls).
log_conns=$(control_get "/_sandbox/log?app_id=$app_id" | grep -o '"conn":[0-9]*' |
    tail -n "$((conn_n + 1))" | sort -u | wc -l)
echo "connections: stats delta $conns, distinct conn ids in the log $log_conns" >&2

step "1-2. latency: $lat_n calls, one thread, kept-alive connection (verify, then baseline)"
vb_lat=$(vb_run latency "$lat_n"); echo "verify:   $vb_lat" >&2
bl_lat=$(bl_run latency "$lat_n"); echo "baseline: $bl_lat" >&2

step "3. instructions per call (valgrind --tool=callgrind, $cg_n2 minus $cg_n1 calls)"
callgrind_total() {
    local out=$1; shift
    valgrind --tool=callgrind --callgrind-out-file="$out" "$@" >/dev/null 2>"$out.log" || {
        cat "$out.log" >&2; return 1; }
    sed -n 's/^totals: *\([0-9]*\).*/\1/p' "$out"
}
vb_i1=$(callgrind_total "$work/cg.verify.$cg_n1" "$vb" "$base_url" "$app_id" "$app_key" calls "$cg_n1")
vb_i2=$(callgrind_total "$work/cg.verify.$cg_n2" "$vb" "$base_url" "$app_id" "$app_key" calls "$cg_n2")
bl_i1=$(callgrind_total "$work/cg.baseline.$cg_n1" "$bl" "$base_url" "$app_id" "$app_key" calls "$cg_n1")
bl_i2=$(callgrind_total "$work/cg.baseline.$cg_n2" "$bl" "$base_url" "$app_id" "$app_key" calls "$cg_n2")
vb_ipc=$(( (vb_i2 - vb_i1) / (cg_n2 - cg_n1) ))
bl_ipc=$(( (bl_i2 - bl_i1) / (cg_n2 - cg_n1) ))
echo "verify: $vb_i1 / $vb_i2 instructions; baseline: $bl_i1 / $bl_i2" >&2
if [ -n "${BENCH_KEEP_CALLGRIND:-}" ]; then
    cp "$work"/cg.verify.* "$work"/cg.baseline.* target/bench/ 2>/dev/null || true
    echo "callgrind files kept in target/bench/ (callgrind_annotate target/bench/cg.verify.$cg_n2)" >&2
fi

step "4. throughput: 1, 4, 16 threads sharing one client, ${tp_seconds} s each"
declare -A tp tp_conns
for threads in 1 4 16; do
    before=$(json_int connections_accepted "$(control_get /_sandbox/stats)")
    line=$(vb_run throughput "$threads" "$tp_seconds"); echo "$line" >&2
    after=$(json_int connections_accepted "$(control_get /_sandbox/stats)")
    tp[$threads]=$(field calls_per_sec "$line")
    tp_conns[$threads]=$((after - before - 1))   # TCP connections the run opened
done

step "6. resident memory of the C host after 1,000 and $rss_n calls (verify, then baseline)"
vb_rss=$(vb_run rss "$rss_n"); echo "verify:   $vb_rss" >&2
bl_rss=$(bl_run rss "$rss_n"); echo "baseline: $bl_rss" >&2

step "7. stripped size of target/release/libverify.so"
strip -o "$work/libverify.so" target/release/libverify.so
so_bytes=$(stat -c %s "$work/libverify.so")
so_unstripped=$(stat -c %s target/release/libverify.so)

# ---------------------------------------------------------------------------------------
vb_med=$(field median_ns "$vb_lat"); vb_p99=$(field p99_ns "$vb_lat")
bl_med=$(field median_ns "$bl_lat"); bl_p99=$(field p99_ns "$bl_lat")
vb_rss1=$(field rss_first_kib "$vb_rss"); vb_rss2=$(field rss_last_kib "$vb_rss")
bl_rss1=$(field rss_first_kib "$bl_rss"); bl_rss2=$(field rss_last_kib "$bl_rss")
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.2f", a / b }'; }
us() { awk -v ns="$1" 'BEGIN { printf "%.1f us", ns / 1000 }'; }
med_ratio=$(ratio "$vb_med" "$bl_med"); p99_ratio=$(ratio "$vb_p99" "$bl_p99")
ipc_ratio=$(ratio "$vb_ipc" "$bl_ipc")
rss_delta=$((vb_rss2 - vb_rss1))
so_limit=2500000

misses=0
le() { awk -v a="$1" -v b="$2" 'BEGIN { print (a <= b) ? 1 : 0 }'; }
verdict() { # verdict VAR CONDITION(0/1): sets VAR to PASS, MISS or (check)
    if [ "$check" -eq 1 ]; then printf -v "$1" '%s' "(check)"
    elif [ "$2" -eq 1 ]; then printf -v "$1" '%s' PASS
    else misses=$((misses + 1)); printf -v "$1" '%s' MISS; fi
}
verdict v_lat "$(le "$med_ratio" 1.0)"
verdict v_ipc "$(le "$ipc_ratio" 0.5)"
verdict v_conn "$(le "$conns" 1)"
verdict v_rss "$(le "${rss_delta#-}" 1024)"
verdict v_so "$(le "$so_bytes" "$so_limit")"

{
    echo
    echo "verify benchmark  $(date -u '+%Y-%m-%d %H:%M UTC')"
    echo "machine: $(nproc) cores, $(lscpu | sed -n 's/^Model name: *//p' | head -n 1);" \
        "load average at end: $(cut -d ' ' -f 1-3 /proc/loadavg)"
    echo "rustc: $(rustc --version 2>/dev/null || echo '?');" \
        "libcurl: $(pkg-config --modversion libcurl); OpenSSL: $(pkg-config --modversion libcrypto)"
    echo "action: GetBulletin (Handle) over http://127.0.0.1 keep-alive; sandbox: verify-sandbox"
    [ "$check" -eq 1 ] && echo "SMOKE CHECK (--check): tiny counts, figures are meaningless"
    echo
    printf '%-44s %-16s %-16s %-8s %-22s %s\n' figure verify baseline ratio target result
    printf '%-44s %-16s %-16s %-8s %-22s %s\n' \
        "1-2. wall time per call, median ($lat_n)" "$(us "$vb_med")" "$(us "$bl_med")" \
        "$med_ratio" "ratio <= 1.00" "$v_lat"
    printf '%-44s %-16s %-16s %-8s %-22s %s\n' \
        "1-2. wall time per call, p99" "$(us "$vb_p99")" "$(us "$bl_p99")" "$p99_ratio" \
        "(no target)" "-"
    printf '%-44s %-16s %-16s %-8s %-22s %s\n' \
        "3. instructions per call (callgrind)" "$vb_ipc" "$bl_ipc" "$ipc_ratio" \
        "ratio <= 0.50" "$v_ipc"
    printf '%-44s %-16s %-16s %-8s %-22s %s\n' \
        "4. calls/s, 1 thread, one client" "${tp[1]}" "-" "" "(info: ${tp_conns[1]} conns)" "-"
    printf '%-44s %-16s %-16s %-8s %-22s %s\n' \
        "4. calls/s, 4 threads, one client" "${tp[4]}" "-" "" "(info: ${tp_conns[4]} conns)" "-"
    printf '%-44s %-16s %-16s %-8s %-22s %s\n' \
        "4. calls/s, 16 threads, one client" "${tp[16]}" "-" "" "(info: ${tp_conns[16]} conns)" "-"
    printf '%-44s %-16s %-16s %-8s %-22s %s\n' \
        "5. TCP connections per $conn_n calls" "$conns (log: $log_conns)" "-" "" "1" "$v_conn"
    printf '%-44s %-16s %-16s %-8s %-22s %s\n' \
        "6. VmRSS after 1,000 calls" "$vb_rss1 KiB" "$bl_rss1 KiB" "" "" ""
    printf '%-44s %-16s %-16s %-8s %-22s %s\n' \
        "6. VmRSS after $rss_n calls" "$vb_rss2 KiB" "$bl_rss2 KiB" "" "" ""
    printf '%-44s %-16s %-16s %-8s %-22s %s\n' \
        "6. VmRSS growth" "$rss_delta KiB" "$((bl_rss2 - bl_rss1)) KiB" "" "<= 1024 KiB" "$v_rss"
    printf '%-44s %-16s %-16s %-8s %-22s %s\n' \
        "7. libverify.so stripped (unstripped)" "$so_bytes B" "($so_unstripped B)" "" \
        "<= $so_limit B" "$v_so"
    echo
    if [ "$check" -eq 0 ]; then
        echo "targets missed: $misses"
    fi
} | tee target/bench/last-run.txt

if [ "$check" -eq 0 ] && [ "$misses" -gt 0 ] && [ "${BENCH_STRICT:-0}" = 1 ]; then
    exit 1
fi
exit 0
