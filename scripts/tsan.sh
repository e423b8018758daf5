#!/usr/bin/env bash
# ThreadSanitizer on the thread and keeper tests (RELIABILITY.md): everything built with
# nightly's -Zsanitizer=thread and an instrumented std (-Zbuild-std), in target/tsan/:
#
#   core:  core/tests/keeper.rs (the keeper's thread, events, stop) and
#          core/tests/reliability.rs (deadlines, resends, re-init, the client shared by the
#          calls of a test and the in-process sandbox's threads), every test of both;
#   C ABI: tests/c/threads.rs (8 POSIX threads on one client, one reply read by 8 threads
#          at once, concurrent slow calls), tests/c/keeper.rs (freeing a client mid-request,
#          the cancellable social wait; its tests that run under valgrind cannot run under
#          TSan) and tests/c/sanitizers.rs built for TSan (VERIFY_C_SANITIZER=thread: every
#          c_abi.c scenario with a server, the demo, c_threads, and c_keeper's callback,
#          status and grace scenarios natively), with libverify.so and its std instrumented
#          and the C hosts linked with rustc's TSan runtime.
#
#   scripts/tsan.sh            both parts
#   scripts/tsan.sh core       only the core part (scripts/tsan.sh c: only the C ABI part)
#
# Any report fails the run (halt_on_error=1: the report ends the test binary). Reports
# from the in-process sandbox's tokio runtime that are not races of ours would be
# suppressed in tests/sanitizers/tsan.supp, each with its reason (none needed today).
# Not part of scripts/test.sh: the instrumented std and dependency tree take about 5 minutes
# a part to build from clean on two cores (about 10 in all), then about 3 minutes of runs
# (the tests run 5-10x slower than native): too much to add to every CI run.
#
# Installs what it needs when missing: the nightly toolchain with rust-src.
set -euo pipefail
cd "$(dirname "$0")/.."

part="${1:-all}"
target=x86_64-unknown-linux-gnu

if ! rustup run nightly rustc --version >/dev/null 2>&1; then
    rustup toolchain install nightly --profile minimal
fi
if ! rustup component list --toolchain nightly --installed | grep -q '^rust-src'; then
    rustup component add rust-src --toolchain nightly
fi

export RUSTFLAGS="-Zsanitizer=thread"
export RUSTDOCFLAGS="-Zsanitizer=thread"
export CARGO_TARGET_DIR="$PWD/target/tsan"
# Read by every cargo of the run, including the `cargo build -p verify` that the host tests
# make (tests/common/host/paths.rs): the same target, the same instrumented std.
export CARGO_BUILD_TARGET="$target"
export CARGO_UNSTABLE_BUILD_STD="std,panic_abort"
export TSAN_OPTIONS="halt_on_error=1 second_deadlock_stack=1 suppressions=$PWD/tests/sanitizers/tsan.supp"
# The host tests wait for the sandbox and their hosts with time limits: TSan is slower.
export VERIFY_HOST_SLACK=10

mkdir -p target/reliability

run() {
    echo "== $*" | tee -a "$log"
    "$@" 2>&1 | tee -a "$log"
}

if [ "$part" = all ] || [ "$part" = core ]; then
    log=target/reliability/tsan-core.log
    : >"$log"
    run cargo +nightly test --locked -p verify-core --test keeper --test reliability
fi

if [ "$part" = all ] || [ "$part" = c ]; then
    log=target/reliability/tsan-c.log
    : >"$log"
    # The C hosts are linked with the ThreadSanitizer runtime rustc uses (the library
    # calls it; gcc's own libtsan lacks the __tsan_memcpy family that LLVM 22 emits), and
    # export its interceptors (-rdynamic) so that the library's pthread_create and mutexes
    # go through it. The hosts' own C code is not instrumented: the library and its std are.
    rt="$(rustc +nightly --print sysroot)/lib/rustlib/$target/lib/librustc-nightly_rt.tsan.a"
    wrapper="$CARGO_TARGET_DIR/cc-tsan"
    mkdir -p "$CARGO_TARGET_DIR"
    cat >"$wrapper" <<WRAPPER
#!/bin/sh
exec cc "\$@" -g -rdynamic -Wl,--whole-archive "$rt" -Wl,--no-whole-archive -ldl -lm -lrt -lstdc++
WRAPPER
    chmod +x "$wrapper"
    export CC="$wrapper"
    run cargo +nightly test --locked -p verify --test c_threads
    # The tests of tests/c/keeper.rs that run their host under valgrind cannot run under TSan
    # (valgrind and TSan exclude each other); the same scenarios (callback, status, grace)
    # run natively in tests/c/sanitizers.rs, below.
    run cargo +nightly test --locked -p verify --test c_keeper -- \
        --skip keeper_events_reach_a_c_callback --skip the_typed_status_snapshot \
        --skip an_outage_gives_the_grace_state_then_alive_again \
        --skip machine_code_through_the_c_abi --skip keeper_options_cancel_and_status_bad_arguments
    # c_abi.c's scenarios, the demo, c_threads and c_keeper (callback, status, grace) as
    # tests/c/sanitizers.rs runs them, built for TSan instead of ASan.
    VERIFY_C_SANITIZER=thread run cargo +nightly test --locked -p verify --test c_sanitizers
fi

# Each part's log (target/reliability/tsan-core.log, tsan-c.log) is read by
# scripts/reliability.sh for RELIABILITY.md.
if grep -q "WARNING: ThreadSanitizer" target/reliability/tsan-*.log 2>/dev/null; then
    echo "ThreadSanitizer reported (see target/reliability/tsan-*.log)" >&2
    exit 1
fi
echo "ThreadSanitizer: no report"
