#!/usr/bin/env bash
# benches/run.sh: the benchmark of libverify against a hand-written libcurl + OpenSSL client.
#
#   benches/run.sh            full run (a few minutes after the build): prints the table
#   benches/run.sh --write    the full run, then rewrites the generated blocks of
#                             BENCHMARKS.md (between <!-- BEGIN GENERATED: figures and
#                             <!-- END GENERATED: figures -->, and the same for `lab`, through
#                             benches/write-block.sh); the prose around is not touched
#   benches/run.sh --check    smoke check: builds everything and runs every mode with tiny
#                             counts (about a minute after the build); the figures mean nothing,
#                             no PASS/MISS; BENCHMARKS.md is not touched
#
# What it does: installs what it needs (scripts/install-deps.sh gcc valgrind pkg-config, and
# with apt-get the headers libcurl4-openssl-dev libssl-dev when missing), builds
# `cargo build --release -p verify -p verify-sandbox` once, compiles benches/verify_bench.c
# (links libverify), benches/baseline/baseline.c (libcurl + OpenSSL) and benches/coldstart.c
# (times whole processes) with -O2 into target/bench/, starts the sandbox on free ports (http,
# and https with its generated CA) with benches/fixtures.json, measures, prints the table with
# the targets, and stops the sandbox (also on failure or Ctrl-C). Rerunnable. Rows 12-14 also
# build core/examples/codec_cost.rs (the rc4 + hex reference of row 12), add a program with
# long variable names through the control API, and run the keeper under strace (installed by
# install-deps.sh like the rest).
# The table is also written to target/bench/last-run.txt and, as Markdown, to
# target/bench/figures.md (what --write puts into BENCHMARKS.md). Last, benches/lab.sh (with
# --check when checking) measures a program's start in the network lab (root needed) into
# target/bench/lab.md, the `lab` block. BENCHMARKS.md explains each figure.
#
# Counts can be changed with environment variables (defaults in brackets):
#   BENCH_LATENCY_CALLS [20000]  BENCH_CG_CALLS_1 [200]  BENCH_CG_CALLS_2 [2200]
#   BENCH_THROUGHPUT_SECONDS [3]  BENCH_RSS_CALLS [100000]  BENCH_CONN_CALLS [1000]
#   BENCH_COLD_RUNS [100] (pairs of cold starts, after BENCH_COLD_WARMUP [3] uncounted pairs)
#   BENCH_FIT_CALLS_1 [100]  BENCH_FIT_CALLS_2 [600] (callgrind counts of the per-byte and
#   per-variable fits, rows 12-13)  BENCH_KEEPER_BEATS [10]  BENCH_KEEPER_INTERVAL_MS [1000]
#   (row 14a-b)  BENCH_IDLE_BEATS [3]  BENCH_IDLE_INTERVAL_MS [3000] (row 14c)
#   BENCH_OFFLINE_STARTS [50]  BENCH_OFFLINE_HOLE_STARTS [10] (row 15)
# BENCH_STRICT=1 makes the exit status 1 when a target is missed (default: 0, the table tells).
set -euo pipefail

cd "$(dirname "${BASH_SOURCE[0]}")/.."
root=$PWD

check=0
write=0
case "${1:-}" in
    "") ;;
    --check) check=1 ;;
    --write) write=1 ;;
    *) echo "usage: $0 [--check | --write]" >&2; exit 2 ;;
esac
if [ "$#" -gt 1 ]; then echo "usage: $0 [--check | --write]" >&2; exit 2; fi

if [ "$check" -eq 1 ]; then
    lat_n=200; cg_n1=10; cg_n2=30; tp_seconds=0.3; rss_n=1500; conn_n=100
    cold_runs=3; cold_warmup=1
    fit_n1=5; fit_n2=15; keeper_beats=2; keeper_ms=1000; idle_beats=1; idle_ms=1000
    offline_n=3; offline_hole_n=1; offline_pw_n=2
else
    lat_n=${BENCH_LATENCY_CALLS:-20000}
    cg_n1=${BENCH_CG_CALLS_1:-200}
    cg_n2=${BENCH_CG_CALLS_2:-2200}
    tp_seconds=${BENCH_THROUGHPUT_SECONDS:-3}
    rss_n=${BENCH_RSS_CALLS:-100000}
    conn_n=${BENCH_CONN_CALLS:-1000}
    cold_runs=${BENCH_COLD_RUNS:-100}
    cold_warmup=${BENCH_COLD_WARMUP:-3}
    fit_n1=${BENCH_FIT_CALLS_1:-100}
    fit_n2=${BENCH_FIT_CALLS_2:-600}
    keeper_beats=${BENCH_KEEPER_BEATS:-10}
    keeper_ms=${BENCH_KEEPER_INTERVAL_MS:-1000}
    idle_beats=${BENCH_IDLE_BEATS:-3}
    idle_ms=${BENCH_IDLE_INTERVAL_MS:-3000}
    offline_n=${BENCH_OFFLINE_STARTS:-50}
    offline_hole_n=${BENCH_OFFLINE_HOLE_STARTS:-10}
    offline_pw_n=${BENCH_OFFLINE_PASSWORD_RUNS:-20}
fi

app_id=90001
app_key=BENCHKEY0123456789ABCDEFGHIJKLMN   # as in benches/fixtures.json
card=BENC-HCAR-D000-0001                  # a duration card of benches/fixtures.json
mac=BENCH-MACHINE-0001                    # the machine code it is bound to at the first login
bytes_app=90005                           # GetVariable per request byte (row 12): added below
var_apps=(90002 90003 90004)              # programs of benches/fixtures.json with 1, 10, 100
var_counts=(1 10 100)                     # variables (row 13)
name_sizes=(1 1024 16384)                 # bytes of the variable names of row 12
step() { printf '\n==> [%ss] %s\n' "$SECONDS" "$*" >&2; }

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

# Before anything of ours runs: how busy the machine already is.
load_before=$(cut -d ' ' -f 1-3 /proc/loadavg)
started_utc=$(date -u '+%Y-%m-%d %H:%M')

# ---------------------------------------------------------------------------------------
step "tools (scripts/install-deps.sh gcc valgrind pkg-config strace; libcurl and OpenSSL headers)"
scripts/install-deps.sh gcc valgrind pkg-config strace >&2
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

step "build (cargo build --release -p verify -p verify-sandbox; the codec example of row 12)"
cargo build --release -p verify -p verify-sandbox >&2
cargo build --release -p verify-core --example codec_cost >&2
codec=target/release/examples/codec_cost

mkdir -p target/bench
work=$(mktemp -d "${TMPDIR:-/tmp}/verify-bench.XXXXXX")
# The offline store's time mark: its second place (the user's configuration folder,
# XDG_CONFIG_HOME) in the bench's folder, not the user's.
export XDG_CONFIG_HOME="$work/config"
vb=target/bench/verify_bench
bl=target/bench/baseline
cs=target/bench/coldstart
fl=target/bench/floor

step "compile the C hosts (-O2, C99, -Wall -Wextra -Werror -pedantic)"
cc -std=c99 -O2 -Wall -Wextra -Werror -pedantic -I include benches/verify_bench.c \
    -L target/release -lverify -lpthread -Wl,-rpath,"$root/target/release" -o "$vb"
# shellcheck disable=SC2046  # pkg-config output is meant to be split
cc -std=c99 -O2 -Wall -Wextra -Werror -pedantic benches/baseline/baseline.c \
    $(pkg-config --cflags --libs libcurl libcrypto) -o "$bl"
cc -std=c99 -O2 -Wall -Wextra -Werror -pedantic benches/coldstart.c -o "$cs"
cc -std=c99 -O2 -Wall -Wextra -Werror -pedantic benches/floor/floor.c -o "$fl"
os=target/bench/offline_start
cc -std=c99 -O2 -Wall -Wextra -Werror -pedantic -I include benches/offline_start.c \
    -L target/release -lverify -Wl,-rpath,"$root/target/release" -o "$os"

step "start the sandbox (target/release/verify-sandbox --port 0 --https-port 0 --ca-out ... --fixtures benches/fixtures.json)"
target/release/verify-sandbox --port 0 --https-port 0 --ca-out "$work/ca.pem" \
    --fixtures benches/fixtures.json >"$work/sandbox.out" 2>"$work/sandbox.err" &
sandbox_pid=$!
base_url=""
tls_url=""
ca=""
deadline=$((SECONDS + 30))
while :; do
    base_url=$(sed -n 's|^listening on \(http://.*\)|\1|p' "$work/sandbox.out" 2>/dev/null || true)
    tls_url=$(sed -n 's|^listening on \(https://.*\)|\1|p' "$work/sandbox.out" 2>/dev/null || true)
    ca=$(sed -n 's|^ca: ||p' "$work/sandbox.out" 2>/dev/null || true)
    [ -n "$base_url" ] && [ -n "$tls_url" ] && [ -n "$ca" ] && [ -s "$ca" ] && break
    if ! kill -0 "$sandbox_pid" 2>/dev/null; then
        echo "run.sh: the sandbox exited before listening:" >&2
        cat "$work/sandbox.err" >&2
        sandbox_pid=""
        exit 1
    fi
    if [ "$SECONDS" -ge "$deadline" ]; then
        echo "run.sh: the sandbox did not print its addresses and CA within 30 s" >&2
        exit 1
    fi
    sleep 0.1
done
echo "sandbox (pid $sandbox_pid) at $base_url and $tls_url, CA $ca" >&2

# How busy the machine is with other work during the measurements: CPU time of the whole
# machine (/proc/stat) minus ours (this shell, its waited-for children, the sandbox), in clock
# ticks, over the measurements.
machine_ticks() { awk '$1 == "cpu" { print $2 + $3 + $4 + $7 + $8 + $9, $2 + $3 + $4 + $5 + $6 + $7 + $8 + $9 }' /proc/stat; }
pid_ticks() { # own + waited-for children's user and system time of a process
    sed 's/^.*) //' "/proc/$1/stat" 2>/dev/null | awk '{ print $12 + $13 + $14 + $15 }'
}
read -r busy0 total0 < <(machine_ticks)
ours0=$(( $(pid_ticks $$) + $(pid_ticks "$sandbox_pid") ))

# Control API GET with bash's /dev/tcp (no curl needed): prints the body.
control_get() {
    local hostport=${base_url#http://} path=$1 reply
    exec 3<>"/dev/tcp/${hostport%:*}/${hostport#*:}"
    printf 'GET %s HTTP/1.1\r\nHost: %s\r\nConnection: close\r\n\r\n' "$path" "$hostport" >&3
    reply=$(cat <&3)
    exec 3<&-
    printf '%s\n' "${reply#*$'\r\n\r\n'}"
}
# Control API POST of a JSON body (ASCII) with bash's /dev/tcp: prints the reply's body.
control_post() {
    local hostport=${base_url#http://} path=$1 body=$2 reply
    exec 3<>"/dev/tcp/${hostport%:*}/${hostport#*:}"
    printf 'POST %s HTTP/1.1\r\nHost: %s\r\nContent-Type: application/json\r\nContent-Length: %s\r\nConnection: close\r\n\r\n%s' \
        "$path" "$hostport" "${#body}" "$body" >&3
    reply=$(cat <&3)
    exec 3<&-
    printf '%s\n' "${reply#*$'\r\n\r\n'}"
}
# `key=value` field of a line printed by a bench program.
field() { sed -n "s/^\\(.* \\)\\{0,1\\}$1=\\([^ ]*\\).*/\\2/p" <<<"$2"; }
json_int() { sed -n "s/.*\"$1\":\\([0-9]*\\).*/\\1/p" <<<"$2"; }

vb_run() { "$vb" "$base_url" "$app_id" "$app_key" "$@"; }
bl_run() { "$bl" "$base_url" "$app_id" "$app_key" "$@"; }
fl_run() { "$fl" "$base_url" "$app_id" "$app_key" "$@"; }
# The same over https, the sandbox's generated CA trusted (verify_client_options_add_root_file;
# CURLOPT_CAINFO for the baseline).
vb_tls=("$vb" --ca "$ca" "$tls_url" "$app_id" "$app_key")
bl_tls=("$bl" --ca "$ca" "$tls_url" "$app_id" "$app_key")

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
fl_lat=$(fl_run latency "$lat_n"); echo "floor:    $fl_lat" >&2

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
fl_i1=$(callgrind_total "$work/cg.floor.$cg_n1" "$fl" "$base_url" "$app_id" "$app_key" calls "$cg_n1")
fl_i2=$(callgrind_total "$work/cg.floor.$cg_n2" "$fl" "$base_url" "$app_id" "$app_key" calls "$cg_n2")
fl_ipc=$(( (fl_i2 - fl_i1) / (cg_n2 - cg_n1) ))
echo "verify: $vb_i1 / $vb_i2 instructions; baseline: $bl_i1 / $bl_i2; floor: $fl_i1 / $fl_i2" >&2

step "3b. system calls per call (strace, $cg_n2 minus $cg_n1 calls; the lines of its trace)"
# Every system call of the process, one line each (-f: a thread's calls too; a call split
# by another thread's is counted once, at its start).
syscall_count() {
    local out=$1; shift
    strace -f -qq -o "$out" "$@" >/dev/null 2>"$out.log" || { cat "$out.log" >&2; return 1; }
    grep -vc 'resumed>' "$out"
}
syscalls_per_call() {
    local one two
    one=$(syscall_count "$work/strace.$1.$cg_n1" "${@:2}" calls "$cg_n1")
    two=$(syscall_count "$work/strace.$1.$cg_n2" "${@:2}" calls "$cg_n2")
    awk -v a="$one" -v b="$two" -v n="$((cg_n2 - cg_n1))" 'BEGIN { printf "%.2f", (b - a) / n }'
}
vb_sys=$(syscalls_per_call verify "$vb" "$base_url" "$app_id" "$app_key")
bl_sys=$(syscalls_per_call baseline "$bl" "$base_url" "$app_id" "$app_key")
fl_sys=$(syscalls_per_call floor "$fl" "$base_url" "$app_id" "$app_key")
echo "system calls per call: verify $vb_sys, baseline $bl_sys, floor $fl_sys" >&2
# What they are, for the text of BENCHMARKS.md.
for who in verify baseline floor; do
    echo "$who, the system calls of its $cg_n2 calls:" >&2
    grep -v 'resumed>' "$work/strace.$who.$cg_n2" | sed -n 's/^[0-9]* *\([a-z_0-9]*\)(.*/\1/p' |
        sort | uniq -c | sort -rn | head -n 6 >&2
done

step "11. instructions per call over https (callgrind, $cg_n2 minus $cg_n1 calls)"
vbt_i1=$(callgrind_total "$work/cg.verify-tls.$cg_n1" "${vb_tls[@]}" calls "$cg_n1")
vbt_i2=$(callgrind_total "$work/cg.verify-tls.$cg_n2" "${vb_tls[@]}" calls "$cg_n2")
blt_i1=$(callgrind_total "$work/cg.baseline-tls.$cg_n1" "${bl_tls[@]}" calls "$cg_n1")
blt_i2=$(callgrind_total "$work/cg.baseline-tls.$cg_n2" "${bl_tls[@]}" calls "$cg_n2")
vbt_ipc=$(( (vbt_i2 - vbt_i1) / (cg_n2 - cg_n1) ))
blt_ipc=$(( (blt_i2 - blt_i1) / (cg_n2 - cg_n1) ))
echo "verify: $vbt_i1 / $vbt_i2 instructions; baseline: $blt_i1 / $blt_i2" >&2

step "8-9. instructions of a whole cold start (callgrind: exec, Init, SingleLogin, exit)"
vb_cold_i=$(callgrind_total "$work/cg.verify-cold" "$vb" "$base_url" "$app_id" "$app_key" login "$card" "$mac")
bl_cold_i=$(callgrind_total "$work/cg.baseline-cold" "$bl" "$base_url" "$app_id" "$app_key" login "$card" "$mac")
fl_cold_i=$(callgrind_total "$work/cg.floor-cold" "$fl" "$base_url" "$app_id" "$app_key" login "$card" "$mac")
vbt_cold_i=$(callgrind_total "$work/cg.verify-tls-cold" "${vb_tls[@]}" login "$card" "$mac")
blt_cold_i=$(callgrind_total "$work/cg.baseline-tls-cold" "${bl_tls[@]}" login "$card" "$mac")
echo "http: verify $vb_cold_i, baseline $bl_cold_i; https: verify $vbt_cold_i, baseline $blt_cold_i" >&2
if [ -n "${BENCH_KEEP_CALLGRIND:-}" ]; then
    cp "$work"/cg.* target/bench/ 2>/dev/null || true
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

step "10. https latency: $lat_n calls, one thread, kept-alive connection (verify, then baseline)"
vbt_lat=$("${vb_tls[@]}" latency "$lat_n"); echo "verify:   $vbt_lat" >&2
blt_lat=$("${bl_tls[@]}" latency "$lat_n"); echo "baseline: $blt_lat" >&2

step "8. cold start over http: $cold_runs pairs (verify, baseline in turn), exec to exit"
cold_http=$("$cs" "$cold_runs" "$cold_warmup" \
    "$vb" "$base_url" "$app_id" "$app_key" login "$card" "$mac" \
    --vs "$bl" "$base_url" "$app_id" "$app_key" login "$card" "$mac")
echo "$cold_http" >&2
step "8. cold start over http against the floor: $cold_runs pairs (verify, floor in turn)"
cold_floor=$("$cs" "$cold_runs" "$cold_warmup" \
    "$vb" "$base_url" "$app_id" "$app_key" login "$card" "$mac" \
    --vs "$fl" "$base_url" "$app_id" "$app_key" login "$card" "$mac")
echo "$cold_floor" >&2
step "9. cold start over https: $cold_runs pairs (verify, baseline in turn), exec to exit"
cold_tls=$("$cs" "$cold_runs" "$cold_warmup" "${vb_tls[@]}" login "$card" "$mac" \
    --vs "${bl_tls[@]}" login "$card" "$mac")
echo "$cold_tls" >&2

step "7. stripped size of target/release/libverify.so (and of the baseline's libcurl, libssl, libcrypto)"
strip -o "$work/libverify.so" target/release/libverify.so
so_bytes=$(stat -c %s "$work/libverify.so")
so_unstripped=$(stat -c %s target/release/libverify.so)
bl_so_bytes=0
bl_so_names=""
for lib in $(ldd "$bl" | awk '$1 ~ /^lib(curl|ssl|crypto)\.so/ { print $3 }'); do
    strip -o "$work/bl.so" "$lib"
    bl_so_bytes=$((bl_so_bytes + $(stat -c %s "$work/bl.so")))
    bl_so_names="$bl_so_names $(basename "$lib")"
done
echo "libverify.so: $so_bytes B stripped; baseline:$bl_so_names: $bl_so_bytes B stripped" >&2
step "7b. stripped size per platform built here, and by crate (benches/sizes.sh)"
# --check measures what is built; a full run builds the Windows and ARM64 libraries first.
if [ "$check" -eq 1 ]; then
    benches/sizes.sh target/bench/sizes.md >&2
else
    benches/sizes.sh --build target/bench/sizes.md >&2
fi

step "12. GetVariable per request byte: names of ${name_sizes[*]} B (callgrind, $fit_n2 minus $fit_n1 calls)"
# Program $bytes_app with one variable per name size, the names made of `V` (sent as they are).
vars_json=""
for size in "${name_sizes[@]}"; do
    vars_json="$vars_json${vars_json:+,}\"$(printf '%*s' "$size" '' | tr ' ' V)\":\"1\""
done
added=$(control_post /_sandbox/programs \
    "{\"app_id\":\"$bytes_app\",\"app_key\":\"$app_key\",\"variables\":{$vars_json}}")
case "$added" in *'"ok":true'*) ;; *) echo "run.sh: adding program $bytes_app: $added" >&2; exit 1 ;; esac
# Least-squares slope of y over x: `lsq "x1 x2 .." "y1 y2 .."`, one decimal.
lsq() {
    awk -v xs="$1" -v ys="$2" 'BEGIN {
        n = split(xs, x, " "); split(ys, y, " ")
        for (i = 1; i <= n; i++) { sx += x[i]; sy += y[i]; sxx += x[i] * x[i]; sxy += x[i] * y[i] }
        printf "%.1f", (n * sxy - sx * sy) / (n * sxx - sx * sx) }'
}
# Instructions per warm call of a command at two call counts, as in row 3.
per_call() { # per_call TAG COMMAND... (the count is appended): prints (I(n2) - I(n1)) / (n2 - n1)
    local tag=$1 i1 i2; shift
    i1=$(callgrind_total "$work/cg.$tag.$fit_n1" "$@" "$fit_n1")
    i2=$(callgrind_total "$work/cg.$tag.$fit_n2" "$@" "$fit_n2")
    echo $(( (i2 - i1) / (fit_n2 - fit_n1) ))
}
declare -A byte_ipc
for who in vb bl fl; do
    case $who in vb) prog=$vb ;; bl) prog=$bl ;; fl) prog=$fl ;; esac
    for size in "${name_sizes[@]}"; do
        byte_ipc[$who.$size]=$(per_call "$who-var-$size" "$prog" "$base_url" "$bytes_app" "$app_key" variable "$size")
    done
done
xs="${name_sizes[*]}"
vb_per_byte=$(lsq "$xs" "${byte_ipc[vb.1]} ${byte_ipc[vb.1024]} ${byte_ipc[vb.16384]}")
bl_per_byte=$(lsq "$xs" "${byte_ipc[bl.1]} ${byte_ipc[bl.1024]} ${byte_ipc[bl.16384]}")
fl_per_byte=$(lsq "$xs" "${byte_ipc[fl.1]} ${byte_ipc[fl.1024]} ${byte_ipc[fl.16384]}")
# The reference: the rc4 and hex crates as core/src/wire.rs calls them, $fit_n2 encodings of
# the same plaintexts; everything but the name's bytes is the same in both runs.
codec_i1=$(callgrind_total "$work/cg.codec.1" "$codec" 1 "$fit_n2")
codec_i2=$(callgrind_total "$work/cg.codec.16384" "$codec" 16384 "$fit_n2")
codec_per_byte=$(awk -v a="$codec_i1" -v b="$codec_i2" -v n="$fit_n2" \
    'BEGIN { printf "%.1f", (b - a) / (n * 16383) }')
for who in vb bl fl; do
    echo "$who: ${byte_ipc[$who.1]} / ${byte_ipc[$who.1024]} / ${byte_ipc[$who.16384]} instructions per call" >&2
done
echo "per name byte: verify $vb_per_byte, baseline $bl_per_byte, floor $fl_per_byte; rc4 + hex crates $codec_per_byte" >&2

step "13. GetVariable of every variable: programs of ${var_counts[*]} variables (callgrind, $fit_n2 minus $fit_n1 calls)"
declare -A var_ipc
for who in vb bl fl; do
    case $who in vb) prog=$vb ;; bl) prog=$bl ;; fl) prog=$fl ;; esac
    for k in 0 1 2; do
        var_ipc[$who.${var_counts[$k]}]=$(per_call "$who-vars-${var_counts[$k]}" "$prog" "$base_url" "${var_apps[$k]}" "$app_key" variables)
    done
    echo "$who: ${var_ipc[$who.1]} / ${var_ipc[$who.10]} / ${var_ipc[$who.100]} instructions per call" >&2
done
xs="${var_counts[*]}"
vb_per_var=$(lsq "$xs" "${var_ipc[vb.1]} ${var_ipc[vb.10]} ${var_ipc[vb.100]}")
bl_per_var=$(lsq "$xs" "${var_ipc[bl.1]} ${var_ipc[bl.10]} ${var_ipc[bl.100]}")
fl_per_var=$(lsq "$xs" "${var_ipc[fl.1]} ${var_ipc[fl.10]} ${var_ipc[fl.100]}")
echo "per variable: verify $vb_per_var, baseline $bl_per_var, floor $fl_per_var" >&2
if [ -n "${BENCH_KEEP_CALLGRIND:-}" ]; then
    cp "$work"/cg.* target/bench/ 2>/dev/null || true
fi

step "14a-b. keeper: $keeper_beats heartbeats every $keeper_ms ms and a host call after each (TCP connections; threads created, by strace)"
before=$(json_int connections_accepted "$(control_get /_sandbox/stats)")
keeper_cmd=("$vb" "$base_url" "$app_id" "$app_key" keeper "$card" "$mac" "$keeper_beats" "$keeper_ms")
keeper_clones=""
if keeper_line=$(strace -f -qq -e trace=clone,clone3,getppid -o "$work/keeper.strace" \
        "${keeper_cmd[@]}" 2>"$work/keeper.err"); then
    # clone/clone3 calls of any thread between the program's two getppid() markers (the span
    # of the heartbeats, after verify_keeper_start returned).
    keeper_clones=$(awk '/getppid\(/ { marks++; next } marks == 1 && /clone3?\(/ { n++ }
        END { print (marks == 2 ? n + 0 : "") }' "$work/keeper.strace")
    keeper_start_clones=$(awk '/getppid\(/ { exit } /clone3?\(/ { n++ } END { print n + 0 }' "$work/keeper.strace")
else
    # strace could not trace (ptrace refused?): the same run without it; threads alive only.
    echo "run.sh: strace failed, the keeper run again without it: $(tail -n 3 "$work/keeper.err")" >&2
    keeper_line=$("${keeper_cmd[@]}")
    keeper_start_clones=""
fi
echo "$keeper_line" >&2
after=$(json_int connections_accepted "$(control_get /_sandbox/stats)")
keeper_conns=$((after - before - 1))   # the second stats request is itself one connection
echo "connections: $keeper_conns; threads created during the heartbeats: ${keeper_clones:-?} (before them: ${keeper_start_clones:-?})" >&2

step "14c. idle keeper: context switches of its threads between heartbeats ($idle_beats heartbeats every $idle_ms ms)"
idle_line=$("$vb" "$base_url" "$app_id" "$app_key" keeper-idle "$card" "$mac" "$idle_beats" "$idle_ms")
echo "$idle_line" >&2

step "15. offline-first: starts online, with the network down, against a black-holed server (a 300 ms start budget), and after refusals (benches/offline_start.c)"
offline_state="$work/offline-state"
off_online=$("$os" online "$base_url" 90006 "$app_key" BENC-HOFF-0000-0001 "$offline_state" "$offline_n")
off_down=$("$os" down 90006 "$app_key" BENC-HOFF-0000-0001 "$offline_state" "$offline_n")
off_hole=$("$os" blackhole 90006 "$app_key" BENC-HOFF-0000-0001 "$offline_state" "$offline_hole_n" 300)
off_refusals=$("$os" refusals "$base_url" 90006 "$app_key" "$work/offline-refusals" BENC-HCNT-0000-0001 \
    benchoffline bench-pw | tail -n 1)
off_password=$("$os" password "$base_url" 90006 "$app_key" "$work/offline-password" benchoffline \
    bench-pw "$offline_pw_n")
printf '%s\n' "$off_online" "$off_down" "$off_hole" "$off_refusals" "$off_password" >&2

step "16. machine code v1 and v2, cold and warm (benches/machine.sh)"
mapfile -t machine_rows < <(benches/machine.sh "$work" $([ "$check" -eq 1 ] && echo 2 5))

# ---------------------------------------------------------------------------------------
load_end=$(cut -d ' ' -f 1-3 /proc/loadavg)
read -r busy1 total1 < <(machine_ticks)
ours1=$(( $(pid_ticks $$) + $(pid_ticks "$sandbox_pid") ))
# Share of all the cores' time taken by other processes during the measurements.
others_pct=$(awk -v b=$((busy1 - busy0)) -v o=$((ours1 - ours0)) -v t=$((total1 - total0)) \
    'BEGIN { x = t > 0 ? 100 * (b - o) / t : 0; if (x < 0) x = 0; printf "%.0f", x }')
ours_pct=$(awk -v o=$((ours1 - ours0)) -v t=$((total1 - total0)) \
    'BEGIN { printf "%.0f", (t > 0 ? 100 * o / t : 0) }')
vb_med=$(field median_ns "$vb_lat"); vb_p99=$(field p99_ns "$vb_lat")
bl_med=$(field median_ns "$bl_lat"); bl_p99=$(field p99_ns "$bl_lat")
fl_med=$(field median_ns "$fl_lat"); fl_p99=$(field p99_ns "$fl_lat")
vbt_med=$(field median_ns "$vbt_lat"); vbt_p99=$(field p99_ns "$vbt_lat")
blt_med=$(field median_ns "$blt_lat"); blt_p99=$(field p99_ns "$blt_lat")
vb_rss1=$(field rss_first_kib "$vb_rss"); vb_rss2=$(field rss_last_kib "$vb_rss")
bl_rss1=$(field rss_first_kib "$bl_rss"); bl_rss2=$(field rss_last_kib "$bl_rss")
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { if (b == 0) print "—"; else printf "%.2f", a / b }'; }
# 1234567 -> 1,234,567 (also inside a longer text)
th() { sed -e ':a' -e 's/\([0-9]\)\([0-9]\{3\}\)\($\|[^0-9]\)/\1,\2\3/' -e 'ta' <<<"$1"; }
us() { th "$(awk -v ns="$1" 'BEGIN { printf "%.1f µs", ns / 1000 }')"; }
ms() { awk -v ns="$1" 'BEGIN { printf "%.2f ms", ns / 1000000 }'; }
# Cold start cell: median (min-max over the runs).
cold_cell() {
    printf '%s (%s–%s)' "$(ms "$(field "$1_median_ns" "$2")")" \
        "$(awk -v ns="$(field "$1_min_ns" "$2")" 'BEGIN { printf "%.2f", ns / 1000000 }')" \
        "$(awk -v ns="$(field "$1_max_ns" "$2")" 'BEGIN { printf "%.2f", ns / 1000000 }')"
}
med_ratio=$(ratio "$vb_med" "$bl_med"); p99_ratio=$(ratio "$vb_p99" "$bl_p99")
tls_med_ratio=$(ratio "$vbt_med" "$blt_med"); tls_p99_ratio=$(ratio "$vbt_p99" "$blt_p99")
ipc_ratio=$(ratio "$vb_ipc" "$bl_ipc")
tls_ipc_ratio=$(ratio "$vbt_ipc" "$blt_ipc")
cold_http_ratio=$(awk -v r="$(field ratio_median "$cold_http")" 'BEGIN { printf "%.2f", r }')
cold_floor_ratio=$(awk -v r="$(field ratio_median "$cold_floor")" 'BEGIN { printf "%.2f", r }')
cold_tls_ratio=$(awk -v r="$(field ratio_median "$cold_tls")" 'BEGIN { printf "%.2f", r }')
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
verdict v_cold_tls "$(le "$cold_tls_ratio" 0.5)"
verdict v_per_byte "$(le "$vb_per_byte" "$codec_per_byte")"
verdict v_keeper_conns "$(le "$keeper_conns" 1)"
if [ -n "$keeper_clones" ]; then
    verdict v_keeper_threads "$(le "$keeper_clones" 0)"
    keeper_threads_cell="$(ratio "$keeper_clones" "$keeper_beats") ($keeper_clones in $keeper_beats heartbeats)"
else
    v_keeper_threads="—"
    keeper_threads_cell="? (strace failed; threads alive: $(field threads_start "$keeper_line") before, $(field threads_end "$keeper_line") after)"
fi
idle_switches=$(field switches "$idle_line")
verdict v_idle "$(le "$idle_switches" 0)"
off_down_us=$(field median_us "$off_down"); off_hole_us=$(field median_us "$off_hole")
off_online_us=$(field median_us "$off_online")
verdict v_off_down "$(le "$off_down_us" 5000)"
verdict v_off_hole "$(le "$off_hole_us" 310000)"
verdict v_off_refusals "$(le "$(field offline_verdicts "$off_refusals")" 0)"
verdict v_off_pw_extra "$(le "$(field extra_us "$off_password")" 30000)"
verdict v_off_pw_guess "$(le 20000 "$(field guess_min_us "$off_password")")"
off_ms() { awk -v us="$1" 'BEGIN { printf "%.2f ms", us / 1000 }'; }
off_cell() { printf '%s (%s–%s), code %s' "$(off_ms "$(field median_us "$1")")" \
    "$(off_ms "$(field min_us "$1")")" "$(off_ms "$(field max_us "$1")")" "$(field code "$1")"; }

# The rows: figure | verify | libcurl baseline | ratio verify/baseline | target | result
# [| floor | ratio verify/floor] (the floor: benches/floor/floor.c, http only).
rows=(
    "1–2. http warm call, wall time, median ($(th "$lat_n") calls)|$(us "$vb_med")|$(us "$bl_med")|$med_ratio|≤ 1.00|$v_lat|$(us "$fl_med")|$(ratio "$vb_med" "$fl_med")"
    "1–2. http warm call, wall time, p99|$(us "$vb_p99")|$(us "$bl_p99")|$p99_ratio|—|—|$(us "$fl_p99")|$(ratio "$vb_p99" "$fl_p99")"
    "3. http warm call, instructions (callgrind)|$(th "$vb_ipc")|$(th "$bl_ipc")|$ipc_ratio|≤ 0.50|$v_ipc|$(th "$fl_ipc")|$(ratio "$vb_ipc" "$fl_ipc")"
    "3b. http warm call, system calls (strace)|$vb_sys|$bl_sys|$(ratio "$vb_sys" "$bl_sys")|—|—|$fl_sys|$(ratio "$vb_sys" "$fl_sys")"
    "4. calls/s, 1 thread, one client|$(th "${tp[1]}") ($(th "${tp_conns[1]}") conn.)|||—|—"
    "4. calls/s, 4 threads, one client|$(th "${tp[4]}") ($(th "${tp_conns[4]}") conn.)|||—|—"
    "4. calls/s, 16 threads, one client|$(th "${tp[16]}") ($(th "${tp_conns[16]}") conn.)|||—|—"
    "5. TCP connections per $(th "$conn_n") sequential calls|$conns (log: $log_conns distinct \`conn\`)|||1|$v_conn"
    "6. VmRSS after 1,000 calls|$(th "$vb_rss1") KiB|$(th "$bl_rss1") KiB|||"
    "6. VmRSS after $(th "$rss_n") calls|$(th "$vb_rss2") KiB|$(th "$bl_rss2") KiB|||"
    "6. VmRSS growth|$rss_delta KiB|$((bl_rss2 - bl_rss1)) KiB||≤ 1,024 KiB|$v_rss"
    "7. stripped library: \`libverify.so\` / libcurl + libssl + libcrypto|$(th "$so_bytes") B ($(th "$so_unstripped") B unstripped)|$(th "$bl_so_bytes") B|$(ratio "$so_bytes" "$bl_so_bytes")|≤ $(th "$so_limit") B|$v_so"
    "8. http cold start: exec to exit after Init + SingleLogin, median (min–max, $cold_runs runs)|$(cold_cell a "$cold_http")|$(cold_cell b "$cold_http")|$cold_http_ratio|—|—|$(cold_cell b "$cold_floor")|$cold_floor_ratio"
    "8. http cold start, CPU time (user + system), median|$(ms "$(field a_cpu_median_ns "$cold_http")")|$(ms "$(field b_cpu_median_ns "$cold_http")")|$(ratio "$(field a_cpu_median_ns "$cold_http")" "$(field b_cpu_median_ns "$cold_http")")|—|—|$(ms "$(field b_cpu_median_ns "$cold_floor")")|$(ratio "$(field a_cpu_median_ns "$cold_floor")" "$(field b_cpu_median_ns "$cold_floor")")"
    "8. http cold start, instructions of the whole process (callgrind)|$(th "$vb_cold_i")|$(th "$bl_cold_i")|$(ratio "$vb_cold_i" "$bl_cold_i")|—|—|$(th "$fl_cold_i")|$(ratio "$vb_cold_i" "$fl_cold_i")"
    "9. https cold start (sandbox CA trusted), median (min–max, $cold_runs runs)|$(cold_cell a "$cold_tls")|$(cold_cell b "$cold_tls")|$cold_tls_ratio|≤ 0.50|$v_cold_tls"
    "9. https cold start, CPU time (user + system), median|$(ms "$(field a_cpu_median_ns "$cold_tls")")|$(ms "$(field b_cpu_median_ns "$cold_tls")")|$(ratio "$(field a_cpu_median_ns "$cold_tls")" "$(field b_cpu_median_ns "$cold_tls")")|—|—"
    "9. https cold start, instructions of the whole process (callgrind)|$(th "$vbt_cold_i")|$(th "$blt_cold_i")|$(ratio "$vbt_cold_i" "$blt_cold_i")|—|—"
    "10. https warm call, wall time, median ($(th "$lat_n") calls)|$(us "$vbt_med")|$(us "$blt_med")|$tls_med_ratio|—|—"
    "10. https warm call, wall time, p99|$(us "$vbt_p99")|$(us "$blt_p99")|$tls_p99_ratio|—|—"
    "11. https warm call, instructions (callgrind)|$(th "$vbt_ipc")|$(th "$blt_ipc")|$tls_ipc_ratio|—|—"
    "12. GetVariable, name of 1 B, instructions per call (callgrind)|$(th "${byte_ipc[vb.1]}")|$(th "${byte_ipc[bl.1]}")|$(ratio "${byte_ipc[vb.1]}" "${byte_ipc[bl.1]}")|—|—|$(th "${byte_ipc[fl.1]}")|$(ratio "${byte_ipc[vb.1]}" "${byte_ipc[fl.1]}")"
    "12. GetVariable, name of 1 KiB, instructions per call|$(th "${byte_ipc[vb.1024]}")|$(th "${byte_ipc[bl.1024]}")|$(ratio "${byte_ipc[vb.1024]}" "${byte_ipc[bl.1024]}")|—|—|$(th "${byte_ipc[fl.1024]}")|$(ratio "${byte_ipc[vb.1024]}" "${byte_ipc[fl.1024]}")"
    "12. GetVariable, name of 16 KiB, instructions per call|$(th "${byte_ipc[vb.16384]}")|$(th "${byte_ipc[bl.16384]}")|$(ratio "${byte_ipc[vb.16384]}" "${byte_ipc[bl.16384]}")|—|—|$(th "${byte_ipc[fl.16384]}")|$(ratio "${byte_ipc[vb.16384]}" "${byte_ipc[fl.16384]}")"
    "12. instructions per request byte (name byte; least squares over 1 B, 1 KiB, 16 KiB)|$vb_per_byte|$bl_per_byte|$(ratio "$vb_per_byte" "$bl_per_byte")|≤ $codec_per_byte (rc4 + hex crates)|$v_per_byte|$fl_per_byte|$(ratio "$vb_per_byte" "$fl_per_byte")"
    "12. reference: the rc4 + hex crates alone (as \`wire.rs\` calls them), per name byte|$codec_per_byte|||—|—"
    "13. GetVariable of every variable, 1 variable, instructions per call (callgrind)|$(th "${var_ipc[vb.1]}")|$(th "${var_ipc[bl.1]}")|$(ratio "${var_ipc[vb.1]}" "${var_ipc[bl.1]}")|—|—|$(th "${var_ipc[fl.1]}")|$(ratio "${var_ipc[vb.1]}" "${var_ipc[fl.1]}")"
    "13. GetVariable of every variable, 10 variables, instructions per call|$(th "${var_ipc[vb.10]}")|$(th "${var_ipc[bl.10]}")|$(ratio "${var_ipc[vb.10]}" "${var_ipc[bl.10]}")|—|—|$(th "${var_ipc[fl.10]}")|$(ratio "${var_ipc[vb.10]}" "${var_ipc[fl.10]}")"
    "13. GetVariable of every variable, 100 variables, instructions per call|$(th "${var_ipc[vb.100]}")|$(th "${var_ipc[bl.100]}")|$(ratio "${var_ipc[vb.100]}" "${var_ipc[bl.100]}")|—|—|$(th "${var_ipc[fl.100]}")|$(ratio "${var_ipc[vb.100]}" "${var_ipc[fl.100]}")"
    "13. instructions per variable (least squares over 1, 10, 100)|$(th "$vb_per_var")|$bl_per_var|—|—|—|$fl_per_var|—"
    "14a. keeper: TCP connections of one client over Init, SingleLogin, $keeper_beats heartbeats ($keeper_ms ms) and $keeper_beats host calls|$keeper_conns|||1|$v_keeper_conns"
    "14b. keeper: threads created per heartbeat (strace, after the keeper started)|$keeper_threads_cell|||0|$v_keeper_threads"
    "14c. idle keeper: context switches of its $(field keeper_threads "$idle_line") threads between heartbeats ($idle_beats windows, $(th "$(field window_ms_total "$idle_line")") ms in all, interval $idle_ms ms)|$idle_switches ($(field switches_over_beats "$idle_line") over the $((idle_beats - 1)) heartbeats between)|||0|$v_idle"
    "15a. start, online: client made to the SingleLogin answer, offline verdicts on, median (min–max, $offline_n starts)|$(off_cell "$off_online")|||—|—"
    "15b. start with the network down (refused at once): the stored verdict, median|$(off_cell "$off_down")||$(ratio "$off_down_us" "$off_online_us") of 15a|≤ 5 ms|$v_off_down"
    "15c. start against a black-holed server, start budget 300 ms: the stored verdict, median ($offline_hole_n starts)|$(off_cell "$off_hole")|||≤ 310 ms|$v_off_hole"
    "15d. offline verdicts after a server refusal (count card used up, another machine, wrong password)|$(field offline_verdicts "$off_refusals") of $(field refusals "$off_refusals")|||0|$v_off_refusals"
    "15e. account mode, the password's hash (PBKDF2-HMAC-SHA256): an online login's extra cost, offline verdicts on minus off (medians of $offline_pw_n logins: $(off_ms "$(field on_us "$off_password")") and $(off_ms "$(field off_us "$off_password")"); CPU time $(off_ms "$(field extra_cpu_us "$off_password")"))|$(off_ms "$(field extra_us "$off_password")")|||≤ 30 ms|$v_off_pw_extra"
    "15f. account mode: a wrong password offline, the fastest of $offline_pw_n guesses (median $(off_ms "$(field guess_us "$off_password")"), code $(field guess_code "$off_password"); CPU time $(off_ms "$(field guess_cpu_min_us "$off_password")"); the right password: $(off_ms "$(field offline_us "$off_password")"), code $(field offline_code "$off_password"))|$(off_ms "$(field guess_min_us "$off_password")")|||≥ 20 ms|$v_off_pw_guess"
)

rows+=("${machine_rows[@]}")

commit=$(git rev-parse --short=12 HEAD 2>/dev/null || echo unknown)
# Uncommitted changes to what the benchmark builds or runs, named (they are in the figures).
dirty=$(git status --porcelain -- Cargo.toml Cargo.lock build.rs src core include sandbox benches \
    2>/dev/null | awk '{ print $2 }' | grep -v '/tests/' | tr '\n' ' ' | sed 's/ $//' || true)
cpu_model=$(sed -n 's/^model name[[:space:]]*: *//p' /proc/cpuinfo | head -n 1)
mem_gib=$(awk '/^MemTotal:/ { printf "%.1f", $2 / 1048576 }' /proc/meminfo)
crate_types=$(sed -n 's/^crate-type *= *\[\(.*\)\]/\1/p' Cargo.toml | tr -d '"' | head -n 1)
rustc_v=$(rustc --version 2>/dev/null | cut -d ' ' -f 2 || echo '?')
cc_v=$(cc --version | head -n 1)
curl_v=$(pkg-config --modversion libcurl); ssl_v=$(pkg-config --modversion libcrypto)

# Plain-text table on the terminal and in target/bench/last-run.txt.
{
    echo
    echo "verify benchmark  $(date -u '+%Y-%m-%d %H:%M UTC') (started $started_utc UTC), commit $commit${dirty:+ + uncommitted: $dirty}"
    echo "machine: $(nproc) cores (nproc), $cpu_model, $mem_gib GiB;" \
        "load average before: $load_before, at end: $load_end;" \
        "CPU time during the measurements: other processes ${others_pct}%, the benchmark ${ours_pct}%"
    echo "rustc $rustc_v; $cc_v; libcurl $curl_v; OpenSSL $ssl_v; libverify crate types: $crate_types"
    echo "calls: GetBulletin (Handle) on a kept-alive connection; cold start: Init + SingleLogin"
    [ "$check" -eq 1 ] && echo "SMOKE CHECK (--check): tiny counts, figures are meaningless"
    echo
    for row in "figure|verify|libcurl baseline|ratio|target|result|floor|verify/floor" "${rows[@]}"; do
        IFS='|' read -r f v b r t res flo flr <<<"$row"
        printf '%s|%s|%s|%s|%s|%s|%s|%s\n' "$f" "$v" "$b" "$r" "$flo" "$flr" "$t" "$res"
    done | sed 's/|/ | /g' | column -t -s '|' -o '|'
    echo
    if [ "$check" -eq 0 ]; then
        echo "targets missed: $misses"
    fi
} | tee target/bench/last-run.txt

# The same as Markdown: the generated block of BENCHMARKS.md.
{
    if [ "$check" -eq 1 ]; then
        echo "**SMOKE CHECK (\`--check\`): tiny counts, the figures mean nothing.**"
        echo
    fi
    echo "Run of $(date -u '+%Y-%m-%d %H:%M') UTC (started $started_utc), commit" \
        "\`$commit\`${dirty:+ (with uncommitted changes to: $dirty)}, by \`benches/run.sh${1:+ $1}\`."
    echo "Machine: $(nproc) cores (\`nproc\`), $cpu_model (\`/proc/cpuinfo\`), $mem_gib GiB;" \
        "load average (1, 5, 15 min) $load_before before the run and $load_end at its end;" \
        "of all the cores' time during the measurements, other processes took ${others_pct} %" \
        "and the benchmark (its programs, valgrind and the sandbox) ${ours_pct} %."
    echo "rustc $rustc_v, $cc_v, libcurl $curl_v, OpenSSL $ssl_v; libverify from" \
        "\`cargo build --release -p verify -p verify-sandbox\`, crate types $crate_types (no rlib)."
    echo
    echo "| figure | verify | libcurl baseline | ratio | floor | verify/floor | target | result |"
    echo "|---|---|---|---|---|---|---|---|"
    for row in "${rows[@]}"; do
        IFS='|' read -r f v b r t res flo flr <<<"$row"
        case "$res" in MISS) res="**MISS**" ;; esac
        echo "| $f | $v | $b | $r | $flo | $flr | $t | $res |"
    done
    if [ "$check" -eq 0 ]; then
        echo
        echo "Targets missed: $misses."
    fi
} >target/bench/figures.md

lab_flags=()
if [ "$check" -eq 1 ]; then lab_flags=(--check); fi
step "17. the network lab: benches/lab.sh ${lab_flags[*]} (target/bench/lab.md)"
benches/lab.sh ${lab_flags[@]+"${lab_flags[@]}"} >&2

if [ "$write" -eq 1 ]; then
    step "write the figures into BENCHMARKS.md (the GENERATED: figures, sizes and lab blocks)"
    benches/write-block.sh figures target/bench/figures.md
    benches/write-block.sh sizes target/bench/sizes.md
    benches/write-block.sh lab target/bench/lab.md
fi

if [ "$check" -eq 0 ] && [ "$misses" -gt 0 ] && [ "${BENCH_STRICT:-0}" = 1 ]; then
    exit 1
fi
exit 0
