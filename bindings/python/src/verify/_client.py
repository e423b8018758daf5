"""The client: one program of the service, its options as keyword arguments, the calls that
are not in the action table (Init, any action, the social wait) and the keeper."""

from __future__ import annotations

import atexit
import ctypes
import os
import weakref
import traceback
from typing import Any, Callable, Iterable, Mapping, Optional, Sequence, Union

from . import _keeper, _native
from ._enums import LogLevel, SessionKind, known
from ._errors import VerifyError, check
from ._generated.actions import Actions
from ._generated.results import UserSession
from ._keeper import Event, Keeper, _millis
from ._reply import Reply
from ._result import Result

PathLike = Union[str, "os.PathLike[str]"]

#: A log callback: (level, message), on the thread that makes the call; the level is a
#: :class:`verify.LogLevel` (or an ``int`` a later library added).
LogCallback = Callable[[int, str], None]


#: Clients not closed yet: closed at exit (after the keepers), while their log callbacks can
#: still run.
_LIVE: "weakref.WeakSet[Client]" = weakref.WeakSet()


@atexit.register
def _close_at_exit() -> None:
    _keeper._close_at_exit()
    for client in list(_LIVE):
        try:
            client.close()
        except Exception:
            pass


class Cancel:
    """A cancellation token for :meth:`Client.social_login_wait`: :meth:`cancel` from another
    thread stops the wait within milliseconds."""

    def __init__(self) -> None:
        out = ctypes.c_void_p()
        check(_native.lib.verify_cancel_new(ctypes.byref(out)))
        self._handle: Optional[int] = out.value

    @property
    def handle(self) -> Optional[int]:
        return self._handle

    def cancel(self) -> None:
        """Cancels: a wait using this token returns ``ERR_CANCELLED``; later waits at once."""
        if self._handle is not None:
            check(_native.lib.verify_cancel_cancel(self._handle))

    def __del__(self) -> None:
        try:
            handle, self._handle = self._handle, None
            _native.lib.verify_cancel_free(handle)
        except Exception:  # interpreter shutdown
            pass


class Client(Actions):
    """A client of the service for one program. Thread-safe: any number of threads may make
    calls at once (the GIL is released during each). Every action is a method (blocking)
    and a coroutine (``..._async``) returning its typed result, raising
    :class:`verify.VerifyError` with the server's code, message and remark when it refuses.

    The options are keyword arguments (defaults as the C library's):

    * ``mirrors``: other base URLs of the same service, raced and failed over to.
    * ``trust``: :class:`verify.Trust` flags (``MOZILLA`` by default, ``SYSTEM``, or 0 to
      trust only ``roots_pem``, ``root_files`` and ``pins``).
    * ``roots_pem`` (PEM texts), ``root_files`` (PEM files): extra trusted roots.
    * ``pins``: base64 SHA-256 SPKI hashes; a pinned self-signed certificate needs no CA.
    * ``proxy``: ``"system"`` (the default), ``"none"``, or a URL (``http://``,
      ``https://``, ``socks5://``, ``socks5h://``, with ``user:password@``).
    * ``allow_insecure_http``: plain ``http://`` to a host that is not loopback.
    * ``connect_timeout``, ``call_timeout`` (seconds: 10 and 30), ``attempt_delay`` (0.25).
    * ``addresses``: fixed addresses of host names, ``{"host": ["ip", ...]}``.
    * ``state_folder``: the folder of state that outlives the process (``""``: the
      per-user default; None: nothing is written).
    * ``offline_grace`` (seconds; 0 off), ``start_budget`` (seconds), ``clock_tolerance``
      (seconds, 600): offline verdicts, see docs/offline.md.
    * ``log``: a callable ``(level, message)``; it never receives a secret.
    """

    def __init__(
        self,
        base_url: str,
        app_id: str,
        app_key: str,
        *,
        mirrors: Sequence[str] = (),
        trust: Optional[int] = None,
        roots_pem: Iterable[str] = (),
        root_files: Iterable[PathLike] = (),
        pins: Iterable[str] = (),
        proxy: Optional[str] = None,
        allow_insecure_http: bool = False,
        connect_timeout: Optional[float] = None,
        call_timeout: Optional[float] = None,
        attempt_delay: Optional[float] = None,
        addresses: Optional[Mapping[str, Iterable[str]]] = None,
        state_folder: Optional[PathLike] = None,
        offline_grace: Optional[float] = None,
        start_budget: Optional[float] = None,
        clock_tolerance: Optional[float] = None,
        log: Optional[LogCallback] = None,
    ) -> None:
        lib = _native.lib
        self._handle = None
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
                        _millis(10.0 if connect_timeout is None else connect_timeout, "connect_timeout"),
                        _millis(30.0 if call_timeout is None else call_timeout, "call_timeout"),
                    )
                )
            if attempt_delay is not None:
                check(lib.verify_client_options_set_attempt_delay(options, _millis(attempt_delay, "attempt_delay")))
            for host, ips in (addresses or {}).items():
                for ip in ips:
                    check(lib.verify_client_options_add_address(options, _native.arg(host, "host"), _native.arg(ip, "ip")))
            if state_folder is not None:
                check(
                    lib.verify_client_options_set_state_folder(
                        options, _native.arg(os.fspath(state_folder), "state_folder")
                    )
                )
            if offline_grace is not None:
                check(lib.verify_client_options_set_offline_grace(options, _seconds(offline_grace, "offline_grace")))
            if start_budget is not None:
                check(lib.verify_client_options_set_start_budget(options, _millis(start_budget, "start_budget")))
            if clock_tolerance is not None:
                check(
                    lib.verify_client_options_set_clock_tolerance(options, _seconds(clock_tolerance, "clock_tolerance"))
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

    def __enter__(self) -> "Client":
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def __del__(self) -> None:
        try:
            self.close()
        except Exception:  # interpreter shutdown
            pass

    def __repr__(self) -> str:
        return "Client(closed)" if self._handle is None else "Client(open)"

    def set_timeouts(self, connect_timeout: float, call_timeout: float) -> None:
        """Sets the connect and whole-call timeouts (seconds) for calls that start later."""
        check(
            _native.lib.verify_client_set_timeouts(
                self._client(), _millis(connect_timeout, "connect_timeout"), _millis(call_timeout, "call_timeout")
            )
        )

    def init(self) -> Reply:
        """Runs the Init handshake now (otherwise the first action runs it)."""
        return self._invoke(_native.lib.verify_init)

    async def init_async(self) -> Reply:
        """:meth:`init` on the event loop's executor."""
        return await self._run(self.init)

    def call(self, action: str, params: Optional[Mapping[str, str]] = None) -> Reply:
        """Any action with any parameters (wire names and values); at most 256 parameters.
        Never sent twice once it may have reached the server."""
        items = list((params or {}).items())
        keys = (ctypes.c_char_p * max(len(items), 1))(*[_native.arg(k, "key") for k, _ in items])
        values = (ctypes.c_char_p * max(len(items), 1))(*[_native.arg(v, "value") for _, v in items])
        return self._invoke(
            _native.lib.verify_call,
            _native.arg(action, "action"),
            keys if items else None,
            values if items else None,
            len(items),
        )

    async def call_async(self, action: str, params: Optional[Mapping[str, str]] = None) -> Reply:
        """:meth:`call` on the event loop's executor."""
        return await self._run(self.call, action, params)

    def social_login_wait(
        self,
        state: str,
        mac: Optional[str] = None,
        *,
        interval: float = 2.0,
        timeout: float = 300.0,
        cancel: Optional[Cancel] = None,
    ) -> UserSession:
        """Social login step 2, polled every ``interval`` seconds until the user authorizes
        (the login), the server refuses, ``timeout`` passes (``ERR_TIMEOUT``) or ``cancel``
        is cancelled (``ERR_CANCELLED``)."""
        reply = self._invoke(
            _native.lib.verify_social_login_wait,
            _native.arg(state, "state"),
            _native.optional_arg(mac, "mac"),
            max(_millis(interval, "interval"), 1),
            _millis(timeout, "timeout"),
            cancel.handle if cancel is not None else None,
        )
        return UserSession.from_reply(reply)

    async def social_login_wait_async(
        self,
        state: str,
        mac: Optional[str] = None,
        *,
        interval: float = 2.0,
        timeout: float = 300.0,
        cancel: Optional[Cancel] = None,
    ) -> UserSession:
        """:meth:`social_login_wait` on the event loop's executor."""
        return await self._run(
            self.social_login_wait, state, mac, interval=interval, timeout=timeout, cancel=cancel
        )

    def keep_alive(
        self,
        session: Union[Result, Reply, str],
        kind: Optional[SessionKind] = None,
        *,
        interval: float = 300.0,
        grace: float = 900.0,
        ip: Optional[str] = None,
        callback: Optional[Callable[[Event], None]] = None,
    ) -> Keeper:
        """Keeps a session alive in the background and reports its events.

        ``session`` is a login's result (:meth:`single_login`, :meth:`user_login`, a social
        login; its token and kind are used, and an offline verdict is followed until the
        server takes it), or a token with its ``kind``. ``interval`` is the time between
        heartbeats (seconds, at least 1; 300 by default), ``grace`` how long the session stays
        usable while heartbeats fail (900). ``callback(event)`` runs on the keeper's event
        thread; every event also goes to :meth:`Keeper.events`."""
        reply: Optional[Reply] = None
        token: Optional[str] = None
        if isinstance(session, Result):
            reply = session.reply
            if reply is None:
                raise ValueError("this result carries no reply to keep")
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


def _seconds(value: float, name: str) -> int:
    seconds = int(value)
    if not 0 <= seconds <= 0xFFFFFFFF:
        raise ValueError(f"{name} is out of range: {value}")
    return seconds


def _log_trampoline(log: LogCallback) -> Callable[[Optional[int], int, Optional[bytes]], None]:
    def on_log(_user_data: Optional[int], level: int, message: Optional[bytes]) -> None:
        try:
            log(known(LogLevel, level), _native.text(message or b""))
        except Exception:
            traceback.print_exc()

    return on_log


__all__ = ["Cancel", "Client", "LogCallback", "VerifyError"]
