#!/usr/bin/env bash
# benches/write-block.sh NAME FRAGMENT: replaces the generated block NAME of BENCHMARKS.md,
# the lines between `<!-- BEGIN GENERATED: NAME` and `<!-- END GENERATED: NAME -->`, with the
# file FRAGMENT; the text around the markers is not touched. benches/run.sh --write writes
# its blocks `figures`, `sizes` and `lab` with it, benches/lab.sh --write the block `lab`.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."

if [ "$#" -ne 2 ] || [ ! -f "$2" ]; then
    echo "usage: $0 NAME FRAGMENT (an existing file)" >&2
    exit 2
fi
name=$1
fragment=$2
out=$(mktemp "${TMPDIR:-/tmp}/BENCHMARKS.md.XXXXXX")
trap 'rm -f "$out"' EXIT
awk -v frag="$fragment" -v begin="<!-- BEGIN GENERATED: $name" -v end="<!-- END GENERATED: $name -->" '
    index($0, begin) == 1 {
        print; begun++
        while ((getline line < frag) > 0) print line
        skip = 1; next
    }
    $0 == end { skip = 0; ended++ }
    !skip { print }
    END { if (begun != 1 || ended != 1) exit 3 }
' BENCHMARKS.md >"$out" || {
    echo "write-block.sh: BENCHMARKS.md needs exactly one '<!-- BEGIN GENERATED: $name' line and" \
        "one '<!-- END GENERATED: $name -->' line after it; not written" >&2
    exit 1
}
cat "$out" >BENCHMARKS.md
echo "BENCHMARKS.md: block $name rewritten from $fragment (git diff BENCHMARKS.md)" >&2
