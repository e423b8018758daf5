#!/usr/bin/env bash
# The whole test suite, from a fresh clone: installs what the tests need (a C compiler and
# valgrind for the C harness), checks formatting, then runs every test of the workspace:
# the sandbox's black-box HTTP tests, the library's unit and integration tests (Rust API,
# C ABI, header freshness, wire vectors) and the C demo under valgrind.
set -euo pipefail
cd "$(dirname "$0")/.."

scripts/install-deps.sh gcc valgrind

echo "== cargo fmt --all --check"
cargo fmt --all --check

echo "== cargo test --workspace"
cargo test --workspace --locked
