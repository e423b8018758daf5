"""A cancellation token: :meth:`Cancel.cancel` from another thread stops a wait that uses it
(:meth:`verify.Client.social_login_wait`) within milliseconds."""

from __future__ import annotations

import ctypes
from typing import Optional

from . import _native
from ._failures import check


class Cancel:
    """A cancellation token for :meth:`verify.Client.social_login_wait`: :meth:`cancel` from
    another thread stops the wait within milliseconds."""

    def __init__(self) -> None:
        out = ctypes.c_void_p()
        check(_native.lib.verify_cancel_new(ctypes.byref(out)))
        self._handle: Optional[int] = out.value

    @property
    def handle(self) -> Optional[int]:
        """The ``verify_cancel *`` (None once freed)."""
        return self._handle

    def cancel(self) -> None:
        """Cancels: a wait using this token raises :class:`verify.Cancelled`; later waits at
        once."""
        if self._handle is not None:
            check(_native.lib.verify_cancel_cancel(self._handle))

    def __del__(self) -> None:
        try:
            handle, self._handle = self._handle, None
            _native.lib.verify_cancel_free(handle)
        except Exception:  # interpreter shutdown
            pass
