#!/usr/bin/env bash
# The whole test suite, from a fresh clone: installs what the tests need (a C and C++
# compiler, valgrind, cmake and pkg-config for the host and package tests, Mono with its
# reference assemblies, nuget and zip for the C# binding and its NuGet package, the .NET Core
# 3.1 SDK (from npm, with OpenSSL 1.1, into the tools folder) that builds and runs the C#
# README's SDK-style project, mingw-w64 and Wine for the Windows DLLs, debootstrap for 32-bit Wine's i386
# chroot, the ARM64 cross compilers and qemu-user, python3's venv for zig, nginx, tinyproxy
# and microsocks for the network tests, iproute2, dnsmasq, ethtool, libcurl's headers and
# mitmproxy for the network lab, Chromium for the console, strace for the machine code's
# no-process check, {fmt}'s headers for the C++ formatter's test, and, built once into the
# tools folder with cargo install, cargo-about and
# cargo-deny for THIRD-PARTY-NOTICES and the licence check), checks the licence of every
# crate of the library and verify-sandbox against deny.toml's allow-list
# (scripts/notices.sh --check: cargo-deny, offline),
# builds the other platforms (scripts/build-windows.sh --wine: both DLLs for Windows 7 SP1
# and later, with the nightly toolchain's -Z build-std, and 32-bit Wine,
# made once; scripts/build-arm64.sh: libverify.so for Linux ARM64; scripts/check-macos.sh:
# cargo-zigbuild check and a link of libverify.dylib for both Apple targets), checks
# formatting, lints (clippy, warnings denied; the code pages of the Windows build too, through
# the cargo feature code-pages), builds the docs (warnings denied), then runs every test of
# the workspace: the sandbox's black-box HTTP tests, the core's tests against the sandbox
# (Rust API, wire vectors, reliability, keeper, racing, offline), the generated-files check
# (header, C++/C#/README sections), and the C, C++, C# and Python host programs (tests/c/,
# tests/cpp/, tests/csharp/, tests/python/, tests/platforms/...: each beside its driver) and
# the demos (under valgrind, ASan and UBSan where noted) against the library that the run
# builds, the package built with CMake and pkg-config, the Windows programs under Wine (x64
# and x86), the ARM64 programs under qemu-aarch64, the macOS dylibs' install name, minimum
# version and exports, the network lab (tests/lab: namespaces, so it needs root;
# docs/network-lab.md); then every fuzz target for a short budget (scripts/fuzz.sh).
# The Python package's tests (tests/python/python.rs) run scripts/build-python.sh themselves: wheels
# for Linux (cargo-zigbuild, glibc 2.17) and Windows, and pytest, mypy, vermin and PyInstaller
# from PyPI.
# ThreadSanitizer runs by its own command, scripts/tsan.sh (about 13 minutes). The README's
# platform table says what runs where.
set -euo pipefail
cd "$(dirname "$0")/.."

case "${1:-}" in
    "") ;;
    -h|--help) sed -n '2,/^set -euo/p' "$0" | sed '$d'; exit 0 ;;
    *) echo "test.sh: takes no arguments (try --help)" >&2; exit 2 ;;
esac

# Disk: what a run from a clean checkout writes is in the README ("The two commands"); test.sh
# warns when less than that is free. On CI (CI=true) nothing is rebuilt after an edit, so
# cargo keeps no incremental state (CARGO_INCREMENTAL=0).
if [ "${CI:-}" = true ]; then
    export CARGO_INCREMENTAL=0
fi
need_gb=7
mkdir -p target
free_kb=$(df -Pk target | awk 'NR == 2 { print $4 }')
echo "== disk: $((free_kb / 1024 / 1024)) GB free where target/ is; a run writes about $need_gb GB, and the first run on a machine installs about 5 GB more"
if [ "$free_kb" -lt $((need_gb * 1024 * 1024)) ]; then
    echo "test.sh: warning: less than $need_gb GB free; the run may stop with 'No space left on device'" >&2
fi

scripts/install-deps.sh gcc valgrind cmake pkg-config mono mono-devel chromium cjk-font nginx tinyproxy microsocks \
    test-hosts mingw wine debootstrap arm64 venv nuget zip unzip clang-format strace python3 \
    iproute2 dnsmasq ethtool libcurl-dev dotnet mitmproxy cargo-about cargo-deny fmt

echo "== scripts/notices.sh --check (cargo-deny: every crate of the library and verify-sandbox under a licence deny.toml allows)"
scripts/notices.sh --check

echo "== scripts/build-windows.sh --wine (verify.dll x64 and x86, 32-bit Wine; tests/platforms/windows/, tests/package/nuget.rs)"
scripts/build-windows.sh --wine

echo "== scripts/build-arm64.sh (libverify.so for Linux ARM64; tests/platforms/linux_arm64.rs, tests/package/nuget.rs)"
scripts/build-arm64.sh

echo "== scripts/check-macos.sh (cargo-zigbuild check and the dylib's link, both Apple targets; tests/platforms/macos.rs)"
scripts/check-macos.sh

echo "== cargo fmt --all --check"
cargo fmt --all --check

echo "== clang-format --dry-run --Werror (C and C++ test hosts and examples; .clang-format)"
# Every C and C++ file under tests/ (each host sits beside its driver: tests/c/, tests/cpp/,
# tests/platforms/windows/, tests/console/, tests/lab/).
# shellcheck disable=SC2046
clang-format --dry-run --Werror $(find tests -name '*.[ch]' -o -name '*.[ch]pp' | sort) \
    examples-c/*.c examples-c/*.cpp

echo "== cargo clippy --workspace --all-targets -- -D warnings"
cargo clippy --workspace --all-targets --locked -- -D warnings

echo "== cargo clippy and unit tests of the verify crate with --features code-pages (the Windows build's code pages)"
cargo clippy -p verify --lib --profile test --features code-pages --locked -- -D warnings
cargo test -p verify --lib --features code-pages --locked

echo "== cargo doc --workspace --no-deps (warnings denied)"
RUSTDOCFLAGS=-Dwarnings cargo doc --workspace --no-deps --locked

echo "== cargo test --workspace"
cargo test --workspace --locked

echo "== scripts/fuzz.sh 10 (every fuzz target for 10 s; the long run: scripts/fuzz.sh 3600)"
scripts/fuzz.sh 10
