"""The base of the typed results (one dataclass per reply view of the action table, in
:mod:`verify._generated.results`), and the check of a field the service always gives."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Dict, Optional, TypeVar

from ._failures import error
from ._generated.codes import Code
from ._reply import OfflineVerdict, Reply

T = TypeVar("T")


@dataclass(frozen=True)
class Result:
    """What every typed result has: the code (200; 201 pending; 202 an offline verdict), the
    server's message, what an offline verdict knows, and the native reply, whose every field
    (those the spec does not show too) stays readable by JSON Pointer."""

    code: Code
    """``Code.OK``, ``Code.PENDING`` or ``Code.OFFLINE`` (an offline verdict)."""

    message: str
    """The server's message (may be empty); for an offline verdict, the library's."""

    offline: Optional[OfflineVerdict]
    """What an offline verdict knows (when the server last confirmed it, when its grace ends,
    why the server was out of reach); None for the server's own answer."""

    reply: Reply = field(repr=False, compare=False)
    """The native reply."""

    @property
    def ok(self) -> bool:
        """Whether the licence holds: 200, or 202 (an offline verdict)."""
        return self.code in (200, 202)

    @property
    def pending(self) -> bool:
        """201: a social authorization is pending; poll again."""
        return self.code == 201

    @staticmethod
    def _common(reply: Reply) -> Dict[str, Any]:
        return {
            "code": reply.code,
            "message": reply.message,
            "offline": reply.offline,
            "reply": reply,
        }


def present(reply: Reply, value: Optional[T], name: str) -> T:
    """``value``, a field the service gives on every success; raises
    :class:`verify.ProtocolError` (``Code.PROTOCOL``, with the reply) when the server left it
    out or sent another type."""
    if value is None:
        raise error(
            Code.PROTOCOL,
            f"the service's success (code {reply.code}) lacks `{name}`, or sent it in another "
            "form; every field stays readable through the error's reply",
            reply=reply,
        )
    return value
