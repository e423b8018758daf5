#!/usr/bin/env bash
# package-windows.sh: assemble the Windows package folder and the NuGet package.
#
#   dist/verify-<version>-windows/
#     windows-x64/bin/verify.dll            the DLL (x86-64)
#     windows-x64/lib/libverify.dll.a       import library for mingw-w64 (gcc, clang)
#     windows-x64/lib/verify.lib            import library for MSVC (link.exe, lld-link)
#     windows-x64/lib/verify.def            the exports
#     windows-x64/include/verify.h, verify.hpp
#     windows-x86/...                       the same for 32-bit Windows (stdcall)
#     bindings/csharp/Verify.cs
#     docs/windows.md  README.md
#     nuget/VerifySdk.<version>.nupkg       runtimes/win-x64, win-x86, linux-x64, linux-arm64
#                                           + Verify.cs
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
# the NuGet package is made by Debian's `nuget pack` (Mono; scripts/install-deps.sh nuget)
# from bindings/nuget/VerifySdk.nuspec. Prints the package folder's path as its last line.
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
done
mkdir -p "$pkg/bindings/csharp" "$pkg/docs"
cp bindings/csharp/Verify.cs "$pkg/bindings/csharp/"
cp docs/windows.md "$pkg/docs/"
cp README.md "$pkg/"

if [ "$nuget" = 1 ]; then
    scripts/install-deps.sh nuget
    if [ -z "$linux_lib" ]; then
        say "running: cargo build --release --locked -p verify -p verify-sandbox (the demo's build)"
        cargo build --release --locked -p verify -p verify-sandbox
        linux_lib=$target_root/release/libverify.so
    fi
    [ -f "$linux_lib" ] || fail "$linux_lib is missing"
    if [ -z "$linux_arm64_lib" ]; then
        linux_arm64_lib=$(scripts/build-arm64.sh)/libverify.so
    fi
    [ -f "$linux_arm64_lib" ] || fail "$linux_arm64_lib is missing"
    stage=$(mktemp -d)
    trap 'rm -rf "$stage"' EXIT
    mkdir -p "$stage/runtimes/win-x64/native" "$stage/runtimes/win-x86/native" \
        "$stage/runtimes/linux-x64/native" "$stage/runtimes/linux-arm64/native"
    cp "$windows/x64/verify.dll" "$stage/runtimes/win-x64/native/"
    cp "$windows/x86/verify.dll" "$stage/runtimes/win-x86/native/"
    strip --strip-unneeded -o "$stage/runtimes/linux-x64/native/libverify.so" "$linux_lib"
    aarch64-linux-gnu-strip --strip-unneeded -o "$stage/runtimes/linux-arm64/native/libverify.so" \
        "$linux_arm64_lib"
    cp bindings/csharp/Verify.cs "$stage/"
    mkdir -p "$pkg/nuget"
    say "running: nuget pack bindings/nuget/VerifySdk.nuspec -Properties version=$version"
    # NuGet (Mono) writes its settings under $HOME/.config; keep them in the stage.
    HOME=$stage nuget pack bindings/nuget/VerifySdk.nuspec -BasePath "$stage" \
        -Properties "version=$version" -NoDefaultExcludes -NonInteractive \
        -OutputDirectory "$pkg/nuget" > "$stage/nuget.log" 2>&1 ||
        { cat "$stage/nuget.log" >&2; fail "nuget pack failed"; }
    [ -f "$pkg/nuget/VerifySdk.$version.nupkg" ] || { cat "$stage/nuget.log" >&2; fail "no .nupkg"; }
    say "$pkg/nuget/VerifySdk.$version.nupkg: $(stat -c %s "$pkg/nuget/VerifySdk.$version.nupkg") bytes"
fi

echo "$pkg"
