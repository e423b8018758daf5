# Generated from the action table (core/src/actions/table.rs) and the code table
# (core/src/codes.rs) by tests/generate/python.rs; do not edit.
# Regenerate: VERIFY_BLESS=1 cargo test --test generated
"""The actions of the service as methods of `verify.Client`: each blocking, and as a coroutine
(`..._async`), returning its typed result."""

from __future__ import annotations

from typing import Optional

from .. import _native
from .._base import ClientBase
from .._enums import SessionKind
from .results import (
    CardLogin,
    UserSession,
    Renewal,
    Registration,
    PasswordChanged,
    Rebind,
    Heartbeat,
    Recharge,
    LatestVersion,
    Bulletin,
    Variable,
    Variables,
    UserInfo,
    CardInfo,
    SocialStart,
    SocialRegistration,
)


class Actions(ClientBase):
    """The actions of the action table: each raises `verify.VerifyError` when the server
    refuses (its code, message, remark and reply) or the call fails locally (a negative code).
    """

    def single_login(self, card: str, mac: str, device_name: Optional[str] = None) -> CardLogin:
        """`SingleLogin` (card mode): activates the card on first use and binds it to `mac`;
        later logins from the same machine refresh it (a count card spends one use). Never
        sent twice by a retry.

        Returns a :class:`CardLogin` (token, status, is_times, card_type, expire_at, total, used, remaining).
        """
        reply = self._invoke(
            _native.lib.verify_single_login,
            _native.arg(card, "card"),
            _native.arg(mac, "mac"),
            _native.optional_arg(device_name, "device_name"),
        )
        return CardLogin.from_reply(reply)

    async def single_login_async(self, card: str, mac: str, device_name: Optional[str] = None) -> CardLogin:
        """:meth:`single_login` on the event loop's executor."""
        return await self._run(self.single_login, card, mac, device_name)

    def user_login(self, username: str, password: str, mac: Optional[str] = None) -> UserSession:
        """`UserLogin` with username and password (account mode). `mac` is strongly
        recommended (rebind detection).

        Returns a :class:`UserSession` (username, device_id, expire_at, status, token, remark).
        """
        reply = self._invoke(
            _native.lib.verify_user_login,
            _native.arg(username, "username"),
            _native.arg(password, "password"),
            _native.optional_arg(mac, "mac"),
        )
        return UserSession.from_reply(reply)

    async def user_login_async(self, username: str, password: str, mac: Optional[str] = None) -> UserSession:
        """:meth:`user_login` on the event loop's executor."""
        return await self._run(self.user_login, username, password, mac)

    def user_login_with_card(self, username: str, password: str, card: str, mac: Optional[str] = None) -> Renewal:
        """`UserLogin` with a recharge card: renews the account and returns no token (log in
        again without a card for one). Never sent twice by a retry.

        Returns a :class:`Renewal` (username, expire_at, added_days, status).
        """
        reply = self._invoke(
            _native.lib.verify_user_login_with_card,
            _native.arg(username, "username"),
            _native.arg(password, "password"),
            _native.arg(card, "card"),
            _native.optional_arg(mac, "mac"),
        )
        return Renewal.from_reply(reply)

    async def user_login_with_card_async(self, username: str, password: str, card: str, mac: Optional[str] = None) -> Renewal:
        """:meth:`user_login_with_card` on the event loop's executor."""
        return await self._run(self.user_login_with_card, username, password, card, mac)

    def user_register(self, username: str, password: str, card: Optional[str] = None, mac: Optional[str] = None, device_name: Optional[str] = None) -> Registration:
        """`UserRegin`: registers an account, activated when a duration card is given. Never
        sent twice by a retry.

        Returns a :class:`Registration` (username, user_id, expire_at, token, status).
        """
        reply = self._invoke(
            _native.lib.verify_user_register,
            _native.arg(username, "username"),
            _native.arg(password, "password"),
            _native.optional_arg(card, "card"),
            _native.optional_arg(mac, "mac"),
            _native.optional_arg(device_name, "device_name"),
        )
        return Registration.from_reply(reply)

    async def user_register_async(self, username: str, password: str, card: Optional[str] = None, mac: Optional[str] = None, device_name: Optional[str] = None) -> Registration:
        """:meth:`user_register` on the event loop's executor."""
        return await self._run(self.user_register, username, password, card, mac, device_name)

    def update_password(self, username: str, old_password: str, new_password: str) -> PasswordChanged:
        """`UpdatePwd`: checks the old password and sets the new one. Never sent twice by a
        retry.

        Returns a :class:`PasswordChanged` (username).
        """
        reply = self._invoke(
            _native.lib.verify_update_password,
            _native.arg(username, "username"),
            _native.arg(old_password, "old_password"),
            _native.arg(new_password, "new_password"),
        )
        return PasswordChanged.from_reply(reply)

    async def update_password_async(self, username: str, old_password: str, new_password: str) -> PasswordChanged:
        """:meth:`update_password` on the event loop's executor."""
        return await self._run(self.update_password, username, old_password, new_password)

    def change_bind(self, username: str, password: str, new_mac: str) -> Rebind:
        """`ChangeBind`: binds the account to a new machine code. Never sent twice by a retry.

        Returns a :class:`Rebind` (username, device_id, bind_count, bind_limit).
        """
        reply = self._invoke(
            _native.lib.verify_change_bind,
            _native.arg(username, "username"),
            _native.arg(password, "password"),
            _native.arg(new_mac, "new_mac"),
        )
        return Rebind.from_reply(reply)

    async def change_bind_async(self, username: str, password: str, new_mac: str) -> Rebind:
        """:meth:`change_bind` on the event loop's executor."""
        return await self._run(self.change_bind, username, password, new_mac)

    def heartbeat(self, token: str, kind: SessionKind, ip: Optional[str] = None) -> Heartbeat:
        """`UserHeartbeat`: keeps a card or account session alive and collects a back-office
        message (delivered once).

        Returns a :class:`Heartbeat` (expire_at, status, msg).
        """
        reply = self._invoke(
            _native.lib.verify_heartbeat,
            _native.arg(token, "token"),
            int(kind),
            _native.optional_arg(ip, "ip"),
        )
        return Heartbeat.from_reply(reply)

    async def heartbeat_async(self, token: str, kind: SessionKind, ip: Optional[str] = None) -> Heartbeat:
        """:meth:`heartbeat` on the event loop's executor."""
        return await self._run(self.heartbeat, token, kind, ip)

    def user_recharge(self, username: str, card: str) -> Recharge:
        """`UserRecharge`: adds a duration card's time to an account (no password). Never sent
        twice by a retry.

        Returns a :class:`Recharge` (username, expire_at, added_days, status).
        """
        reply = self._invoke(
            _native.lib.verify_user_recharge,
            _native.arg(username, "username"),
            _native.arg(card, "card"),
        )
        return Recharge.from_reply(reply)

    async def user_recharge_async(self, username: str, card: str) -> Recharge:
        """:meth:`user_recharge` on the event loop's executor."""
        return await self._run(self.user_recharge, username, card)

    def get_latest_version(self, current_version: Optional[str] = None) -> LatestVersion:
        """`GetLatestVersion`, optionally with the program's current version.

        Returns a :class:`LatestVersion` (version, changelog, download_url, force_update, has_update).
        """
        reply = self._invoke(
            _native.lib.verify_get_latest_version,
            _native.optional_arg(current_version, "current_version"),
        )
        return LatestVersion.from_reply(reply)

    async def get_latest_version_async(self, current_version: Optional[str] = None) -> LatestVersion:
        """:meth:`get_latest_version` on the event loop's executor."""
        return await self._run(self.get_latest_version, current_version)

    def get_bulletin(self) -> Bulletin:
        """`GetBulletin`: the program's bulletin.

        Returns a :class:`Bulletin` (bulletin, updated_at).
        """
        reply = self._invoke(
            _native.lib.verify_get_bulletin,
        )
        return Bulletin.from_reply(reply)

    async def get_bulletin_async(self) -> Bulletin:
        """:meth:`get_bulletin` on the event loop's executor."""
        return await self._run(self.get_bulletin)

    def get_variable(self, name: str) -> Variable:
        """`GetVariable` for one variable.

        Returns a :class:`Variable` (name, value).
        """
        reply = self._invoke(
            _native.lib.verify_get_variable,
            _native.arg(name, "name"),
        )
        return Variable.from_reply(reply)

    async def get_variable_async(self, name: str) -> Variable:
        """:meth:`get_variable` on the event loop's executor."""
        return await self._run(self.get_variable, name)

    def get_variables(self) -> Variables:
        """`GetVariable` for every variable.

        Returns a :class:`Variables` (variables).
        """
        reply = self._invoke(
            _native.lib.verify_get_variables,
        )
        return Variables.from_reply(reply)

    async def get_variables_async(self) -> Variables:
        """:meth:`get_variables` on the event loop's executor."""
        return await self._run(self.get_variables)

    def get_user_info(self, username: str, password: str) -> UserInfo:
        """`GetUserInfo`: the account's details.

        Returns a :class:`UserInfo` (username, user_id, device_id, expire_at, status, bind_count, bind_limit, remark, created_at).
        """
        reply = self._invoke(
            _native.lib.verify_get_user_info,
            _native.arg(username, "username"),
            _native.arg(password, "password"),
        )
        return UserInfo.from_reply(reply)

    async def get_user_info_async(self, username: str, password: str) -> UserInfo:
        """:meth:`get_user_info` on the event loop's executor."""
        return await self._run(self.get_user_info, username, password)

    def get_card_info(self, card: str) -> CardInfo:
        """`GetCardInfo`: the card's state, expiry and binding, consuming nothing.

        Returns a :class:`CardInfo` (card, card_type, status, is_times, device_id, activated_at, expire_at, duration, duration_type, total, used, remaining).
        """
        reply = self._invoke(
            _native.lib.verify_get_card_info,
            _native.arg(card, "card"),
        )
        return CardInfo.from_reply(reply)

    async def get_card_info_async(self, card: str) -> CardInfo:
        """:meth:`get_card_info` on the event loop's executor."""
        return await self._run(self.get_card_info, card)

    def social_login_start(self, mac: Optional[str] = None) -> SocialStart:
        """Social login step 1: the URL to show the user, and the state to poll with.

        Returns a :class:`SocialStart` (url, state).
        """
        reply = self._invoke(
            _native.lib.verify_social_login_start,
            _native.optional_arg(mac, "mac"),
        )
        return SocialStart.from_reply(reply)

    async def social_login_start_async(self, mac: Optional[str] = None) -> SocialStart:
        """:meth:`social_login_start` on the event loop's executor."""
        return await self._run(self.social_login_start, mac)

    def social_login_poll(self, state: str, mac: Optional[str] = None) -> UserSession:
        """Social login step 2, once: code 201 (pending) while the user has not authorized;
        200 with the login payload (`remark` is the social display name); 1016 when the
        identity is not bound. Its success consumes the state, so it is never sent twice.

        Returns a :class:`UserSession` (username, device_id, expire_at, status, token, remark).
        """
        reply = self._invoke(
            _native.lib.verify_social_login_poll,
            _native.arg(state, "state"),
            _native.optional_arg(mac, "mac"),
        )
        return UserSession.from_reply(reply)

    async def social_login_poll_async(self, state: str, mac: Optional[str] = None) -> UserSession:
        """:meth:`social_login_poll` on the event loop's executor."""
        return await self._run(self.social_login_poll, state, mac)

    def social_register_start(self, username: str, mac: Optional[str] = None, device_name: Optional[str] = None) -> SocialRegistration:
        """Social registration step 1: the URL to show the user. Never sent twice by a retry.

        Returns a :class:`SocialRegistration` (url).
        """
        reply = self._invoke(
            _native.lib.verify_social_register_start,
            _native.arg(username, "username"),
            _native.optional_arg(mac, "mac"),
            _native.optional_arg(device_name, "device_name"),
        )
        return SocialRegistration.from_reply(reply)

    async def social_register_start_async(self, username: str, mac: Optional[str] = None, device_name: Optional[str] = None) -> SocialRegistration:
        """:meth:`social_register_start` on the event loop's executor."""
        return await self._run(self.social_register_start, username, mac, device_name)
