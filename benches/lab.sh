#!/usr/bin/env bash
# benches/lab.sh: the network lab's figures (tests/lab/figures.rs; docs/network-lab.md): the
# time from a program's start to its first SingleLogin answer over https, through libverify
# and through the libcurl baseline (benches/baseline/baseline.c) side by side, at 0, 50 and
# 200 ms round trip, with no fault, with the primary black-holed and a healthy mirror, with a
# dual-stack name whose IPv6 address is black-holed, with the name server answering after 2 s
# (first start, and second start with the winning line's addresses remembered), and (libverify)
# the second start with the winning line remembered.
#
#   benches/lab.sh            the table, in target/bench/lab.md and on stdout
#   benches/lab.sh --write    the same, then rewrites the `lab` block of BENCHMARKS.md
#   benches/lab.sh --check    one start per cell (the figures mean little; BENCHMARKS.md is not
#                             touched)
#   BENCH_LAB_CASES=slow-dns,slow-dns-remembered benches/lab.sh
#                             only those rows (and the no-fault one their targets need; the
#                             keys are tests/lab/figures.rs's Case::key), for a look at some
#                             rows: do not --write such a partial table
#
# benches/run.sh runs it after its own figures (and, with --write, writes its block). Needs
# root: the lab creates network namespaces. It installs what the lab needs
# (scripts/install-deps.sh gcc pkg-config python3 iproute2 dnsmasq ethtool libcurl-dev),
# builds the shipped library and sandbox (cargo build --release -p verify -p verify-sandbox,
# a no-op after run.sh) and runs the test `figures` of tests/lab (its harness in the tests'
# debug profile, which scripts/test.sh builds too) against them:
# VERIFY_LIBRARY_DIR=target/release, VERIFY_LAB_SANDBOX=target/release/verify-sandbox,
# VERIFY_LAB_RUNS starts per cell ($BENCH_LAB_RUNS, default 5) and VERIFY_LAB_FIGURES, the
# file for the table. Every cell runs in a slot of its own: those at 0 ms round trip one after
# the other (a start is then a few ms of CPU), then those at 50 and 200 ms in parallel (they
# mostly wait). About 2 minutes with 5 runs, after the build.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
root=$PWD

check=0
write=0
case "${1:-}" in
    "") ;;
    --check) check=1 ;;
    --write) write=1 ;;
    -h|--help) sed -n '2,/^set -euo/p' "$0" | sed '$d'; exit 0 ;;
    *) echo "usage: $0 [--check | --write]" >&2; exit 2 ;;
esac
if [ "$write" -eq 1 ] && [ -n "${BENCH_LAB_CASES:-}" ]; then
    echo "lab.sh: BENCH_LAB_CASES gives a partial table: BENCHMARKS.md is not rewritten" >&2
    exit 2
fi
runs=${BENCH_LAB_RUNS:-5}
if [ "$check" -eq 1 ]; then runs=1; fi

step() { printf '\n==> [lab %ss] %s\n' "$SECONDS" "$*" >&2; }

step "tools (scripts/install-deps.sh gcc pkg-config python3 iproute2 dnsmasq ethtool libcurl-dev)"
scripts/install-deps.sh gcc pkg-config python3 iproute2 dnsmasq ethtool libcurl-dev >&2

step "build (cargo build --release -p verify -p verify-sandbox; the lab's test harness)"
cargo build --release -p verify -p verify-sandbox >&2
cargo test -p verify --test lab --no-run >&2

load_before=$(cut -d ' ' -f 1-3 /proc/loadavg)
started=$(date -u '+%Y-%m-%d %H:%M')
mkdir -p target/bench
table=target/bench/lab-table.md
step "the lab's figures: $runs start(s) per cell (cargo test -p verify --test lab figures)"
VERIFY_LIBRARY_DIR="$root/target/release" VERIFY_LAB_SANDBOX="$root/target/release/verify-sandbox" \
    VERIFY_LAB_RUNS="$runs" VERIFY_LAB_FIGURES="$root/$table" VERIFY_LAB_CASES="${BENCH_LAB_CASES:-}" \
    cargo test -p verify --test lab -- --exact figures::figures --nocapture >&2

commit=$(git rev-parse --short=12 HEAD 2>/dev/null || echo unknown)
dirty=$(git status --porcelain -- Cargo.toml Cargo.lock build.rs src core include sandbox benches \
    tests/lab 2>/dev/null | awk '{ print $2 }' | tr '\n' ' ' | sed 's/ $//' || true)
cpu_model=$(sed -n 's/^model name[[:space:]]*: *//p' /proc/cpuinfo | head -n 1)
curl_v=$(pkg-config --modversion libcurl); ssl_v=$(pkg-config --modversion libcrypto)
{
    if [ "$check" -eq 1 ]; then
        echo "**SMOKE CHECK (\`--check\`): one start per cell, the figures mean little.**"
        echo
    fi
    echo "Run of $(date -u '+%Y-%m-%d %H:%M') UTC (started $started), commit" \
        "\`$commit\`${dirty:+ (with uncommitted changes to: $dirty)}, by \`benches/lab.sh\`" \
        "(\`benches/run.sh\` runs it). Machine: $(nproc) cores, $cpu_model; load average" \
        "$load_before before the lab and $(cut -d ' ' -f 1-3 /proc/loadavg) after it." \
        "libcurl $curl_v with OpenSSL $ssl_v; the sandbox is \`target/release/verify-sandbox\`."
    echo
    cat "$table"
} >target/bench/lab.md
cat target/bench/lab.md

if [ "$write" -eq 1 ]; then
    benches/write-block.sh lab target/bench/lab.md
fi
