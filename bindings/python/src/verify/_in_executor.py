"""A blocking call of the library run for asyncio: on the event loop's default executor, with a
:class:`verify.Cancel` attached to the worker thread, so that cancelling the task that awaits
it cancels the call in flight (the library returns within 50 ms) instead of leaving it to run
until its timeout."""

from __future__ import annotations

import asyncio
from typing import Any, Callable, TypeVar

from ._cancel import Cancel
from ._errors import VerifyError

T = TypeVar("T")

#: How long a cancelled task waits for its call to end before it lets go: the library ends a
#: call in flight within 50 ms of the cancel; a call that has not started by then (every
#: worker busy) fails at once when it does, sending nothing.
_SETTLE = 1.0


async def run(call: Callable[[], T]) -> T:
    """``call()`` on the loop's default executor, the worker thread watched by a fresh token.
    When the awaiting task is cancelled, the token is cancelled and ``asyncio.CancelledError``
    is raised once the call has ended (within 50 ms; at most :data:`_SETTLE` s), from the
    call's :class:`verify.Cancelled` when it was stopped: its message says whether the server
    may have received a request that changes state."""
    loop = asyncio.get_running_loop()
    cancel = Cancel()

    def watched() -> T:
        with cancel:
            return call()

    future = loop.run_in_executor(None, watched)
    # Whatever comes of the call once the task has let go is read, never logged as lost.
    future.add_done_callback(_consume)
    try:
        return await asyncio.shield(future)
    except asyncio.CancelledError as cancelled:
        cancel.cancel()
        done, _ = await asyncio.wait({future}, timeout=_SETTLE)
        error = future.exception() if done and not future.cancelled() else None
        if isinstance(error, VerifyError):
            raise asyncio.CancelledError(str(error)) from error
        raise cancelled


def _consume(future: "asyncio.Future[Any]") -> None:
    if not future.cancelled():
        future.exception()
