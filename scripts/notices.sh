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
key=$( { cat Cargo.lock deny.toml scripts/notices/*.hbs; echo "$scope"; "$about" --version; } |
    sha256sum | cut -c1-16)
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
    grep -q '^  ring ' "$work/notices" || fail "the notices list no ring: not the library's crates?"
    mv "$work/notices" "$made"
fi
mkdir -p "$(dirname "$out")"
cp "$made" "$out"
echo "$out"
