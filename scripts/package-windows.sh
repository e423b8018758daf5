#!/usr/bin/env bash
# package-windows.sh: assemble the Windows package folder and the NuGet package.
#
#   dist/verify-<version>-windows/
#     windows-x64/bin/verify.dll            the DLL (x86-64)
#     windows-x64/lib/libverify.dll.a       import library for mingw-w64 (gcc, clang)
#     windows-x64/lib/verify.lib            import library for MSVC (link.exe, lld-link)
#     windows-x64/lib/verify.def            the exports
#     windows-x64/include/verify.h, verify.hpp, verify/ (the C++ headers)
#     windows-x86/...                       the same for 32-bit Windows (stdcall)
#     bindings/csharp/Verify.cs             the C# binding as one file (scripts/build-csharp.sh)
#     bindings/easy/verify.e.txt, 例子.e.txt  易语言: every DLL command and constant (generated),
#                                           and the example
#     bindings/vb6/verify.bas, Example.bas  VB6: every Declare, Enum and Const (generated), and
#                                           the example
#     docs/windows.md  docs/windows.zh-CN.md  README.md  README.zh-CN.md
#     LICENSE-MIT  LICENSE-APACHE
#     docs/*.md  docs/zh-CN/*.md  SECURITY.md  (every page the READMEs link to)
#     SHA256SUMS                            the SHA-256 of each verify.dll (scripts/sha256sums.sh)
#     THIRD-PARTY-NOTICES                   the notices and licences of the crates and of the
#                                           mingw-w64 runtime built into the DLLs
#                                           (scripts/notices.sh --windows): ship it with them
#     nuget/VerifySdk.<version>.nupkg       scripts/package-nuget.sh: the compiled binding
#                                           (lib/net47), runtimes/win-x64, win-x86, linux-x64,
#                                           linux-arm64
#   dist/verify-<version>-windows.zip       the same folder as one zip (what a 易语言 or VB6
#                                           user downloads)
#
# Usage: scripts/package-windows.sh [--out DIR] [--no-build] [--linux-lib FILE]
#                                   [--linux-arm64-lib FILE] [--no-nuget]
#   --out              parent folder of the package (default: dist)
#   --no-build         take target/windows/ as it is (scripts/build-windows.sh made it)
#   --linux-lib        the libverify.so for runtimes/linux-x64 (default: a release build,
#                      target/release/libverify.so); it is stripped into the package
#   --linux-arm64-lib  the libverify.so for runtimes/linux-arm64 (default: the release build
#                      of scripts/build-arm64.sh, target/aarch64-unknown-linux-gnu/release/,
#                      built when missing); stripped into the package
#   --no-nuget         no NuGet package
# The Windows DLLs come from scripts/build-windows.sh (mingw-w64; it installs what it needs);
# the NuGet package from scripts/package-nuget.sh (see there). Prints the package folder's
# path as its last line.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."

out=dist
build=1
linux_lib=""
linux_arm64_lib=""
nuget=1
while [ "$#" -gt 0 ]; do
    case "$1" in
        --out) out=${2:?--out needs a value}; shift 2 ;;
        --no-build) build=0; shift ;;
        --linux-lib) linux_lib=${2:?--linux-lib needs a value}; shift 2 ;;
        --linux-arm64-lib) linux_arm64_lib=${2:?--linux-arm64-lib needs a value}; shift 2 ;;
        --no-nuget) nuget=0; shift ;;
        *) echo "package-windows.sh: unknown argument $1 (see the comment at the top)" >&2; exit 2 ;;
    esac
done

say() { echo "package-windows: $*"; }
fail() { echo "package-windows: ERROR: $*" >&2; exit 1; }

target_root=${CARGO_TARGET_DIR:-target}
windows=$target_root/windows
if [ "$build" = 1 ]; then
    scripts/build-windows.sh
fi
for arch in x64 x86; do
    for file in verify.dll libverify.dll.a verify.def; do
        [ -f "$windows/$arch/$file" ] || fail "$windows/$arch/$file is missing: run scripts/build-windows.sh"
    done
done

version=$(sed -n 's/^version = "\(.*\)"$/\1/p' Cargo.toml | head -n 1)
pkg=$out/verify-$version-windows
rm -rf "$pkg"
mkdir -p "$pkg"

for arch in x64 x86; do
    dir=$pkg/windows-$arch
    mkdir -p "$dir/bin" "$dir/lib" "$dir/include"
    cp "$windows/$arch/verify.dll" "$dir/bin/"
    cp "$windows/$arch/libverify.dll.a" "$windows/$arch/verify.def" "$dir/lib/"
    if [ -f "$windows/$arch/verify.lib" ]; then
        cp "$windows/$arch/verify.lib" "$dir/lib/"
    fi
    cp include/verify.h include/verify.hpp "$dir/include/"
    cp -R include/verify "$dir/include/"
done
mkdir -p "$pkg/bindings/csharp" "$pkg/bindings/easy" "$pkg/bindings/vb6" "$pkg/docs"
scripts/build-csharp.sh --drop-in-only --out "$pkg/bindings/csharp" > /dev/null
cp bindings/easy/verify.e.txt bindings/easy/例子.e.txt "$pkg/bindings/easy/"
cp bindings/vb6/verify.bas bindings/vb6/Example.bas "$pkg/bindings/vb6/"
cp docs/windows.md docs/windows.zh-CN.md "$pkg/docs/"
cp README.md README.zh-CN.md LICENSE-MIT LICENSE-APACHE "$pkg/"
mkdir -p "$pkg/docs/zh-CN"
cp docs/*.md "$pkg/docs/"
cp docs/zh-CN/*.md "$pkg/docs/zh-CN/"
cp SECURITY.md "$pkg/"
# The SHA-256 of each DLL: a program hard-codes the one it ships and checks the file before
# its first call (docs/hardening.md).
scripts/sha256sums.sh "$pkg" windows-x64/bin/verify.dll windows-x86/bin/verify.dll
scripts/notices.sh --windows "$pkg/THIRD-PARTY-NOTICES" > /dev/null

if [ "$nuget" = 1 ]; then
    args=(--out "$pkg/nuget" --windows "$windows")
    if [ -n "$linux_lib" ]; then
        args+=(--linux-lib "$linux_lib")
    fi
    if [ -n "$linux_arm64_lib" ]; then
        args+=(--linux-arm64-lib "$linux_arm64_lib")
    fi
    scripts/package-nuget.sh "${args[@]}" >/dev/null
fi

# The folder as one zip beside it (zip from scripts/install-deps.sh zip); UTF-8 names
# (例子.e.txt) are stored as such.
scripts/install-deps.sh zip >&2
rm -f "$pkg.zip"
(cd "$(dirname "$pkg")" && zip -qr "$(basename "$pkg").zip" "$(basename "$pkg")")

echo "$pkg"
