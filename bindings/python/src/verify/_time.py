"""Times of the service: ``YYYY-MM-DD HH:mm:ss`` in Beijing time (UTC+08:00)."""

from __future__ import annotations

from datetime import datetime, timedelta, timezone
from typing import Optional

#: The service's time zone, UTC+08:00: every time this package gives carries it.
SERVICE_TZ = timezone(timedelta(hours=8))


def parse_service_time(text: Optional[str]) -> Optional[datetime]:
    """``YYYY-MM-DD HH:mm:ss`` read as UTC+08:00; None when absent, empty or in another form."""
    # Checked by hand, then read by fromisoformat (strptime is several times slower: a typed
    # result reads its times on every call).
    if (
        not text
        or len(text) != 19
        or not text.isascii()
        or text[4] != "-"
        or text[7] != "-"
        or text[10] != " "
        or text[13] != ":"
        or text[16] != ":"
    ):
        return None
    try:
        return datetime.fromisoformat(text).replace(tzinfo=SERVICE_TZ)
    except ValueError:
        return None


def format_service_time(value: datetime) -> str:
    """A time as the service writes it (converted to UTC+08:00 first)."""
    return value.astimezone(SERVICE_TZ).strftime("%Y-%m-%d %H:%M:%S")


def from_unix(seconds: int) -> datetime:
    """Unix seconds as a time in UTC+08:00."""
    return datetime.fromtimestamp(seconds, SERVICE_TZ)
