#!/usr/bin/env bash
# The whole test suite, from a fresh clone: installs what the tests need (a C and C++
# compiler, valgrind, cmake and pkg-config for the host and package tests, Mono for the C#
# binding), checks formatting, then runs every test of the workspace: the sandbox's
# black-box HTTP tests, the library's unit and integration tests (Rust API, C ABI, header
# freshness, wire vectors), the C and C++ demos under valgrind, the C# demo on Mono, and
# the package built with CMake and pkg-config.
set -euo pipefail
cd "$(dirname "$0")/.."

scripts/install-deps.sh gcc valgrind cmake pkg-config mono

echo "== cargo fmt --all --check"
cargo fmt --all --check

echo "== cargo test --workspace"
cargo test --workspace --locked
