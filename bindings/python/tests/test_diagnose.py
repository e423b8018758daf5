"""The doctor from a program's own client (Client.diagnose, AsyncClient.diagnose) against the
sandbox: a healthy program passes, a wrong AppKey is named as the cause with who acts, every
step is heard as it finishes, the report holds no AppKey, a cancelled token stops it."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import List

import pytest

import verify
from conftest import Program

WRONG_KEY = "WRONGKEY0123456789ABCDEFGHIJKLMN"


def test_a_healthy_program_passes(program: Program) -> None:
    with program.client(proxy="none") as client:
        heard: List[verify.DiagnosisStep] = []
        report = client.diagnose(heard.append)
    assert report.verdict is verify.Verdict.PASS and not report.failed
    assert report.causes == ()
    assert len(report.steps) >= 5
    assert all(isinstance(step.kind, verify.DiagnosisStepKind) for step in report.steps)
    assert any(step.kind is verify.DiagnosisStepKind.INIT and step.key == "init.ok" for step in report.steps)
    assert report.first_line_in("en").startswith("PASS: the connection is fine")
    assert json.loads(report.json)["version"] == 2
    assert "PASS init" in report.text_in("en")
    assert report.text_in("zh-CN") != report.text_in("en")
    # Each step was heard on the calling thread as it finished, with its sentence.
    assert len(heard) == len(report.steps)
    assert all(step.text and step.message == "" for step in heard)
    assert sorted(step.key for step in heard) == sorted(step.key for step in report.steps)
    with pytest.raises(verify.InvalidArgument):
        report.text_in("zh CN")


def test_a_wrong_app_key_is_the_cause_and_the_vendor_acts(program: Program, tmp_path: Path) -> None:
    with verify.Client(program.sandbox.url, program.app_id, WRONG_KEY, proxy="none") as client:
        report = client.diagnose(deadline=10)
    assert report.failed and report.verdict is verify.Verdict.FAIL
    assert len(report.causes) == 1
    cause = report.causes[0]
    assert cause.key == "init.1011" and cause.actor is verify.DiagnosisActor.VENDOR
    assert report.steps[cause.step].key == "init.1011"
    assert report.steps[cause.step].verdict is verify.Verdict.FAIL
    assert report.first_line_in("en").startswith("FAIL: Refused with 1011")
    assert "请联系" in report.first_line_in("zh-CN")
    # No secret in what support gets.
    for text in (report.json, report.text, report.support_file("en"), report.support_file("zh-CN")):
        assert WRONG_KEY not in text
    saved = tmp_path / "support.txt"
    report.save(saved, "en")
    assert saved.read_text(encoding="utf-8") == report.support_file("en")


def test_a_cancelled_token_stops_the_doctor(program: Program) -> None:
    with program.client(proxy="none") as client:
        cancel = verify.Cancel()
        cancel.cancel()
        with pytest.raises(verify.Cancelled) as caught:
            client.diagnose(cancel=cancel)
    assert caught.value.code is verify.Code.CANCELLED


def test_an_exception_of_on_step_comes_back_after_the_doctor(program: Program) -> None:
    def on_step(step: verify.DiagnosisStep) -> None:
        raise KeyError(step.key)

    with program.client(proxy="none") as client:
        with pytest.raises(KeyError):
            client.diagnose(on_step)


def test_the_async_client_diagnoses(program: Program) -> None:
    async def run() -> verify.Diagnosis:
        async with verify.AsyncClient(program.sandbox.url, program.app_id, WRONG_KEY, proxy="none") as client:
            return await client.diagnose()

    report = asyncio.run(run())
    assert [cause.key for cause in report.causes] == ["init.1011"]
