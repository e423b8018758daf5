#!/usr/bin/env bash
# wine32.sh: 32-bit Wine for the x86 verify.dll, in an i386 chroot, so that the host's own
# architectures and packages are never changed.
#
#   scripts/wine32.sh setup                   make the chroot once (later runs: seconds), print
#                                             its folder
#   scripts/wine32.sh root                    print the chroot's folder (made or not)
#   scripts/wine32.sh exec PROGRAM [ARGS...]  run a Windows program under 32-bit Wine; PROGRAM
#                                             is a path on the host inside the chroot's folder
#                                             (under ROOT/tmp/, for instance), run in its own
#                                             folder, or one of Wine's own (`reg`); LANG and
#                                             LC_ALL are passed through
#   scripts/wine32.sh remove                  unmount and delete the chroot
#
# Why a chroot: Debian's 32-bit Wine (wine32:i386) needs the i386 architecture on the host,
# and `apt-get update` with i386 fails on this kind of machine (the security archive's i386
# index arrives truncated); on the host it would also move multi-arch libraries back to older
# versions. The chroot is `debootstrap --arch=i386 --variant=minbase bookworm` from the main
# archive only (no security index involved), with `wine wine32` installed in it (Wine 8, the
# same version as the host's wine64) and one Wine prefix made in it.
#
# Where: $VERIFY_WINE32_ROOT, default /var/cache/verify/wine32-bookworm-i386 (about 1.1 GB;
# outside every target/ folder, so that every checkout and worktree of the machine shares it
# and `cargo clean` keeps it). It is made under ROOT.making-PID, then renamed into place, and
# under a lock (ROOT.lock), so that two runs at once never share a half-made one. A chroot
# that is there is reused as it is: it is ready when ROOT/.verify-wine32 exists. `setup`
# mounts /proc in it when it is not mounted (after a reboot). Debian mirror:
# $VERIFY_WINE32_MIRROR, default http://deb.debian.org/debian.
#
# The Wine prefix is /var/lib/verify-wine32/prefix inside the chroot (a 32-bit prefix,
# WINEARCH=win32), in Windows 7 mode (HKCU\Software\Wine, Version = win7: the Windows the
# DLLs are built for), set by every `setup` when it is not so yet. Needs root (debootstrap, mount, chroot): sudo is used when not root.
# About 4 minutes and 1.1 GB the first time (debootstrap 3 min, Wine 1 min, prefix 10 s).
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."

say() { echo "wine32: $*" >&2; }
fail() { echo "wine32: ERROR: $*" >&2; exit 1; }

root=${VERIFY_WINE32_ROOT:-/var/cache/verify/wine32-bookworm-i386}
root=${root%/}
mirror=${VERIFY_WINE32_MIRROR:-http://deb.debian.org/debian}
ready_marker=.verify-wine32
prefix_inside=/var/lib/verify-wine32/prefix

sudo=()
if [ "$(id -u)" -ne 0 ]; then
    command -v sudo >/dev/null 2>&1 || fail "not root and no sudo: debootstrap, mount and chroot need root"
    sudo=(sudo)
fi
as_root() { ${sudo[@]+"${sudo[@]}"} "$@"; }

# The environment of every Wine command in the chroot: the prefix, no debug output, no
# Mono or Gecko installers, no display.
wine_env=(
    PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin
    HOME=/root
    WINEPREFIX=$prefix_inside
    WINEARCH=win32
    WINEDEBUG=-all
    "WINEDLLOVERRIDES=mscoree,mshtml="
)

# mount_proc DIR: /proc in the chroot DIR, unless it is mounted already.
mount_proc() {
    if ! mountpoint -q "$1/proc"; then
        as_root mount -t proc proc "$1/proc"
    fi
}
umount_proc() {
    if mountpoint -q "$1/proc"; then
        as_root umount "$1/proc"
    fi
}

in_chroot() {
    local dir=$1
    shift
    as_root chroot "$dir" /usr/bin/env -i "${wine_env[@]}" DEBIAN_FRONTEND=noninteractive "$@"
}

# windows_7 DIR: the prefix of the chroot DIR in Windows 7 mode, unless it is already.
windows_7() {
    local dir=$1
    if ! in_chroot "$dir" /usr/lib/wine/wine reg query 'HKCU\Software\Wine' /v Version 2>/dev/null |
        grep 'REG_SZ[[:space:]]*win7' > /dev/null; then
        in_chroot "$dir" /usr/lib/wine/wine reg add 'HKCU\Software\Wine' /v Version /d win7 /f >&2
    fi
}

setup() {
    if [ -f "$root/$ready_marker" ]; then
        mount_proc "$root"
        windows_7 "$root"
        echo "$root"
        return
    fi
    as_root mkdir -p "$(dirname "$root")"
    # One maker at a time; the others wait, then find it made.
    local lock=$root.lock
    as_root touch "$lock"
    exec 9< "$lock"
    flock 9
    if [ -f "$root/$ready_marker" ]; then
        mount_proc "$root"
        windows_7 "$root"
        echo "$root"
        return
    fi
    local started=$SECONDS
    scripts/install-deps.sh debootstrap >&2
    local making=$root.making-$$
    # Left over by an interrupted run: unmount before deleting, never delete through a mount.
    local old
    for old in "$root".making-*; do
        [ -d "$old" ] || continue
        umount_proc "$old"
        mountpoint -q "$old/proc" || as_root rm -rf --one-file-system "$old"
    done
    if [ -d "$root" ]; then
        umount_proc "$root"
        as_root rm -rf --one-file-system "$root"
    fi

    say "running: debootstrap --arch=i386 --variant=minbase bookworm $making $mirror"
    as_root debootstrap --arch=i386 --variant=minbase bookworm "$making" "$mirror" >&2 ||
        fail "debootstrap failed (its log: $making/debootstrap/debootstrap.log)"
    say "debootstrap: $((SECONDS - started)) s"
    mount_proc "$making"
    trap 'umount_proc "$making"' EXIT
    say "running in the chroot: apt-get install --no-install-recommends wine wine32"
    in_chroot "$making" apt-get -q update >&2
    in_chroot "$making" apt-get -q install -y --no-install-recommends wine wine32 >&2
    in_chroot "$making" apt-get clean
    [ -x "$making/usr/lib/wine/wine" ] || fail "no 32-bit Wine loader in the chroot after installing wine32"
    say "Wine: $((SECONDS - started)) s"
    in_chroot "$making" mkdir -p "$(dirname "$prefix_inside")"
    in_chroot "$making" /usr/lib/wine/wine wineboot --init >&2
    in_chroot "$making" /usr/lib/wine/wine reg add 'HKCU\Software\Wine' /v Version /d win7 /f >&2
    in_chroot "$making" /usr/lib/wine/wineserver -w
    [ -f "$making$prefix_inside/system.reg" ] || fail "the Wine prefix was not made"
    in_chroot "$making" /usr/lib/wine/wine --version | as_root tee "$making/$ready_marker" > /dev/null
    umount_proc "$making"
    trap - EXIT
    as_root mv "$making" "$root"
    mount_proc "$root"
    say "made $root in $((SECONDS - started)) s ($(cat "$root/$ready_marker"), $(as_root du -sh --one-file-system "$root" | cut -f1))"
    echo "$root"
}

run_program() {
    [ "$#" -ge 1 ] || fail "exec needs a program"
    [ -f "$root/$ready_marker" ] || fail "no chroot at $root: run scripts/wine32.sh setup"
    local program=$1 inside dir
    shift
    if [[ "$program" != */* ]]; then
        # A program of Wine's own (reg, wineboot, cmd...).
        inside=$program
        dir=/
    else
        program=$(realpath -- "$program")
        case "$program" in
            "$root"/*) ;;
            *) fail "$program is not inside the chroot $root (put it under $root/tmp/)" ;;
        esac
        inside=${program#"$root"}
        dir=$(dirname "$inside")
    fi
    mount_proc "$root"
    local locale=()
    [ -n "${LANG:-}" ] && locale+=("LANG=$LANG")
    [ -n "${LC_ALL:-}" ] && locale+=("LC_ALL=$LC_ALL")
    exec ${sudo[@]+"${sudo[@]}"} chroot "$root" /usr/bin/env -i -C "$dir" \
        "${wine_env[@]}" ${locale[@]+"${locale[@]}"} /usr/lib/wine/wine "$inside" "$@"
}

case "${1:-}" in
    setup) setup ;;
    root) echo "$root" ;;
    exec) shift; run_program "$@" ;;
    remove)
        if [ -d "$root" ]; then
            umount_proc "$root"
            as_root rm -rf --one-file-system "$root"
        fi
        say "removed $root"
        ;;
    -h|--help) sed -n '2,/^set -euo/p' "$0" | sed '$d' ;;
    *) echo "usage: $0 setup|root|exec PROGRAM [ARGS...]|remove (try --help)" >&2; exit 2 ;;
esac
