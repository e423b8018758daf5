"""What the generated action methods (:mod:`verify._generated.actions`) stand on: the native
client handle, one call and its outcome, and the asyncio form of a blocking call."""

from __future__ import annotations

import asyncio
import ctypes
import functools
from typing import Any, Callable, Optional, TypeVar

from . import _native
from ._errors import VerifyError
from ._generated.codes import SUCCESSES
from ._native import describe
from ._reply import Reply

T = TypeVar("T")

#: Codes a call answers without raising: success, pending, an offline verdict (the code
#: table's class).
ANSWERS = SUCCESSES


class ClientBase:
    """The native client handle and the call helpers."""

    _handle: Optional[int] = None

    def _client(self) -> int:
        if self._handle is None:
            raise ValueError("the client is closed")
        return self._handle

    def _invoke(self, function: Any, *args: Any) -> Reply:
        """Calls ``function(client, *args, &reply)``: the reply when the code is 200, 201 or
        202; else raises :class:`VerifyError` with the server's code, message, remark and
        reply, or the local failure's code and message."""
        out = ctypes.c_void_p()
        code = int(function(self._client(), *args, ctypes.byref(out)))
        reply = Reply(out.value, code if code in ANSWERS else None) if out.value else None
        if reply is not None:
            if code in ANSWERS:
                return reply
            raise VerifyError(code, reply.message, reply.remark, reply)
        message = _native.text(_native.lib.verify_last_error_message())
        if _native.lib.verify_last_error_code() != code or not message:
            message = describe(code)
        raise VerifyError(code, message)

    async def _run(self, call: Callable[..., T], *args: Any, **kwargs: Any) -> T:
        """``call(*args, **kwargs)`` on the event loop's default executor: the loop goes on
        while the call blocks (ctypes releases the GIL during it). Cancelling the awaiting
        task does not stop a call that started."""
        loop = asyncio.get_running_loop()
        return await loop.run_in_executor(None, functools.partial(call, *args, **kwargs))
