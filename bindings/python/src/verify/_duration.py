"""Durations: a :class:`datetime.timedelta`, or seconds as a number (``timedelta(days=7)``,
``7 * 86400`` and ``604800.0`` say the same)."""

from __future__ import annotations

import math
from datetime import timedelta
from typing import Optional, Union

#: A duration: a ``timedelta``, or seconds (``int`` or ``float``).
Duration = Union[timedelta, float]

_U32 = 0xFFFFFFFF


def in_seconds(value: Duration, name: str) -> float:
    """``value`` in seconds; TypeError for what is not a duration."""
    if isinstance(value, timedelta):
        return value.total_seconds()
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise TypeError(f"{name} must be a timedelta or seconds, not {type(value).__name__}")
    return float(value)


def _bounded(number: float, value: Duration, name: str) -> int:
    if not math.isfinite(number) or not 0 <= number <= _U32:
        raise ValueError(f"{name} is out of range: {value!r}")
    return int(number)


def millis(value: Duration, name: str) -> int:
    """``value`` as whole milliseconds for a ``uint32_t`` argument; ValueError when negative
    or longer than 49 days."""
    number = in_seconds(value, name) * 1000
    return _bounded(round(number) if math.isfinite(number) else number, value, name)


def seconds(value: Duration, name: str) -> int:
    """``value`` as whole seconds for a ``uint32_t`` argument; ValueError when negative or too
    long."""
    return _bounded(in_seconds(value, name), value, name)


def optional_seconds(value: Optional[Duration], name: str) -> Optional[float]:
    """``value`` in seconds, or None (a wait without limit)."""
    return None if value is None else in_seconds(value, name)
