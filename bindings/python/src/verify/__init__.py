"""verify: the licensing client SDK for Python, over the native library's C ABI (ctypes).

The typed, throwing form::

    import verify

    with verify.Client("https://license.example.com", "10001", APP_KEY) as client:
        mac = verify.machine_code("10001")
        try:
            login = client.single_login(card, mac)
        except verify.VerifyError as error:
            print(error.code, error.message, error.remark)
        else:
            print("valid until", login.expire_at)       # a datetime in UTC+08:00
            keeper = client.keep_alive(login, callback=print)

Every action of the service is a method of :class:`Client` (and ``..._async``, a
coroutine), returning a frozen dataclass generated from the action table. Refusals and
local failures raise the one exception :class:`VerifyError` (code, message, remark);
:func:`attempt` is the form that does not raise.
"""

from __future__ import annotations

from . import _native
from ._client import Cancel, Client, LogCallback
from ._enums import (
    ComponentKind,
    ComponentState,
    EventKind,
    KeeperState,
    LogLevel,
    MachineVersion,
    Outcome,
    SessionKind,
    Trust,
    VirtualSign,
)
from ._errors import Attempt, VerifyError, attempt
from ._native import describe
from ._generated.codes import Code
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
from ._library import LIBRARY_VARIABLE
from ._machine import Component, MachineCheck, VirtualReport, machine_check, machine_code, machine_virtual
from ._reply import OfflineVerdict, Reply
from ._result import Result
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
    "Attempt",
    "Bulletin",
    "Cancel",
    "CardInfo",
    "CardLogin",
    "Client",
    "Code",
    "Component",
    "ComponentKind",
    "ComponentState",
    "Event",
    "EventKind",
    "Heartbeat",
    "Keeper",
    "KeeperState",
    "KeeperStatus",
    "LIBRARY_VARIABLE",
    "LatestVersion",
    "LogCallback",
    "LogLevel",
    "MachineCheck",
    "MachineVersion",
    "OfflineVerdict",
    "Outcome",
    "PasswordChanged",
    "Rebind",
    "Recharge",
    "Registration",
    "Renewal",
    "Reply",
    "Result",
    "SERVICE_TZ",
    "SessionKind",
    "SocialRegistration",
    "SocialStart",
    "Trust",
    "UserInfo",
    "UserSession",
    "Variable",
    "Variables",
    "VerifyError",
    "VirtualReport",
    "VirtualSign",
    "abi_version",
    "attempt",
    "describe",
    "format_service_time",
    "library_path",
    "library_version",
    "machine_check",
    "machine_code",
    "machine_virtual",
    "nuitka_configuration",
    "parse_service_time",
]
