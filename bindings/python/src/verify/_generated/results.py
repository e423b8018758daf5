# Generated from the action table (core/src/actions/table.rs) and the code table
# (core/src/codes.rs) by tests/generate/python.rs; do not edit.
# Regenerate: VERIFY_BLESS=1 cargo test --test generated
"""The typed results: one frozen dataclass per reply view of the action table."""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime
from typing import Dict, Optional

from .._reply import Reply
from .._result import Result


@dataclass(frozen=True)
class CardLogin(Result):
    """Success of `SingleLogin` (card mode).

    Each field is None when the server left it out or sent another type; times are in
    UTC+08:00. Every field, those the spec does not show too, stays readable by JSON
    Pointer through ``reply``.
    """

    token: Optional[str] = field(default=None, repr=False)
    """``token``: the session token (40 characters) for a card heartbeat. Not in ``repr``."""

    status: Optional[str] = None
    """``status``: ``active``."""

    is_times: Optional[bool] = None
    """``is_times``: true for a count card."""

    card_type: Optional[str] = None
    """``card_type``: the card type's display name."""

    expire_at: Optional[datetime] = None
    """``expire_at``: ``YYYY-MM-DD HH:mm:ss``; far future for a count card. The service's time, in UTC+08:00."""

    total: Optional[int] = None
    """``total``: uses the count card was sold with (count cards only)."""

    used: Optional[int] = None
    """``used``: uses consumed so far (count cards only)."""

    remaining: Optional[int] = None
    """``remaining``: uses left; 0 makes the card invalid (count cards only)."""

    @classmethod
    def from_reply(cls, reply: Reply) -> CardLogin:
        """The typed result of a native reply (its fields are read now)."""
        return cls(
            token=reply._str(b"/data/token"),
            status=reply._str(b"/data/status"),
            is_times=reply._bool(b"/data/is_times"),
            card_type=reply._str(b"/data/card_type"),
            expire_at=reply._time(b"/data/expire_at"),
            total=reply._int(b"/data/total"),
            used=reply._int(b"/data/used"),
            remaining=reply._int(b"/data/remaining"),
            **Result._common(reply),
        )


@dataclass(frozen=True)
class UserSession(Result):
    """Success of a password `UserLogin` without a card, or of a social login.

    Each field is None when the server left it out or sent another type; times are in
    UTC+08:00. Every field, those the spec does not show too, stays readable by JSON
    Pointer through ``reply``.
    """

    username: Optional[str] = None
    """``username``: the account's username."""

    device_id: Optional[str] = field(default=None, repr=False)
    """``device_id``: the bound machine code; empty if unbound. Not in ``repr``."""

    expire_at: Optional[datetime] = None
    """``expire_at``: ``YYYY-MM-DD HH:mm:ss``. The service's time, in UTC+08:00."""

    status: Optional[str] = None
    """``status``: ``active``."""

    token: Optional[str] = field(default=None, repr=False)
    """``token``: the session token (40 characters) for a user heartbeat. Not in ``repr``."""

    remark: Optional[str] = None
    """``remark``: back-office note (social login: the social account's display name)."""

    @classmethod
    def from_reply(cls, reply: Reply) -> UserSession:
        """The typed result of a native reply (its fields are read now)."""
        return cls(
            username=reply._str(b"/data/username"),
            device_id=reply._str(b"/data/device_id"),
            expire_at=reply._time(b"/data/expire_at"),
            status=reply._str(b"/data/status"),
            token=reply._str(b"/data/token"),
            remark=reply._str(b"/data/remark"),
            **Result._common(reply),
        )


@dataclass(frozen=True)
class Renewal(Result):
    """Success of `UserLogin` with a card (the renewal branch): no token.

    Each field is None when the server left it out or sent another type; times are in
    UTC+08:00. Every field, those the spec does not show too, stays readable by JSON
    Pointer through ``reply``.
    """

    username: Optional[str] = None
    """``username``: the account's username."""

    expire_at: Optional[datetime] = None
    """``expire_at``: the new expiry. The service's time, in UTC+08:00."""

    added_days: Optional[int] = None
    """``added_days``: days added."""

    status: Optional[str] = None
    """``status``: ``active``."""

    @classmethod
    def from_reply(cls, reply: Reply) -> Renewal:
        """The typed result of a native reply (its fields are read now)."""
        return cls(
            username=reply._str(b"/data/username"),
            expire_at=reply._time(b"/data/expire_at"),
            added_days=reply._int(b"/data/added_days"),
            status=reply._str(b"/data/status"),
            **Result._common(reply),
        )


@dataclass(frozen=True)
class Registration(Result):
    """Success of `UserRegin`. Without a card the account is created already expired and
    no token is returned; with a duration card it is active and has a token.

    Each field is None when the server left it out or sent another type; times are in
    UTC+08:00. Every field, those the spec does not show too, stays readable by JSON
    Pointer through ``reply``.
    """

    username: Optional[str] = None
    """``username``: the account's username."""

    user_id: Optional[int] = None
    """``user_id``: the account identifier."""

    expire_at: Optional[datetime] = None
    """``expire_at``: the expiry (the registration time without a card). The service's time, in UTC+08:00."""

    token: Optional[str] = field(default=None, repr=False)
    """``token``: the session token, when registered with a card. Not in ``repr``."""

    status: Optional[str] = None
    """``status``: ``active``, when registered with a card."""

    @classmethod
    def from_reply(cls, reply: Reply) -> Registration:
        """The typed result of a native reply (its fields are read now)."""
        return cls(
            username=reply._str(b"/data/username"),
            user_id=reply._int(b"/data/user_id"),
            expire_at=reply._time(b"/data/expire_at"),
            token=reply._str(b"/data/token"),
            status=reply._str(b"/data/status"),
            **Result._common(reply),
        )


@dataclass(frozen=True)
class PasswordChanged(Result):
    """Success of `UpdatePwd`.

    Each field is None when the server left it out or sent another type; times are in
    UTC+08:00. Every field, those the spec does not show too, stays readable by JSON
    Pointer through ``reply``.
    """

    username: Optional[str] = None
    """``username``: the account's username."""

    @classmethod
    def from_reply(cls, reply: Reply) -> PasswordChanged:
        """The typed result of a native reply (its fields are read now)."""
        return cls(
            username=reply._str(b"/data/username"),
            **Result._common(reply),
        )


@dataclass(frozen=True)
class Rebind(Result):
    """Success of `ChangeBind`.

    Each field is None when the server left it out or sent another type; times are in
    UTC+08:00. Every field, those the spec does not show too, stays readable by JSON
    Pointer through ``reply``.
    """

    username: Optional[str] = None
    """``username``: the account's username."""

    device_id: Optional[str] = field(default=None, repr=False)
    """``device_id``: the new machine code. Not in ``repr``."""

    bind_count: Optional[int] = None
    """``bind_count``: rebinds used, this one included."""

    bind_limit: Optional[int] = None
    """``bind_limit``: the product's rebind limit (0: no limit)."""

    @classmethod
    def from_reply(cls, reply: Reply) -> Rebind:
        """The typed result of a native reply (its fields are read now)."""
        return cls(
            username=reply._str(b"/data/username"),
            device_id=reply._str(b"/data/device_id"),
            bind_count=reply._int(b"/data/bind_count"),
            bind_limit=reply._int(b"/data/bind_limit"),
            **Result._common(reply),
        )


@dataclass(frozen=True)
class Heartbeat(Result):
    """Success of `UserHeartbeat`.

    Each field is None when the server left it out or sent another type; times are in
    UTC+08:00. Every field, those the spec does not show too, stays readable by JSON
    Pointer through ``reply``.
    """

    expire_at: Optional[datetime] = None
    """``expire_at``: the session's expiry. The service's time, in UTC+08:00."""

    status: Optional[str] = None
    """``status``: ``active``."""

    msg: Optional[str] = None
    """``msg``: a back-office message, delivered once; empty when none."""

    @classmethod
    def from_reply(cls, reply: Reply) -> Heartbeat:
        """The typed result of a native reply (its fields are read now)."""
        return cls(
            expire_at=reply._time(b"/data/expire_at"),
            status=reply._str(b"/data/status"),
            msg=reply._str(b"/data/msg"),
            **Result._common(reply),
        )


@dataclass(frozen=True)
class Recharge(Result):
    """Success of `UserRecharge`.

    Each field is None when the server left it out or sent another type; times are in
    UTC+08:00. Every field, those the spec does not show too, stays readable by JSON
    Pointer through ``reply``.
    """

    username: Optional[str] = None
    """``username``: the account's username."""

    expire_at: Optional[datetime] = None
    """``expire_at``: the new expiry. The service's time, in UTC+08:00."""

    added_days: Optional[str] = None
    """``added_days``: the amount added with its unit (a string in this action)."""

    status: Optional[str] = None
    """``status``: ``active``."""

    @classmethod
    def from_reply(cls, reply: Reply) -> Recharge:
        """The typed result of a native reply (its fields are read now)."""
        return cls(
            username=reply._str(b"/data/username"),
            expire_at=reply._time(b"/data/expire_at"),
            added_days=reply._str(b"/data/added_days"),
            status=reply._str(b"/data/status"),
            **Result._common(reply),
        )


@dataclass(frozen=True)
class LatestVersion(Result):
    """Success of `GetLatestVersion`.

    Each field is None when the server left it out or sent another type; times are in
    UTC+08:00. Every field, those the spec does not show too, stays readable by JSON
    Pointer through ``reply``.
    """

    version: Optional[str] = None
    """``version``: the latest version number."""

    changelog: Optional[str] = None
    """``changelog``: its change log."""

    download_url: Optional[str] = None
    """``download_url``: where to download it."""

    force_update: Optional[bool] = None
    """``force_update``: whether the back office requires the update."""

    has_update: Optional[bool] = None
    """``has_update``: whether it is newer than the version given."""

    @classmethod
    def from_reply(cls, reply: Reply) -> LatestVersion:
        """The typed result of a native reply (its fields are read now)."""
        return cls(
            version=reply._str(b"/data/version"),
            changelog=reply._str(b"/data/changelog"),
            download_url=reply._str(b"/data/download_url"),
            force_update=reply._bool(b"/data/force_update"),
            has_update=reply._bool(b"/data/has_update"),
            **Result._common(reply),
        )


@dataclass(frozen=True)
class Bulletin(Result):
    """Success of `GetBulletin`.

    Each field is None when the server left it out or sent another type; times are in
    UTC+08:00. Every field, those the spec does not show too, stays readable by JSON
    Pointer through ``reply``.
    """

    bulletin: Optional[str] = None
    """``bulletin``: the bulletin text."""

    updated_at: Optional[datetime] = None
    """``updated_at``: when it was last changed. The service's time, in UTC+08:00."""

    @classmethod
    def from_reply(cls, reply: Reply) -> Bulletin:
        """The typed result of a native reply (its fields are read now)."""
        return cls(
            bulletin=reply._str(b"/data/bulletin"),
            updated_at=reply._time(b"/data/updated_at"),
            **Result._common(reply),
        )


@dataclass(frozen=True)
class Variable(Result):
    """Success of `GetVariable` with a name.

    Each field is None when the server left it out or sent another type; times are in
    UTC+08:00. Every field, those the spec does not show too, stays readable by JSON
    Pointer through ``reply``.
    """

    name: Optional[str] = None
    """``name``: the variable's name."""

    value: Optional[str] = None
    """``value``: its value."""

    @classmethod
    def from_reply(cls, reply: Reply) -> Variable:
        """The typed result of a native reply (its fields are read now)."""
        return cls(
            name=reply._str(b"/data/name"),
            value=reply._str(b"/data/value"),
            **Result._common(reply),
        )


@dataclass(frozen=True)
class Variables(Result):
    """Success of `GetVariable` without a name: every variable.

    Each field is None when the server left it out or sent another type; times are in
    UTC+08:00. Every field, those the spec does not show too, stays readable by JSON
    Pointer through ``reply``.
    """

    variables: Optional[Dict[str, str]] = None
    """``variables``: every variable, name to value."""

    @classmethod
    def from_reply(cls, reply: Reply) -> Variables:
        """The typed result of a native reply (its fields are read now)."""
        return cls(
            variables=reply._map(b"/data/variables"),
            **Result._common(reply),
        )


@dataclass(frozen=True)
class UserInfo(Result):
    """Success of `GetUserInfo`.

    Each field is None when the server left it out or sent another type; times are in
    UTC+08:00. Every field, those the spec does not show too, stays readable by JSON
    Pointer through ``reply``.
    """

    username: Optional[str] = None
    """``username``: the account's username."""

    user_id: Optional[int] = None
    """``user_id``: the account identifier."""

    device_id: Optional[str] = field(default=None, repr=False)
    """``device_id``: the bound machine code; empty if unbound. Not in ``repr``."""

    expire_at: Optional[datetime] = None
    """``expire_at``: the expiry. The service's time, in UTC+08:00."""

    status: Optional[str] = None
    """``status``: ``active``, ``expired`` or ``banned``."""

    bind_count: Optional[int] = None
    """``bind_count``: rebinds used."""

    bind_limit: Optional[int] = None
    """``bind_limit``: the product's rebind limit (0: no limit)."""

    remark: Optional[str] = None
    """``remark``: back-office note."""

    created_at: Optional[datetime] = None
    """``created_at``: registration time. The service's time, in UTC+08:00."""

    @classmethod
    def from_reply(cls, reply: Reply) -> UserInfo:
        """The typed result of a native reply (its fields are read now)."""
        return cls(
            username=reply._str(b"/data/username"),
            user_id=reply._int(b"/data/user_id"),
            device_id=reply._str(b"/data/device_id"),
            expire_at=reply._time(b"/data/expire_at"),
            status=reply._str(b"/data/status"),
            bind_count=reply._int(b"/data/bind_count"),
            bind_limit=reply._int(b"/data/bind_limit"),
            remark=reply._str(b"/data/remark"),
            created_at=reply._time(b"/data/created_at"),
            **Result._common(reply),
        )


@dataclass(frozen=True)
class CardInfo(Result):
    """Success of `GetCardInfo`: the card's state, consuming nothing.

    Each field is None when the server left it out or sent another type; times are in
    UTC+08:00. Every field, those the spec does not show too, stays readable by JSON
    Pointer through ``reply``.
    """

    card: Optional[str] = field(default=None, repr=False)
    """``card``: the card key. Not in ``repr``."""

    card_type: Optional[str] = None
    """``card_type``: the card type's display name."""

    status: Optional[str] = None
    """``status``: ``unused``, ``active``, ``expired``, ``exhausted``, ``used``, ``disabled`` or ``refunded``."""

    is_times: Optional[bool] = None
    """``is_times``: true for a count card."""

    device_id: Optional[str] = field(default=None, repr=False)
    """``device_id``: the bound machine code; empty when not bound. Not in ``repr``."""

    activated_at: Optional[datetime] = None
    """``activated_at``: first use; empty when unused. The service's time, in UTC+08:00."""

    expire_at: Optional[datetime] = None
    """``expire_at``: expiry; empty when unused. The service's time, in UTC+08:00."""

    duration: Optional[int] = None
    """``duration``: duration in ``duration_type`` units."""

    duration_type: Optional[str] = None
    """``duration_type``: ``day`` or ``hour``."""

    total: Optional[int] = None
    """``total``: uses the count card was sold with (count cards only)."""

    used: Optional[int] = None
    """``used``: uses consumed so far (count cards only)."""

    remaining: Optional[int] = None
    """``remaining``: uses left (count cards only)."""

    @classmethod
    def from_reply(cls, reply: Reply) -> CardInfo:
        """The typed result of a native reply (its fields are read now)."""
        return cls(
            card=reply._str(b"/data/card"),
            card_type=reply._str(b"/data/card_type"),
            status=reply._str(b"/data/status"),
            is_times=reply._bool(b"/data/is_times"),
            device_id=reply._str(b"/data/device_id"),
            activated_at=reply._time(b"/data/activated_at"),
            expire_at=reply._time(b"/data/expire_at"),
            duration=reply._int(b"/data/duration"),
            duration_type=reply._str(b"/data/duration_type"),
            total=reply._int(b"/data/total"),
            used=reply._int(b"/data/used"),
            remaining=reply._int(b"/data/remaining"),
            **Result._common(reply),
        )


@dataclass(frozen=True)
class SocialStart(Result):
    """Step 1 of a social login: the authorization URL to show, and the state to poll with.

    Each field is None when the server left it out or sent another type; times are in
    UTC+08:00. Every field, those the spec does not show too, stays readable by JSON
    Pointer through ``reply``.
    """

    url: Optional[str] = None
    """``url``: the external authorization link."""

    state: Optional[str] = None
    """``state``: the value to pass to the social poll or wait."""

    @classmethod
    def from_reply(cls, reply: Reply) -> SocialStart:
        """The typed result of a native reply (its fields are read now)."""
        return cls(
            url=reply._str(b"/data/url"),
            state=reply._str(b"/data/state"),
            **Result._common(reply),
        )


@dataclass(frozen=True)
class SocialRegistration(Result):
    """Step 1 of a social registration: the authorization URL. The account is created when
    the user completes the authorization.

    Each field is None when the server left it out or sent another type; times are in
    UTC+08:00. Every field, those the spec does not show too, stays readable by JSON
    Pointer through ``reply``.
    """

    url: Optional[str] = None
    """``url``: the external authorization link (its ``state`` parameter is the state)."""

    @classmethod
    def from_reply(cls, reply: Reply) -> SocialRegistration:
        """The typed result of a native reply (its fields are read now)."""
        return cls(
            url=reply._str(b"/data/url"),
            **Result._common(reply),
        )
