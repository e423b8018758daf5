"""The previous release's names, kept for one more: each still works and warns
(DeprecationWarning) where a warning can be given; the type checker sees the new names only."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest

import verify

from conftest import Program


def test_code_names_with_the_c_prefix_are_aliases() -> None:
    alias: verify.Code = verify.Code.ERR_TIMEOUT  # (mypy takes an alias for a member of its own)
    assert alias is verify.Code.TIMEOUT
    assert int(verify.Code.TIMEOUT) == -4
    assert verify.Code["ERR_NETWORK"] is verify.Code.NETWORK
    assert verify.Code(-4).name == "TIMEOUT"
    assert "ERR_TIMEOUT" not in [code.name for code in verify.Code]
    assert all(not code.name.startswith("ERR_") for code in verify.Code)


def test_the_mac_keyword(program: Program, client: verify.Client, mac: str) -> None:
    card = program.day_card("PYDE-PREC-ATED-0001", 30)
    with pytest.warns(DeprecationWarning, match=r"single_login\(mac=\.\.\.\) is deprecated; use machine_code="):
        login = client.single_login(card, mac=mac)  # type: ignore[call-arg]
    assert login.code == 200
    with pytest.raises(TypeError, match="got both mac and machine_code"):
        client.single_login(card, mac=mac, machine_code=mac)  # type: ignore[call-arg]
    program.account("jack", "pw")
    with pytest.warns(DeprecationWarning, match="new_mac"):
        client.change_bind("jack", "pw", new_mac="JACKS-NEW-MACHINE")  # type: ignore[call-arg]


def test_the_async_twins_of_the_client(program: Program, client: verify.Client) -> None:
    async def main() -> None:
        with pytest.warns(DeprecationWarning, match=r"Client.get_bulletin_async\(\) is deprecated"):
            bulletin = await client.get_bulletin_async()  # type: ignore[attr-defined]
        assert bulletin.bulletin == "公告 bulletin"
        with pytest.warns(DeprecationWarning):
            assert (await client.init_async()).code == 200  # type: ignore[attr-defined]

    asyncio.run(main())
    with pytest.raises(AttributeError):
        client.no_such_thing_async  # type: ignore[attr-defined]


def test_state_folder_empty_and_none(program: Program, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("XDG_STATE_HOME", str(tmp_path))  # the per-user default folder, here
    with pytest.warns(DeprecationWarning, match=r'state_folder="" is deprecated; use state_folder=verify.StateFolder.DEFAULT'):
        program.client(state_folder="").close()
    with pytest.warns(DeprecationWarning, match="state_folder=verify.StateFolder.OFF"):
        program.client(state_folder=None).close()
    with pytest.warns(DeprecationWarning, match="state_folder=verify.StateFolder.DEFAULT"):
        code = verify.machine_code("10001", verify.MachineVersion.V2, state_folder=None)
    assert len(code) == 32 and (tmp_path / "verify").is_dir()
