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
    assert check.outcome == verify.Outcome.ISSUED
    assert len(check.components) == 6
    assert {component.name for component in check.components} >= {"os_install", "cpu"}
    assert all(isinstance(component.state_name, str) for component in check.components)
    assert check.code not in repr(check)

    again = verify.machine_check("10001", state_folder=tmp_path)
    assert again.outcome == verify.Outcome.KEPT and again.code == check.code
    assert any(component.state == verify.ComponentState.MATCHES for component in again.components)
    assert verify.machine_code("10001", verify.MachineVersion.V2, state_folder=tmp_path) == check.code


def test_bad_version() -> None:
    with pytest.raises(verify.VerifyError) as raised:
        verify.machine_code("10001", 9)
    assert raised.value.code == verify.Code.ERR_INVALID_ARGUMENT


def test_virtual_report() -> None:
    report = verify.machine_virtual()
    assert isinstance(report.looks_virtual, bool)
    assert report.looks_virtual == bool(report.signs)
    for kind, detail in report.signs:
        assert isinstance(kind, int) and isinstance(detail, str)
