"""An offline start through Python: a login kept in the state folder answers with an offline
verdict (202) when the service cannot be reached in time (the sandbox delays its answer past
the call's timeout), and a keeper started from it reports OFFLINE, then ONLINE once the
service answers again."""

from __future__ import annotations

import socket
from datetime import timedelta
from pathlib import Path

import pytest

import verify

from conftest import Program


def test_offline_start(program: Program, mac: str, tmp_path: Path) -> None:
    card = program.day_card("PYOF-FLIN-E000-0001", 30)
    with program.client(state_folder=tmp_path, offline_grace=timedelta(hours=1), call_timeout=10) as first:
        online = first.single_login(card, mac)
    assert online.code == 200 and online.offline is None

    # The next request (the restarted program's Init) is answered after 10 s: too late.
    program.fault("delay", delay_ms=10000, count=1)
    with program.client(state_folder=tmp_path, offline_grace=3600, connect_timeout=2, call_timeout=2) as restarted:
        offline = restarted.single_login(card, mac)
        assert offline.code is verify.Code.OFFLINE and offline.ok
        assert offline.offline is not None
        assert offline.offline.reason in (verify.Code.TIMEOUT, verify.Code.NETWORK)
        assert offline.offline.reason_text == verify.describe(offline.offline.reason)
        assert offline.offline.grace_end > offline.offline.confirmed_at
        assert offline.expire_at == online.expire_at
        assert offline.token is None  # an offline verdict carries no token

        with restarted.keep_alive(offline, interval=1) as keeper:
            opening = keeper.next_event(timeout=30)
            assert opening is not None and opening.kind == verify.EventKind.OFFLINE
            assert opening.grace_end == offline.offline.grace_end
            kinds = []
            for event in keeper.events(timeout=60):
                kinds.append(event.kind)
                if event.kind == verify.EventKind.ONLINE:
                    break
            assert kinds[-1] == verify.EventKind.ONLINE


def test_offline_refused_without_a_stored_verdict(program: Program, mac: str, tmp_path: Path) -> None:
    card = program.day_card("PYOF-FLIN-E000-0002", 30)
    program.fault("delay", delay_ms=10000, count=1)
    with program.client(state_folder=tmp_path, offline_grace=3600, call_timeout=2) as client:
        with pytest.raises(verify.VerifyTimeout) as error:
            client.single_login(card, mac)
        assert error.value.code is verify.Code.TIMEOUT and not error.value.refused


def test_offline_in_the_default_state_folder(program: Program, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("XDG_STATE_HOME", str(tmp_path))
    card = program.day_card("PYOF-FLIN-E000-0003", 30)
    options = dict(state_folder=verify.StateFolder.DEFAULT, offline_grace=timedelta(days=7))
    with program.client(call_timeout=10, **options) as first:
        assert first.single_login(card).offline is None
    assert any((tmp_path / "verify").iterdir())
    program.fault("delay", delay_ms=10000, count=1)
    with program.client(connect_timeout=1, call_timeout=1, **options) as restarted:
        assert restarted.single_login(card).code is verify.Code.OFFLINE


def test_offline_verdicts_are_kept_per_card(program: Program, tmp_path: Path) -> None:
    """The README's offline rule: one verdict per card (and per account), so a second card
    neither replaces the first card's verdict nor, once banned, clears it."""
    first, second = program.day_card("PYOF-FLIN-E000-0004", 30), program.day_card("PYOF-FLIN-E000-0005", 30)
    grace = timedelta(days=7)
    with program.client(call_timeout=10, state_folder=tmp_path, offline_grace=grace) as online:
        online.single_login(first)
        online.single_login(second)
        program.ban_card(second, "refund requested")
        with pytest.raises(verify.Banned):
            online.single_login(second)  # clears the second card's verdict, only its own
    # The service out of reach: a port where nothing listens, on loopback.
    with socket.socket() as closed:
        closed.bind(("127.0.0.1", 0))
        nowhere = f"http://127.0.0.1:{closed.getsockname()[1]}"
    with verify.Client(nowhere, program.app_id, program.app_key, state_folder=tmp_path, offline_grace=grace) as offline:
        assert offline.single_login(first).code is verify.Code.OFFLINE
        with pytest.raises(verify.NetworkError):
            offline.single_login(second)
