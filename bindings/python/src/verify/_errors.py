"""The one exception of the package: :class:`VerifyError`, and :func:`attempt`, the form
that does not throw."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Callable, Generic, Optional, TypeVar

from . import _native
from ._generated.codes import CONFIGURATION_REFUSALS
from ._native import describe

if TYPE_CHECKING:
    from ._reply import Reply

#: Refusals of the program's configuration, not of a licence (the code table's class).
CONFIGURATION_CODES = CONFIGURATION_REFUSALS


class VerifyError(Exception):
    """A call did not succeed: the server refused it (a positive code, with its message and
    remark, and the reply) or it failed locally (a negative code, with the library's
    message; no reply).

    ``code`` is the integer of the C API (compare it with :class:`verify.Code`), never
    translated. ``str(error)`` is the code, its description and the message.
    """

    code: int
    message: str
    remark: Optional[str]
    reply: Optional["Reply"]

    def __init__(
        self,
        code: int,
        message: str,
        remark: Optional[str] = None,
        reply: Optional["Reply"] = None,
    ) -> None:
        self.code = int(code)
        self.message = message
        self.remark = remark
        self.reply = reply
        description = describe(self.code)
        # The library's last error ends a local failure's message with the code and its
        # description, "what is wrong (-1: invalid argument: ...)", and begins a refusal's
        # with them, "wrong password (1003): ...": either way they are said once.
        suffix = f" ({self.code}: {description})"
        if message.startswith(description):
            text = f"{self.code} {message}"
        elif message.endswith(suffix):
            text = f"{self.code} {description}: {message[: -len(suffix)]}"
        else:
            text = f"{self.code} {description}" + (f": {message}" if message else "")
        super().__init__(text)

    @property
    def refused(self) -> bool:
        """Whether the server answered and refused (a positive code): a licence's or the
        configuration's refusal, as opposed to a local failure (network, timeout, ...)."""
        return self.code > 0

    @property
    def configuration(self) -> bool:
        """1001, 1010, 1011 or 1012: the program's configuration (AppId, AppKey, approval),
        not a licence, was refused."""
        return self.code in CONFIGURATION_CODES

    @property
    def description(self) -> str:
        """:func:`describe` of the code."""
        return describe(self.code)

    def __reduce__(self) -> Any:
        return (VerifyError, (self.code, self.message, self.remark))


def last_error() -> VerifyError:
    """The calling thread's last local failure of the library."""
    return VerifyError(
        _native.lib.verify_last_error_code(),
        _native.text(_native.lib.verify_last_error_message()),
    )


def check(code: int) -> None:
    """Raises the thread's last error unless ``code`` is 200 (a local call's success)."""
    if code != 200 and code != 0:
        error = last_error()
        if error.code != code:
            error = VerifyError(code, error.message if error.message else describe(code))
        raise error


T = TypeVar("T")


@dataclass(frozen=True)
class Attempt(Generic[T]):
    """The outcome of :func:`attempt`: the value, or the error; true when it succeeded."""

    value: Optional[T] = None
    error: Optional[VerifyError] = None

    def __bool__(self) -> bool:
        return self.error is None

    def unwrap(self) -> T:
        """The value, or raises the error."""
        if self.error is not None:
            raise self.error
        assert self.value is not None
        return self.value


def attempt(call: Callable[..., T], *args: Any, **kwargs: Any) -> Attempt[T]:
    """Runs ``call(*args, **kwargs)`` and returns its value or its :class:`VerifyError` as an
    :class:`Attempt`, without raising: ``attempt(client.single_login, card, mac)``."""
    try:
        return Attempt(value=call(*args, **kwargs))
    except VerifyError as error:
        return Attempt(error=error)
