"""The bases of the package's enums (generated in :mod:`verify._generated`): ``str()`` names
the member on every Python version (``KeeperState.ENDED``, where an ``IntEnum`` of Python 3.11
prints ``3``), and an open enum takes a value this version does not name (a later library's,
a later server's code) as a member of its own, ``UNKNOWN_<number>``, so that a value the
library gives is always of its enum's type."""

from __future__ import annotations

import enum
from typing import Any


class NamedEnum(enum.IntEnum):
    """An enum of the C ABI: an ``int`` (compares equal to its number) whose ``str()`` and
    ``format()`` give ``Kind.NAME``."""

    def __str__(self) -> str:
        return f"{type(self).__name__}.{self._name_}"

    def __format__(self, format_spec: str) -> str:
        return str.__format__(str(self), format_spec)


class OpenEnum(NamedEnum):
    """A :class:`NamedEnum` that later versions of the library may give values of that this
    version does not name: ``Kind(9)`` is then ``Kind.UNKNOWN_9``, equal to 9, made when it
    comes (never listed, never iterated)."""

    @classmethod
    def _missing_(cls, value: object) -> Any:
        if not isinstance(value, int) or isinstance(value, bool):
            return None
        member = int.__new__(cls, value)
        member._name_ = f"UNKNOWN_{value}"
        member._value_ = value
        return member


class NumberEnum(OpenEnum):
    """An :class:`OpenEnum` that is a number first (the result codes): ``str()`` and
    ``format()`` give the number, as ``int`` does (``f"{code}"`` is ``1003``; ``repr()`` and
    ``.name`` name it)."""

    def __str__(self) -> str:
        return int.__repr__(self)

    def __format__(self, format_spec: str) -> str:
        return int.__format__(self, format_spec)
