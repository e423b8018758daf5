"""A cancellation token (``verify_cancel``): :meth:`Cancel.cancel` from any thread stops the
calls of a thread it is attached to (``with cancel:``) within milliseconds, in any phase (name
lookup, connect, TLS, sending, waiting for the reply). :mod:`verify._in_executor` attaches one
to each call of :class:`verify.AsyncClient`, so that cancelling the task cancels the call."""

from __future__ import annotations

import ctypes
from typing import Optional

from . import _native
from ._failures import check


class Cancel:
    """A cancellation token. :meth:`cancel` (from any thread) stops, within milliseconds:

    * every call made on a thread inside ``with cancel:`` (the token is attached to that
      thread until the block ends; blocks nest, the innermost token cancels);
    * a :meth:`verify.Client.social_login_wait` or :meth:`verify.Client.diagnose` given it as
      ``cancel=``.

    A cancelled call raises :class:`verify.Cancelled` and is never sent again. An action that
    changes state on the server (a card login, a recharge, a rebind, a password change, a
    registration) cancelled after its request left says so in the error's message: the
    server may have received it. A cancelled token stays cancelled (later calls in the block
    fail at once, sending nothing): make a new one for the next call. With no token
    attached, calls cost nothing more.

    ::

        cancel = verify.Cancel()
        cancel_button.on_click(cancel.cancel)   # any thread
        with cancel:
            login = client.single_login(card)   # verify.Cancelled within 50 ms of the click
    """

    def __init__(self) -> None:
        out = ctypes.c_void_p()
        check(_native.lib.verify_cancel_new(ctypes.byref(out)))
        self._handle: Optional[int] = out.value

    @property
    def handle(self) -> Optional[int]:
        """The ``verify_cancel *`` (None once freed)."""
        return self._handle

    def cancel(self) -> None:
        """Cancels: the calls in flight that this token watches raise
        :class:`verify.Cancelled` within milliseconds; later ones at once. Any thread, any
        number of times."""
        if self._handle is not None:
            check(_native.lib.verify_cancel_cancel(self._handle))

    @property
    def cancelled(self) -> bool:
        """Whether :meth:`cancel` was called."""
        out = ctypes.c_int32()
        check(_native.lib.verify_cancel_is_cancelled(self._token(), ctypes.byref(out)))
        return out.value != 0

    def __enter__(self) -> "Cancel":
        """Attaches the token to the calling thread: every call the thread makes until the
        block ends is cancelled by :meth:`cancel`."""
        check(_native.lib.verify_cancel_attach(self._token()))
        return self

    def __exit__(self, *exc: object) -> None:
        check(_native.lib.verify_cancel_detach(self._token()))

    def __repr__(self) -> str:
        state = "freed" if self._handle is None else "cancelled" if self.cancelled else "armed"
        return f"Cancel({state})"

    def __del__(self) -> None:
        try:
            handle, self._handle = self._handle, None
            _native.lib.verify_cancel_free(handle)
        except Exception:  # interpreter shutdown
            pass

    def _token(self) -> int:
        if self._handle is None:
            raise ValueError("the cancellation token is freed")
        return self._handle
