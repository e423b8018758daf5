"""The native arguments of the calls that are not in the action table, which both clients
make: any action (``call``) and the social wait."""

from __future__ import annotations

import ctypes
from typing import Any, Mapping, Optional, Tuple

from . import _native
from ._cancel import Cancel
from ._duration import Duration, millis


def call_args(action: str, params: Optional[Mapping[str, str]]) -> Tuple[Any, ...]:
    """``verify_call``'s arguments after the client: the action and its parameters (wire
    names and values; at most 256)."""
    items = list((params or {}).items())
    keys = (ctypes.c_char_p * max(len(items), 1))(*[_native.arg(k, "key") for k, _ in items])
    values = (ctypes.c_char_p * max(len(items), 1))(*[_native.arg(v, "value") for _, v in items])
    return (
        _native.arg(action, "action"),
        keys if items else None,
        values if items else None,
        len(items),
    )


def wait_args(
    state: str,
    machine_code: bytes,
    interval: Duration,
    timeout: Duration,
    cancel: Optional[Cancel],
) -> Tuple[Any, ...]:
    """``verify_social_login_wait``'s arguments after the client."""
    return (
        _native.arg(state, "state"),
        machine_code,
        max(millis(interval, "interval"), 1),
        millis(timeout, "timeout"),
        cancel.handle if cancel is not None else None,
    )
