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
from ._generated.native import DIAGNOSIS_CALLBACK as DIAGNOSIS_CALLBACK
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
    """A static English description of any result code for the developer
    (``verify_code_describe``): ``describe(1004)`` is "card invalid, refunded, or not of this
    program"."""
    return text(lib.verify_code_describe(int(code)))


def user_message(code: int, language: Optional[str] = None) -> str:
    """The end user's message for any result code (``verify_code_user_message``): short,
    polite, saying what to do ("无法连接验证服务器，请检查网络后重试。" for ``Code.NETWORK`` in
    zh-CN), never a secret or a developer's detail.

    ``language``: ``"zh-CN"``, ``"zh-TW"``, ``"en"``, or any BCP 47 tag or POSIX locale
    (``"zh-Hant-HK"`` and ``"zh_HK.UTF-8"`` are zh-TW, ``"zh"`` zh-CN, other languages
    English); None (or a tag that is not well formed) for :func:`verify.language`. A code the
    table does not have gets a general message. Show it for local failures and offline
    verdicts; a refusal's own message is the server's and comes first
    (:attr:`verify.VerifyError.user_message` chooses)."""
    tag = None if language is None else arg(language, "language")
    return text(lib.verify_code_user_message(int(code), tag))
