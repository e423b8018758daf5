"""Every action of the action table through the typed client, against the sandbox: the typed
fields (times as datetimes in UTC+08:00; a field the service always gives is never None), the
machine code sent by default, refusals as the exception of their family with code, message and
remark, local failures, the non-throwing form (test_errors.py has every exception class and the
messages, test_async.py the asyncio client)."""

from __future__ import annotations

import inspect
import socket
import threading
from datetime import datetime, timedelta

import pytest

import verify
from verify._generated.actions import Actions, AsyncActions

from conftest import APP_KEY, Program

UTC8 = timedelta(hours=8)

#: The actions these tests call; a new action in the table fails
#: `test_every_action_is_tested` until it is tested here.
TESTED = {
    "single_login",
    "user_login",
    "user_login_with_card",
    "user_register",
    "update_password",
    "change_bind",
    "heartbeat",
    "user_recharge",
    "get_latest_version",
    "get_bulletin",
    "get_variable",
    "get_variables",
    "get_user_info",
    "get_card_info",
    "social_login_start",
    "social_login_poll",
    "social_register_start",
}


def test_every_action_is_tested() -> None:
    generated = {name for name, member in vars(Actions).items() if inspect.isfunction(member)}
    assert generated == TESTED
    for name in generated:
        blocking = inspect.signature(getattr(Actions, name))
        coroutine = getattr(AsyncActions, name)
        assert inspect.iscoroutinefunction(coroutine)
        assert inspect.signature(coroutine) == blocking
        assert not hasattr(verify.Client, name + "_async")  # the previous release's twins


def service_time(text: str) -> datetime:
    return datetime.strptime(text, "%Y-%m-%d %H:%M:%S").replace(tzinfo=verify.SERVICE_TZ)


def test_card_login_typed_fields(program: Program, client: verify.Client, mac: str) -> None:
    card = program.day_card("PYCA-RDLO-GIN0-0001", 30)
    login = client.single_login(card, device_name="pytest")  # this machine's code
    assert isinstance(login, verify.CardLogin)
    assert login.code == 200 and login.code is verify.Code.OK and login.ok and login.offline is None
    assert program.card_record(card)["device_id"] == mac == client.machine_code
    assert login.token is not None and len(login.token) == 40
    assert login.status == "active"
    assert login.is_times is False
    assert login.card_type == "月卡"
    record = program.card_record(card)
    assert login.expire_at == service_time(record["expire_at"])
    assert login.expire_at is not None and login.expire_at.utcoffset() == UTC8
    # Secrets stay out of repr.
    assert login.token not in repr(login) and card not in repr(login)
    assert login.reply.get_str("/data/token") == login.token
    assert verify.format_service_time(login.expire_at) == record["expire_at"]


def test_a_success_without_a_field_the_service_always_gives(program: Program, client: verify.Client) -> None:
    # The same reply read as a view whose fields the service always gives: a reply of
    # GetBulletin has none of CardLogin's, so it is a protocol error carrying the reply.
    bulletin = client.get_bulletin()
    with pytest.raises(verify.ProtocolError) as raised:
        verify.CardLogin.from_reply(bulletin.reply)
    assert raised.value.code == verify.Code.PROTOCOL and raised.value.reply is bulletin.reply
    assert "lacks `status`" in raised.value.message
    assert raised.value.reply.get_str("/data/bulletin") == "公告 bulletin"


def test_count_card(program: Program, client: verify.Client, mac: str) -> None:
    card = program.count_card("PYCO-UNTC-ARD0-0001", 3)
    login = client.single_login(card, mac)  # the code given
    assert login.is_times is True
    assert (login.total, login.used, login.remaining) == (3, 1, 2)
    info = client.get_card_info(card)
    assert isinstance(info, verify.CardInfo)
    assert info.card == card and info.status == "active" and info.is_times is True
    assert info.remaining == 2 and info.device_id == mac
    assert card not in repr(info) and mac not in repr(info)


def test_card_info_of_an_unused_card(program: Program, client: verify.Client) -> None:
    card = program.day_card("PYUN-USED-CARD-0001", 7)
    info = client.get_card_info(card)
    assert info.status == "unused"
    assert info.duration == 7 and info.duration_type == "day"
    assert info.activated_at is None and info.expire_at is None  # "" in the reply
    assert info.reply is not None and info.reply.get_str("/data/expire_at") == ""


def test_account_actions(program: Program, client: verify.Client, mac: str) -> None:
    program.account("alice", "secret-1", "2099-03-04 05:06:07")
    session = client.user_login("alice", "secret-1")
    assert isinstance(session, verify.UserSession)
    assert session.username == "alice" and session.status == "active"
    assert session.device_id == mac and session.remark == ""
    assert session.token is not None and len(session.token) == 40
    assert session.expire_at == datetime(2099, 3, 4, 5, 6, 7, tzinfo=verify.SERVICE_TZ)
    assert session.expire_at.timestamp() == 4076255167

    beat = client.heartbeat(session.token, verify.SessionKind.USER)
    assert isinstance(beat, verify.Heartbeat)
    assert beat.status == "active" and beat.expire_at == session.expire_at and beat.msg == ""

    info = client.get_user_info("alice", "secret-1")
    assert isinstance(info, verify.UserInfo)
    assert info.username == "alice" and info.device_id == mac and info.status == "active"
    assert info.user_id is not None and info.bind_count == 0
    assert info.created_at is not None and info.created_at.utcoffset() == UTC8

    changed = client.update_password("alice", "secret-1", "secret-2")
    assert isinstance(changed, verify.PasswordChanged) and changed.username == "alice"
    with pytest.raises(verify.WrongCredentials) as raised:
        client.user_login("alice", "secret-1", mac)
    assert raised.value.code == verify.Code.WRONG_PASSWORD
    assert int(raised.value.code) == 1003
    assert raised.value.refused and not raised.value.configuration
    assert raised.value.message  # the server's own words
    assert raised.value.reply is not None and raised.value.reply.code == 1003

    rebind = client.change_bind("alice", "secret-2", new_machine_code="NEW-MACHINE-CODE-0001")
    assert isinstance(rebind, verify.Rebind)
    assert rebind.device_id == "NEW-MACHINE-CODE-0001" and rebind.bind_count == 1
    assert rebind.bind_limit == 0

    # The old machine is now refused with the bound code as the remark.
    with pytest.raises(verify.MachineBoundElsewhere) as changed_machine:
        client.user_login("alice", "secret-2")
    assert changed_machine.value.code == verify.Code.MACHINE_CHANGED
    assert changed_machine.value.remark == "NEW-MACHINE-CODE-0001"
    # Back to this machine: the new code is this client's by default.
    assert client.change_bind("alice", "secret-2").device_id == mac
    # An empty code sends none where the action takes none: no binding is checked.
    assert client.user_login("alice", "secret-2", machine_code="").username == "alice"


def test_register_renew_and_recharge(program: Program, client: verify.Client, mac: str) -> None:
    bare = client.user_register("bob", "pw-bob")
    assert isinstance(bare, verify.Registration)
    assert bare.username == "bob" and bare.token is None and bare.user_id > 0

    card = program.day_card("PYRE-GIST-ER00-0001", 30)
    registered = client.user_register("carol", "pw-carol", card, mac, "pytest")
    assert registered.token is not None and registered.status == "active"
    assert registered.expire_at.utcoffset() == UTC8

    renewal_card = program.day_card("PYRE-NEWA-L000-0001", 10)
    renewal = client.user_login_with_card("carol", "pw-carol", renewal_card, mac)
    assert isinstance(renewal, verify.Renewal)
    assert renewal.added_days == 10 and renewal.username == "carol"
    assert renewal.expire_at - registered.expire_at == timedelta(days=10)

    recharge_card = program.day_card("PYRE-CHAR-GE00-0001", 30)
    recharge = client.user_recharge("carol", recharge_card)
    assert isinstance(recharge, verify.Recharge)
    assert recharge.added_days == "30天" and recharge.status == "active"
    assert recharge.expire_at - renewal.expire_at == timedelta(days=30)

    with pytest.raises(verify.Refused) as taken:
        client.user_register("carol", "again")
    assert taken.value.code == verify.Code.USERNAME_TAKEN and type(taken.value) is verify.Refused


def test_program_actions(client: verify.Client) -> None:
    latest = client.get_latest_version("2.0.0")
    assert isinstance(latest, verify.LatestVersion)
    assert latest.version == "2.1.0" and latest.changelog == "fixes"
    assert latest.download_url == "https://example.invalid/d"
    assert latest.force_update is False and latest.has_update is True
    assert client.get_latest_version("2.1.0").has_update is False

    bulletin = client.get_bulletin()
    assert isinstance(bulletin, verify.Bulletin)
    assert bulletin.bulletin == "公告 bulletin"
    assert bulletin.updated_at is not None and bulletin.updated_at.utcoffset() == UTC8

    variable = client.get_variable("greeting")
    assert isinstance(variable, verify.Variable)
    assert (variable.name, variable.value) == ("greeting", "你好 & welcome")
    every = client.get_variables()
    assert isinstance(every, verify.Variables)
    assert every.variables == {"greeting": "你好 & welcome", "limit": "5"}

    with pytest.raises(verify.Refused) as unknown:
        client.get_variable("nope")
    assert unknown.value.code == verify.Code.INCOMPLETE_PARAMETERS


def test_social_login_and_registration(program: Program, client: verify.Client, mac: str) -> None:
    started = client.social_login_start()
    assert isinstance(started, verify.SocialStart)
    assert started.state in started.url
    assert client.social_login_poll(started.state) is None  # pending: 201

    registration = client.social_register_start("dave", mac, "pytest")
    assert isinstance(registration, verify.SocialRegistration)
    assert "state=" in registration.url
    reg_state = registration.url.split("state=", 1)[1].split("&", 1)[0]
    program.sandbox.post("social/authorize", {"state": reg_state, "identity": "wx-dave", "display_name": "Dave"})

    program.sandbox.post("social/authorize", {"state": started.state, "identity": "wx-dave", "display_name": "Dave"})
    session = client.social_login_poll(started.state)
    assert session is not None
    assert session.code == 200 and session.username == "dave" and session.remark == "Dave"

    # The blocking wait, authorized from another thread while it polls.
    state = client.social_login_start(mac).state
    timer = threading.Timer(
        0.3,
        lambda: program.sandbox.post("social/authorize", {"state": state, "identity": "wx-dave", "display_name": "Dave"}),
    )
    timer.start()
    try:
        waited = client.social_login_wait(state, interval=timedelta(milliseconds=50), timeout=20)
    finally:
        timer.join()
    assert waited.username == "dave"


def test_social_wait_cancelled(client: verify.Client, mac: str) -> None:
    started = client.social_login_start(mac)
    cancel = verify.Cancel()
    threading.Timer(0.2, cancel.cancel).start()
    with pytest.raises(verify.Cancelled) as raised:
        client.social_login_wait(started.state, mac, interval=0.05, timeout=30, cancel=cancel)
    assert raised.value.code == verify.Code.CANCELLED and not raised.value.refused


def test_refusals_carry_code_message_and_remark(program: Program, client: verify.Client, mac: str) -> None:
    with pytest.raises(verify.WrongCredentials) as bad:
        client.single_login("BAD0-CARD-0000-0000", mac)
    assert bad.value.code == verify.Code.CARD_INVALID
    assert str(bad.value).startswith("1004 card invalid")

    card = program.day_card("PYBA-NNED-0000-0001", 30)
    program.ban_card(card, "cheating detected")
    with pytest.raises(verify.Banned) as banned:
        client.single_login(card, mac)
    assert banned.value.code == verify.Code.DISABLED
    assert banned.value.remark == "cheating detected"
    assert str(banned.value).endswith(" [remark: cheating detected]")

    # The form that does not raise.
    outcome = verify.attempt(client.single_login, "BAD0-CARD-0000-0001", mac)
    assert not outcome and outcome.value is None
    assert isinstance(outcome.error, verify.WrongCredentials) and outcome.error.code == 1004
    fine = verify.attempt(client.get_bulletin)
    assert fine and fine.unwrap().bulletin == "公告 bulletin"


def test_configuration_refusal(program: Program) -> None:
    with verify.Client(program.sandbox.url, program.app_id, "WRONGKEY0123456789ABCDEFGHIJKLMN") as wrong:
        with pytest.raises(verify.ConfigurationRefused) as raised:
            wrong.get_bulletin()
    assert raised.value.code == verify.Code.APP_KEY_WRONG and raised.value.configuration


def test_local_failures(program: Program, mac: str) -> None:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    with verify.Client(f"http://127.0.0.1:{port}", program.app_id, APP_KEY, connect_timeout=2, call_timeout=4) as dead:
        with pytest.raises(ConnectionError) as raised:
            dead.get_bulletin()
    assert isinstance(raised.value, verify.NetworkError)
    assert raised.value.code == verify.Code.NETWORK
    assert not raised.value.refused and raised.value.reply is None and raised.value.message

    with program.client() as client:
        with pytest.raises(verify.InvalidArgument) as empty:
            client.single_login("", mac)
        assert empty.value.code == verify.Code.INVALID_ARGUMENT
        with pytest.raises(ValueError):
            client.single_login("A\0B", mac)

    with pytest.raises(ValueError) as url:
        verify.Client("ftp://example.com", "1", APP_KEY)
    assert isinstance(url.value, verify.InvalidArgument)
    assert url.value.code == verify.Code.INVALID_ARGUMENT and "http://" in url.value.message
    assert str(url.value).count("invalid argument") == 1


def test_init_and_any_action(client: verify.Client) -> None:
    init = client.init()
    assert init.code == 200
    reply = client.call("GetVariable", {"Name": "limit"})
    assert reply.code == 200 and reply.get_str("/data/value") == "5"
    assert reply.get_json("/data") == {"name": "limit", "value": "5"}
    assert reply.get_json("")["code"] == 200
    assert reply.get_int("/code") == 200 and reply.get_bool("/code") is None
    assert reply.get_str("/data/absent") is None
    # A pointer that is neither empty nor starts with "/" is the caller's mistake.
    with pytest.raises(ValueError, match="pointer"):
        reply.get_str("data/value")
    with pytest.raises(verify.Refused) as unknown:
        client.call("NoSuchAction")
    assert unknown.value.code == verify.Code.UNKNOWN_ACTION


def test_client_options(program: Program, mac: str) -> None:
    lines = []
    with program.client(
        mirrors=[program.sandbox.url],
        trust=verify.Trust.MOZILLA | verify.Trust.SYSTEM,
        proxy="none",
        connect_timeout=timedelta(seconds=5),
        call_timeout=10,
        attempt_delay=0.1,
        addresses={"verify-sandbox.test": ["127.0.0.1"]},
        log=lambda level, message: lines.append((level, message)),
    ) as client:
        assert client.get_bulletin().code == 200
        client.set_timeouts(3, timedelta(seconds=6))
    assert lines and all(isinstance(level, verify.LogLevel) for level, _ in lines)
    assert not any(APP_KEY in message for _, message in lines)
    with pytest.raises(verify.InvalidArgument):
        program.client(pins=["not base64"])
    with pytest.raises(verify.InvalidArgument):
        program.client(trust=verify.Trust(0))
    for wrong in [-1, timedelta(days=-1), float("nan"), timedelta(days=50)]:
        with pytest.raises(ValueError, match="call_timeout is out of range"):
            program.client(call_timeout=wrong)
    with pytest.raises(TypeError, match="offline_grace must be a timedelta or seconds"):
        program.client(offline_grace="7 days")


def test_the_clients_machine_code(program: Program, mac: str) -> None:
    with program.client() as client:
        assert client.machine_code == mac == verify.machine_code(program.app_id)
    with program.client(machine_code="GIVEN-MACHINE-CODE") as given:
        card = program.day_card("PYMA-CHIN-ECOD-0001", 30)
        given.single_login(card)
        assert program.card_record(card)["device_id"] == "GIVEN-MACHINE-CODE"
        # Given on the call, it is the one sent.
        with pytest.raises(verify.VerifyError):
            given.single_login(card, "ANOTHER-MACHINE-CODE")


def test_library() -> None:
    assert verify.abi_version() == 2
    assert verify.library_version() == verify.__version__
    assert verify.describe(1006).startswith("disabled")
    assert verify.describe(verify.Code.TIMEOUT) == "timed out (connect or whole-call timeout)"
    assert verify.Code(202) is verify.Code.OFFLINE
