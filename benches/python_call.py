"""benches/python_call.py: the Python side of benches/python.sh, the twin of `verify_bench
latency N` (benches/verify_bench.c): one thread, one client, Init, 1,000 warm-up calls, then N
calls of `client.get_bulletin()` (GetBulletin through the typed API: the native call, the
typed result with its datetime, the reply freed), each timed with time.perf_counter_ns.

    python3 benches/python_call.py BASE_URL APP_ID APP_KEY N

Prints `latency calls=N median_ns=.. p99_ns=.. mean_ns=.. min_ns=.. max_ns=..` as
verify_bench does.
"""

from __future__ import annotations

import sys
import time

import verify

WARMUP_CALLS = 1000


def main() -> int:
    url, app_id, app_key, count = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4])
    clock = time.perf_counter_ns
    with verify.Client(url, app_id, app_key) as client:
        client.init()
        for _ in range(WARMUP_CALLS):
            client.get_bulletin()
        samples = []
        for _ in range(count):
            start = clock()
            client.get_bulletin()
            samples.append(clock() - start)
    samples.sort()
    p99 = (count * 99 + 99) // 100 - 1
    print(
        f"latency calls={count} median_ns={samples[(count - 1) // 2]} p99_ns={samples[p99]} "
        f"mean_ns={sum(samples) // count} min_ns={samples[0]} max_ns={samples[-1]}"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
