"""The root of the package's exceptions: :class:`VerifyError`. The classes under it, one per
family of codes (:class:`verify.Refused`, :class:`verify.NetworkError`, ...), are generated
from the code table (:mod:`verify._generated.exceptions`)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Optional

from ._generated.codes import CONFIGURATION_REFUSALS, Code
from ._native import describe, user_message

if TYPE_CHECKING:
    from ._reply import Reply


class VerifyError(Exception):
    """A call did not succeed: the server refused it (:class:`verify.Refused` and its
    subclasses: a positive code, with the server's message and remark, and the reply) or it
    failed locally (a negative code, with the library's message; no reply). The class says
    what is done about it (:class:`verify.WrongCredentials`, :class:`verify.NetworkError`,
    which is also a ``ConnectionError``, ...); ``code`` says exactly what happened.

    ``str(error)`` is the code, its description, the message and the remark, for the
    developer's log; :attr:`user_message` is what to show the end user.
    """

    #: The result code (a :class:`verify.Code`; a code this version does not name is one too).
    code: Code
    #: The server's message (its words, usually Chinese) for a refusal, else the library's
    #: explanation for the developer.
    message: str
    #: ``/data/remark`` of a refusal: the reason of a ban (1006), the machine code a licence is
    #: bound to (1022); None when the server sent none.
    remark: Optional[str]
    #: The server's whole reply (every field readable by JSON Pointer), None for a local failure.
    reply: Optional["Reply"]

    def __init__(
        self,
        code: int,
        message: str = "",
        remark: Optional[str] = None,
        reply: Optional["Reply"] = None,
    ) -> None:
        self.code = Code(code)
        self.message = message
        self.remark = remark
        self.reply = reply
        super().__init__(self._text())

    def _text(self) -> str:
        code = int(self.code)
        description = describe(code)
        message = self.message
        # The library's last error ends a local failure's message with the code and its
        # description, "what is wrong (-1: invalid argument: ...)", and begins a refusal's
        # with them, "wrong password (1003): ...": either way they are said once.
        suffix = f" ({code}: {description})"
        if message.startswith(description):
            text = f"{code} {message}"
        elif message.endswith(suffix):
            text = f"{code} {description}: {message[: -len(suffix)]}"
        else:
            text = f"{code} {description}" + (f": {message}" if message else "")
        if self.remark is not None and "[remark: " not in text:
            text += f" [remark: {self.remark}]"
        return text

    @property
    def user_message(self) -> str:
        """What to show the end user: the server's own message for a refusal that has one
        (the service's words), else the code's message in the process's language
        (:func:`verify.user_message`: "无法连接验证服务器，请检查网络后重试。" for a network
        failure under zh-CN, "Cannot connect to the licensing server. Please check your network
        and try again." under en)."""
        if self.refused and self.message:
            return self.message
        return user_message(self.code)

    @property
    def refused(self) -> bool:
        """Whether the server answered and refused (a positive code, :class:`verify.Refused`),
        as opposed to a local failure (network, timeout, ...)."""
        return self.code > 0

    @property
    def configuration(self) -> bool:
        """1001, 1010, 1011 or 1012 (:class:`verify.ConfigurationRefused`): the program's
        configuration (AppId, AppKey, approval), not a licence, was refused."""
        return self.code in CONFIGURATION_REFUSALS

    @property
    def description(self) -> str:
        """:func:`verify.describe` of the code: its English words for the developer."""
        return describe(self.code)

    def __reduce__(self) -> Any:
        return (type(self), (int(self.code), self.message, self.remark))
