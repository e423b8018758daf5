"""The base of the typed results (one dataclass per reply view of the action table, in
:mod:`verify._generated.results`)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Dict, Optional

from ._reply import OfflineVerdict, Reply


@dataclass(frozen=True)
class Result:
    """What every typed result has: the code (200, 201 pending, 202 offline verdict), the
    server's message, what an offline verdict knows, and the native reply, whose every field
    (those the spec does not show too) stays readable by JSON Pointer."""

    code: int = 200
    message: str = ""
    offline: Optional[OfflineVerdict] = None
    reply: Optional[Reply] = field(default=None, repr=False, compare=False)

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
