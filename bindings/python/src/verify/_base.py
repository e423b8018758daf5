"""What both clients stand on (:class:`verify.Client`, blocking, and
:class:`verify.AsyncClient`, coroutines): the native client made from the options, one call
and its outcome (and the same call on the event loop's executor), the client's machine code
and its keepers."""

from __future__ import annotations

import atexit
import ctypes
import functools
import os
import traceback
import weakref
from typing import Any, Callable, Iterable, Mapping, Optional, Sequence, Union

from . import _in_executor, _keeper, _native
from ._duration import Duration, millis, seconds
from ._enums import LogLevel, SessionKind, Trust
from ._failures import check, error, local_error
from ._generated.codes import SUCCESSES
from ._keeper import Event, Keeper
from ._machine import machine_code as this_machine_code
from ._reply import Reply
from ._result import Result
from ._state_folder import PathLike, StateFolder, StateFolderChoice, native_folder

#: A log callback: (level, message), on the thread that makes the call. It never receives a
#: secret.
LogCallback = Callable[[LogLevel, str], None]

#: Clients not closed yet: closed at exit (after the keepers), while their log callbacks can
#: still run.
_LIVE: "weakref.WeakSet[ClientBase]" = weakref.WeakSet()


@atexit.register
def _close_at_exit() -> None:
    _keeper._close_at_exit()
    for client in list(_LIVE):
        try:
            client.close()
        except Exception:
            pass


class ClientBase:
    """The native client of :class:`verify.Client` and :class:`verify.AsyncClient`, made
    from the options, and what both do alike."""

    _handle: Optional[int] = None

    def __init__(
        self,
        base_url: str,
        app_id: str,
        app_key: str,
        *,
        mirrors: Sequence[str] = (),
        trust: Optional[Trust] = None,
        roots_pem: Iterable[str] = (),
        root_files: Iterable[PathLike] = (),
        pins: Iterable[str] = (),
        proxy: Optional[str] = None,
        allow_insecure_http: bool = False,
        connect_timeout: Optional[Duration] = None,
        call_timeout: Optional[Duration] = None,
        attempt_delay: Optional[Duration] = None,
        addresses: Optional[Mapping[str, Iterable[str]]] = None,
        state_folder: Optional[StateFolderChoice] = StateFolder.OFF,
        offline_grace: Optional[Duration] = None,
        start_budget: Optional[Duration] = None,
        clock_tolerance: Optional[Duration] = None,
        machine_code: Optional[str] = None,
        log: Optional[LogCallback] = None,
    ) -> None:
        """A client of the service at ``base_url`` for the program ``app_id`` (its AppKey
        ``app_key``). The options, keyword arguments (the C library's defaults):

        * ``mirrors``: other base URLs of the same service, raced and failed over to.
        * ``trust``: :class:`verify.Trust` flags (``MOZILLA`` by default, ``SYSTEM``, or
          ``Trust(0)`` to trust only ``roots_pem``, ``root_files`` and ``pins``).
        * ``roots_pem`` (PEM texts), ``root_files`` (PEM files): extra trusted roots.
        * ``pins``: base64 SHA-256 SPKI hashes; a pinned self-signed certificate needs no CA.
        * ``proxy``: ``"system"`` (the default), ``"none"``, or a URL (``http://``,
          ``https://``, ``socks5://``, ``socks5h://``, with ``user:password@``).
        * ``allow_insecure_http``: plain ``http://`` to a host that is not loopback.
        * ``connect_timeout``, ``call_timeout`` (10 s and 30 s), ``attempt_delay`` (0.25 s):
          durations, a ``timedelta`` or seconds.
        * ``addresses``: fixed addresses of host names, ``{"host": ["ip", ...]}``.
        * ``state_folder``: where state that outlives the process goes: a path,
          ``StateFolder.DEFAULT`` (the per-user default folder) or ``StateFolder.OFF``
          (nothing is written: the default).
        * ``offline_grace`` (off by default), ``start_budget``, ``clock_tolerance`` (10
          minutes): offline verdicts, which need a state folder: a login that cannot reach the
          service is answered from the last good one for this long (README, "Offline").
        * ``machine_code``: the machine code the actions send when given none; by default
          :func:`verify.machine_code` of the AppId (v1), read when first needed.
        * ``log``: a callable ``(level, message)``; it never receives a secret.

        A bad option raises :class:`verify.InvalidArgument` (a ``ValueError``); with offline
        verdicts on, a state folder that cannot be written raises a :class:`verify.VerifyError`
        (``Code.STATE_FOLDER``).
        """
        lib = _native.lib
        self._handle = None
        self._app_id = app_id
        self._machine_code = machine_code
        self._log_callback: Any = None
        options = ctypes.c_void_p()
        check(lib.verify_client_options_new(ctypes.byref(options)))
        try:
            for mirror in mirrors:
                check(lib.verify_client_options_add_mirror(options, _native.arg(mirror, "mirror")))
            if trust is not None:
                check(lib.verify_client_options_set_trust(options, int(trust)))
            for pem in roots_pem:
                check(lib.verify_client_options_add_root_pem(options, _native.arg(pem, "roots_pem")))
            for path in root_files:
                check(lib.verify_client_options_add_root_file(options, _native.arg(os.fspath(path), "root_files")))
            for pin in pins:
                check(lib.verify_client_options_add_pin(options, _native.arg(pin, "pins")))
            if proxy is not None:
                if proxy == "system":
                    check(lib.verify_client_options_set_proxy(options, 0, None))
                elif proxy == "none":
                    check(lib.verify_client_options_set_proxy(options, 1, None))
                else:
                    check(lib.verify_client_options_set_proxy(options, 2, _native.arg(proxy, "proxy")))
            if allow_insecure_http:
                check(lib.verify_client_options_allow_insecure_http(options, 1))
            if connect_timeout is not None or call_timeout is not None:
                check(
                    lib.verify_client_options_set_timeouts(
                        options,
                        millis(10.0 if connect_timeout is None else connect_timeout, "connect_timeout"),
                        millis(30.0 if call_timeout is None else call_timeout, "call_timeout"),
                    )
                )
            if attempt_delay is not None:
                check(lib.verify_client_options_set_attempt_delay(options, millis(attempt_delay, "attempt_delay")))
            for host, ips in (addresses or {}).items():
                for ip in ips:
                    check(lib.verify_client_options_add_address(options, _native.arg(host, "host"), _native.arg(ip, "ip")))
            if state_folder is not StateFolder.OFF:
                folder = native_folder(state_folder, StateFolder.OFF)
                if folder is not None:
                    check(lib.verify_client_options_set_state_folder(options, folder or None))
            if offline_grace is not None:
                check(lib.verify_client_options_set_offline_grace(options, seconds(offline_grace, "offline_grace")))
            if start_budget is not None:
                check(lib.verify_client_options_set_start_budget(options, millis(start_budget, "start_budget")))
            if clock_tolerance is not None:
                check(
                    lib.verify_client_options_set_clock_tolerance(options, seconds(clock_tolerance, "clock_tolerance"))
                )
            if log is not None:
                self._log_callback = _native.LOG_CALLBACK(_log_trampoline(log))
                check(lib.verify_client_options_set_log(options, self._log_callback, None))
            out = ctypes.c_void_p()
            check(
                lib.verify_client_new_with_options(
                    _native.arg(base_url, "base_url"),
                    _native.arg(app_id, "app_id"),
                    _native.arg(app_key, "app_key"),
                    options,
                    ctypes.byref(out),
                )
            )
            self._handle = out.value
            _LIVE.add(self)
        finally:
            lib.verify_client_options_free(options)

    def close(self) -> None:
        """Frees the client (idempotent): its keepers stop, its secrets are wiped, its
        connections closed. No call may be in progress."""
        handle, self._handle = self._handle, None
        if handle is not None:
            _native.lib.verify_client_free(handle)

    def __del__(self) -> None:
        try:
            self.close()
        except Exception:  # interpreter shutdown
            pass

    def __repr__(self) -> str:
        state = "closed" if self._handle is None else "open"
        return f"{type(self).__name__}({state})"

    @property
    def machine_code(self) -> str:
        """The machine code the actions send when given none: the ``machine_code`` option,
        else :func:`verify.machine_code` of the AppId (v1, read once)."""
        if self._machine_code is None:
            self._machine_code = this_machine_code(self._app_id)
        return self._machine_code

    def set_timeouts(self, connect_timeout: Duration, call_timeout: Duration) -> None:
        """Sets the connect and whole-call timeouts (``timedelta`` or seconds) for calls that
        start later."""
        check(
            _native.lib.verify_client_set_timeouts(
                self._client(), millis(connect_timeout, "connect_timeout"), millis(call_timeout, "call_timeout")
            )
        )

    def keep_alive(
        self,
        session: Union[Result, Reply, str],
        kind: Optional[SessionKind] = None,
        *,
        interval: Duration = 300.0,
        grace: Duration = 900.0,
        ip: Optional[str] = None,
        callback: Optional[Callable[[Event], None]] = None,
    ) -> Keeper:
        """Keeps a session alive in the background and reports its events.

        ``session`` is a login's result (:meth:`single_login`, :meth:`user_login`, a social
        login; its token and kind are used, and an offline verdict is followed until the
        server takes it), or a token with its ``kind``. ``interval`` is the time between
        heartbeats (a ``timedelta`` or seconds, at least 1 s; 5 minutes by default),
        ``grace`` how long the session stays usable while heartbeats fail (15 minutes).
        ``callback(event)`` runs on the keeper's event thread; every event also goes to
        :meth:`Keeper.events`. Starting does not block: it works with both clients."""
        reply: Optional[Reply] = None
        token: Optional[str] = None
        if isinstance(session, Result):
            reply = session.reply
        elif isinstance(session, Reply):
            reply = session
        else:
            token = session
            if kind is None:
                raise ValueError("a token needs its kind: SessionKind.CARD or SessionKind.USER")
        return _keeper.start(
            self,
            self._client(),
            reply_handle=reply.handle if reply is not None else None,
            token=token,
            kind=int(kind or 0),
            interval=interval,
            grace=grace,
            ip=ip,
            callback=callback,
        )

    # What the generated action methods (verify._generated.actions) call.

    def _client(self) -> int:
        if self._handle is None:
            raise ValueError("the client is closed")
        return self._handle

    def _machine(self, value: Optional[str], name: str) -> bytes:
        """A machine code argument: ``value``, or the client's when None."""
        return _native.arg(self.machine_code if value is None else value, name)

    def _invoke(self, function: Any, *args: Any) -> Reply:
        """Calls ``function(client, *args, &reply)``: the reply when the code is 200, 201 or
        202; else raises the exception of the code's family with the server's code, message,
        remark and reply, or the local failure's code and message."""
        out = ctypes.c_void_p()
        code = int(function(self._client(), *args, ctypes.byref(out)))
        if out.value:
            if code in SUCCESSES:
                return Reply(out.value, code)
            reply = Reply(out.value, code)
            raise error(code, reply.message, reply.remark, reply)
        raise local_error(code)

    async def _invoke_async(self, function: Any, *args: Any) -> Reply:
        """:meth:`_invoke` on the event loop's default executor: the loop goes on while the
        call blocks (ctypes releases the GIL during it), and cancelling the task cancels the
        call in flight (:func:`verify._in_executor.run`)."""
        return await _in_executor.run(functools.partial(self._invoke, function, *args))


def _log_trampoline(log: LogCallback) -> Callable[[Optional[int], int, Optional[bytes]], None]:
    def on_log(_user_data: Optional[int], level: int, message: Optional[bytes]) -> None:
        try:
            log(LogLevel(level), _native.text(message or b""))
        except Exception:
            traceback.print_exc()

    return on_log
