#!/usr/bin/env bash
# demo.sh: build the library and the sandbox, start the sandbox with the demo fixtures, build
# examples-c/demo.c with the plain cc line, and run it. One command from a fresh clone:
#
#   scripts/demo.sh
#
#   scripts/demo.sh --url http://127.0.0.1:8080
#   scripts/demo.sh --https
#
# With --https, the sandbox also serves https with a CA it generates (`--https-port 0
# --ca-out FILE`), and the demo runs over https, trusting that CA (`demo URL --ca FILE`).
#
# With --url, the demo runs against a sandbox that is already running there (for example a
# long-lived `verify-sandbox --state FILE`, with its console open in a browser) instead of
# starting its own: it first loads sandbox/fixtures/demo.json into it (POST
# /_sandbox/fixtures, which replaces the demo's program, cards and accounts by key), so the
# demo's cards are unspent again and the demo passes however often it runs (a JSON control
# request; when that sandbox needs a token, because it listens on an address other than
# loopback or was given --token, set VERIFY_SANDBOX_TOKEN to the `token:` line it printed).
# Without --url every run starts a fresh sandbox, so it passes twice in a row as well.
#
# The demo keeps the last good verdict in a state folder (`demo ... --state DIR`); after the
# demo passed, the script stops the sandbox and starts the demo again with --offline-start:
# it is licensed from the store (not with --url: that sandbox is not the script's to stop).
#
# Each step also prints the message for the user in the machine's language
# (verify_code_user_message): `LANG=zh_CN.UTF-8 scripts/demo.sh` shows them in Chinese.
#
# Works from any directory. Installs a C compiler with scripts/install-deps.sh if none is
# present (apt-get; sudo when not root), and curl for --url. The sandbox it starts is always
# stopped on exit. The exit status is the demo's: 0 when every step got its expected code.
set -euo pipefail

cd "$(dirname "${BASH_SOURCE[0]}")/.."

external_url=""
https=0
while [ "$#" -gt 0 ]; do
    case "$1" in
        --https) https=1; shift ;;
        --url) external_url=${2:?--url needs a value}; shift 2 ;;
        --url=*) external_url=${1#--url=}; shift ;;
        -h|--help) sed -n '2,/^set -euo/p' "${BASH_SOURCE[0]}" | sed '$d'; exit 0 ;;
        *) echo "demo.sh: unknown argument $1 (try --help)" >&2; exit 2 ;;
    esac
done

step() { printf '\n==> %s\n' "$*"; }

sandbox_pid=""
work=""
cleanup() {
    if [ -n "$sandbox_pid" ]; then
        kill "$sandbox_pid" 2>/dev/null || true
        wait "$sandbox_pid" 2>/dev/null || true
    fi
    if [ -n "$work" ]; then
        rm -rf "$work"
    fi
}
trap cleanup EXIT

step "1/6 C compiler (scripts/install-deps.sh gcc)"
scripts/install-deps.sh gcc

step "2/6 Build the library and the sandbox (cargo build --release -p verify -p verify-sandbox)"
if ! command -v cargo >/dev/null 2>&1; then
    echo "demo.sh: cargo not found: install Rust from https://rustup.rs" >&2
    exit 1
fi
cargo build --release -p verify -p verify-sandbox

work=$(mktemp -d "${TMPDIR:-/tmp}/verify-demo.XXXXXX")
# The offline store's time mark keeps its second copy in the user's configuration folder:
# this run's folder stands in for it (XDG_CONFIG_HOME), so the demo leaves nothing in yours.
export XDG_CONFIG_HOME="$work/config"

if [ -n "$external_url" ]; then
    step "3/6 Reload the demo fixtures into the sandbox at $external_url (POST /_sandbox/fixtures)"
    scripts/install-deps.sh curl
    base_url=${external_url%/}
    auth=()
    if [ -n "${VERIFY_SANDBOX_TOKEN:-}" ]; then
        auth=(-H "Authorization: Bearer $VERIFY_SANDBOX_TOKEN")
    fi
    if ! reply=$(curl -sS --max-time 10 -H 'Content-Type: application/json' "${auth[@]}" \
            --data-binary @sandbox/fixtures/demo.json "$base_url/_sandbox/fixtures"); then
        echo "demo.sh: no sandbox answers at $base_url" >&2
        exit 1
    fi
    case "$reply" in
        *'"ok":true'*) echo "fixtures reloaded: $reply" ;;
        *) echo "demo.sh: the sandbox refused the fixtures (is its control API on? does it need VERIFY_SANDBOX_TOKEN?): $reply" >&2; exit 1 ;;
    esac
else
    sandbox_args=(--port 0 --fixtures sandbox/fixtures/demo.json)
    if [ "$https" = 1 ]; then
        sandbox_args+=(--https-port 0 --ca-out "$work/ca.pem")
    fi
    step "3/6 Start the sandbox (target/release/verify-sandbox ${sandbox_args[*]})"
    target/release/verify-sandbox "${sandbox_args[@]}" \
        >"$work/sandbox.out" 2>"$work/sandbox.err" &
    sandbox_pid=$!
    base_url=""
    deadline=$((SECONDS + 30))
    while [ -z "$base_url" ]; do
        line=$(head -n 1 "$work/sandbox.out" 2>/dev/null || true)
        case "$line" in
            "listening on "*) base_url=${line#listening on } ;;
        esac
        if [ -n "$base_url" ]; then
            break
        fi
        if ! kill -0 "$sandbox_pid" 2>/dev/null; then
            echo "demo.sh: the sandbox exited before listening:" >&2
            cat "$work/sandbox.err" >&2
            sandbox_pid=""
            exit 1
        fi
        if [ "$SECONDS" -ge "$deadline" ]; then
            echo "demo.sh: the sandbox did not print its address within 30 s" >&2
            cat "$work/sandbox.err" >&2
            exit 1
        fi
        sleep 0.1
    done
    echo "sandbox (pid $sandbox_pid) listening on $base_url"
    if [ "$https" = 1 ]; then
        https_url=""
        while [ -z "$https_url" ]; do
            https_url=$(sed -n 's/^listening on \(https:.*\)$/\1/p' "$work/sandbox.out")
            if [ -z "$https_url" ]; then
                if [ "$SECONDS" -ge "$deadline" ]; then
                    echo "demo.sh: the sandbox did not print its https address" >&2
                    exit 1
                fi
                sleep 0.1
            fi
        done
        console_url=$base_url
        base_url=$https_url
        echo "https on $base_url, CA in $work/ca.pem"
    fi
fi
echo "console: ${console_url:-$base_url}/_sandbox/"

step "4/6 Compile examples-c/demo.c"
compile=(cc -std=c99 -Wall -Wextra -Werror -pedantic -I include examples-c/demo.c
    -L target/release -lverify -Wl,-rpath,target/release -o "$work/demo")
echo "${compile[*]}"
"${compile[@]}"

step "5/6 Run the demo against $base_url (program 10001 of sandbox/fixtures/demo.json; the last good verdict kept in $work/state)"
set +e
demo_args=("$base_url")
if [ "$https" = 1 ] && [ -z "$external_url" ]; then
    demo_args+=(--ca "$work/ca.pem")
fi
demo_args+=(--state "$work/state")
"$work/demo" "${demo_args[@]}"
status=$?
set -e

if [ "$status" -eq 0 ]; then
    if [ -n "$external_url" ]; then
        step "6/6 Offline start: not run with --url (that sandbox is not this script's to stop)"
    else
        step "6/6 Stop the sandbox, start the demo again: licensed from the store (demo --offline-start)"
        kill "$sandbox_pid" 2>/dev/null || true
        wait "$sandbox_pid" 2>/dev/null || true
        sandbox_pid=""
        set +e
        "$work/demo" "${demo_args[@]}" --offline-start
        status=$?
        set -e
    fi
fi

if [ "$status" -eq 0 ]; then
    step "demo passed"
else
    step "demo FAILED (exit status $status)"
fi
exit "$status"
