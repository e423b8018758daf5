"""A reply of the server (any code), with its fields readable by JSON Pointer, and what an
offline verdict knows besides its fields."""

from __future__ import annotations

import ctypes
import json
import threading
from dataclasses import dataclass
from datetime import datetime
from typing import Any, Dict, Optional

from . import _native
from ._generated.codes import Code
from ._native import describe
from ._time import at, from_unix

_NO_SUCH_FIELD = -9

#: Every code the table names, by number: a reply's code without the enum's lookup.
_CODES: Dict[int, Code] = {int(member): member for member in Code}


def code_of(value: int) -> Code:
    """``value`` as a :class:`verify.Code` (a code this version does not name is one too)."""
    known = _CODES.get(value)
    return known if known is not None else Code(value)


@dataclass(frozen=True)
class OfflineVerdict:
    """What an offline verdict (code 202: the server could not be reached and the stored
    verdict answered) knows besides its fields."""

    #: When the server last confirmed the licence.
    confirmed_at: datetime
    #: When the offline grace ends.
    grace_end: datetime
    #: The local failure that kept the server out of reach (a negative code: ``Code.TIMEOUT``,
    #: ``Code.NETWORK`` ...).
    reason: Code

    @property
    def reason_text(self) -> str:
        """:func:`verify.describe` of the reason."""
        return describe(self.reason)


class Reply:
    """A native reply: the server's answer to one call, refusals included. Owns its handle
    (freed by :meth:`close`, or when collected). Any thread may read it.

    The ``get_*`` readers take a JSON Pointer: empty (the whole reply) or starting with
    ``/``; any other raises ValueError, as a NUL in it does."""

    __slots__ = ("_handle", "_lock", "_code", "__weakref__")

    def __init__(self, handle: int, code: Optional[int] = None) -> None:
        self._handle: Optional[int] = handle
        self._lock = threading.Lock()
        #: The code, when the call that made the reply returned it (a reply never changes).
        self._code = None if code is None else code_of(code)

    @property
    def handle(self) -> int:
        """The ``verify_reply *`` (valid until :meth:`close`)."""
        if self._handle is None:
            raise ValueError("the reply is closed")
        return self._handle

    def close(self) -> None:
        """Frees the native reply (idempotent)."""
        with self._lock:
            handle, self._handle = self._handle, None
        if handle is not None:
            _native.lib.verify_reply_free(handle)

    def __del__(self) -> None:
        try:
            self.close()
        except Exception:  # interpreter shutdown
            pass

    @property
    def code(self) -> Code:
        """200 success, 201 pending, 202 offline verdict, or the server's refusal."""
        if self._code is None:
            self._code = code_of(int(_native.lib.verify_reply_code(self.handle)))
        return self._code

    @property
    def message(self) -> str:
        """The server's ``message`` (may be empty)."""
        value = _native.lib.verify_reply_message(self.handle)
        return _native.text(value) if value is not None else ""

    @property
    def remark(self) -> Optional[str]:
        """``/data/remark``: the reason of a ban (1006), the bound machine code (1022)."""
        return self._str(b"/data/remark")

    def get_str(self, pointer: str) -> Optional[str]:
        """The value at a JSON Pointer as text (numbers and booleans in JSON notation), or
        None when absent, null, an object or an array."""
        return self._str(_native.arg(pointer, "pointer"))

    def get_int(self, pointer: str) -> Optional[int]:
        """The value at a JSON Pointer as an integer, or None (strings are not parsed)."""
        return self._int(_native.arg(pointer, "pointer"))

    def get_bool(self, pointer: str) -> Optional[bool]:
        """The value at a JSON Pointer as a boolean, or None."""
        return self._bool(_native.arg(pointer, "pointer"))

    def get_time(self, pointer: str) -> Optional[datetime]:
        """The value at a JSON Pointer as a time of the service in UTC+08:00, or None when
        absent, empty or in another form (:meth:`get_str` still gives the text)."""
        return self._time(_native.arg(pointer, "pointer"))

    def get_json(self, pointer: str = "") -> Any:
        """The value at a JSON Pointer, parsed (``""``: the whole reply, unknown fields
        included), or None when absent."""
        return self._json(_native.arg(pointer, "pointer"))

    def get_string_map(self, pointer: str) -> Optional[Dict[str, str]]:
        """The object at a JSON Pointer as name to text (null, objects and arrays left out),
        or None when absent or not an object."""
        return self._map(_native.arg(pointer, "pointer"))

    # The readers of the typed results (verify._generated.results): the pointer is already
    # NUL-free UTF-8.

    def _str(self, pointer: bytes) -> Optional[str]:
        out = ctypes.c_char_p()
        if self._read(_native.lib.verify_reply_str, pointer, ctypes.byref(out)):
            return _native.text(out.value or b"")
        return None

    def _int(self, pointer: bytes) -> Optional[int]:
        out = ctypes.c_int64()
        if self._read(_native.lib.verify_reply_int, pointer, ctypes.byref(out)):
            return int(out.value)
        return None

    def _bool(self, pointer: bytes) -> Optional[bool]:
        out = ctypes.c_int32()
        if self._read(_native.lib.verify_reply_bool, pointer, ctypes.byref(out)):
            return out.value != 0
        return None

    def _time(self, pointer: bytes) -> Optional[datetime]:
        seconds, offset = ctypes.c_int64(), ctypes.c_int32()
        if self._read(_native.lib.verify_reply_time, pointer, ctypes.byref(seconds), ctypes.byref(offset)):
            return at(seconds.value, offset.value)
        return None

    def _json(self, pointer: bytes) -> Any:
        out = ctypes.c_char_p()
        if self._read(_native.lib.verify_reply_json, pointer, ctypes.byref(out)):
            return json.loads(_native.text(out.value or b"null"))
        return None

    def _map(self, pointer: bytes) -> Optional[Dict[str, str]]:
        value = self._json(pointer)
        if not isinstance(value, dict):
            return None
        result: Dict[str, str] = {}
        for key, item in value.items():
            if isinstance(item, str):
                result[key] = item
            elif isinstance(item, (bool, int, float)):
                result[key] = json.dumps(item)
        return result

    @property
    def offline(self) -> Optional[OfflineVerdict]:
        """What an offline verdict knows (None for the server's own reply)."""
        if self.code != 202:
            return None
        confirmed, grace, reason = ctypes.c_int64(), ctypes.c_int64(), ctypes.c_int32()
        code = _native.lib.verify_reply_offline(
            self.handle, ctypes.byref(confirmed), ctypes.byref(grace), ctypes.byref(reason)
        )
        if code != 0:
            return None
        return OfflineVerdict(from_unix(confirmed.value), from_unix(grace.value), code_of(reason.value))

    def _read(self, function: Any, pointer: bytes, *out: Any) -> bool:
        handle = self._handle
        if handle is None:
            raise ValueError("the reply is closed")
        code = function(handle, pointer, *out)
        if code == 0:
            return True
        if code == _NO_SUCH_FIELD:
            return False
        # The only other failure is the caller's pointer (neither empty nor starting with
        # "/"): a bad argument, as a NUL in a string is (ValueError).
        raise ValueError(f"pointer: {_native.text(_native.lib.verify_last_error_message())}")

    def __repr__(self) -> str:
        if self._handle is None:
            return "Reply(closed)"
        return f"Reply({self.code} {describe(self.code)}: {self.message})"
