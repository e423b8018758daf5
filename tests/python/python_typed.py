"""python_typed.py: the program of the typed C++ and C# hosts (a card login, an account login,
a wrong password, a bad card, a wrong AppKey, an offline start, the keeper seeing a ban),
written as a Python developer new to the package writes it on the typed API of `verify`: typed
results whose guaranteed fields are not Optional, times as datetimes in UTC+08:00, refusals
caught by their class (a bad card is a verify.WrongCredentials), the end user's message in
Chinese, keeper events; no JSON Pointer, and nothing but `verify` itself to satisfy
`mypy --strict` (no assert, no cast: tests/python/python.rs checks both).

    python python_typed.py BASE_URL APP_ID APP_KEY CARD USERNAME PASSWORD

Driven by tests/python/python.rs, which answers its requests: "@@ outage" (the sandbox answers
the program too late from then on), "@@ back" (it answers again) and "@@ ban REASON" (CARD is
banned), each with "go". Prints what it saw ("card expire_at TEXT SECONDS", ...), then
"RESULT: N checks, M failed"; exits 0 when every check held.
"""

from __future__ import annotations

import sys
import tempfile
import threading
from datetime import datetime, timedelta
from typing import List

import verify

checks = 0
failed = 0


def check(condition: bool, what: str) -> None:
    global checks, failed
    checks += 1
    if not condition:
        failed += 1
        print(f"FAIL {what}", flush=True)


def ask(request: str) -> None:
    """Asks the driver to change the sandbox and waits for its "go"."""
    print(f"@@ {request}", flush=True)
    answer = sys.stdin.readline().strip()
    if answer != "go":
        raise SystemExit(f"the driver answered {answer!r} to {request!r}")


def show(what: str, expire_at: datetime) -> None:
    print(f"{what} expire_at {verify.format_service_time(expire_at)} {int(expire_at.timestamp())}", flush=True)


def main() -> int:
    if len(sys.argv) != 7:
        print("usage: python_typed.py BASE_URL APP_ID APP_KEY CARD USERNAME PASSWORD", file=sys.stderr)
        return 2
    url, app_id, app_key, card, username, password = sys.argv[1:]
    state = tempfile.TemporaryDirectory()
    week = timedelta(days=7)

    try:
        with verify.Client(url, app_id, app_key, state_folder=state.name, offline_grace=week, call_timeout=20) as client:
            # A card login: this machine's code is sent; the fields the service always gives
            # are typed without Optional.
            licence = client.single_login(card)
            check(licence.ok and licence.offline is None, "a card login")
            check(licence.token is not None and len(licence.token) == 40, "a token")
            check(not licence.is_times, "a duration card")
            check(licence.expire_at - datetime.now(verify.SERVICE_TZ) > timedelta(days=29), "30 days left")
            show("card", licence.expire_at)
            print(f"card type {licence.card_type}", flush=True)

            # An offline start: the program starts again while the service is out of reach;
            # the verdict of the login above, kept in the state folder, answers. (A refusal of
            # this identity would clear it: the bad card below comes after.)
            ask("outage")
            with verify.Client(url, app_id, app_key, state_folder=state.name, offline_grace=week, call_timeout=3) as restarted:
                offline = restarted.single_login(card)
                check(offline.code == verify.Code.OFFLINE and offline.ok, "an offline verdict")
                check(offline.expire_at == licence.expire_at, "the stored expiry")
                if offline.offline is not None:
                    print(f"offline start {offline.code} reason {offline.offline.reason}", flush=True)
                    check(offline.offline.grace_end - offline.offline.confirmed_at == week, "a week's grace")
            ask("back")

            # An account login.
            session = client.user_login(username, password)
            check(session.username == username, "the account's name")
            check(session.token is not None and len(session.token) == 40, "an account token")
            show("account", session.expire_at)

            # A wrong password: the server's code and message.
            try:
                client.user_login(username, "wrong-password")
                check(False, "a wrong password raises")
            except verify.WrongCredentials as error:
                check(error.code == verify.Code.WRONG_PASSWORD and error.refused, "1003")
                check(not error.configuration, "a licence's refusal")
                print(f"wrong password {error.code} {error.message}", flush=True)

            # A bad card, caught by its class, with the end user's message in Chinese.
            verify.set_language("zh-CN")
            try:
                client.single_login("BAD0-CARD-0000-0000")
                check(False, "a bad card raises")
            except verify.WrongCredentials as error:
                check(error.code == verify.Code.CARD_INVALID, "1004")
                print(f"bad card {error.code}", flush=True)
                print(f"bad card says {verify.user_message(error.code)}", flush=True)

            # The form that does not raise.
            bad = verify.attempt(client.single_login, "BAD0-CARD-0000-0001")
            check(not bad and isinstance(bad.error, verify.WrongCredentials), "attempt")

            # A wrong AppKey is a refusal of the configuration.
            with verify.Client(url, app_id, "WRONGKEY0123456789ABCDEFGHIJKLMN") as wrong:
                try:
                    wrong.get_bulletin()
                    check(False, "a wrong AppKey raises")
                except verify.ConfigurationRefused as error:
                    check(error.configuration, "a configuration refusal")
                    print(f"wrong key {error.code} configuration", flush=True)

            # The keeper sees a ban: ENDED with 1006 and the reason.
            ended: List[verify.Event] = []
            done = threading.Event()

            def on_event(event: verify.Event) -> None:
                if event.kind == verify.EventKind.ENDED:
                    ended.append(event)
                    done.set()

            with client.keep_alive(licence, interval=timedelta(seconds=1), callback=on_event) as keeper:
                ask("ban cheating detected")
                done.wait(60)
                check(bool(ended), "the keeper ended")
                for last in ended[:1]:
                    check(last.code == verify.Code.DISABLED, "1006")
                    check(last.remark == "cheating detected", "the ban's reason")
                    print(f"keeper ended {last.code} {last.remark}", flush=True)
                check(keeper.state == verify.KeeperState.ENDED, "the keeper's state")
    except verify.VerifyError as error:
        # One except for every other failure, refusals and local failures alike.
        print(f"FAIL unexpected {type(error).__name__}: {error}", flush=True)
        print(error.user_message, flush=True)
        failed_once()
    print(f"RESULT: {checks} checks, {failed} failed", flush=True)
    return 0 if failed == 0 else 1


def failed_once() -> None:
    global failed
    failed += 1


if __name__ == "__main__":
    sys.exit(main())
