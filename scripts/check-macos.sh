#!/usr/bin/env bash
# check-macos.sh: compile the verify C library for macOS on Linux, without a Mac or Apple's
# SDK: `cargo-zigbuild check` for both Apple targets, then a link check of libverify.dylib
# against framework stubs made from the library's own undefined symbols.
#
#   scripts/check-macos.sh                    both targets: aarch64-apple-darwin (arm64) and
#                                             x86_64-apple-darwin
#   scripts/check-macos.sh --target TRIPLE    one of them
#   scripts/check-macos.sh --tools            only install the tools; print how to use them
#
# Tools, installed when missing and reused afterwards (a second run pays nothing), under
# $VERIFY_TOOLS_DIR (default ${XDG_CACHE_HOME:-~/.cache}/verify):
#   ziglang-0.16.0/            a Python venv with zig from PyPI (`ziglang`; python3 with venv:
#                              scripts/install-deps.sh venv) and the cargo-zigbuild crate's
#                              release build from PyPI (`cargo-zigbuild` 0.24.1: the same
#                              crate as on crates.io, built by its authors; compiling it with
#                              `cargo install` would cost a fresh machine about 3 minutes)
# and, with rustup, the Rust targets aarch64-apple-darwin and x86_64-apple-darwin and the
# component llvm-tools (llvm-nm, llvm-objdump: they read Mach-O files; rust-lld is Rust's).
#
# For each target (debug profile: the link is what is checked, and debug costs half):
#   1. cargo-zigbuild check --locked --target TRIPLE -p verify
#   2. cargo-zigbuild rustc --locked --target TRIPLE -p verify --lib --crate-type staticlib
#      -> target/TRIPLE/debug/libverify.a, and rustc's list of the native libraries and
#      frameworks it needs (--print native-static-libs)
#   3. a stand-in SDK, target/macos-sdk/TRIPLE/: zig's libSystem.tbd (libc, libm), and a
#      text-based stub (TAPI v4 .tbd) for each other library and framework of that list,
#      exporting the symbols that the static library leaves undefined and that belong to it
#      by name (CoreFoundation: CF..., kCF...; Security: Sec..., kSec..., SSL..., CMS...,
#      Authorization...; IOKit: IO..., kIO... (machine code v2's platform serial); libiconv:
#      iconv...)
#   4. cargo-zigbuild rustc --locked --target TRIPLE -p verify --lib --crate-type cdylib
#      -- -C linker=rust-lld -C linker-flavor=ld64.lld -C link-arg=-syslibroot SDK
#      -> target/TRIPLE/debug/libverify.dylib; the link is Rust's own ld64-compatible lld,
#      which honours rustc's list of exported symbols as Apple's ld64 does (zig's Mach-O
#      linker ignores the list, and would export every Rust symbol)
# build.rs gives the dylib its install name (@rpath/libverify.dylib) and its minimum macOS
# version (11.0 on arm64, 10.12 on x86-64, unless MACOSX_DEPLOYMENT_TARGET says otherwise);
# tests/platforms/macos.rs checks both and the exports on the linked dylibs.
#
# What this proves and what it does not: docs/platforms.md. In short, the code compiles for
# macOS and links into a dylib whose every undefined symbol is one of libSystem (zig's stub)
# or of the three frameworks; the frameworks' symbols are not checked against Apple's SDK, the
# linker is lld, not Apple's, and nothing runs on a Mac.
#
# Prints the folder of each target's libverify.dylib, one a line, last.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."

zig_version=0.16.0
zigbuild_version=0.24.1
targets=(aarch64-apple-darwin x86_64-apple-darwin)
tools_only=0
while [ "$#" -gt 0 ]; do
    case "$1" in
        --target) targets=("${2:?--target needs a triple}"); shift 2 ;;
        --tools) tools_only=1; shift ;;
        -h|--help) sed -n '2,/^set -euo/p' "$0" | sed '$d'; exit 0 ;;
        *) echo "check-macos.sh: unknown argument $1 (try --help)" >&2; exit 2 ;;
    esac
done
for triple in "${targets[@]}"; do
    case "$triple" in
        aarch64-apple-darwin|x86_64-apple-darwin) ;;
        *) echo "check-macos.sh: $triple is not a macOS target of this script" >&2; exit 2 ;;
    esac
done

say() { echo "check-macos: $*" >&2; }
fail() { echo "check-macos: ERROR: $*" >&2; exit 1; }

target_root=${CARGO_TARGET_DIR:-target}
tools=${VERIFY_TOOLS_DIR:-${XDG_CACHE_HOME:-$HOME/.cache}/verify}
venv=$tools/ziglang-$zig_version
zigbuild=$venv/bin/cargo-zigbuild

# --- tools -------------------------------------------------------------------------------

command -v rustup >/dev/null 2>&1 || fail "rustup not found: the Apple targets are installed with rustup"
mkdir -p "$tools"
(
    # One installer at a time (two test runs at once share the tools).
    flock 9
    if ! "$venv/bin/python3" -m ziglang version >/dev/null 2>&1; then
        scripts/install-deps.sh venv >&2
        say "installing zig $zig_version from PyPI into $venv"
        rm -rf "$venv"
        python3 -m venv "$venv"
        "$venv/bin/python3" -m pip install --quiet --disable-pip-version-check \
            "ziglang==$zig_version" >&2
    fi
    if ! "$zigbuild" --version 2>/dev/null | grep -q " $zigbuild_version\$"; then
        say "installing cargo-zigbuild $zigbuild_version from PyPI into $venv"
        "$venv/bin/python3" -m pip install --quiet --disable-pip-version-check \
            "cargo-zigbuild==$zigbuild_version" >&2
    fi
    installed=$(rustup target list --installed)
    for triple in aarch64-apple-darwin x86_64-apple-darwin; do
        if ! grep -qx "$triple" <<< "$installed"; then
            say "running: rustup target add $triple"
            rustup target add "$triple" >&2
        fi
    done
    if ! rustup component list --installed | grep -q '^llvm-tools'; then
        say "running: rustup component add llvm-tools"
        rustup component add llvm-tools >&2
    fi
) 9> "$tools/.lock"
llvm_bin=$(rustc --print sysroot)/lib/rustlib/$(rustc -vV | sed -n 's/^host: //p')/bin
[ -x "$llvm_bin/llvm-nm" ] || fail "no llvm-nm in $llvm_bin (rustup component add llvm-tools)"
# cargo-zigbuild runs zig as `python3 -m ziglang`, with this python.
export CARGO_ZIGBUILD_PYTHON_PATH=$venv/bin/python3
if [ "$tools_only" = 1 ]; then
    echo "CARGO_ZIGBUILD_PYTHON_PATH=$CARGO_ZIGBUILD_PYTHON_PATH $zigbuild"
    exit 0
fi

# --- per target ----------------------------------------------------------------------------

# tbd FILE INSTALL_NAME TARGET SYMBOLS...: a text-based dylib stub (TAPI v4) at FILE, for
# the library INSTALL_NAME, exporting SYMBOLS.
tbd() {
    local file=$1 install_name=$2 tapi_target=$3
    shift 3
    mkdir -p "$(dirname "$file")"
    {
        echo "--- !tapi-tbd"
        echo "tbd-version: 4"
        echo "targets: [ $tapi_target ]"
        echo "install-name: '$install_name'"
        if [ "$#" -gt 0 ]; then
            echo "exports:"
            echo "  - targets: [ $tapi_target ]"
            echo "    symbols: [ $(printf "'%s', " "$@" | sed 's/, $//') ]"
        fi
        echo "..."
    } > "$file"
}

zig_libsystem=$("$venv/bin/python3" -c 'import ziglang, os; print(os.path.dirname(ziglang.__file__))')/lib/libc/darwin/libSystem.tbd
[ -f "$zig_libsystem" ] || fail "zig has no libSystem.tbd at $zig_libsystem"
rust_lld=$llvm_bin/rust-lld
[ -x "$rust_lld" ] || fail "no rust-lld in $llvm_bin"

folders=()
for triple in "${targets[@]}"; do
    case "$triple" in
        aarch64-*) tapi_target=arm64-macos ;;
        x86_64-*) tapi_target=x86_64-macos ;;
    esac
    out=$target_root/$triple/debug

    say "running: cargo-zigbuild check --locked --target $triple -p verify"
    "$zigbuild" check --locked --target "$triple" -p verify >&2

    say "running: cargo-zigbuild rustc --locked --target $triple -p verify --lib --crate-type staticlib"
    log=$(mktemp)
    if ! "$zigbuild" rustc --locked --target "$triple" -p verify --lib --crate-type staticlib \
        -- --print native-static-libs > "$log" 2>&1; then
        cat "$log" >&2
        rm -f "$log"
        fail "$triple: the static library does not build"
    fi
    native=$(sed -n 's/.*native-static-libs: //p' "$log" | tail -n 1)
    rm -f "$log"
    [ -n "$native" ] || fail "$triple: rustc printed no native-static-libs"
    say "$triple: the library needs $native"

    # The symbols the static library uses and does not define.
    nm=("$llvm_bin/llvm-nm" --extern-only --just-symbol-name)
    missing=$(comm -23 <("${nm[@]}" --undefined-only "$out/libverify.a" 2>/dev/null | sort -u) \
        <("${nm[@]}" --defined-only "$out/libverify.a" 2>/dev/null | sort -u))

    # The SDK of the link: zig's libSystem (libc and libm are libSystem on macOS), and a stub
    # for each other library and framework rustc named.
    sdk=$target_root/macos-sdk/$triple
    rm -rf "$sdk"
    mkdir -p "$sdk/usr/lib"
    cp "$zig_libsystem" "$sdk/usr/lib/libSystem.tbd"
    for word in $native; do
        case "$word" in
            -framework) continue ;;
            -lSystem|-lc|-lm)
                [ -e "$sdk/usr/lib/lib${word#-l}.tbd" ] || ln -s libSystem.tbd "$sdk/usr/lib/lib${word#-l}.tbd" ;;
            -liconv)
                mapfile -t symbols < <(grep -E '^_(lib)?iconv' <<< "$missing" || true)
                tbd "$sdk/usr/lib/libiconv.tbd" /usr/lib/libiconv.2.dylib "$tapi_target" ${symbols[@]+"${symbols[@]}"} ;;
            CoreFoundation|Security|IOKit)
                case "$word" in
                    CoreFoundation) pattern='^_k?CF|^__kCF|^___CF' ;;
                    Security) pattern='^_k?(Sec|SSL|CMS|Authorization)' ;;
                    IOKit) pattern='^_k?IO' ;;
                esac
                mapfile -t symbols < <(grep -E "$pattern" <<< "$missing" || true)
                [ "${#symbols[@]}" -gt 0 ] || fail "$triple: no symbol of $word is undefined in the library"
                tbd "$sdk/System/Library/Frameworks/$word.framework/$word.tbd" \
                    "/System/Library/Frameworks/$word.framework/Versions/A/$word" "$tapi_target" "${symbols[@]}"
                say "$triple: stub of $word: ${#symbols[@]} symbols" ;;
            -l*|[A-Z]*) fail "$triple: the library needs $word, which this script has no stub for" ;;
        esac
    done

    # The link: rustc drives Rust's own ld64-compatible linker (rust-lld -flavor darwin), which
    # honours rustc's list of exported symbols as Apple's ld64 does (zig's linker ignores it).
    say "running: cargo-zigbuild rustc --locked --target $triple -p verify --lib --crate-type cdylib -- -C linker=rust-lld -C linker-flavor=ld64.lld -C link-arg=-syslibroot -C link-arg=$sdk"
    sdk_abs=$(cd "$sdk" && pwd)
    "$zigbuild" rustc --locked --target "$triple" -p verify --lib --crate-type cdylib \
        -- -C "linker=$rust_lld" -C linker-flavor=ld64.lld \
        -C link-arg=-syslibroot -C "link-arg=$sdk_abs" >&2 ||
        fail "$triple: libverify.dylib does not link against the stubs"
    [ -f "$out/libverify.dylib" ] || fail "$out/libverify.dylib is missing after the link"
    say "$triple: $out/libverify.dylib: $(stat -c %s "$out/libverify.dylib") bytes"
    folders+=("$out")
done
printf '%s\n' "${folders[@]}"
