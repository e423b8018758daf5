"""verify: the licensing client SDK for Python, over the native library's C ABI (ctypes).

::

    import verify

    with verify.Client("https://license.example.com", "10001", APP_KEY) as client:
        try:
            login = client.single_login(card)             # this machine's code by default
        except verify.WrongCredentials as error:          # 1003, 1004, 1016: enter it again
            print(error.user_message)
        except verify.VerifyError as error:               # any other failure
            print(error.user_message)                     # the end user's words
        else:
            print("valid until", login.expire_at)         # a datetime in UTC+08:00
            keeper = client.keep_alive(login, callback=print)

Every action of the service is a method of :class:`Client` (blocking) and of
:class:`AsyncClient` (coroutines), returning a frozen dataclass generated from the action
table. A failure raises a :class:`VerifyError` of its family, generated from the code table:
:class:`Refused` (:class:`WrongCredentials`, :class:`Banned`, :class:`Expired`,
:class:`MachineBoundElsewhere`, :class:`ConfigurationRefused`), :class:`NetworkError` (a
``ConnectionError``: :class:`TlsError`, :class:`ProxyError`, :class:`OfflineRefused`),
:class:`VerifyTimeout` (a ``TimeoutError``), :class:`InvalidArgument` (a ``ValueError``),
:class:`ProtocolError`, :class:`Cancelled`. :func:`attempt` is the form that does not raise;
:func:`user_message` gives the end user's words for any code in zh-CN, zh-TW or en.
"""

from __future__ import annotations

from . import _native
from ._async_client import AsyncClient
from ._attempt import Attempt, attempt
from ._base import LogCallback
from ._cancel import Cancel
from ._client import Client
from ._diagnosis import Diagnosis, DiagnosisCause, DiagnosisStep, StepCallback
from ._duration import Duration
from ._enums import (
    ComponentKind,
    ComponentState,
    DiagnosisActor,
    DiagnosisStepKind,
    EventKind,
    KeeperState,
    LogLevel,
    MachineVersion,
    Outcome,
    SessionKind,
    Trust,
    Verdict,
    VirtualSign,
)
from ._errors import VerifyError
from ._generated.codes import Code
from ._generated.exceptions import (
    Banned,
    Cancelled,
    ConfigurationRefused,
    Expired,
    InvalidArgument,
    MachineBoundElsewhere,
    NetworkError,
    OfflineRefused,
    ProtocolError,
    ProxyError,
    Refused,
    TlsError,
    VerifyTimeout,
    WrongCredentials,
)
from ._generated.results import (
    Bulletin,
    CardInfo,
    CardLogin,
    Heartbeat,
    LatestVersion,
    PasswordChanged,
    Rebind,
    Recharge,
    Registration,
    Renewal,
    SocialRegistration,
    SocialStart,
    UserInfo,
    UserSession,
    Variable,
    Variables,
)
from ._keeper import Event, Keeper, KeeperStatus
from ._language import language, set_language
from ._library import LIBRARY_VARIABLE
from ._machine import Component, MachineCheck, VirtualReport, machine_check, machine_code, machine_virtual
from ._native import describe, user_message
from ._reply import OfflineVerdict, Reply
from ._result import Result
from ._state_folder import StateFolder
from ._time import SERVICE_TZ, format_service_time, parse_service_time

#: The version of this package.
__version__ = "0.2.0"


def library_version() -> str:
    """The native library's version (``verify_version``)."""
    return _native.text(_native.lib.verify_version())


def abi_version() -> int:
    """The native library's ABI version (2)."""
    return int(_native.lib.verify_abi_version())


def library_path() -> str:
    """The file the native library was loaded from."""
    return str(_native.lib._name)


def nuitka_configuration() -> str:
    """The path of the package's Nuitka configuration (for
    ``--user-package-configuration-file``): it tells Nuitka to carry the native library."""
    import os

    return os.path.join(os.path.dirname(os.path.abspath(__file__)), "verify.nuitka-package.config.yml")


__all__ = [
    "AsyncClient",
    "Attempt",
    "Banned",
    "Bulletin",
    "Cancel",
    "Cancelled",
    "CardInfo",
    "CardLogin",
    "Client",
    "Code",
    "Component",
    "ComponentKind",
    "ComponentState",
    "ConfigurationRefused",
    "Diagnosis",
    "DiagnosisActor",
    "DiagnosisCause",
    "DiagnosisStep",
    "DiagnosisStepKind",
    "Duration",
    "Event",
    "EventKind",
    "Expired",
    "Heartbeat",
    "InvalidArgument",
    "Keeper",
    "KeeperState",
    "KeeperStatus",
    "LIBRARY_VARIABLE",
    "LatestVersion",
    "LogCallback",
    "LogLevel",
    "MachineBoundElsewhere",
    "MachineCheck",
    "MachineVersion",
    "NetworkError",
    "OfflineRefused",
    "OfflineVerdict",
    "Outcome",
    "PasswordChanged",
    "ProtocolError",
    "ProxyError",
    "Rebind",
    "Recharge",
    "Refused",
    "Registration",
    "Renewal",
    "Reply",
    "Result",
    "SERVICE_TZ",
    "SessionKind",
    "SocialRegistration",
    "SocialStart",
    "StateFolder",
    "StepCallback",
    "TlsError",
    "Trust",
    "UserInfo",
    "UserSession",
    "Variable",
    "Variables",
    "Verdict",
    "VerifyError",
    "VerifyTimeout",
    "VirtualReport",
    "VirtualSign",
    "WrongCredentials",
    "abi_version",
    "attempt",
    "describe",
    "format_service_time",
    "language",
    "library_path",
    "library_version",
    "machine_check",
    "machine_code",
    "machine_virtual",
    "nuitka_configuration",
    "parse_service_time",
    "set_language",
    "user_message",
]
