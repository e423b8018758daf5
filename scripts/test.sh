#!/usr/bin/env bash
# The whole test suite, from a fresh clone: installs what the tests need (a C and C++
# compiler, valgrind, cmake and pkg-config for the host and package tests, Mono with its
# reference assemblies, nuget and zip for the C# binding and its NuGet package, mingw-w64 and Wine for the Windows DLLs, nginx, tinyproxy and microsocks for the
# network tests, python3, iproute2, dnsmasq, ethtool and libcurl's headers for the network lab,
# Chromium for the console, strace for the machine code's no-process check), builds the Windows DLLs, checks formatting, lints (clippy, warnings denied), builds the docs (warnings
# denied), then runs every test of the workspace: the sandbox's black-box HTTP tests, the
# core's tests against the sandbox (Rust API, wire vectors, reliability, keeper), the
# generated-files check (header, C++/C#/README sections), and the C, C++ and C# host
# programs of tests/hosts/ and the demos (under valgrind, ASan and UBSan where noted)
# against the library that the run builds, the package built with CMake and pkg-config, the
# Windows programs under Wine, the network lab (tests/lab: namespaces, so it needs root;
# docs/network-lab.md); then every fuzz target for a short budget (scripts/fuzz.sh).
# ThreadSanitizer runs by its own command, scripts/tsan.sh (about 13 minutes).
set -euo pipefail
cd "$(dirname "$0")/.."

case "${1:-}" in
    "") ;;
    -h|--help) sed -n '2,/^set -euo/p' "$0" | sed '$d'; exit 0 ;;
    *) echo "test.sh: takes no arguments (try --help)" >&2; exit 2 ;;
esac

scripts/install-deps.sh gcc valgrind cmake pkg-config mono mono-devel chromium nginx tinyproxy microsocks \
    test-hosts mingw wine nuget zip unzip clang-format strace python3 iproute2 dnsmasq ethtool \
    libcurl-dev

echo "== scripts/build-windows.sh --wine (verify.dll x64 and x86 for tests/windows.rs, tests/nuget.rs)"
scripts/build-windows.sh --wine

echo "== cargo fmt --all --check"
cargo fmt --all --check

echo "== clang-format --dry-run --Werror (C and C++ test hosts and examples; .clang-format)"
clang-format --dry-run --Werror tests/hosts/*.c tests/hosts/*.h tests/hosts/*.cpp \
    tests/hosts/*.hpp examples-c/*.c examples-c/*.cpp

echo "== cargo clippy --workspace --all-targets -- -D warnings"
cargo clippy --workspace --all-targets --locked -- -D warnings

echo "== cargo doc --workspace --no-deps (warnings denied)"
RUSTDOCFLAGS=-Dwarnings cargo doc --workspace --no-deps --locked

echo "== cargo test --workspace"
cargo test --workspace --locked

echo "== scripts/fuzz.sh 10 (every fuzz target for 10 s; the long run: scripts/fuzz.sh 3600)"
scripts/fuzz.sh 10
