"""Turning a code into the exception of its family: :func:`error` for a refusal or a local
failure, :func:`check` after a local call, :func:`last_error` for the calling thread's."""

from __future__ import annotations

from typing import TYPE_CHECKING, Optional

from . import _native
from ._errors import VerifyError
from ._generated.exceptions import error_class

if TYPE_CHECKING:
    from ._reply import Reply


def error(
    code: int,
    message: str = "",
    remark: Optional[str] = None,
    reply: Optional["Reply"] = None,
) -> VerifyError:
    """The exception of ``code``'s family (:func:`verify._generated.exceptions.error_class`)."""
    return error_class(code)(code, message, remark, reply)


def last_error() -> VerifyError:
    """The calling thread's last local failure of the library."""
    return error(
        _native.lib.verify_last_error_code(),
        _native.text(_native.lib.verify_last_error_message()),
    )


def local_error(code: int) -> VerifyError:
    """The local failure ``code`` that a call just returned, with the thread's last message
    when it is this failure's (else the code's description)."""
    message = _native.text(_native.lib.verify_last_error_message())
    if _native.lib.verify_last_error_code() != code or not message:
        message = _native.describe(code)
    return error(code, message)


def check(code: int) -> None:
    """Raises the failure unless ``code`` is 200 (or 0: a local call's success)."""
    if code != 200 and code != 0:
        raise local_error(code)
