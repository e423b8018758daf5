"""Times of the service: ``YYYY-MM-DD HH:mm:ss`` in Beijing time (UTC+08:00)."""

from __future__ import annotations

import ctypes
from datetime import datetime, timedelta, timezone
from typing import Dict, Optional

from . import _native

#: The service's time zone, UTC+08:00: every time this package gives carries it.
SERVICE_TZ = timezone(timedelta(hours=8))


def parse_service_time(text: Optional[str]) -> Optional[datetime]:
    """``YYYY-MM-DD HH:mm:ss`` read as UTC+08:00; None when absent, empty or in another form.
    The library reads it (``verify_service_time``): the package never parses the service's
    format itself."""
    if not text or "\0" in text:
        return None
    seconds, offset = ctypes.c_int64(), ctypes.c_int32()
    code = _native.lib.verify_service_time(text.encode("utf-8"), ctypes.byref(seconds), ctypes.byref(offset))
    return at(seconds.value, offset.value) if code == 0 else None


#: The zones of the offsets met so far (the service's is UTC+08:00): one object each.
_ZONES: Dict[int, timezone] = {8 * 3600: SERVICE_TZ}


def at(seconds: int, offset: int) -> datetime:
    """Unix seconds at the offset (seconds east of UTC) the service wrote them in."""
    zone = _ZONES.get(offset)
    if zone is None:
        zone = _ZONES.setdefault(offset, timezone(timedelta(seconds=offset)))
    return datetime.fromtimestamp(seconds, zone)


def format_service_time(value: datetime) -> str:
    """A time as the service writes it (converted to UTC+08:00 first)."""
    return value.astimezone(SERVICE_TZ).strftime("%Y-%m-%d %H:%M:%S")


def from_unix(seconds: int) -> datetime:
    """Unix seconds as a time in UTC+08:00."""
    return datetime.fromtimestamp(seconds, SERVICE_TZ)
