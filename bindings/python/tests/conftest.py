"""Fixtures of the package's tests: a verify-sandbox (the one named by VERIFY_SANDBOX_URL, or
one started from the binary VERIFY_SANDBOX_BIN, else target/debug or target/release of the
repository, on a free port) and a fresh program on it per test, driven through the sandbox's
control API (/_sandbox/...)."""

from __future__ import annotations

import itertools
import json
import os
import subprocess
import urllib.request
from pathlib import Path
from typing import Any, Dict, Iterator, List, Optional

import pytest

import verify

APP_KEY = "TESTKEY0123456789ABCDEFGHIJKLMNO"
ROOT = Path(__file__).resolve().parents[3]
_NEXT = itertools.count(1)


class Sandbox:
    """A running sandbox: its base URL and its control API."""

    def __init__(self, url: str) -> None:
        self.url = url

    def request(self, method: str, path: str, body: Optional[Dict[str, Any]] = None) -> Any:
        data = None if body is None else json.dumps(body).encode("utf-8")
        request = urllib.request.Request(self.url + path, data=data, method=method)
        if data is not None:
            request.add_header("Content-Type", "application/json")
        with urllib.request.urlopen(request, timeout=30) as response:
            return json.loads(response.read().decode("utf-8"))

    def post(self, path: str, body: Dict[str, Any]) -> Any:
        return self.request("POST", "/_sandbox/" + path, body)

    def get(self, path: str) -> Any:
        return self.request("GET", "/_sandbox/" + path)


def _start(binary: Path) -> "tuple[subprocess.Popen[str], str]":
    process = subprocess.Popen(
        [str(binary), "--port", "0"], stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True
    )
    assert process.stdout is not None
    first = process.stdout.readline().strip()
    prefix = "listening on "
    if not first.startswith(prefix):
        process.kill()
        raise RuntimeError(f"{binary} printed {first!r}, not its address")
    return process, first[len(prefix):]


@pytest.fixture(scope="session")
def sandbox() -> Iterator[Sandbox]:
    url = os.environ.get("VERIFY_SANDBOX_URL")
    if url:
        yield Sandbox(url)
        return
    named = os.environ.get("VERIFY_SANDBOX_BIN")
    candidates = [Path(named)] if named else [
        ROOT / "target" / profile / "verify-sandbox" for profile in ("debug", "release")
    ]
    binary = next((path for path in candidates if path.is_file()), None)
    if binary is None:
        pytest.fail(
            "no sandbox: set VERIFY_SANDBOX_URL, or VERIFY_SANDBOX_BIN, or build it with "
            "`cargo build -p verify-sandbox`"
        )
    process, url = _start(binary)
    try:
        yield Sandbox(url)
    finally:
        process.terminate()
        process.wait(timeout=30)


class Program:
    """A fresh approved program on the sandbox, with helpers for its cards and accounts."""

    def __init__(self, sandbox: Sandbox) -> None:
        self.sandbox = sandbox
        self.app_id = f"py{os.getpid()}x{next(_NEXT)}"
        self.app_key = APP_KEY
        sandbox.post(
            "programs",
            {
                "app_id": self.app_id,
                "app_key": APP_KEY,
                "status": "approved",
                "bulletin": "公告 bulletin",
                "version": {
                    "version": "2.1.0",
                    "changelog": "fixes",
                    "download_url": "https://example.invalid/d",
                    "force_update": False,
                },
                "variables": {"greeting": "你好 & welcome", "limit": "5"},
            },
        )

    def client(self, **options: Any) -> verify.Client:
        return verify.Client(self.sandbox.url, self.app_id, APP_KEY, **options)

    def _load(self, kind: str, items: List[Dict[str, Any]]) -> None:
        for item in items:
            item["app_id"] = self.app_id
        self.sandbox.post("fixtures", {kind: items})

    def day_card(self, key: str, days: int = 30) -> str:
        self._load(
            "cards",
            [{"card": key, "type_name": "月卡", "kind": "duration", "duration": days, "duration_type": "day"}],
        )
        return key

    def count_card(self, key: str, total: int) -> str:
        self._load("cards", [{"card": key, "type_name": "次卡", "kind": "count", "total": total, "used": 0}])
        return key

    def account(self, username: str, password: str, expire_at: str = "2099-01-01 00:00:00") -> None:
        self._load(
            "accounts",
            [{"username": username, "password": password, "expire_at": expire_at, "status": "active"}],
        )

    def card_record(self, card: str) -> Dict[str, Any]:
        reply = self.sandbox.get(f"cards/get?app_id={self.app_id}&card={card}")
        record: Dict[str, Any] = reply["card"]
        return record

    def ban_card(self, card: str, reason: str) -> None:
        self.sandbox.post("cards/update", {"app_id": self.app_id, "card": card, "op": "disable", "reason": reason})

    def fault(self, kind: str, **extra: Any) -> None:
        self.sandbox.post("faults", {"kind": kind, "app_id": self.app_id, **extra})

    def clear_faults(self) -> None:
        self.sandbox.post("faults/clear", {"app_id": self.app_id})


@pytest.fixture
def program(sandbox: Sandbox) -> Program:
    return Program(sandbox)


@pytest.fixture
def client(program: Program) -> Iterator[verify.Client]:
    with program.client(call_timeout=20) as made:
        yield made


@pytest.fixture
def mac(program: Program) -> str:
    return verify.machine_code(program.app_id)
