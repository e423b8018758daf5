#!/usr/bin/env bash
# benches/machine.sh: the cost of the machine code, v1 and v2, cold and warm, for
# benches/run.sh (which calls it after its build and prints its rows).
#
#   benches/machine.sh WORK_DIR [RUNS] [CALLS]
#
# Compiles benches/machine.c against target/release/libverify.so into target/bench/, then
# runs it RUNS times [20] as fresh processes with CALLS warm calls [200] each: the first
# process on an empty state folder (v2 issues and writes its store), the others with the
# store there. Prints rows in run.sh's format (figure|verify|||target|result):
#   v1 cold (first call of a process), v1 warm (median), v2 first run (issue and store),
#   v2 cold (first call of a process, store there), v2 warm (median).
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
work=${1:?usage: benches/machine.sh WORK_DIR [RUNS] [CALLS]}
runs=${2:-20}
calls=${3:-200}
bin=target/bench/machine
mkdir -p target/bench
cc -std=c99 -O2 -Wall -Wextra -Werror -pedantic -I include benches/machine.c \
    -L target/release -lverify -Wl,-rpath,"$PWD/target/release" -o "$bin"
folder="$work/machine-state"
rm -rf "$folder"
field() { sed -n "s/.*$1=\\([0-9-]*\\).*/\\1/p" <<<"$2"; }
first=$("$bin" "$folder" "$calls")
v2_issue=$(field v2_first_ns "$first")
: >"$work/machine.runs"
for _ in $(seq "$runs"); do "$bin" "$folder" "$calls" >>"$work/machine.runs"; done
median() { # median of the field $1 over the runs
    sed -n "s/.*$1=\\([0-9]*\\).*/\\1/p" "$work/machine.runs" | sort -n |
        awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'
}
us() { awk -v ns="$1" 'BEGIN { printf "%.1f µs", ns / 1000 }'; }
echo "16. machine code v1, cold: first call of a process (median of $runs processes)|$(us "$(median v1_first_ns)")|||—|—"
echo "16. machine code v1, warm: median of $calls calls|$(us "$(median v1_warm_ns)")|||—|—"
echo "16. machine code v2, first run: components read, code issued, store sealed and written|$(us "$v2_issue")|||—|—"
echo "16. machine code v2, cold: first call of a process, store there (median of $runs processes)|$(us "$(median v2_first_ns)")|||—|—"
echo "16. machine code v2, warm: median of $calls calls (components read, store opened, nothing written)|$(us "$(median v2_warm_ns)")|||—|—"
