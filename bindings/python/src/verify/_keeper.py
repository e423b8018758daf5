"""The keeper: a session kept alive by heartbeats on the library's own threads, reporting
events to a callback and to an iterator."""

from __future__ import annotations

import asyncio
import atexit
import ctypes
import queue
import threading
import traceback
import weakref
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any, AsyncIterator, Callable, Iterator, List, Optional, Tuple

from . import _native
from ._duration import Duration, millis, optional_seconds
from ._enums import EventKind, KeeperState
from ._failures import check
from ._generated.codes import Code
from ._reply import code_of
from ._time import from_unix, parse_service_time

_NO_SUCH_FIELD = -9

#: Keepers dropped on their own event thread, with their callbacks: the library forbids
#: freeing a keeper there, so they are stopped and kept (see :meth:`Keeper.__del__`).
_ORPHANS: List[Tuple[int, Any]] = []

#: Keepers not closed yet: closed at exit (their threads joined), so that no callback runs
#: while the interpreter finalizes.
_LIVE: "weakref.WeakSet[Keeper]" = weakref.WeakSet()


@atexit.register
def _close_at_exit() -> None:
    for keeper in list(_LIVE):
        try:
            keeper.close()
        except Exception:
            pass


@dataclass(frozen=True)
class Event:
    """One report of a keeper: what happened (``kind``) and the heartbeat's code."""

    #: What the event reports (a kind a later library adds is an ``EventKind`` too).
    kind: EventKind
    #: The heartbeat's code: 200, the server's refusal, or a negative local code.
    code: Code
    #: The server's message or the local failure's explanation (may be empty).
    message: str = ""
    #: ``remark`` of a refusal (the reason of a 1006).
    remark: Optional[str] = None
    #: The session's expiry on ALIVE (UTC+08:00).
    expire_at: Optional[datetime] = None
    #: The back-office message on MESSAGE.
    text: Optional[str] = None
    #: When the grace period ends, on OFFLINE, and on TROUBLE and ENDED while offline.
    grace_end: Optional[datetime] = None

    @staticmethod
    def _from_struct(event: _native.EventStruct) -> "Event":
        def string(value: Optional[bytes]) -> Optional[str]:
            return None if value is None else _native.text(value)

        return Event(
            kind=EventKind(event.kind),
            code=code_of(int(event.code)),
            message=string(event.message) or "",
            remark=string(event.remark),
            expire_at=parse_service_time(string(event.expire_at)),
            text=string(event.text),
            grace_end=from_unix(event.grace_end) if event.grace_end else None,
        )


@dataclass(frozen=True)
class KeeperStatus:
    """A snapshot of a keeper (``verify_keeper_get_status``)."""

    state: KeeperState
    last_code: Code
    last_message: str
    remark: Optional[str]
    expire_at: Optional[datetime]
    last_confirmed: Optional[datetime]
    grace_end: Optional[datetime]
    last_success: Optional[datetime]
    ok_count: int
    failed_count: int
    #: Back-office messages received since the previous snapshot (only without a callback).
    messages: List[str] = field(default_factory=list)


class Keeper:
    """A running keeper, made by :meth:`verify.Client.keep_alive`. Events go to the callback
    (on the keeper's event thread) and to :meth:`events`; :meth:`close` (or leaving a
    ``with`` block) stops it and joins its threads."""

    def __init__(self, client: object, handle: int, callback: Any, events: "queue.Queue[Optional[Event]]") -> None:
        self._client = client  # kept alive while the keeper runs
        self._handle: Optional[int] = handle
        self._callback = callback
        self._events = events
        self._lock = threading.Lock()
        self._event_thread: List[int] = []

    def _live(self) -> int:
        if self._handle is None:
            raise ValueError("the keeper is closed")
        return self._handle

    @property
    def state(self) -> KeeperState:
        """The session's state now: ``ALIVE``, ``GRACE`` or ``ENDED`` (a state a later library
        adds is a ``KeeperState`` too; treat one it does not name as not alive)."""
        if self._handle is None:
            return KeeperState.ENDED
        return KeeperState(int(_native.lib.verify_keeper_state(self._handle)))

    def status(self) -> KeeperStatus:
        """A snapshot: state, last heartbeat, expiry, counters, messages."""
        out = ctypes.c_void_p()
        check(_native.lib.verify_keeper_get_status(self._live(), ctypes.byref(out)))
        status = out.value
        lib = _native.lib
        try:
            def int_of(function: Any, kind: Any = ctypes.c_int64) -> Optional[int]:
                value = kind()
                code = function(status, ctypes.byref(value))
                if code == _NO_SUCH_FIELD:
                    return None
                check(code)
                return int(value.value)

            def str_of(function: Any) -> Optional[str]:
                value = ctypes.c_char_p()
                code = function(status, ctypes.byref(value))
                if code == _NO_SUCH_FIELD:
                    return None
                check(code)
                return _native.text(value.value or b"")

            def time_of(function: Any) -> Optional[datetime]:
                seconds = int_of(function)
                return None if seconds is None else from_unix(seconds)

            ok, failed = ctypes.c_uint64(), ctypes.c_uint64()
            check(lib.verify_keeper_status_counts(status, ctypes.byref(ok), ctypes.byref(failed)))
            count = ctypes.c_size_t()
            check(lib.verify_keeper_status_message_count(status, ctypes.byref(count)))
            messages = []
            for index in range(count.value):
                text = ctypes.c_char_p()
                check(lib.verify_keeper_status_message(status, index, ctypes.byref(text)))
                messages.append(_native.text(text.value or b""))
            return KeeperStatus(
                state=KeeperState(int_of(lib.verify_keeper_status_state, ctypes.c_int32) or 0),
                last_code=code_of(int_of(lib.verify_keeper_status_last_code, ctypes.c_int32) or 0),
                last_message=str_of(lib.verify_keeper_status_last_message) or "",
                remark=str_of(lib.verify_keeper_status_remark),
                expire_at=parse_service_time(str_of(lib.verify_keeper_status_expire_at)),
                last_confirmed=time_of(lib.verify_keeper_status_last_confirmed),
                grace_end=time_of(lib.verify_keeper_status_grace_end),
                last_success=time_of(lib.verify_keeper_status_last_success),
                ok_count=int(ok.value),
                failed_count=int(failed.value),
                messages=messages,
            )
        finally:
            lib.verify_keeper_status_free(status)

    def next_event(self, timeout: Optional[Duration] = None) -> Optional[Event]:
        """The next event, waiting up to ``timeout`` (a ``timedelta`` or seconds; None: until
        one comes); None when none came in time or the keeper was closed."""
        try:
            return self._events.get(timeout=optional_seconds(timeout, "timeout"))
        except queue.Empty:
            return None

    def events(self, timeout: Optional[Duration] = None) -> Iterator[Event]:
        """The events as they come, ending after an ENDED event, when the keeper is closed,
        or when ``timeout`` passes without one (None: no limit). Events are queued from the
        start whether or not anyone iterates."""
        while True:
            event = self.next_event(timeout)
            if event is None:
                return
            yield event
            if event.kind == EventKind.ENDED:
                return

    async def next_event_async(self, timeout: Optional[Duration] = None) -> Optional[Event]:
        """:meth:`next_event` awaited (on the event loop's executor)."""
        loop = asyncio.get_running_loop()
        return await loop.run_in_executor(None, self.next_event, timeout)

    async def aevents(self, timeout: Optional[Duration] = None) -> AsyncIterator[Event]:
        """:meth:`events` as an asynchronous iterator: ``async for event in keeper.aevents()``."""
        while True:
            event = await self.next_event_async(timeout)
            if event is None:
                return
            yield event
            if event.kind == EventKind.ENDED:
                return

    def stop(self) -> None:
        """Stops the keeper (idempotent): from any thread, the keeper's callback included."""
        handle = self._handle
        if handle is not None:
            check(_native.lib.verify_keeper_stop(handle))
        self._events.put(None)

    def close(self) -> None:
        """Stops and frees the keeper, joining its threads (idempotent). Not from the
        keeper's own callback: :meth:`stop` there."""
        if self._event_thread and self._event_thread[0] == threading.get_ident():
            raise RuntimeError("close() from the keeper's own callback: call stop() there")
        with self._lock:
            handle, self._handle = self._handle, None
        if handle is not None:
            _native.lib.verify_keeper_free(handle)
            self._events.put(None)

    def __enter__(self) -> "Keeper":
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def __del__(self) -> None:
        try:
            if self._event_thread and self._event_thread[0] == threading.get_ident():
                handle, self._handle = self._handle, None
                if handle is not None:
                    _native.lib.verify_keeper_stop(handle)
                    _ORPHANS.append((handle, self._callback))
                return
            self.close()
        except Exception:  # interpreter shutdown
            pass

    def __repr__(self) -> str:
        return f"Keeper(state={self.state!r})"


def start(
    client: Any,
    client_handle: int,
    *,
    reply_handle: Optional[int],
    token: Optional[str],
    kind: int,
    interval: Duration,
    grace: Duration,
    ip: Optional[str],
    callback: Optional[Callable[[Event], None]],
) -> Keeper:
    """Starts a keeper from a login's reply or from a token and kind."""
    lib = _native.lib
    events: "queue.Queue[Optional[Event]]" = queue.Queue()
    event_thread: List[int] = []

    def on_event(_user_data: Optional[int], pointer: Any) -> None:
        try:
            if not event_thread:
                event_thread.append(threading.get_ident())
            event = Event._from_struct(pointer.contents)
            events.put(event)
            if callback is not None:
                callback(event)
        except Exception:
            traceback.print_exc()

    c_callback = _native.EVENT_CALLBACK(on_event)
    options = ctypes.c_void_p()
    check(lib.verify_keeper_options_new(ctypes.byref(options)))
    try:
        check(lib.verify_keeper_options_set_interval(options, millis(interval, "interval")))
        check(lib.verify_keeper_options_set_grace(options, millis(grace, "grace")))
        if ip:
            check(lib.verify_keeper_options_set_ip(options, _native.arg(ip, "ip")))
        check(lib.verify_keeper_options_set_callback(options, c_callback, None))
        out = ctypes.c_void_p()
        if reply_handle is not None:
            code = lib.verify_keeper_start_from_reply(client_handle, reply_handle, options, ctypes.byref(out))
        else:
            assert token is not None
            code = lib.verify_keeper_start(client_handle, _native.arg(token, "token"), int(kind), options, ctypes.byref(out))
        check(code)
    finally:
        lib.verify_keeper_options_free(options)
    assert out.value is not None
    keeper = Keeper(client, out.value, c_callback, events)
    keeper._event_thread = event_thread
    _LIVE.add(keeper)
    return keeper

