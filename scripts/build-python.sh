#!/usr/bin/env bash
# build-python.sh: build the Python package `verify-sdk` (bindings/python, import `verify`):
# wheels that carry the native library, and the source distribution.
#
#   scripts/build-python.sh                  this machine's wheel: the library built by
#                                            `cargo build --release -p verify`, tagged for this
#                                            platform (linux_x86_64, macosx_11_0_arm64, win_amd64
#                                            ...); prints the wheel's path last, so that
#                                            `pip install "$(scripts/build-python.sh)"` installs it
#   scripts/build-python.sh --debug          the same with the debug library (quicker to build)
#   scripts/build-python.sh all              every release wheel and the sdist (the targets below)
#   scripts/build-python.sh TARGET...        some of them (the names below)
#   scripts/build-python.sh --library FILE --platform TAG
#                                            one wheel of a library built elsewhere, tagged
#                                            py3-none-TAG (tests/python/python.rs: the debug build,
#                                            as linux_x86_64: a tag that claims no manylinux)
#   --out DIR                                with any of these: the wheels go to DIR
#                                            (default target/python/dist)
#
# Targets of a release:
#   linux-x86_64   libverify.so built by cargo-zigbuild against glibc 2.17
#                  (--target x86_64-unknown-linux-gnu.2.17), tagged
#                  manylinux_2_17_x86_64.manylinux2014_x86_64; `auditwheel show` must find
#                  the wheel consistent with that tag, or the script fails
#   linux-aarch64  the same for aarch64-unknown-linux-gnu.2.17 (manylinux_2_17_aarch64)
#   win-amd64      target/windows/x64/verify.dll, tagged win_amd64
#   win32          target/windows/x86/verify.dll (stdcall exports), tagged win32
#                  (both DLLs from scripts/build-windows.sh, run when one is missing)
#   sdist          verify_sdk-VERSION.tar.gz: no library; it is found through the variable
#                  VERIFY_LIBRARY (bindings/python/README.md)
#
# Every wheel is py3-none-PLATFORM: the package is ctypes over the C ABI, so one wheel serves
# every CPython from 3.8 on. This machine's wheel needs only cargo and python3 (with venv); a
# Linux one is tagged linux_*, not manylinux: its library is linked against this machine's
# glibc, so it is for this machine (the release's manylinux wheels are `linux-x86_64`). The
# zigbuild builds go to target/python/cargo (their own target folder: the glibc-2.17
# libraries must not replace the host's or build-arm64.sh's). Tools: a venv at
# target/python/tools with setuptools, wheel, build and auditwheel from PyPI; zig and
# cargo-zigbuild from the venv of scripts/check-macos.sh (under ~/.cache/verify).
# CARGO_TARGET_DIR is honoured. Prints the wheel's path (this machine's) or the folder of the
# wheels last.
set -euo pipefail
caller=$PWD
cd "$(dirname "${BASH_SOURCE[0]}")/.."

say() { echo "build-python: $*" >&2; }
fail() { echo "build-python: ERROR: $*" >&2; exit 1; }

library=
platform=
profile=release
out=
targets=()
while [ "$#" -gt 0 ]; do
    case "$1" in
        --library) library=${2:?--library needs a file}; shift 2 ;;
        --platform) platform=${2:?--platform needs a tag}; shift 2 ;;
        --debug) profile=debug; shift ;;
        --out) out=${2:?--out needs a folder}; shift 2 ;;
        all) targets+=(linux-x86_64 linux-aarch64 win-amd64 win32 sdist); shift ;;
        linux-x86_64|linux-aarch64|win-amd64|win32|sdist) targets+=("$1"); shift ;;
        -h|--help) sed -n '2,/^set -euo/p' "$0" | sed '$d'; exit 0 ;;
        *) echo "build-python.sh: unknown argument $1 (try --help)" >&2; exit 2 ;;
    esac
done
if [ -n "$library" ] || [ -n "$platform" ]; then
    [ -n "$library" ] && [ -n "$platform" ] || fail "--library and --platform go together"
    [ "${#targets[@]}" = 0 ] || fail "--library builds one wheel: no targets with it"
fi
if [ "$profile" = debug ] && { [ "${#targets[@]}" != 0 ] || [ -n "$library" ]; }; then
    fail "--debug builds this machine's wheel only: no targets or --library with it"
fi

target_root=${CARGO_TARGET_DIR:-target}
case "$target_root" in /*) ;; *) target_root=$PWD/$target_root ;; esac
work=$target_root/python
dist=${out:-$work/dist}
case "$dist" in /*) ;; *) dist=$caller/$dist ;; esac
tools=$work/tools
mkdir -p "$dist" "$work"

# --- tools ---------------------------------------------------------------------------------

(
    flock 9
    if ! "$tools/bin/python3" -c 'import setuptools, wheel, build, auditwheel' 2>/dev/null; then
        scripts/install-deps.sh venv >&2
        say "installing setuptools, wheel, build and auditwheel from PyPI into $tools"
        rm -rf "$tools"
        python3 -m venv "$tools"
        "$tools/bin/python3" -m pip install --quiet --disable-pip-version-check \
            "setuptools>=77" "wheel>=0.42" build auditwheel >&2
    fi
) 9> "$work/.tools.lock"
py=$tools/bin/python3

# The notices and licences of the crates in the library, in every wheel and the sdist
# (pyproject.toml's license-files: .dist-info/licenses/).
notices=$(scripts/notices.sh "$work/THIRD-PARTY-NOTICES" | tail -n 1)
# A Windows wheel's also name the mingw-w64 runtime the linker put into verify.dll
# (scripts/notices.sh --windows, in stage below).

version=$(sed -n 's/^version = "\(.*\)"$/\1/p' bindings/python/pyproject.toml | head -n 1)
crate_version=$(sed -n 's/^version = "\(.*\)"$/\1/p' Cargo.toml | head -n 1)
[ "$version" = "$crate_version" ] ||
    fail "bindings/python/pyproject.toml has version $version, Cargo.toml $crate_version"

# stage LIBRARY: a copy of the package with LIBRARY (or none) in its folder; prints its path.
stage() {
    local lib=$1 dir
    dir=$(mktemp -d "$work/stage.XXXXXX")
    cp -r bindings/python/. "$dir/"
    cp LICENSE-MIT LICENSE-APACHE "$dir/"
    case "$lib" in
        *.dll) scripts/notices.sh --windows "$dir/THIRD-PARTY-NOTICES" > /dev/null ;;
        *) cp "$notices" "$dir/THIRD-PARTY-NOTICES" ;;
    esac
    rm -rf "$dir/build" "$dir"/src/*.egg-info "$dir"/src/verify/libverify.so \
        "$dir"/src/verify/verify.dll "$dir"/src/verify/libverify.dylib
    find "$dir" -name __pycache__ -prune -exec rm -rf {} +
    if [ -n "$lib" ]; then
        cp "$lib" "$dir/src/verify/"
    fi
    echo "$dir"
}

# wheel LIBRARY PLATFORM: builds the wheel carrying LIBRARY, tagged py3-none-PLATFORM, into
# $dist; prints its path.
wheel() {
    local lib=$1 plat=$2 dir built tagged
    [ -f "$lib" ] || fail "no library at $lib"
    dir=$(stage "$lib")
    "$py" -m build --wheel --no-isolation --outdir "$dir/out" "$dir" > "$dir/build.log" 2>&1 ||
        { cat "$dir/build.log" >&2; fail "the wheel for $plat does not build"; }
    built=$(ls "$dir"/out/*.whl)
    tagged=$("$py" -m wheel tags --remove --python-tag py3 --abi-tag none --platform-tag "$plat" "$built")
    mv -f "$dir/out/$tagged" "$dist/"
    rm -rf "$dir"
    "$py" - "$dist/$tagged" "$(basename "$lib")" <<'EOF' || fail "$tagged does not carry its library"
import sys, zipfile
names = zipfile.ZipFile(sys.argv[1]).namelist()
assert "verify/" + sys.argv[2] in names, names
assert "verify/py.typed" in names and "verify/_generated/results.py" in names, names
assert "verify/verify.nuitka-package.config.yml" in names, names
assert "verify/__pyinstaller/hook-verify.py" in names, names
assert any(n.endswith(".dist-info/licenses/THIRD-PARTY-NOTICES") for n in names), names
EOF
    say "built $dist/$tagged"
    echo "$dist/$tagged"
}

# zigbuild TRIPLE: libverify.so for TRIPLE (with a glibc version) into target/python/cargo;
# prints its path.
zigbuild() {
    local triple=$1 base=${1%%.*} tool
    tool=$(scripts/check-macos.sh --tools | tail -n 1)
    say "running: cargo-zigbuild build --release --locked --target $triple -p verify --lib"
    env "${tool% *}" CARGO_TARGET_DIR="$work/cargo" "${tool##* }" build --release --locked \
        --target "$triple" -p verify --lib >&2
    echo "$work/cargo/$base/release/libverify.so"
}

# auditwheel_check WHEEL TAG: `auditwheel show` must find WHEEL consistent with TAG.
auditwheel_check() {
    local report
    report=$("$tools/bin/auditwheel" show "$1" 2>&1) || { echo "$report" >&2; fail "auditwheel show $1 failed"; }
    echo "$report" >&2
    echo "$report" | tr -s ' \n' ' ' | grep -q "consistent with the following platform tag: \"$2\"" ||
        fail "auditwheel does not find $(basename "$1") consistent with $2"
}

windows_dll() {
    local arch=$1
    if [ ! -f "$target_root/windows/$arch/verify.dll" ]; then
        say "running: scripts/build-windows.sh"
        scripts/build-windows.sh >&2
    fi
    echo "$target_root/windows/$arch/verify.dll"
}

if [ -n "$library" ]; then
    wheel "$library" "$platform" > /dev/null
    echo "$dist"
    exit 0
fi

# This machine's wheel: the library of a plain cargo build, tagged with this Python's platform.
if [ "${#targets[@]}" = 0 ]; then
    host_platform=$("$py" -c 'import sysconfig; print(sysconfig.get_platform().replace("-", "_").replace(".", "_"))')
    case "$host_platform" in
        win*) host_library=verify.dll ;;
        macosx*) host_library=libverify.dylib ;;
        *) host_library=libverify.so ;;
    esac
    flags=(-p verify --lib)
    [ "$profile" = release ] && flags=(--release "${flags[@]}")
    say "running: cargo build ${flags[*]}"
    cargo build "${flags[@]}" >&2
    wheel "$target_root/$profile/$host_library" "$host_platform"
    exit 0
fi

for target in "${targets[@]}"; do
    case "$target" in
        linux-x86_64)
            so=$(zigbuild x86_64-unknown-linux-gnu.2.17)
            built=$(wheel "$so" manylinux_2_17_x86_64.manylinux2014_x86_64)
            auditwheel_check "$built" manylinux_2_17_x86_64
            ;;
        linux-aarch64)
            rustup target list --installed | grep -qx aarch64-unknown-linux-gnu ||
                rustup target add aarch64-unknown-linux-gnu >&2
            so=$(zigbuild aarch64-unknown-linux-gnu.2.17)
            built=$(wheel "$so" manylinux_2_17_aarch64.manylinux2014_aarch64)
            auditwheel_check "$built" manylinux_2_17_aarch64
            ;;
        win-amd64) wheel "$(windows_dll x64)" win_amd64 > /dev/null ;;
        win32) wheel "$(windows_dll x86)" win32 > /dev/null ;;
        sdist)
            dir=$(stage "")
            "$py" -m build --sdist --no-isolation --outdir "$dist" "$dir" > "$dir/build.log" 2>&1 ||
                { cat "$dir/build.log" >&2; fail "the sdist does not build"; }
            rm -rf "$dir"
            say "built $dist/verify_sdk-$version.tar.gz"
            ;;
    esac
done
echo "$dist"
