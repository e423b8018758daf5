"""The blocking client: every action of the table (generated, :class:`Actions`), and the
calls that are not in it: Init, any action, the social wait."""

from __future__ import annotations

import functools
from typing import TYPE_CHECKING, Any, Mapping, Optional

from . import _in_executor, _native
from ._cancel import Cancel
from ._deprecated import renamed, warn
from ._diagnosis import Diagnosis, StepCallback, diagnose
from ._duration import Duration
from ._generated.actions import Actions
from ._generated.results import UserSession
from ._reply import Reply
from ._requests import call_args, wait_args


class Client(Actions):
    """A client of the service for one program, blocking: every action is a method returning
    its typed result (:class:`verify.CardLogin`, ...) and raising a
    :class:`verify.VerifyError` of the failure's family (:class:`verify.WrongCredentials`,
    :class:`verify.Banned`, :class:`verify.NetworkError`, ...). :class:`verify.AsyncClient`
    has the same methods as coroutines. Use it in a ``with`` block, or :meth:`close` it.

    ``verify.Client(base_url, app_id, app_key, **options)``: the options are keyword
    arguments (the constructor's docs list them). Thread-safe: any number of threads may make
    calls at once (the GIL is released during each).
    """

    def __enter__(self) -> "Client":
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def init(self) -> Reply:
        """Runs the Init handshake now (otherwise the first action runs it)."""
        return self._invoke(_native.lib.verify_init)

    def call(self, action: str, params: Optional[Mapping[str, str]] = None) -> Reply:
        """Any action with any parameters (wire names and values); at most 256 parameters.
        Never sent twice once it may have reached the server."""
        return self._invoke(_native.lib.verify_call, *call_args(action, params))

    @renamed(mac="machine_code")
    def social_login_wait(
        self,
        state: str,
        machine_code: Optional[str] = None,
        *,
        interval: Duration = 2.0,
        timeout: Duration = 300.0,
        cancel: Optional[Cancel] = None,
    ) -> UserSession:
        """Social login step 2, polled every ``interval`` (a ``timedelta`` or seconds) until
        the user authorizes (the login), the server refuses, ``timeout`` passes
        (:class:`verify.VerifyTimeout`) or ``cancel`` is cancelled
        (:class:`verify.Cancelled`). ``machine_code`` is the client's when None."""
        args = wait_args(state, self._machine(machine_code, "machine_code"), interval, timeout, cancel)
        return UserSession.from_reply(self._invoke(_native.lib.verify_social_login_wait, *args))

    def diagnose(
        self,
        on_step: Optional[StepCallback] = None,
        *,
        cancel: Optional[Cancel] = None,
        deadline: Optional[Duration] = None,
    ) -> Diagnosis:
        """The doctor with this client's own settings (its URL and mirrors, AppId, AppKey,
        trust and pins, proxy, state folder, offline grace and timeouts): every step a login
        depends on, and :attr:`Diagnosis.first_line` naming the cause, what to do and who acts.
        Support never needs the AppKey; the program's session is not touched (Init runs on a
        client of the doctor's own) and nothing is sent but Init.

        ``on_step(step)`` gets each step as it finishes, on the calling thread (an exception
        it raises is raised once the doctor ends); ``cancel`` stops it within 50 ms
        (:class:`verify.Cancelled`); it returns within ``deadline`` (a ``timedelta`` or
        seconds; 10 s by default) whatever the network does."""
        return diagnose(self._client(), on_step, cancel, deadline)

    if not TYPE_CHECKING:

        def __getattr__(self, name: str) -> Any:
            # The previous release's coroutine twins (`client.single_login_async(...)`),
            # deprecated for verify.AsyncClient: the blocking method on the loop's executor,
            # cancelled in flight with the task, as AsyncClient's methods are.
            blocking = name[: -len("_async")] if name.endswith("_async") else ""
            if blocking and callable(getattr(Client, blocking, None)):
                warn(f"Client.{name}()", f"verify.AsyncClient's {blocking}()")
                method = getattr(self, blocking)

                async def run(*args: Any, **kwargs: Any) -> Any:
                    return await _in_executor.run(functools.partial(method, *args, **kwargs))

                return run
            raise AttributeError(f"{type(self).__name__!r} object has no attribute {name!r}")
