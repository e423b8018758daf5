"""Machine codes through Python: v1 (frozen, the same every call), v2 kept in a state folder
with its explanation, and the virtualisation report."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

import verify

HEX32 = re.compile(r"^[0-9A-F]{32}$")


def test_v1_is_stable_and_salted() -> None:
    first = verify.machine_code("10001")
    assert HEX32.match(first)
    assert verify.machine_code("10001") == first
    assert verify.machine_code("10001", verify.MachineVersion.V1) == first
    assert verify.machine_code("10002") != first


def test_v2_and_its_check(tmp_path: Path) -> None:
    check = verify.machine_check("10001", state_folder=tmp_path)
    assert HEX32.match(check.code)
    assert check.outcome is verify.Outcome.ISSUED
    assert len(check.components) == 6
    assert {component.name for component in check.components} >= {"os_install", "cpu"}
    assert all(isinstance(component.state_name, str) for component in check.components)
    assert all(isinstance(component.kind, verify.ComponentKind) for component in check.components)
    assert check.code not in repr(check)

    again = verify.machine_check("10001", state_folder=tmp_path)
    assert again.outcome is verify.Outcome.KEPT and again.code == check.code
    assert any(component.state is verify.ComponentState.MATCHES for component in again.components)
    assert verify.machine_code("10001", verify.MachineVersion.V2, state_folder=tmp_path) == check.code


def test_v2_in_the_default_folder(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("XDG_STATE_HOME", str(tmp_path))
    code = verify.machine_code("10001", verify.MachineVersion.V2)  # StateFolder.DEFAULT
    assert verify.machine_check("10001", state_folder=verify.StateFolder.DEFAULT).code == code
    assert any((tmp_path / "verify").iterdir())
    with pytest.raises(ValueError, match="keeps its code in a folder"):
        verify.machine_code("10001", verify.MachineVersion.V2, state_folder=verify.StateFolder.OFF)


def test_bad_version() -> None:
    with pytest.raises(verify.InvalidArgument) as raised:
        verify.machine_code("10001", 9)  # type: ignore[arg-type]
    assert raised.value.code == verify.Code.INVALID_ARGUMENT


def test_virtual_report() -> None:
    report = verify.machine_virtual()
    assert isinstance(report.looks_virtual, bool)
    assert report.looks_virtual == bool(report.signs)
    for kind, detail in report.signs:
        assert isinstance(kind, verify.VirtualSign) and isinstance(detail, str)
