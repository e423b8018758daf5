"""Every exception class of the package, each raised by a real failure against the sandbox (or
a socket of the test's own on 127.0.0.1), caught as its family, as the built-in exception a
Python program already catches (ConnectionError, TimeoutError, ValueError), and as
VerifyError; its code, the server's message and remark in ``str()``, and the end user's message
in every language."""

from __future__ import annotations

import pickle
import socket
import threading
from pathlib import Path
from typing import Callable, Iterator, List, Tuple, Type

import pytest

import verify
from verify._generated.exceptions import CLASSES, error_class

from conftest import APP_KEY, Program

#: Every class the code table's families give, with its base classes.
FAMILIES = {
    verify.Refused: (verify.VerifyError,),
    verify.WrongCredentials: (verify.Refused,),
    verify.Banned: (verify.Refused,),
    verify.Expired: (verify.Refused,),
    verify.MachineBoundElsewhere: (verify.Refused,),
    verify.ConfigurationRefused: (verify.Refused,),
    verify.NetworkError: (verify.VerifyError, ConnectionError),
    verify.TlsError: (verify.NetworkError,),
    verify.ProxyError: (verify.NetworkError,),
    verify.OfflineRefused: (verify.NetworkError,),
    verify.VerifyTimeout: (verify.VerifyError, TimeoutError),
    verify.InvalidArgument: (verify.VerifyError, ValueError),
    verify.ProtocolError: (verify.VerifyError,),
    verify.Cancelled: (verify.VerifyError,),
}

@pytest.fixture
def english() -> Iterator[None]:
    verify.set_language("en")
    yield
    verify.set_language(None)


def raised(kind: Type[verify.VerifyError], error: BaseException, code: verify.Code) -> None:
    """``error`` is exactly ``kind`` with ``code``, and its message is for the developer."""
    assert type(error) is kind, repr(error)
    assert isinstance(error, verify.VerifyError)
    assert error.code is code
    assert str(error).startswith(f"{int(code)} {verify.describe(code)}")
    assert error.description == verify.describe(code)


def test_the_classes_and_their_bases() -> None:
    for kind, bases in FAMILIES.items():
        assert kind.__bases__ == bases, kind
        assert getattr(verify, kind.__name__) is kind
    assert set(CLASSES.values()) <= set(FAMILIES)
    # Every code of the table is of one class; a code this version does not name is a refusal
    # (positive) or the root (negative).
    for code in verify.Code:
        kind = error_class(code)
        assert kind is verify.VerifyError or kind in FAMILIES
        assert issubclass(kind, verify.Refused) == (code > 0 and code not in (200, 201, 202)), code
    assert error_class(1099) is verify.Refused and error_class(-99) is verify.VerifyError
    unknown = verify.Code(1099)
    assert unknown.name == "UNKNOWN_1099" and unknown == 1099 and isinstance(unknown, verify.Code)
    assert error_class(verify.Code.STATE_FOLDER) is verify.VerifyError


def test_wrong_credentials(program: Program, client: verify.Client, english: None) -> None:
    program.account("frank", "right")
    cases: List[Tuple[Callable[[], object], verify.Code]] = [
        (lambda: client.single_login("NOPE-CARD-0000-0000"), verify.Code.CARD_INVALID),
        (lambda: client.user_login("frank", "wrong"), verify.Code.WRONG_PASSWORD),
        (lambda: client.user_login("nobody", "x"), verify.Code.USER_NOT_REGISTERED),
    ]
    for call, code in cases:
        with pytest.raises(verify.WrongCredentials) as error:
            call()
        raised(verify.WrongCredentials, error.value, code)
        assert error.value.refused and error.value.message and error.value.reply is not None
        # A refusal's message is the server's own words; shown to the user as they are.
        assert error.value.user_message == error.value.message
        assert error.value.message in str(error.value)


def test_banned_with_the_reason(program: Program, client: verify.Client) -> None:
    card = program.day_card("PYER-BANN-ED00-0001", 30)
    program.ban_card(card, "refund requested")
    with pytest.raises(verify.Banned) as error:
        client.single_login(card)
    raised(verify.Banned, error.value, verify.Code.DISABLED)
    assert error.value.remark == "refund requested"
    assert f": {error.value.message} [remark: refund requested]" in str(error.value)


def test_expired(program: Program, client: verify.Client) -> None:
    program.account("gina", "pw", expire_at="2020-01-01 00:00:00")
    with pytest.raises(verify.Expired) as error:
        client.user_login("gina", "pw")
    raised(verify.Expired, error.value, verify.Code.EXPIRED)


def test_machine_bound_elsewhere(program: Program, client: verify.Client) -> None:
    program._load(
        "accounts",
        [{"username": "hank", "password": "pw", "expire_at": "2099-01-01 00:00:00",
          "status": "active", "device_id": "OTHER-MACHINE-0001"}],
    )
    with pytest.raises(verify.MachineBoundElsewhere) as error:
        client.user_login("hank", "pw")
    raised(verify.MachineBoundElsewhere, error.value, verify.Code.MACHINE_CHANGED)
    assert error.value.remark == "OTHER-MACHINE-0001"


def test_configuration_refused(program: Program) -> None:
    with verify.Client(program.sandbox.url, program.app_id, "WRONGKEY0123456789ABCDEFGHIJKLMN") as wrong:
        with pytest.raises(verify.ConfigurationRefused) as error:
            wrong.get_bulletin()
    raised(verify.ConfigurationRefused, error.value, verify.Code.APP_KEY_WRONG)
    assert error.value.configuration


def test_a_refusal_of_no_narrower_family(client: verify.Client) -> None:
    with pytest.raises(verify.Refused) as error:
        client.call("NoSuchAction")
    raised(verify.Refused, error.value, verify.Code.UNKNOWN_ACTION)
    assert not error.value.configuration


@pytest.fixture
def closed_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port: int = probe.getsockname()[1]
    return port


def test_network_error(program: Program, closed_port: int, english: None) -> None:
    with verify.Client(f"http://127.0.0.1:{closed_port}", program.app_id, APP_KEY, call_timeout=5) as dead:
        with pytest.raises(ConnectionError) as error:
            dead.get_bulletin()
    assert isinstance(error.value, verify.VerifyError)
    raised(verify.NetworkError, error.value, verify.Code.NETWORK)
    assert not error.value.refused and error.value.reply is None and error.value.remark is None
    assert error.value.user_message == (
        "Cannot connect to the licensing server. Please check your network and try again."
    )


@pytest.fixture
def not_tls() -> Iterator[int]:
    """A port on 127.0.0.1 that answers a TLS handshake with plain HTTP."""
    server = socket.socket()
    server.bind(("127.0.0.1", 0))
    server.listen()
    port: int = server.getsockname()[1]

    def serve() -> None:
        while True:
            try:
                peer, _ = server.accept()
            except OSError:
                return
            with peer:
                peer.recv(4096)
                peer.sendall(b"HTTP/1.1 400 Bad Request\r\nContent-Length: 0\r\n\r\n")

    thread = threading.Thread(target=serve, daemon=True)
    thread.start()
    yield port
    server.close()
    thread.join(timeout=10)


def test_tls_error(program: Program, not_tls: int) -> None:
    with verify.Client(f"https://127.0.0.1:{not_tls}", program.app_id, APP_KEY, call_timeout=5) as client:
        with pytest.raises(verify.NetworkError) as error:
            client.get_bulletin()
    raised(verify.TlsError, error.value, verify.Code.TLS)
    assert "not TLS" in error.value.message


def test_proxy_error(program: Program, closed_port: int) -> None:
    # Loopback never goes through a proxy: the service is named, and the name given a fixed
    # address on 127.0.0.1.
    with verify.Client(
        "http://verify-sandbox.test:8080",
        program.app_id,
        APP_KEY,
        call_timeout=5,
        proxy=f"http://127.0.0.1:{closed_port}",
        addresses={"verify-sandbox.test": ["127.0.0.1"]},
        allow_insecure_http=True,
    ) as client:
        with pytest.raises(ConnectionError) as error:
            client.get_bulletin()
    raised(verify.ProxyError, error.value, verify.Code.PROXY)


def test_timeout(program: Program, english: None) -> None:
    program.fault("delay", delay_ms=10000, count=1)
    with program.client(connect_timeout=1, call_timeout=1) as client:
        with pytest.raises(TimeoutError) as error:
            client.get_bulletin()
    raised(verify.VerifyTimeout, error.value, verify.Code.TIMEOUT)
    assert isinstance(error.value, verify.VerifyTimeout)
    assert error.value.user_message == "The licensing server did not answer in time. Please try again later."


def test_offline_refused(program: Program, tmp_path: Path, english: None) -> None:
    program.account("ivy", "pw-ivy")
    options = dict(state_folder=tmp_path, offline_grace=3600)
    with program.client(call_timeout=10, **options) as first:
        assert first.user_login("ivy", "pw-ivy").offline is None
    program.fault("delay", delay_ms=10000, count=1)
    with program.client(connect_timeout=1, call_timeout=1, **options) as restarted:
        with pytest.raises(verify.OfflineRefused) as error:
            restarted.user_login("ivy", "not-her-password")
    raised(verify.OfflineRefused, error.value, verify.Code.OFFLINE_PASSWORD)
    assert isinstance(error.value, ConnectionError)
    assert error.value.user_message == verify.user_message(verify.Code.OFFLINE_PASSWORD, "en")


def test_invalid_argument(client: verify.Client) -> None:
    with pytest.raises(ValueError) as error:
        client.single_login("")
    raised(verify.InvalidArgument, error.value, verify.Code.INVALID_ARGUMENT)
    with pytest.raises(verify.InvalidArgument) as language:
        verify.set_language("not a tag!")
    assert language.value.code == verify.Code.INVALID_ARGUMENT


def test_protocol_error(program: Program, client: verify.Client) -> None:
    program.fault("non_json", count=2)
    with pytest.raises(verify.ProtocolError) as error:
        client.get_bulletin()
    raised(verify.ProtocolError, error.value, verify.Code.PROTOCOL)


def test_cancelled(client: verify.Client) -> None:
    started = client.social_login_start()
    cancel = verify.Cancel()
    cancel.cancel()
    with pytest.raises(verify.Cancelled) as error:
        client.social_login_wait(started.state, timeout=30, cancel=cancel)
    raised(verify.Cancelled, error.value, verify.Code.CANCELLED)


def test_pickled_errors_keep_their_class_and_fields() -> None:
    for code, kind in [(1006, verify.Banned), (-3, verify.NetworkError), (-99, verify.VerifyError)]:
        error = error_class(code)(code, "the message", "the remark")
        copy = pickle.loads(pickle.dumps(error))
        assert type(copy) is kind
        assert (copy.code, copy.message, copy.remark, str(copy)) == (code, "the message", "the remark", str(error))


LANGUAGES: Tuple[Tuple[str, str], ...] = (
    ("zh-CN", "无法连接验证服务器，请检查网络后重试。"),
    ("zh-TW", "無法連線驗證伺服器，請檢查網路後重試。"),
    ("en", "Cannot connect to the licensing server. Please check your network and try again."),
)


def test_user_messages_in_every_language(program: Program, closed_port: int) -> None:
    try:
        for language, network in LANGUAGES:
            assert verify.user_message(verify.Code.NETWORK, language) == network
            verify.set_language(language)
            assert verify.language() == language
            assert verify.user_message(-3) == network
            with verify.Client(f"http://127.0.0.1:{closed_port}", program.app_id, APP_KEY) as dead:
                with pytest.raises(verify.NetworkError) as error:
                    dead.get_bulletin()
            assert error.value.user_message == network
            # The developer's words stay English.
            assert "network error" in str(error.value)
        verify.set_language("zh_HK.UTF-8")
        assert verify.language() == "zh-TW"
        assert verify.user_message(verify.Code.CARD_INVALID, "zh-Hans-CN") == "卡密无效，请检查后重新输入。"
        assert verify.user_message(1099, "en") and verify.user_message(-99, "en")
    finally:
        verify.set_language(None)
    assert verify.language() in ("zh-CN", "zh-TW", "en")


def test_every_class_is_raised_by_a_real_failure_above() -> None:
    # A family the code table gains fails here until a test above raises it.
    source = Path(__file__).read_text(encoding="utf-8")
    for kind in FAMILIES:
        assert f"raised(verify.{kind.__name__}, error.value" in source, kind
