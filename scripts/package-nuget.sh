#!/usr/bin/env bash
# package-nuget.sh: the NuGet package VerifySdk, built on Linux.
#
#   <out>/VerifySdk.<version>.nupkg
#     lib/net47/Verify.dll, Verify.xml, Verify.dll.mdb   the compiled C# binding with its XML
#                                                       documentation and symbols
#                                                       (scripts/build-csharp.sh)
#     runtimes/win-x64/native/verify.dll                 64-bit Windows (scripts/build-windows.sh)
#     runtimes/win-x86/native/verify.dll                 32-bit Windows (stdcall)
#     runtimes/linux-x64/native/libverify.so             Linux x86-64 (the release build, stripped)
#     runtimes/linux-arm64/native/libverify.so           Linux ARM64 (scripts/build-arm64.sh, stripped)
#     README.md                                          bindings/csharp/README.md
#     LICENSE-MIT, LICENSE-APACHE                        verify's licence texts
#     THIRD-PARTY-NOTICES                                the notices and licences of the
#                                                        crates in the native libraries and
#                                                        of the mingw-w64 runtime in the
#                                                        DLLs (scripts/notices.sh --windows)
#   with its license (the expression MIT OR Apache-2.0, as Cargo.toml), its repository (git,
#   the commit it was built from, and the URL of Cargo.toml's `repository` when set) and its
#   readme in the manifest.
#
# Usage: scripts/package-nuget.sh [--this-machine] [--out DIR] [--windows DIR] [--linux-lib FILE]
#                                 [--linux-arm64-lib FILE] [--assembly DIR]
#   --this-machine     only this machine's runtime (runtimes/linux-x64 on x86-64 Linux,
#                      runtimes/linux-arm64 on ARM64 Linux: the release library built here);
#                      no Windows DLLs, no cross build: a package to try the binding on this
#                      machine in a minute or so, instead of several for every platform. Not
#                      one to ship: it names only that runtime.
#   --out              where the .nupkg goes (default: dist/nuget)
#   --windows          the output of scripts/build-windows.sh (default: ${CARGO_TARGET_DIR:-target}/windows;
#                      built when missing)
#   --linux-lib        the libverify.so for runtimes/linux-x64 (default: a release build,
#                      target/release/libverify.so; built when missing)
#   --linux-arm64-lib  the libverify.so for runtimes/linux-arm64 (default: the release build of
#                      scripts/build-arm64.sh, target/aarch64-unknown-linux-gnu/release/; built
#                      when missing)
#   --assembly         a folder with Verify.dll, Verify.xml and Verify.dll.mdb (default: built by
#                      scripts/build-csharp.sh)
# Debian's `nuget pack` (NuGet 2.8, Mono) makes the package from bindings/nuget/VerifySdk.nuspec;
# it predates the <license>, <repository> and <readme> elements, so they are added to the
# package's manifest afterwards (zip). Prints the path of the .nupkg as its last line.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."

target_root=${CARGO_TARGET_DIR:-target}
out=dist/nuget
windows=$target_root/windows
linux_lib=""
arm64_lib=""
assembly=""
this_machine=0
while [ "$#" -gt 0 ]; do
    case "$1" in
        --this-machine) this_machine=1; shift ;;
        --out) out=${2:?--out needs a value}; shift 2 ;;
        --windows) windows=${2:?--windows needs a value}; shift 2 ;;
        --linux-lib) linux_lib=${2:?--linux-lib needs a value}; shift 2 ;;
        --linux-arm64-lib) arm64_lib=${2:?--linux-arm64-lib needs a value}; shift 2 ;;
        --assembly) assembly=${2:?--assembly needs a value}; shift 2 ;;
        *) echo "package-nuget.sh: unknown argument $1 (see the comment at the top)" >&2; exit 2 ;;
    esac
done

say() { echo "package-nuget: $*" >&2; }
fail() { echo "package-nuget: ERROR: $*" >&2; exit 1; }

if [ "$this_machine" = 1 ]; then
    case "$(uname -s)-$(uname -m)" in
        Linux-x86_64) host_runtime=linux-x64 ;;
        Linux-aarch64) host_runtime=linux-arm64 ;;
        *) fail "--this-machine knows Linux on x86-64 and ARM64, not $(uname -s) $(uname -m)" ;;
    esac
    scripts/install-deps.sh nuget zip mono mono-devel >&2
else
    scripts/install-deps.sh nuget zip mono mono-devel arm64 >&2
fi
version=$(sed -n 's/^version = "\(.*\)"$/\1/p' Cargo.toml | head -n 1)
license=$(sed -n 's/^license = "\(.*\)"$/\1/p' Cargo.toml | head -n 1)
repository=$(sed -n 's/^repository = "\(.*\)"$/\1/p' Cargo.toml | head -n 1)
commit=$(git rev-parse HEAD 2>/dev/null || echo "")

if [ "$this_machine" = 0 ]; then
    if [ ! -f "$windows/x64/verify.dll" ] || [ ! -f "$windows/x86/verify.dll" ]; then
        say "no Windows DLLs in $windows: running scripts/build-windows.sh"
        scripts/build-windows.sh >&2
    fi
    for arch in x64 x86; do
        [ -f "$windows/$arch/verify.dll" ] || fail "$windows/$arch/verify.dll is missing"
    done
fi
if [ -z "$linux_lib" ]; then
    linux_lib=$target_root/release/libverify.so
    if [ ! -f "$linux_lib" ]; then
        say "running: cargo build --release --locked -p verify -p verify-sandbox (the demo's build)"
        cargo build --release --locked -p verify -p verify-sandbox >&2
    fi
fi
[ -f "$linux_lib" ] || fail "$linux_lib is missing"
if [ "$this_machine" = 0 ]; then
    if [ -z "$arm64_lib" ]; then
        say "running: scripts/build-arm64.sh (libverify.so for Linux ARM64)"
        arm64_lib=$(scripts/build-arm64.sh | tail -n 1)/libverify.so
    fi
    [ -f "$arm64_lib" ] || fail "$arm64_lib is missing"
fi

stage=$(mktemp -d)
trap 'rm -rf "$stage"' EXIT
if [ -z "$assembly" ]; then
    assembly=$stage/assembly
    scripts/build-csharp.sh --out "$assembly" >/dev/null
fi
for file in Verify.dll Verify.xml Verify.dll.mdb; do
    [ -f "$assembly/$file" ] || fail "$assembly/$file is missing"
done

mkdir -p "$stage/lib/net47"
cp "$assembly/Verify.dll" "$assembly/Verify.xml" "$assembly/Verify.dll.mdb" "$stage/lib/net47/"
if [ "$this_machine" = 1 ]; then
    mkdir -p "$stage/runtimes/$host_runtime/native"
    strip --strip-unneeded -o "$stage/runtimes/$host_runtime/native/libverify.so" "$linux_lib"
    say "this machine's runtime only: runtimes/$host_runtime"
else
    mkdir -p "$stage/runtimes/win-x64/native" "$stage/runtimes/win-x86/native" \
        "$stage/runtimes/linux-x64/native" "$stage/runtimes/linux-arm64/native"
    cp "$windows/x64/verify.dll" "$stage/runtimes/win-x64/native/"
    cp "$windows/x86/verify.dll" "$stage/runtimes/win-x86/native/"
    strip --strip-unneeded -o "$stage/runtimes/linux-x64/native/libverify.so" "$linux_lib"
    aarch64-linux-gnu-strip --strip-unneeded -o "$stage/runtimes/linux-arm64/native/libverify.so" "$arm64_lib"
fi
cp bindings/csharp/README.md "$stage/README.md"
cp LICENSE-MIT LICENSE-APACHE "$stage/"
# With the Windows DLLs, the notices of what the mingw-w64 linker put into them too.
notices_scope=(--windows)
[ "$this_machine" = 1 ] && notices_scope=()
scripts/notices.sh "${notices_scope[@]}" "$stage/THIRD-PARTY-NOTICES" > /dev/null

mkdir -p "$out"
nupkg=$(cd "$out" && pwd)/VerifySdk.$version.nupkg
rm -f "$nupkg"
say "running: nuget pack bindings/nuget/VerifySdk.nuspec -Properties version=$version"
# NuGet (Mono) writes its settings under $HOME/.config; keep them in the stage.
HOME=$stage nuget pack bindings/nuget/VerifySdk.nuspec -BasePath "$stage" \
    -Properties "version=$version" -NoDefaultExcludes -NonInteractive \
    -OutputDirectory "$out" > "$stage/nuget.log" 2>&1 ||
    { cat "$stage/nuget.log" >&2; fail "nuget pack failed"; }
[ -f "$nupkg" ] || { cat "$stage/nuget.log" >&2; fail "no $nupkg"; }

# The manifest's newer elements, which NuGet 2.8 cannot pack but every client reads (NuGet 2.8
# ignores them when it restores).
mkdir "$stage/manifest"
(cd "$stage/manifest" && unzip -q "$nupkg" VerifySdk.nuspec)
repository_line="<repository type=\"git\""
[ -n "$repository" ] && repository_line="$repository_line url=\"$repository\""
[ -n "$commit" ] && repository_line="$repository_line commit=\"$commit\""
repository_line="$repository_line />"
sed -i "s|^\(\s*\)<requireLicenseAcceptance>|\1<license type=\"expression\">$license</license>\n\1$repository_line\n\1<readme>README.md</readme>\n&|" \
    "$stage/manifest/VerifySdk.nuspec"
grep -q '<license type="expression">' "$stage/manifest/VerifySdk.nuspec" || fail "the license was not added"
(cd "$stage/manifest" && zip -q "$nupkg" VerifySdk.nuspec)
say "$nupkg: $(stat -c %s "$nupkg") bytes"
echo "$nupkg"
