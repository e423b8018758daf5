"""The client for asyncio: every action of the table as a coroutine (generated,
:class:`AsyncActions`), and the calls that are not in it."""

from __future__ import annotations

import functools
from typing import Mapping, Optional

from . import _in_executor, _native
from ._cancel import Cancel
from ._diagnosis import Diagnosis, StepCallback, diagnose
from ._duration import Duration
from ._generated.actions import AsyncActions
from ._generated.results import UserSession
from ._reply import Reply
from ._requests import call_args, wait_args


class AsyncClient(AsyncActions):
    """A client of the service for one program, for asyncio: the methods of
    :class:`verify.Client` as coroutines (``await client.single_login(card)``), each running
    its blocking call on the event loop's default executor while the loop goes on (the GIL is
    released during the call). Same options, same results and errors; :meth:`keep_alive`
    does not block and its keeper iterates with ``async for event in keeper.aevents()``.
    Use it in an ``async with`` block, or :meth:`close` it once no call is in flight.

    Cancelling the task that awaits a call cancels the call in flight (a
    :class:`verify.Cancel` is attached to the executor's thread for it): the library returns
    within 50 ms, in any phase, and the task raises ``asyncio.CancelledError``, chained
    (``__cause__``) to the call's :class:`verify.Cancelled`, whose message says when a
    request that changes state (a card login, a recharge ...) may have reached the server. A
    cancelled call is never sent again.
    """

    async def __aenter__(self) -> "AsyncClient":
        return self

    async def __aexit__(self, *exc: object) -> None:
        self.close()

    async def aclose(self) -> None:
        """:meth:`close`, awaitable."""
        self.close()

    async def init(self) -> Reply:
        """Runs the Init handshake now (otherwise the first action runs it)."""
        return await self._invoke_async(_native.lib.verify_init)

    async def call(self, action: str, params: Optional[Mapping[str, str]] = None) -> Reply:
        """Any action with any parameters (wire names and values); at most 256 parameters.
        Never sent twice once it may have reached the server."""
        return await self._invoke_async(_native.lib.verify_call, *call_args(action, params))

    async def social_login_wait(
        self,
        state: str,
        machine_code: Optional[str] = None,
        *,
        interval: Duration = 2.0,
        timeout: Duration = 300.0,
        cancel: Optional[Cancel] = None,
    ) -> UserSession:
        """Social login step 2, polled every ``interval`` until the user authorizes (the
        login), the server refuses, ``timeout`` passes (:class:`verify.VerifyTimeout`) or
        ``cancel`` is cancelled (:class:`verify.Cancelled`). ``machine_code`` is the client's
        when None. Without ``cancel``, cancelling the task ends the wait (a poll in flight
        too) within milliseconds; with it, only that token does."""
        args = wait_args(state, self._machine(machine_code, "machine_code"), interval, timeout, cancel)
        return UserSession.from_reply(await self._invoke_async(_native.lib.verify_social_login_wait, *args))

    async def diagnose(
        self,
        on_step: Optional[StepCallback] = None,
        *,
        deadline: Optional[Duration] = None,
    ) -> Diagnosis:
        """:meth:`verify.Client.diagnose` on the loop's executor (``on_step`` runs on the
        executor's thread); cancelling the task stops the doctor within 50 ms."""
        return await _in_executor.run(functools.partial(diagnose, self._client(), on_step, None, deadline))
