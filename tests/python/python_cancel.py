"""The cancelling Python program of the network lab (tests/lab/cancel.rs), beside the C, C++
and C# ones:

    python3 python_cancel.py inflight BASE_URL APP_ID APP_KEY AFTER_MS bulletin|login [CARD MAC]

starts ``await client.get_bulletin()`` (or a card login) on a ``verify.AsyncClient`` and
cancels its task AFTER_MS later from the event loop, then prints

    cancelled code=C after_cancel_ms=T message=M

(T: from ``task.cancel()`` to the ``asyncio.CancelledError``, which comes once the native call
has returned; C and M: the call's ``verify.Cancelled``, the error's ``__cause__``). With
$VERIFY_HOST_CA the client trusts that CA too (the lab's https sandbox). Exits 0 when the
task was cancelled with the library's cancel inside, 1 otherwise.
"""

from __future__ import annotations

import asyncio
import os
import sys
import time
from typing import List

import verify


async def inflight(url: str, app_id: str, app_key: str, after_ms: int, call: List[str]) -> int:
    ca = os.environ.get("VERIFY_HOST_CA")
    roots = [ca] if ca else []
    async with verify.AsyncClient(url, app_id, app_key, root_files=roots, connect_timeout=30, call_timeout=30) as client:
        if call[0] == "login":
            task: "asyncio.Future[object]" = asyncio.ensure_future(client.single_login(call[1], call[2]))
        else:
            task = asyncio.ensure_future(client.get_bulletin())
        cancelled_at: List[float] = []

        def cancel() -> None:
            cancelled_at.append(time.monotonic())
            task.cancel()

        asyncio.get_running_loop().call_later(after_ms / 1000, cancel)
        try:
            await task
        except asyncio.CancelledError as cancelled:
            late = (time.monotonic() - cancelled_at[0]) * 1000
            cause = cancelled.__cause__
            if not isinstance(cause, verify.VerifyError):
                print(f"FAIL the task was cancelled without the library's error: {cause!r}")
                return 1
            print(f"cancelled code={int(cause.code)} after_cancel_ms={late:.1f} message={cause.message}")
            return 0 if cause.code == verify.Code.CANCELLED else 1
        except verify.VerifyError as error:
            print(f"FAIL the call ended before the cancel: {error}")
            return 1
        print("FAIL the call succeeded before the cancel")
        return 1


def main(argv: List[str]) -> int:
    if len(argv) >= 6 and argv[0] == "inflight":
        return asyncio.run(inflight(argv[1], argv[2], argv[3], int(argv[4]), argv[5:]))
    print("usage: python_cancel.py inflight BASE_URL APP_ID APP_KEY AFTER_MS bulletin|login [CARD MAC]", file=sys.stderr)
    return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
