#!/usr/bin/env bash
# sizes.sh: the size of the library on every platform built here, and where its bytes go by
# crate. benches/run.sh runs it as row 7's companion and puts its Markdown between the
# `GENERATED: sizes` markers of BENCHMARKS.md (`benches/run.sh --write`).
#
#   benches/sizes.sh [--build] OUT.md
#     --build   build what is missing first (release): scripts/build-windows.sh (verify.dll x64
#               and x86) and scripts/build-arm64.sh (libverify.so for ARM64); the Linux x86-64
#               library is run.sh's own `cargo build --release -p verify -p verify-sandbox`
#
# Sizes are of the files as shipped: `strip` (the binutils of each target) of the release
# library; the DLLs as scripts/build-windows.sh strips them. macOS is only compiled and
# linked here in debug (scripts/check-macos.sh), so it has no release size.
#
# By crate: the sized symbols of the unstripped release library (`nm -C -S`, functions and
# data), each given to a crate by its demangled path: `krate::...` to krate; `<T as Trait>`
# to T's crate; a generic of core, alloc or std to the crate of its first type argument from
# elsewhere; `<T as krate::Trait>` with T a type parameter or a primitive to the trait's
# crate; `verify_*` (the C ABI) to verify; symbols without a Rust path to "C and assembly"
# (ring's, and the C runtime's). What no symbol covers (unwind tables, relocations,
# constants without a symbol, the dynamic symbol table, headers) is the last row.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."

build=0
if [ "${1:-}" = --build ]; then
    build=1
    shift
fi
out=${1:?usage: benches/sizes.sh [--build] OUT.md}

goal=2250000   # the footprint goal of Linux x86-64, stripped (issue 24)
target_root=${CARGO_TARGET_DIR:-target}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

if [ "$build" = 1 ]; then
    scripts/build-windows.sh > /dev/null
    scripts/build-arm64.sh > /dev/null
fi

# th N: N with thousands separators (1,234,567), whatever the locale.
th() { sed ':a; s/\B[0-9]\{3\}\>/,&/; ta' <<< "$1"; }

# stripped STRIP FILE: the size of FILE stripped by STRIP, or nothing when FILE is missing.
stripped() {
    [ -f "$2" ] || return 0
    "$1" -o "$work/s" "$2"
    stat -c %s "$work/s"
}

linux_x64=$target_root/release/libverify.so
linux_arm64=$target_root/aarch64-unknown-linux-gnu/release/libverify.so
win_x64=$target_root/windows/x64/verify.dll
win_x86=$target_root/windows/x86/verify.dll
win_x64_raw=$target_root/x86_64-win7-windows-gnu/release/verify.dll
win_x86_raw=$target_root/i686-win7-windows-gnu/release/verify.dll

x64_s=$(stripped strip "$linux_x64")
arm64_s=$(stripped aarch64-linux-gnu-strip "$linux_arm64")

# row PLATFORM FILE HOW STRIPPED UNSTRIPPED
row() {
    if [ -n "$4" ]; then
        echo "| $1 | \`$2\` | $3 | $(th "$4") B | $(th "$5") B |"
    else
        echo "| $1 | \`$2\` | $3 | not built (run $3) | |"
    fi
}
size_of() { [ -f "$1" ] && stat -c %s "$1" || echo 0; }

# by_crate NM FILE: "crate bytes" lines, bytes summed over the file's sized symbols.
by_crate() {
    "$1" -C -S --size-sort "$2" | perl -ne '
        my ($addr, $size, $type, $name) = /^(\S+) (\S+) (\S) (.*)$/ or next;
        my $crate;
        my $n = $name;
        if ($n =~ /^verify_\w+$/) { $crate = "verify" }
        elsif ($n eq "rust_eh_personality") { $crate = "std" }
        elsif ($n !~ /::/) { $crate = "[c-asm]" }
        else {
            $n =~ s/^[<&\s]*(?:mut |dyn |const |\[|\()*//;
            my ($first) = $n =~ /^([A-Za-z_][A-Za-z0-9_]*)::/;
            # <T as krate::Trait>::f, T a type parameter or a primitive: the crate of the trait.
            ($first) = $name =~ / as ([A-Za-z_][A-Za-z0-9_]*)::/ unless defined $first;
            $crate = $first // "[c-asm]";
            if ($crate =~ /^(core|alloc|std)$/) {
                # A generic of the standard library: the crate of its first argument from elsewhere.
                while ($name =~ /[<,(&\s]([A-Za-z_][A-Za-z0-9_]*)::/g) {
                    next if $1 =~ /^(core|alloc|std)$/;
                    $crate = $1; last;
                }
            }
        }
        $sum{$crate} += hex($size);
        END { print "$_ $sum{$_}\n" for keys %sum }'
}

{
    echo "| platform | file | built by | stripped | unstripped |"
    echo "|---|---|---|---|---|"
    row "Linux x86-64" libverify.so "\`cargo build --release -p verify\`" "$x64_s" "$(size_of "$linux_x64")"
    row "Linux ARM64" libverify.so "\`scripts/build-arm64.sh\`" "$arm64_s" "$(size_of "$linux_arm64")"
    if [ -f "$win_x64" ]; then
        row "Windows x64" verify.dll "\`scripts/build-windows.sh\`" "$(size_of "$win_x64")" "$(size_of "$win_x64_raw")"
        row "Windows x86" verify.dll "\`scripts/build-windows.sh\`" "$(size_of "$win_x86")" "$(size_of "$win_x86_raw")"
    else
        row "Windows x64, x86" verify.dll "\`scripts/build-windows.sh\`" "" ""
    fi
    echo "| macOS arm64, x86-64 | \`libverify.dylib\` | \`scripts/check-macos.sh\` | not built in release here: the link check is of a debug build | |"
    echo
    if [ -n "$x64_s" ]; then
        verdict=PASS
        [ "$x64_s" -le "$goal" ] || verdict=MISS
        if [ "$verdict" = PASS ]; then
            echo "Goal: Linux x86-64 stripped ≤ $(th "$goal") B: $(th "$x64_s") B, **PASS**" \
                "($(th $((goal - x64_s))) B under it)."
        else
            echo "Goal: Linux x86-64 stripped ≤ $(th "$goal") B: $(th "$x64_s") B, **MISS**" \
                "($(th $((x64_s - goal))) B over it)."
        fi
        echo
    fi
    if [ -f "$linux_x64" ] && [ -f "$linux_arm64" ]; then
        by_crate nm "$linux_x64" > "$work/x64"
        by_crate aarch64-linux-gnu-nm "$linux_arm64" > "$work/arm64"
        echo "Where the bytes go, by crate (sized symbols of the unstripped release library, \`nm -C -S\`):"
        echo
        echo "| crate | Linux x86-64 | Linux ARM64 |"
        echo "|---|---|---|"
        join -a 1 -a 2 -e 0 -o 0,1.2,2.2 <(sort "$work/x64") <(sort "$work/arm64") |
            sort -k2,2nr | awk -v top=14 '
                function th(n) { s = sprintf("%d", n); while (s ~ /[0-9][0-9][0-9][0-9]/) sub(/[0-9][0-9][0-9]($|,)/, ",&", s); return s }
                function name(c) {
                    if (c == "[c-asm]") return "C and assembly: ring'"'"'s, and the C runtime'"'"'s"
                    return "`" c "`"
                }
                NR <= top { printf "| %s | %s B | %s B |\n", name($1), th($2), th($3); next }
                { ox += $2; oa += $3; n++ }
                END { if (n) printf "| %d other crates | %s B | %s B |\n", n, th(ox), th(oa) }'
        sx=$(awk '{ s += $2 } END { print s }' "$work/x64")
        sa=$(awk '{ s += $2 } END { print s }' "$work/arm64")
        echo "| all sized symbols | $(th "$sx") B | $(th "$sa") B |"
        echo "| the rest of the stripped file: unwind tables (\`.eh_frame\`), relocations, constants without a symbol (string literals), dynamic symbols, headers | $(th $((x64_s - sx))) B | $(th $((arm64_s - sa))) B |"
    fi
} > "$out"
cat "$out"
