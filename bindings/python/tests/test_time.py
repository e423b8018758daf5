"""Times of the service: `YYYY-MM-DD HH:mm:ss` read as UTC+08:00, anything else None."""

from __future__ import annotations

from datetime import datetime, timedelta, timezone

import verify


def test_service_times() -> None:
    read = verify.parse_service_time("2099-03-04 05:06:07")
    assert read == datetime(2099, 3, 3, 21, 6, 7, tzinfo=timezone.utc)
    assert read is not None and read.utcoffset() == timedelta(hours=8)
    assert verify.format_service_time(datetime(2099, 3, 3, 21, 6, 7, tzinfo=timezone.utc)) == "2099-03-04 05:06:07"
    for bad in ["", None, "2099-13-04 05:06:07", "2099-03-04T05:06:07", "2099-03-04 05:06", "２099-03-04 05:06:07", "2099-03-04 05:06:0x"]:
        assert verify.parse_service_time(bad) is None, bad
