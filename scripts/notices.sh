#!/usr/bin/env bash
# notices.sh: THIRD-PARTY-NOTICES, the copyright notices and licence texts of every crate built
# into what the packages ship, and the check that each is under an allowed licence.
#
#   scripts/notices.sh OUT                  write OUT: the crates of the library (the package
#                                           `verify` and its normal dependencies, every platform
#                                           and feature: what verify.dll, libverify.so and the
#                                           wheels' and NuGet package's libraries carry)
#   scripts/notices.sh --with-sandbox OUT   the same, then a part for verify-sandbox (the Linux
#                                           package's bin/)
#   scripts/notices.sh --windows OUT        the library's, then a part for what the GNU
#                                           toolchain links into verify.dll besides the crates:
#                                           the mingw-w64 runtime (startup code, libmingwex,
#                                           libmingw32) and GCC's libgcc (the unwinder), with
#                                           the copyright files of the Debian packages that hold
#                                           the files the linker takes (what the Windows zip,
#                                           the NuGet package and the Windows wheels carry)
#   scripts/notices.sh --check              cargo-deny's licence check of the crates of both
#                                           against deny.toml's allow-list
#
# What ships is the library and verify-sandbox, nothing else of the workspace (verify-codegen,
# the doctor and the tests are tools here): each is given by its own manifest, so that a tool's
# dependencies (cbindgen, MPL-2.0, for one) neither enter the notices nor fail the check.
# cargo-about makes the file from Cargo.lock and the crates' own licence files (--frozen:
# offline, from the crates cargo already fetched), with the templates of scripts/notices/
# (library.hbs, sandbox.hbs, both over licences.hbs). Its `accepted` licences are deny.toml's
# `allow`, in that order, and its targets deny.toml's: one list for both tools (written into a
# temporary about.toml). A file is made once for each Cargo.lock, deny.toml, templates and
# tool version (kept under target/notices/, named by their hash) and copied from there, so
# that every package of a run costs a copy. Both tools come from scripts/install-deps.sh
# cargo-about cargo-deny (the tools folder, built once). Prints OUT as its last line (--check:
# the verdict).
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."

say() { echo "notices: $*" >&2; }
fail() { echo "notices: ERROR: $*" >&2; exit 1; }

scope=library
case "${1:-}" in
    --check) scope=check ;;
    --with-sandbox) scope=with-sandbox; shift ;;
    --windows) scope=windows; shift ;;
    -h|--help) sed -n '2,/^set -euo/p' "$0" | sed '$d'; exit 0 ;;
    ""|-*) echo "usage: $0 [--with-sandbox] OUT | --check (try --help)" >&2; exit 2 ;;
esac
scripts/install-deps.sh cargo-about cargo-deny >&2
# Every crate of Cargo.lock, for every platform: nothing to download when a build fetched them.
cargo fetch --locked --quiet >&2
tools=${VERIFY_TOOLS_DIR:-${XDG_CACHE_HOME:-$HOME/.cache}/verify}
about=$(ls -d "$tools"/cargo-about-*/bin/cargo-about | tail -n 1)
deny=$(ls -d "$tools"/cargo-deny-*/bin/cargo-deny | tail -n 1)

# What ships: the manifest of each part, and its template.
shipped=(Cargo.toml:library sandbox/Cargo.toml:sandbox)

if [ "$scope" = check ]; then
    for part in "${shipped[@]}"; do
        manifest=${part%%:*}
        say "running: cargo-deny check licenses of $manifest (deny.toml, offline)"
        "$deny" --manifest-path "$manifest" --frozen --config deny.toml \
            check --hide-inclusion-graph licenses >&2 ||
            fail "a crate of $manifest is under a licence deny.toml does not allow (above)"
    done
    echo "notices: every crate of the library and verify-sandbox is under a licence deny.toml allows"
    exit 0
fi

out=${1:?an output file}
target_root=${CARGO_TARGET_DIR:-target}

# runtime_copyrights: the copyright files of the Debian packages holding the libraries the
# mingw-w64 linkers of scripts/build-windows.sh take besides the crates' objects (found as the
# linker finds them), each text once: a line "FILE PACKAGE[,PACKAGE...]" for each (the
# packages whose copyright file has that text). Fails when one cannot be found.
runtime_copyrights() {
    local prefix file package hash
    local -A packages=() files=() names=()
    for prefix in x86_64-w64-mingw32 i686-w64-mingw32; do
        command -v "$prefix-gcc" > /dev/null ||
            fail "no $prefix-gcc: scripts/install-deps.sh mingw installs it"
        for file in libgcc.a libgcc_eh.a libmingwex.a libmingw32.a dllcrt2.o; do
            file=$(readlink -f "$("$prefix-gcc" -print-file-name="$file")")
            [ -f "$file" ] || fail "$prefix-gcc finds no $file"
            package=$(dpkg -S "$file" 2> /dev/null | head -n 1 | cut -d: -f1) || package=
            [ -n "$package" ] || fail "no Debian package holds $file"
            packages[$package]=1
        done
    done
    for package in $(printf '%s\n' "${!packages[@]}" | sort); do
        file=$(readlink -f "/usr/share/doc/$package/copyright")
        [ -s "$file" ] || fail "the package $package has no copyright file"
        hash=$(sha256sum < "$file" | cut -c1-64)
        files[$hash]=${files[$hash]:-$file}
        names[$hash]=${names[$hash]:+${names[$hash]},}$package
    done
    for hash in $(printf '%s\n' "${!files[@]}" | sort); do
        echo "${files[$hash]} ${names[$hash]}"
    done | sort -k2
}

runtime=()
if [ "$scope" = windows ]; then
    mapfile -t runtime < <(runtime_copyrights)
    [ "${#runtime[@]}" -gt 0 ] || fail "no copyright file of the Windows runtime"
fi

key=$( { cat Cargo.lock deny.toml scripts/notices/*.hbs; echo "$scope";
         for entry in "${runtime[@]}"; do echo "$entry"; cat "${entry%% *}"; done;
         "$about" --version; } | sha256sum | cut -c1-16)
made=$target_root/notices/THIRD-PARTY-NOTICES-$scope-$key
if [ ! -s "$made" ]; then
    mkdir -p "$target_root/notices"
    work=$(mktemp -d "$target_root/notices/.work.XXXXXX")
    trap 'rm -rf "$work"' EXIT
    # about.toml from deny.toml: the allow-list as `accepted`, the same targets.
    python3 - deny.toml > "$work/about.toml" <<'PY'
import sys, tomllib
deny = tomllib.load(open(sys.argv[1], "rb"))
quoted = lambda items: "[" + ", ".join('"%s"' % item for item in items) + "]"
print("accepted = " + quoted(deny["licenses"]["allow"]))
print("targets = " + quoted(deny["graph"]["targets"]))
print("ignore-build-dependencies = true")
print("ignore-dev-dependencies = true")
PY
    parts=("${shipped[0]}")
    [ "$scope" = with-sandbox ] && parts+=("${shipped[1]}")
    for part in "${parts[@]}"; do
        manifest=${part%%:*}
        template=${part##*:}
        say "running: cargo-about generate --frozen --all-features -m $manifest (scripts/notices/$template.hbs)"
        "$about" generate --frozen --all-features --fail -m "$manifest" -c "$work/about.toml" \
            -n "$template" -o "$work/$template" scripts/notices >&2 ||
            fail "cargo-about could not make the notices of $manifest (above)"
        cat "$work/$template" >> "$work/notices"
    done
    if [ "$scope" = windows ]; then
        {
            cat <<'TEXT'

================================================================================
verify.dll: the runtime of the GNU toolchain
--------------------------------------------------------------------------------

Besides the crates above, the linker of mingw-w64 puts into verify.dll (x64 and x86) the
mingw-w64 runtime (the DLL's startup code, libmingwex, libmingw32: mostly public domain, the
rest under the ZPL-2.1 and other permissive licences, whose binary clause asks for the
notice below) and GCC's libgcc (the unwinder of a panic caught at the C ABI: GPL-3.0 with
the GCC Runtime Library Exception 3.1, which lets a program carry it under terms of its
own choice). Below are the copyright files of the Debian packages the DLLs were linked
from, as those packages ship them.
TEXT
            for entry in "${runtime[@]}"; do
                printf '\n================================================================================\n'
                printf 'the copyright file of the Debian packages %s\n' "${entry#* }"
                printf -- '--------------------------------------------------------------------------------\n\n'
                cat "${entry%% *}"
            done
        } >> "$work/notices"
    fi
    grep -q '^  ring ' "$work/notices" || fail "the notices list no ring: not the library's crates?"
    mv "$work/notices" "$made"
fi
mkdir -p "$(dirname "$out")"
cp "$made" "$out"
echo "$out"
