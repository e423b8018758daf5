"""The constants of verify.h that are not in the code table: session kinds, keeper events
and states, machine code versions, components and outcomes, signs of virtualisation, trust
stores and log levels. Later library versions may add values: code that reads them accepts
an ``int`` it does not know."""

from __future__ import annotations

import enum


class SessionKind(enum.IntEnum):
    """The kind of a session (``VERIFY_SESSION_*``)."""

    CARD = 1
    """A card login's session (``Type=card``)."""
    USER = 2
    """An account (or social) login's session (``Type=user``)."""


class EventKind(enum.IntEnum):
    """The kind of a keeper's :class:`verify.Event` (``VERIFY_EVENT_*``)."""

    ALIVE = 1
    """A heartbeat succeeded; ``expire_at`` is the new expiry."""
    MESSAGE = 2
    """A back-office message, in ``text``, delivered once."""
    TROUBLE = 3
    """A heartbeat failed; the keeper retries within the grace period."""
    ENDED = 4
    """The session ended (1005, 1006 with ``remark``, 1007, ...); the keeper has stopped."""
    OFFLINE = 5
    """The server cannot be reached; the session goes on offline until ``grace_end``."""
    ONLINE = 6
    """The server confirmed the licence again (or for the first time after an offline start)."""


class KeeperState(enum.IntEnum):
    """A keeper's state (``VERIFY_KEEPER_*``)."""

    ALIVE = 1
    """The last heartbeat succeeded (or none was due yet)."""
    GRACE = 2
    """Heartbeats fail; the grace period runs; the session stays usable."""
    ENDED = 3
    """The session ended or the keeper was stopped."""


class MachineVersion(enum.IntEnum):
    """A machine code's version (``VERIFY_MACHINE_V1``, ``VERIFY_MACHINE_V2``)."""

    V1 = 1
    """A salted hash of one OS identity; frozen: the same output forever."""
    V2 = 2
    """Several components, tolerant matching, kept in the state folder."""


class Outcome(enum.IntEnum):
    """The outcome of a v2 check (``VERIFY_MACHINE_ISSUED`` ...)."""

    ISSUED = 1
    KEPT = 2
    REISSUED = 3
    STORE_UNREADABLE = 4


class ComponentKind(enum.IntEnum):
    """A component of machine code v2 (``VERIFY_MACHINE_BOARD_UUID`` ...)."""

    BOARD_UUID = 1
    BOARD_SERIAL = 2
    OS_INSTALL = 3
    SYSTEM_VOLUME = 4
    CPU = 5
    MODEL = 6


class ComponentState(enum.IntEnum):
    """A component's state in a v2 check (``VERIFY_COMPONENT_*``)."""

    MATCHES = 1
    DIFFERS = 2
    NOT_STORED = 3
    UNREADABLE = 4
    PLACEHOLDER = 5


class VirtualSign(enum.IntEnum):
    """A sign of virtualisation (``VERIFY_VIRTUAL_*``)."""

    HYPERVISOR_BIT = 1
    FIRMWARE = 2
    CONTAINER = 3
    SYSTEM = 4


class Trust(enum.IntFlag):
    """Trust stores of a client (``VERIFY_TRUST_*``); combine with ``|``."""

    MOZILLA = 1
    """Mozilla's root certificates (the default)."""
    SYSTEM = 2
    """The operating system's trust store."""


class LogLevel(enum.IntEnum):
    """The level of a log message (``VERIFY_LOG_*``)."""

    ERROR = 1
    WARN = 2
    INFO = 3
    DEBUG = 4


def known(kind: type, value: int) -> int:
    """``kind(value)`` when the enum knows the value, else the plain ``int``."""
    try:
        return kind(value)  # type: ignore[no-any-return]
    except ValueError:
        return value
