#!/usr/bin/env bash
# build-windows.sh: build verify.dll for 64-bit and 32-bit Windows on Linux, for Windows 7 SP1
# and later, with Rust's win7 targets and mingw-w64, and check its exports.
#
#   scripts/build-windows.sh            install what is missing, build, check
#   scripts/build-windows.sh --wine     also install Wine for tests/platforms/windows/: wine64 on the
#                                       host, 32-bit Wine in an i386 chroot (scripts/wine32.sh)
#   scripts/build-windows.sh --no-build only install and check
#
# The targets x86_64-win7-windows-gnu and i686-win7-windows-gnu are Rust's Windows targets for
# Windows 7 SP1 and later (the -pc- ones need Windows 10: their standard library imports
# WaitOnAddress and ProcessPrng). They are tier 3: no standard library ships for them, so it
# is built here from the nightly toolchain's rust-src (`-Z build-std`). The toolchain is
# $VERIFY_WINDOWS_TOOLCHAIN (default: nightly), the one the machine has; rust-src is added
# with rustup when missing. Installs, when missing: mingw-w64 (scripts/install-deps.sh
# mingw). Then, for each architecture:
#
#   cargo +nightly build --release --locked --target x86_64-win7-windows-gnu \
#       -Z build-std=std,panic_unwind -p verify                               (x64)
#   cargo +nightly build ... --target i686-win7-windows-gnu ...               (x86)
#
# with the `cc` crate (ring's C and assembly) told the mingw compiler and archiver of each
# triple (CC_<triple>, AR_<triple>: it does not know the win7 triples and would run the
# host's cc). panic_unwind: a panic is caught at the C boundary (src/guard.rs).
#
# x86 only: rsbegin.o. The i686 unwinder (libgcc's DWARF-2 unwinder, linked into the DLL)
# finds a function's unwind table only in what was registered with it at load time. The
# -pc- target links Rust's rsbegin.o, which registers the DLL's tables with the DLL's own
# unwinder; the win7 target does not, and only gcc's crtbegin.o registers them, with
# libgcc_s_dw2-1.dll when the process has loaded that DLL before verify.dll (programs built
# with mingw and a shared libgcc do): then the DLL's own unwinder finds nothing and a panic
# aborts the process instead of being caught. So rsbegin.o is built from the toolchain's
# rust-src (library/rtstartup/rsbegin.rs) into target/windows/rtstartup/ and linked first
# (`-Z pre-link-arg`, through CARGO_TARGET_I686_WIN7_WINDOWS_GNU_RUSTFLAGS; a RUSTFLAGS of
# your own replaces it, and the check below then fails); gcc's crtend.o ends the tables.
# tests/platforms/windows/panic.rs proves it: a panic inside every kind of host, with and
# without that DLL loaded first.
#
# Writes (stripped DLL; CARGO_TARGET_DIR is honoured, default target/):
#
#   target/windows/x64/verify.dll        the DLL (x86-64)
#   target/windows/x64/libverify.dll.a   its import library for mingw-w64 (GNU ld)
#   target/windows/x64/verify.def        its exports
#   target/windows/x64/verify.lib        the import library for MSVC (Rust's lld-link /lib)
#   target/windows/x86/...               the same for 32-bit Windows (i386, stdcall)
#   target/windows/toolchain.txt         the rustc that built them (`rustc -V`)
#
# Every export is `extern "system"`: stdcall on x86. The DLL exports undecorated names
# (verify_init, never _verify_init@8), what VB6, 易语言, Delphi and C#'s DllImport look up. A
# C or C++ caller compiled with the header calls `_verify_init@8`, so the x86 .def lists
# the decorated names (verify_init@8, the mingw form) and both import libraries link that
# symbol to the plain export name (libverify.dll.a: dlltool --kill-at; verify.lib: import
# name type "undecorate", below). The script fails when an export is decorated, when the
# .def and the DLL's exports differ, when a DLL is not of its architecture, or when the x86
# DLL lacks rsbegin.o. What the DLLs import is checked by tests/platforms/windows/imports.rs.
#
# Prints the time each build took, and the folder target/windows as its last line.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."

wine=0
build=1
while [ "$#" -gt 0 ]; do
    case "$1" in
        --wine) wine=1; shift ;;
        --no-build) build=0; shift ;;
        *) echo "build-windows.sh: unknown argument $1 (see the comment at the top)" >&2; exit 2 ;;
    esac
done

say() { echo "build-windows: $*"; }
fail() { echo "build-windows: ERROR: $*" >&2; exit 1; }

target_root=${CARGO_TARGET_DIR:-target}
out=$target_root/windows
mkdir -p "$out"

# --- tools -------------------------------------------------------------------------------

scripts/install-deps.sh mingw
if [ "$wine" = 1 ]; then
    scripts/install-deps.sh wine
fi

if ! command -v rustup >/dev/null 2>&1; then
    fail "rustup not found: the nightly toolchain of the Windows build is run through rustup (https://rustup.rs)"
fi
toolchain=${VERIFY_WINDOWS_TOOLCHAIN:-nightly}
rustc_version=$(rustup run "$toolchain" rustc -V 2>/dev/null) ||
    fail "no $toolchain toolchain (rustup toolchain list): the win7 targets need nightly (-Z build-std)"
sysroot=$(rustup run "$toolchain" rustc --print sysroot)
library=$sysroot/lib/rustlib/src/rust/library
if [ ! -f "$library/rtstartup/rsbegin.rs" ]; then
    say "running: rustup component add rust-src --toolchain $toolchain"
    rustup component add rust-src --toolchain "$toolchain"
    [ -f "$library/rtstartup/rsbegin.rs" ] || fail "no rust-src in $sysroot after rustup component add"
fi
say "toolchain: $rustc_version ($toolchain, rust-src at $library)"
echo "$rustc_version" > "$out/toolchain.txt"

# 32-bit Windows programs run under 32-bit Wine in an i386 chroot (scripts/wine32.sh: made
# once, about 1.5 minutes, then reused by every later run and every checkout of the machine);
# the host's architectures are never changed.
if [ "$wine" = 1 ]; then
    rm -f "$out/wine32-unavailable" # left by older versions of this script
    say "wine32: $(scripts/wine32.sh setup)"
fi

# --- build and check ---------------------------------------------------------------------

lld=$(rustc --print sysroot)/lib/rustlib/$(rustc -vV | sed -n 's/^host: //p')/bin/rust-lld

# msvc_import_library ARCH DIR: DIR/verify.lib from DIR/verify.def, with Rust's lld-link.
# x86: MSVC callers refer to _verify_init@8 and the DLL exports verify_init. lld-link writes
# the symbol right from a .def entry `_verify_init@8=verify_init` but marks its import name
# "no prefix" (verify_init@8); the name type of each such entry is set to "undecorate" (3:
# drop the leading _ and the @8), as in Windows SDK import libraries such as kernel32.lib.
# tests/platforms/windows/exports.rs links a stdcall caller with it and checks the imported names.
msvc_import_library() {
    local arch=$1 dir=$2
    if [ "$arch" = x64 ]; then
        (cd "$dir" && "$lld" -flavor link /lib /nologo /def:verify.def /machine:x64 \
            /out:verify.lib > /dev/null)
        return
    fi
    {
        echo "LIBRARY verify.dll"
        echo "EXPORTS"
        sed -n 's/^    \(verify_[a-z0-9_]*\)@\([0-9]*\)$/    _\1@\2=\1/p' "$dir/verify.def"
    } > "$dir/verify-msvc.def"
    (cd "$dir" && "$lld" -flavor link /lib /nologo /def:verify-msvc.def /machine:x86 \
        /out:verify.lib > /dev/null)
    rm -f "$dir/verify-msvc.def"
    # Short import headers: 0000 FFFF, version 0, machine 014C, time, size, hint, type.
    perl -0777 -i -pe 's/(\x00\x00\xff\xff\x00\x00\x4c\x01.{10})(..)(?=_verify_)/$1.pack("v", (unpack("v", $2) & ~0x1c) | (3 << 2))/gse' \
        "$dir/verify.lib"
    local undecorated
    undecorated=$(perl -0777 -ne 'my $n = 0; while (/\x00\x00\xff\xff\x00\x00\x4c\x01.{10}(..)_verify_/gs) { $n++ if ((unpack("v", $1) >> 2) & 7) == 3 } print $n' "$dir/verify.lib")
    local count
    count=$(grep -c '^    verify_' "$dir/verify.def")
    [ "$undecorated" = "$count" ] || fail "x86 verify.lib: $undecorated of $count imports undecorated"
}

# rsbegin TRIPLE: Rust's rsbegin.o for TRIPLE, from the toolchain's rust-src, in
# $out/rtstartup/TRIPLE/ (made again when the toolchain changes); prints its absolute path.
rsbegin() {
    local triple=$1
    local dir=$out/rtstartup/$triple
    mkdir -p "$dir"
    dir=$(cd "$dir" && pwd)
    if [ ! -f "$dir/rsbegin.o" ] || [ "$(cat "$dir/toolchain.txt" 2>/dev/null)" != "$rustc_version" ]; then
        rustup run "$toolchain" rustc --target "$triple" --emit=obj -C panic=abort \
            -C opt-level=2 -o "$dir/rsbegin.o.tmp" "$library/rtstartup/rsbegin.rs" >&2
        mv "$dir/rsbegin.o.tmp" "$dir/rsbegin.o"
        echo "$rustc_version" > "$dir/toolchain.txt"
    fi
    echo "$dir/rsbegin.o"
}

# build_arch ARCH TRIPLE PREFIX MACHINE: build one DLL and write $out/ARCH/.
build_arch() {
    local arch=$1 triple=$2 prefix=$3 machine=$4
    local built=$target_root/$triple/release
    local dir=$out/$arch
    local var=${triple//-/_}
    if [ "$build" = 1 ]; then
        local env=("CC_$var=$prefix-gcc" "AR_$var=$prefix-ar")
        if [ "$arch" = x86 ]; then
            # rsbegin.o first; the stdcall fix-ups of the undecorated exports are wanted
            # (ld would print one line for each otherwise).
            env+=("CARGO_TARGET_${var^^}_RUSTFLAGS=-Z pre-link-arg=$(rsbegin "$triple") -C link-arg=-Wl,--enable-stdcall-fixup")
        fi
        local started=$SECONDS
        say "running: cargo +$toolchain build --release --locked --target $triple -Z build-std=std,panic_unwind -Z build-std-features=panic-unwind -p verify"
        env "${env[@]}" rustup run "$toolchain" cargo build --release --locked --target "$triple" \
            -Z build-std=std,panic_unwind -Z build-std-features=panic-unwind -p verify
        say "$arch: cargo build took $((SECONDS - started)) s"
    fi
    [ -f "$built/verify.dll" ] || fail "$built/verify.dll is missing (build first)"
    mkdir -p "$dir"

    if [ "$arch" = x86 ] && ! "$prefix-nm" "$built/verify.dll" | grep 'rsbegin.*eh_frames.*init' > /dev/null; then
        fail "x86: verify.dll was linked without rsbegin.o: a panic would abort the process when libgcc_s_dw2-1.dll is loaded first (see the comment at the top; is RUSTFLAGS set?)"
    fi

    # Stripped copy of the DLL (the symbol table only; nothing the loader uses).
    "$prefix-strip" -o "$dir/verify.dll.tmp" "$built/verify.dll"
    mv "$dir/verify.dll.tmp" "$dir/verify.dll"

    local format
    format=$("$prefix-objdump" -f "$dir/verify.dll" | sed -n 's/.*file format //p')
    [ "$format" = "$machine" ] || fail "$arch: verify.dll is $format, expected $machine"

    # The export names, as the loader sees them.
    local exports
    exports=$("$prefix-objdump" -p "$dir/verify.dll" |
        sed -n '/^\[Ordinal\/Name Pointer\] Table/,/^$/p' |
        sed -n 's/^[[:space:]]*\[[[:space:]]*[0-9]*\][[:space:]]*//p' | LC_ALL=C sort)
    [ -n "$exports" ] || fail "$arch: verify.dll exports nothing"
    if grep -v '^verify_[a-z0-9_]*$' <<< "$exports"; then
        fail "$arch: the exports above are decorated or not verify_*"
    fi

    # The .def and the import libraries.
    local def=$dir/verify.def
    {
        echo "; verify.dll ($arch): exports of the verify C ABI (include/verify.h)."
        if [ "$arch" = x86 ]; then
            echo "; stdcall: the names carry their argument bytes (@N) for the callers' symbols;"
            echo "; the DLL exports them undecorated (import libraries made with --kill-at)."
        fi
        echo "LIBRARY verify.dll"
        echo "EXPORTS"
        if [ "$arch" = x86 ]; then
            # The decorated symbols of the same build, from the static library.
            "$prefix-nm" -g --defined-only "$built/libverify.a" 2>/dev/null |
                sed -n 's/^[0-9a-f]* T _\(verify_[a-z0-9_]*@[0-9]*\)$/    \1/p' | LC_ALL=C sort -u
        else
            sed 's/^/    /' <<< "$exports"
        fi
    } > "$def.tmp"
    local listed
    listed=$(sed -n 's/^    \(verify_[a-z0-9_]*\).*/\1/p' "$def.tmp" | LC_ALL=C sort)
    if [ "$listed" != "$exports" ]; then
        diff <(echo "$listed") <(echo "$exports") >&2 || true
        fail "$arch: verify.def (<) and the DLL's exports (>) differ"
    fi
    mv "$def.tmp" "$def"

    if [ "$arch" = x86 ]; then
        # rustc's own import library names the symbols without @N, which a stdcall caller
        # cannot link to; this one has _verify_init@8 importing "verify_init".
        (cd "$dir" && "$prefix-dlltool" --kill-at -m i386 -D verify.dll -d verify.def \
            -l libverify.dll.a)
    else
        cp "$built/libverify.dll.a" "$dir/libverify.dll.a"
    fi
    if [ -x "$lld" ]; then
        msvc_import_library "$arch" "$dir"
    else
        say "$arch: no verify.lib ($lld not found)"
    fi
    say "$arch: $(stat -c %s "$dir/verify.dll") bytes stripped, $(wc -l <<< "$exports") exports, in $dir/"
}

build_arch x64 x86_64-win7-windows-gnu x86_64-w64-mingw32 pei-x86-64
build_arch x86 i686-win7-windows-gnu i686-w64-mingw32 pei-i386

echo "$out"
