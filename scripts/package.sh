#!/usr/bin/env bash
# package.sh: assemble dist/verify-<version>-<target>/, a folder a C, C++ or C# project can
# consume without the source tree:
#
#   include/verify.h, include/verify.hpp, include/verify/ (the C++ headers it includes)
#   lib/libverify.so, lib/libverify.a           (libverify.dylib on macOS; Windows:
#                                               scripts/package-windows.sh)
#   lib/pkgconfig/verify.pc                     pkg-config --cflags --libs verify          (shared)
#   lib/pkgconfig/verify-static.pc              pkg-config --cflags --libs verify-static   (static)
#   lib/cmake/verify/verifyConfig.cmake         find_package(verify) -> verify::verify, verify::verify_static
#   lib/cmake/verify/verifyConfigVersion.cmake  same major version, same pointer size
#   bin/verify-sandbox                          the sandbox, with its web console inside (when
#                                               built for the package's target: not in a
#                                               cross-built package)
#   bindings/csharp/Verify.cs                   the C# binding as one file (scripts/build-csharp.sh)
#   README.md, README.zh-CN.md, SECURITY.md, LICENSE-MIT, LICENSE-APACHE
#   docs/*.md, docs/zh-CN/*.md (every page README links to: the FAQ, hardening, offline ...)
#   SHA256SUMS                                  the SHA-256 of lib/libverify.so (.dylib) and
#                                               lib/libverify.a (scripts/sha256sums.sh)
#   THIRD-PARTY-NOTICES                         the notices and licences of the crates built
#                                               into the library and the sandbox
#                                               (scripts/notices.sh --with-sandbox)
#
# The CMake and pkg-config files are written by CMake's own CMakePackageConfigHelpers from
# the templates in scripts/package/ (cmake must be installed: scripts/install-deps.sh cmake).
#
# Usage: scripts/package.sh [--profile release|debug] [--target TRIPLE] [--out DIR]
#                           [--no-build] [--from DIR]
#   --profile   Cargo profile to build and package (default: release)
#   --target    the Rust target of the package (default: this machine's): for example
#               aarch64-unknown-linux-gnu (Linux ARM64: built by scripts/build-arm64.sh,
#               release only) or aarch64-apple-darwin / x86_64-apple-darwin (macOS: give the
#               folder of a libverify.dylib built on a Mac with --from)
#   --out       parent folder of the package (default: dist)
#   --no-build  package what target/[TRIPLE/]<profile> already holds
#   --from DIR  take the libraries from DIR (implies --no-build; the tests pass
#               target/debug/deps, where `cargo test` writes them); verify-sandbox is taken
#               from DIR or its parent when it is there
# The build is the one scripts/demo.sh runs (`cargo build --release -p verify -p
# verify-sandbox`), so after the demo the release package builds nothing again.
# Prints the package folder's path as its last line.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."

profile=release
out=dist
build=1
from=""
host=$(rustc -vV | sed -n 's/^host: //p')
triple=$host
while [ "$#" -gt 0 ]; do
    case "$1" in
        --profile) profile=${2:?--profile needs a value}; shift 2 ;;
        --target) triple=${2:?--target needs a value}; shift 2 ;;
        --out) out=${2:?--out needs a value}; shift 2 ;;
        --no-build) build=0; shift ;;
        --from) from=${2:?--from needs a value}; build=0; shift 2 ;;
        *) echo "package.sh: unknown argument $1 (see the comment at the top)" >&2; exit 2 ;;
    esac
done
case "$profile" in
    release) cargo_profile=release ;;
    debug) cargo_profile=dev ;;
    *) echo "package.sh: --profile is release or debug" >&2; exit 2 ;;
esac
target_root=${CARGO_TARGET_DIR:-target}
if [ "$triple" = "$host" ]; then
    target_dir=$target_root/$profile
else
    target_dir=$target_root/$triple/$profile
fi
# The shared library's name on the target's system.
case "$triple" in
    *-apple-darwin) shared=libverify.dylib ;;
    *-linux-*) shared=libverify.so ;;
    *-windows-*) echo "package.sh: for Windows use scripts/package-windows.sh" >&2; exit 2 ;;
    *) echo "package.sh: no package layout for $triple" >&2; exit 2 ;;
esac

if [ -n "$from" ]; then
    target_dir=$from
fi

if [ "$build" = 1 ]; then
    case "$triple" in
        "$host") cargo build --profile "$cargo_profile" -p verify -p verify-sandbox ;;
        aarch64-unknown-linux-gnu)
            [ "$profile" = release ] || { echo "package.sh: scripts/build-arm64.sh builds release only" >&2; exit 2; }
            scripts/build-arm64.sh > /dev/null ;;
        *) echo "package.sh: this script does not build $triple: build it, then --from DIR" >&2; exit 2 ;;
    esac
fi

version=$(sed -n 's/^version = "\(.*\)"$/\1/p' Cargo.toml | head -n 1)
pkg="$out/verify-$version-$triple"

for file in "$shared" libverify.a; do
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
if [ -z "$sandbox_bin" ] && [ "$triple" = "$host" ]; then
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
cp -R include/verify "$pkg/include/"
cp "$target_dir/$shared" "$target_dir/libverify.a" "$pkg/lib/"
if [ -n "$sandbox_bin" ]; then
    cp "$sandbox_bin" "$pkg/bin/verify-sandbox"
else
    rmdir "$pkg/bin"
fi
scripts/build-csharp.sh --drop-in-only --out "$pkg/bindings/csharp" > /dev/null
cp README.md README.zh-CN.md LICENSE-MIT LICENSE-APACHE "$pkg/"
mkdir -p "$pkg/docs/zh-CN"
cp docs/*.md "$pkg/docs/"
cp docs/zh-CN/*.md "$pkg/docs/zh-CN/"
cp SECURITY.md "$pkg/"
# The SHA-256 of each library, for programs that check the file before loading it.
scripts/sha256sums.sh "$pkg" "lib/$shared" lib/libverify.a
scripts/notices.sh --with-sandbox "$pkg/THIRD-PARTY-NOTICES" > /dev/null

# CMake and pkg-config files, from CMake's helpers (a configure run; nothing is built).
pkg_abs=$(cd "$pkg" && pwd)
cmake_work=$(mktemp -d "${TMPDIR:-/tmp}/verify-package.XXXXXX")
trap 'rm -rf "$cmake_work"' EXIT
# The system libraries the static library needs on the target's system (verify-static.pc).
case "$triple" in
    *-apple-darwin) static_libs="-framework Security -framework IOKit -framework CoreFoundation -liconv" ;;
    *) static_libs="-lpthread -ldl -lm" ;;
esac
if ! cmake -S scripts/package -B "$cmake_work" \
        -DVERIFY_VERSION="$version" -DVERIFY_PACKAGE="$pkg_abs" \
        -DVERIFY_STATIC_LIBS="$static_libs" >"$cmake_work.log" 2>&1; then
    cat "$cmake_work.log" >&2
    rm -f "$cmake_work.log"
    echo "package.sh: cmake could not write the package files" >&2
    exit 1
fi
rm -f "$cmake_work.log"

echo "package.sh: assembled $pkg"
echo "$pkg"
