#!/usr/bin/env bash
# build-arm64.sh: build libverify.so (and libverify.a) for Linux ARM64 (aarch64) on an x86-64
# Linux machine, and check it.
#
#   scripts/build-arm64.sh              install what is missing, build (release), check
#   scripts/build-arm64.sh --no-build   only install and check
#
# Installs, when missing: the Rust target aarch64-unknown-linux-gnu (rustup), Debian's cross
# compiler and C library for it and qemu-user (scripts/install-deps.sh arm64). Then:
#
#   cargo build --release --locked --target aarch64-unknown-linux-gnu -p verify
#
# with the cross gcc as linker and as the C compiler of ring's build script, into
# target/aarch64-unknown-linux-gnu/release/ (CARGO_TARGET_DIR is honoured). The release build
# (not debug) is the one tests/platforms/linux_arm64.rs runs under qemu-aarch64, scripts/package.sh
# --target aarch64-unknown-linux-gnu packages and benches/run.sh measures: one build for all
# three. It checks that the library is an ARM64 ELF shared object named libverify.so
# (SONAME) that exports exactly the functions of include/verify.h.
#
# Programs for ARM64 are built with `aarch64-linux-gnu-gcc` and run on x86-64 with
# `qemu-aarch64 -L /usr/aarch64-linux-gnu PROGRAM` (user-mode emulation: the program's system
# calls go to the host kernel, so it reaches a sandbox on 127.0.0.1).
#
# Prints the folder of the library as its last line.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."

build=1
while [ "$#" -gt 0 ]; do
    case "$1" in
        --no-build) build=0; shift ;;
        -h|--help) sed -n '2,/^set -euo/p' "$0" | sed '$d'; exit 0 ;;
        *) echo "build-arm64.sh: unknown argument $1 (try --help)" >&2; exit 2 ;;
    esac
done

say() { echo "build-arm64: $*" >&2; }
fail() { echo "build-arm64: ERROR: $*" >&2; exit 1; }

triple=aarch64-unknown-linux-gnu
target_root=${CARGO_TARGET_DIR:-target}
dir=$target_root/$triple/release

scripts/install-deps.sh arm64 >&2
command -v rustup >/dev/null 2>&1 ||
    fail "rustup not found: the target $triple is installed with rustup (https://rustup.rs)"
if ! rustup target list --installed | grep -qx "$triple"; then
    say "running: rustup target add $triple"
    rustup target add "$triple" >&2
fi

if [ "$build" = 1 ]; then
    say "running: cargo build --release --locked --target $triple -p verify"
    CARGO_TARGET_AARCH64_UNKNOWN_LINUX_GNU_LINKER=aarch64-linux-gnu-gcc \
        CC_aarch64_unknown_linux_gnu=aarch64-linux-gnu-gcc \
        AR_aarch64_unknown_linux_gnu=aarch64-linux-gnu-ar \
        cargo build --release --locked --target "$triple" -p verify >&2
fi
so=$dir/libverify.so
[ -f "$so" ] || fail "$so is missing (build first)"
[ -f "$dir/libverify.a" ] || fail "$dir/libverify.a is missing (build first)"

header=$(aarch64-linux-gnu-readelf -h "$so")
grep -q 'Machine:[[:space:]]*AArch64' <<< "$header" || fail "$so is not an AArch64 file"
grep -q 'Type:[[:space:]]*DYN' <<< "$header" || fail "$so is not a shared object"
aarch64-linux-gnu-readelf -d "$so" | grep -q 'Library soname: \[libverify.so\]' ||
    fail "$so has no SONAME libverify.so"
exported=$(aarch64-linux-gnu-nm -D --defined-only "$so" | awk '$2 == "T" { print $3 }' | LC_ALL=C sort)
declared=$(sed -n 's/.*VERIFY_CALL \(verify_[a-z0-9_]*\)(.*/\1/p' include/verify.h | LC_ALL=C sort -u)
if [ "$exported" != "$declared" ]; then
    diff <(echo "$declared") <(echo "$exported") >&2 || true
    fail "the functions of include/verify.h (<) and the exports of $so (>) differ"
fi
say "$so: $(stat -c %s "$so") bytes, $(wc -l <<< "$exported") exports"
echo "$dir"
