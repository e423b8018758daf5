"""The loaded library, its functions declared by :mod:`verify._generated.native` (every
export of include/verify.h, from the C ABI's own declarations), and the string helpers the
other modules share.

ctypes releases the GIL for the duration of every call into the library, so calls on one
client from several threads (or from :mod:`asyncio`'s executor) run at once.
"""

from __future__ import annotations

from typing import Any, Optional

from . import _library
from ._generated.native import ABI_VERSION as ABI_VERSION
from ._generated.native import EVENT_CALLBACK as EVENT_CALLBACK
from ._generated.native import LOG_CALLBACK as LOG_CALLBACK
from ._generated.native import MACHINE_CODE_LEN as MACHINE_CODE_LEN
from ._generated.native import EventStruct as EventStruct
from ._generated.native import declare

#: The loaded library, its functions declared.
lib: Any = _library.load()
declare(lib)


def text(value: bytes) -> str:
    """A string the library gave (UTF-8, the library's default code page)."""
    return value.decode("utf-8", errors="replace")


def arg(value: str, name: str) -> bytes:
    """A string argument as NUL-terminated UTF-8; a NUL inside it is refused."""
    if not isinstance(value, str):
        raise TypeError(f"{name} must be a str, not {type(value).__name__}")
    if "\0" in value:
        raise ValueError(f"{name} must not contain a NUL character")
    return value.encode("utf-8")


def optional_arg(value: Optional[str], name: str) -> Optional[bytes]:
    """An optional string argument: None (or empty) is not sent."""
    return None if value is None else arg(value, name)


def describe(code: int) -> str:
    """A static English description of any result code (``verify_code_describe``)."""
    return text(lib.verify_code_describe(int(code)))
