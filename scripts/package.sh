#!/usr/bin/env bash
# package.sh: assemble dist/verify-<version>-<target>/, a folder a C, C++ or C# project can
# consume without the source tree:
#
#   include/verify.h, include/verify.hpp
#   lib/libverify.so, lib/libverify.a           (verify.dll + verify.dll.lib, verify.lib on Windows)
#   lib/pkgconfig/verify.pc                     pkg-config --cflags --libs verify          (shared)
#   lib/pkgconfig/verify-static.pc              pkg-config --cflags --libs verify-static   (static)
#   lib/cmake/verify/verifyConfig.cmake         find_package(verify) -> verify::verify, verify::verify_static
#   lib/cmake/verify/verifyConfigVersion.cmake  same major version, same pointer size
#   bin/verify-sandbox                          the sandbox, with its web console inside
#   bindings/csharp/Verify.cs
#   README.md
#
# The CMake and pkg-config files are written by CMake's own CMakePackageConfigHelpers from
# the templates in scripts/package/ (cmake must be installed: scripts/install-deps.sh cmake).
#
# Usage: scripts/package.sh [--profile release|debug] [--out DIR] [--no-build] [--from DIR]
#   --profile   Cargo profile to build and package (default: release)
#   --out       parent folder of the package (default: dist)
#   --no-build  package what target/<profile> already holds
#   --from DIR  take libverify.so and libverify.a from DIR (implies --no-build; the tests
#               pass target/debug/deps, where `cargo test` writes them); verify-sandbox is
#               taken from DIR or its parent
# The build is the one scripts/demo.sh runs (`cargo build --release -p verify -p
# verify-sandbox`), so after the demo the release package builds nothing again.
# Prints the package folder's path as its last line.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."

profile=release
out=dist
build=1
from=""
while [ "$#" -gt 0 ]; do
    case "$1" in
        --profile) profile=${2:?--profile needs a value}; shift 2 ;;
        --out) out=${2:?--out needs a value}; shift 2 ;;
        --no-build) build=0; shift ;;
        --from) from=${2:?--from needs a value}; build=0; shift 2 ;;
        *) echo "package.sh: unknown argument $1 (see the comment at the top)" >&2; exit 2 ;;
    esac
done
case "$profile" in
    release) target_dir=${CARGO_TARGET_DIR:-target}/release; cargo_profile=release ;;
    debug) target_dir=${CARGO_TARGET_DIR:-target}/debug; cargo_profile=dev ;;
    *) echo "package.sh: --profile is release or debug" >&2; exit 2 ;;
esac

if [ -n "$from" ]; then
    target_dir=$from
fi

if [ "$build" = 1 ]; then
    cargo build --profile "$cargo_profile" -p verify -p verify-sandbox
fi

version=$(sed -n 's/^version = "\(.*\)"$/\1/p' Cargo.toml | head -n 1)
triple=$(rustc -vV | sed -n 's/^host: //p')
pkg="$out/verify-$version-$triple"

for file in libverify.so libverify.a; do
    if [ ! -f "$target_dir/$file" ]; then
        echo "package.sh: $target_dir/$file is missing: build first (or drop --no-build)" >&2
        exit 1
    fi
done
sandbox_bin=""
for candidate in "$target_dir/verify-sandbox" "$target_dir/../verify-sandbox"; do
    if [ -f "$candidate" ]; then
        sandbox_bin=$candidate
        break
    fi
done
if [ -z "$sandbox_bin" ]; then
    echo "package.sh: $target_dir/verify-sandbox is missing: build it first (cargo build -p verify-sandbox)" >&2
    exit 1
fi
if ! command -v cmake >/dev/null 2>&1; then
    echo "package.sh: cmake is needed to write the CMake package files: scripts/install-deps.sh cmake" >&2
    exit 1
fi

rm -rf "$pkg"
mkdir -p "$pkg/include" "$pkg/lib/pkgconfig" "$pkg/lib/cmake/verify" "$pkg/bindings/csharp" "$pkg/bin"
cp include/verify.h include/verify.hpp "$pkg/include/"
cp "$target_dir/libverify.so" "$target_dir/libverify.a" "$pkg/lib/"
cp "$sandbox_bin" "$pkg/bin/verify-sandbox"
cp bindings/csharp/Verify.cs "$pkg/bindings/csharp/"
cp README.md "$pkg/README.md"

# CMake and pkg-config files, from CMake's helpers (a configure run; nothing is built).
pkg_abs=$(cd "$pkg" && pwd)
cmake_work=$(mktemp -d "${TMPDIR:-/tmp}/verify-package.XXXXXX")
trap 'rm -rf "$cmake_work"' EXIT
if ! cmake -S scripts/package -B "$cmake_work" \
        -DVERIFY_VERSION="$version" -DVERIFY_PACKAGE="$pkg_abs" >"$cmake_work.log" 2>&1; then
    cat "$cmake_work.log" >&2
    rm -f "$cmake_work.log"
    echo "package.sh: cmake could not write the package files" >&2
    exit 1
fi
rm -f "$cmake_work.log"

echo "package.sh: assembled $pkg"
echo "$pkg"
