"""The asyncio client, verify.AsyncClient: the actions as coroutines (several at once on one
client), refusals as the exception of their family, Init, any action, the social wait, a keeper
whose events come with ``async for``, and ``async with``."""

from __future__ import annotations

import asyncio
import threading
from datetime import timedelta
from typing import List

import pytest

import verify

from conftest import APP_KEY, Program


def test_the_actions_as_coroutines(program: Program, mac: str) -> None:
    card = program.day_card("PYAS-YNC0-0000-0001", 30)

    async def main() -> None:
        async with verify.AsyncClient(program.sandbox.url, program.app_id, APP_KEY, call_timeout=20) as client:
            login, bulletin, variables = await asyncio.gather(
                client.single_login(card),
                client.get_bulletin(),
                client.get_variables(),
            )
            assert isinstance(login, verify.CardLogin) and login.token is not None
            assert login.expire_at.utcoffset() == timedelta(hours=8)
            assert bulletin.bulletin == "公告 bulletin"
            assert variables.variables is not None and variables.variables["limit"] == "5"
            assert client.machine_code == mac
            with pytest.raises(verify.WrongCredentials) as raised:
                await client.user_login("nobody", "x")
            assert raised.value.code == verify.Code.USER_NOT_REGISTERED
            assert (await client.init()).code == 200
            assert (await client.call("GetBulletin")).code == 200
            started = await client.social_login_start()
            assert await client.social_login_poll(started.state) is None  # pending
            with pytest.raises(ValueError):
                await client.single_login("A\0B")
        assert repr(client) == "AsyncClient(closed)"

    asyncio.run(main())


def test_the_social_wait_and_a_keeper(program: Program) -> None:
    card = program.day_card("PYAS-YNCK-EEPE-0001", 30)

    async def main() -> List[verify.Event]:
        client = verify.AsyncClient(program.sandbox.url, program.app_id, APP_KEY, call_timeout=20)
        try:
            started = await client.social_login_start()
            registration = await client.social_register_start("ursula")
            reg_state = registration.url.split("state=", 1)[1].split("&", 1)[0]
            program.sandbox.post("social/authorize", {"state": reg_state, "identity": "wx-u", "display_name": "U"})
            timer = threading.Timer(
                0.3,
                lambda: program.sandbox.post(
                    "social/authorize", {"state": started.state, "identity": "wx-u", "display_name": "U"}
                ),
            )
            timer.start()
            try:
                session = await client.social_login_wait(started.state, interval=0.05, timeout=20)
            finally:
                timer.join()
            assert session.username == "ursula"

            login = await client.single_login(card)
            events = []
            with client.keep_alive(login, interval=timedelta(seconds=1)) as keeper:
                async for event in keeper.aevents(timeout=timedelta(seconds=60)):
                    events.append(event)
                    if event.kind == verify.EventKind.ALIVE:
                        program.ban_card(card, "async ban")
            return events
        finally:
            await client.aclose()

    events = asyncio.run(main())
    assert events[0].kind is verify.EventKind.ALIVE
    assert events[-1].kind is verify.EventKind.ENDED and events[-1].code is verify.Code.DISABLED
    assert events[-1].remark == "async ban"
