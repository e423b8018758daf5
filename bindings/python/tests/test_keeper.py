"""The keeper through Python: events to a callback and to the iterators (sync and async), a
ban ending the session with its reason, back-office messages, the status snapshot."""

from __future__ import annotations

import asyncio
import subprocess
import sys
import threading
from datetime import timedelta
from typing import List

import pytest

import verify

from conftest import Program


def test_keeper_sees_a_ban(program: Program, client: verify.Client, mac: str) -> None:
    card = program.day_card("PYKE-EPER-BAN0-0001", 30)
    login = client.single_login(card, mac)
    seen: List[verify.Event] = []
    threads = set()

    def callback(event: verify.Event) -> None:
        seen.append(event)
        threads.add(threading.get_ident())

    with client.keep_alive(login, interval=timedelta(seconds=1), callback=callback) as keeper:
        first = keeper.next_event(timeout=timedelta(seconds=30))
        assert first is not None and first.kind is verify.EventKind.ALIVE and first.code is verify.Code.OK
        assert first.expire_at == login.expire_at
        program.ban_card(card, "cheating detected")
        events = list(keeper.events(timeout=60))
        assert events and events[-1].kind == verify.EventKind.ENDED
        ended = events[-1]
        assert ended.code is verify.Code.DISABLED and ended.remark == "cheating detected"
        assert keeper.state is verify.KeeperState.ENDED
        assert str(keeper.state) == "KeeperState.ENDED" and f"{ended.code}" == "1006"
        status = keeper.status()
        assert status.state is verify.KeeperState.ENDED and status.last_code is verify.Code.DISABLED
        assert status.remark == "cheating detected" and status.ok_count >= 1
    assert seen[-1] == ended
    assert threading.get_ident() not in threads  # the keeper's own thread


def test_keeper_messages_and_token_form(program: Program, client: verify.Client, mac: str) -> None:
    program.account("erin", "pw-erin")
    session = client.user_login("erin", "pw-erin", mac)
    assert session.token is not None
    texts = []
    with client.keep_alive(session.token, verify.SessionKind.USER, interval=1) as keeper:
        assert keeper.next_event(timeout=30) is not None  # the first heartbeat
        program.sandbox.post("message", {"app_id": program.app_id, "username": "erin", "message": "hello 你好"})
        for event in keeper.events(timeout=30):
            if event.kind == verify.EventKind.MESSAGE:
                texts.append(event.text)
                break
    assert "hello 你好" in texts
    assert keeper.state == verify.KeeperState.ENDED
    with pytest.raises(ValueError):
        client.keep_alive("token-without-kind")


def test_keeper_async_iterator(program: Program, client: verify.Client, mac: str) -> None:
    card = program.day_card("PYKE-EPER-ASYN-0001", 30)
    login = client.single_login(card, mac)

    async def main() -> List[verify.Event]:
        kinds = []
        with client.keep_alive(login, interval=1) as keeper:
            async for event in keeper.aevents(timeout=60):
                kinds.append(event)
                if event.kind == verify.EventKind.ALIVE:
                    program.ban_card(card, "async ban")
        return kinds

    events = asyncio.run(main())
    assert events[0].kind == verify.EventKind.ALIVE
    assert events[-1].kind == verify.EventKind.ENDED and events[-1].remark == "async ban"


def test_unknown_token_ends_at_once(client: verify.Client) -> None:
    with client.keep_alive("0" * 40, verify.SessionKind.CARD, interval=1) as keeper:
        events = list(keeper.events(timeout=30))
    assert events[-1].kind == verify.EventKind.ENDED and events[-1].code == verify.Code.TOKEN_INVALID


EXIT_WITHOUT_CLOSING = """
import sys, verify
client = verify.Client(sys.argv[1], sys.argv[2], sys.argv[3], log=lambda level, text: None)
login = client.single_login(sys.argv[4], verify.machine_code(sys.argv[2]))
keeper = client.keep_alive(login, interval=1, callback=lambda event: None)
assert keeper.next_event(timeout=30) is not None
print("leaving", flush=True)
"""


def test_a_program_may_exit_with_its_keeper_running(program: Program) -> None:
    card = program.day_card("PYKE-EPER-EXIT-0001", 30)
    done = subprocess.run(
        [sys.executable, "-c", EXIT_WITHOUT_CLOSING, program.sandbox.url, program.app_id, program.app_key, card],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 0 and done.stdout == "leaving\n", done
