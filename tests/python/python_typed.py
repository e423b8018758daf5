"""python_typed.py: the program of the typed C++ and C# hosts (a card login, an account login,
a wrong password, a bad card, a wrong AppKey, an offline start, the keeper seeing a ban),
written as a Python developer writes it on the typed API of the `verify` package: typed
results, times as datetimes in UTC+08:00, refusals as verify.VerifyError, keeper events; no
JSON Pointer anywhere.

    python python_typed.py BASE_URL APP_ID APP_KEY CARD USERNAME PASSWORD

Driven by tests/python/python.rs, which answers its requests: "@@ outage" (the sandbox answers the
program too late from then on), "@@ back" (it answers again) and "@@ ban REASON" (CARD
is banned), each with "go". Prints what it saw ("card expire_at TEXT SECONDS", ...), then
"RESULT: N checks, M failed"; exits 0 when every check held.
"""

from __future__ import annotations

import sys
import tempfile
import threading
from typing import List, Optional

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


def main() -> int:
    if len(sys.argv) != 7:
        print("usage: python_typed.py BASE_URL APP_ID APP_KEY CARD USERNAME PASSWORD", file=sys.stderr)
        return 2
    url, app_id, app_key, card, username, password = sys.argv[1:]
    state = tempfile.TemporaryDirectory()
    options = dict(state_folder=state.name, offline_grace=3600, call_timeout=20)
    mac = verify.machine_code(app_id)

    try:
        with verify.Client(url, app_id, app_key, **options) as client:
            # A card login, the throwing form: the typed fields, or verify.VerifyError.
            licence = client.single_login(card, mac)
            check(licence.ok and licence.offline is None, "a card login")
            check(licence.token is not None and len(licence.token) == 40, "a token")
            check(licence.is_times is False, "a duration card")
            check(licence.expire_at is not None, "an expiry")
            if licence.expire_at is not None:
                print(
                    f"card expire_at {verify.format_service_time(licence.expire_at)} "
                    f"{int(licence.expire_at.timestamp())}",
                    flush=True,
                )
            print(f"card type {licence.card_type}", flush=True)

            # An offline start: the program starts again while the service is out of reach;
            # the verdict of the login above, kept in the state folder, answers. (A refusal of
            # this identity would clear it: the bad card below comes after.)
            ask("outage")
            with verify.Client(
                url, app_id, app_key, state_folder=state.name, offline_grace=3600, call_timeout=3
            ) as restarted:
                offline = restarted.single_login(card, mac)
                check(offline.code == verify.Code.OFFLINE and offline.ok, "an offline verdict")
                check(offline.offline is not None, "what the offline verdict knows")
                check(offline.expire_at == licence.expire_at, "the stored expiry")
                if offline.offline is not None:
                    print(f"offline start {offline.code} reason {offline.offline.reason}", flush=True)
            ask("back")

            # An account login.
            session = client.user_login(username, password, mac)
            check(session.username == username, "the account's name")
            check(session.token is not None and len(session.token) == 40, "an account token")
            if session.expire_at is not None:
                print(
                    f"account expire_at {verify.format_service_time(session.expire_at)} "
                    f"{int(session.expire_at.timestamp())}",
                    flush=True,
                )

            # A wrong password: verify.VerifyError with the server's code and message.
            try:
                client.user_login(username, "wrong-password", mac)
                check(False, "a wrong password raises")
            except verify.VerifyError as error:
                check(error.code == verify.Code.WRONG_PASSWORD and error.refused, "1003")
                check(not error.configuration, "a licence's refusal")
                print(f"wrong password {error.code} {error.message}", flush=True)

            # A bad card, the form that does not raise.
            bad = verify.attempt(client.single_login, "BAD0-CARD-0000-0000", mac)
            check(not bad and bad.error is not None, "a bad card fails")
            if bad.error is not None:
                check(bad.error.code == verify.Code.CARD_INVALID, "1004")
                print(f"bad card {bad.error.code}", flush=True)

            # A wrong AppKey is a refusal of the configuration.
            with verify.Client(url, app_id, "WRONGKEY0123456789ABCDEFGHIJKLMN") as wrong:
                try:
                    wrong.get_bulletin()
                    check(False, "a wrong AppKey raises")
                except verify.VerifyError as error:
                    check(error.configuration, "a configuration refusal")
                    print(f"wrong key {error.code} configuration", flush=True)


            # The keeper sees a ban: ENDED with 1006 and the reason.
            ended: List[verify.Event] = []
            done = threading.Event()

            def on_event(event: verify.Event) -> None:
                if event.kind == verify.EventKind.ENDED:
                    ended.append(event)
                    done.set()

            with client.keep_alive(licence, interval=1, callback=on_event) as keeper:
                ask("ban cheating detected")
                done.wait(60)
                check(bool(ended), "the keeper ended")
                last: Optional[verify.Event] = ended[0] if ended else None
                if last is not None:
                    check(last.code == verify.Code.DISABLED, "1006")
                    check(last.remark == "cheating detected", "the ban's reason")
                    print(f"keeper ended {last.code} {last.remark}", flush=True)
                check(keeper.state == verify.KeeperState.ENDED, "the keeper's state")
    except verify.VerifyError as error:
        # One except for refusals and local failures alike.
        print(f"FAIL unexpected verify.VerifyError {error}", flush=True)
        failed_once()
    print(f"RESULT: {checks} checks, {failed} failed", flush=True)
    return 0 if failed == 0 else 1


def failed_once() -> None:
    global failed
    failed += 1


if __name__ == "__main__":
    sys.exit(main())
