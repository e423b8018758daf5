#!/usr/bin/env bash
# sha256sums.sh: write PACKAGE/SHA256SUMS, the SHA-256 of each library of a package, in the
# format of `sha256sum` (`<hex>  <path>`, paths from the package's root), so that
#   cd PACKAGE && sha256sum -c SHA256SUMS
# checks them, and a program can hard-code the hash of the verify.dll it ships and check the
# file before its first call (docs/hardening.md).
#
# Usage: scripts/sha256sums.sh PACKAGE FILE...   (FILE: a path from PACKAGE's root)
set -euo pipefail

pkg=${1:?usage: scripts/sha256sums.sh PACKAGE FILE...}
shift
[ "$#" -gt 0 ] || { echo "sha256sums.sh: no files to hash" >&2; exit 2; }
if command -v sha256sum >/dev/null 2>&1; then
    hash() { sha256sum "$1" | cut -d' ' -f1; }
elif command -v shasum >/dev/null 2>&1; then
    hash() { shasum -a 256 "$1" | cut -d' ' -f1; }
else
    echo "sha256sums.sh: needs sha256sum (coreutils) or shasum" >&2
    exit 1
fi
sums=$(mktemp)
trap 'rm -f "$sums"' EXIT
for file in "$@"; do
    [ -f "$pkg/$file" ] || { echo "sha256sums.sh: $pkg/$file is missing" >&2; exit 1; }
    printf '%s  %s\n' "$(hash "$pkg/$file")" "$file" >> "$sums"
done
LC_ALL=C sort -k2 "$sums" > "$pkg/SHA256SUMS"
