"""The language of the end user's messages (:func:`verify.user_message`): Simplified
Chinese, Traditional Chinese or English, the user's UI language unless the program sets one."""

from __future__ import annotations

from typing import Optional

from . import _native
from ._failures import check


def set_language(language: Optional[str]) -> None:
    """Sets the language of :func:`verify.user_message` for the whole process: a BCP 47 tag or
    a POSIX locale (``"zh-CN"``, ``"zh-TW"``, ``"en"``, ``"zh-Hant-HK"``, ``"zh_CN.UTF-8"``;
    languages other than Chinese are English). None goes back to the default, the user's UI
    language (``LC_ALL``, ``LC_MESSAGES`` or ``LANG`` on Linux; the UI language on Windows and
    macOS). Raises :class:`verify.InvalidArgument` for a tag that is not well formed (ASCII
    letters, digits, ``-``, ``_``, ``.``, ``@``, at most 64 bytes); the language stays then.
    Replies, :func:`verify.describe` and the developer's messages keep their words. Any
    thread; set it once, before other calls."""
    check(_native.lib.verify_set_language(None if language is None else _native.arg(language, "language")))


def language() -> str:
    """The language :func:`verify.user_message` gives when asked without one: ``"zh-CN"``,
    ``"zh-TW"`` or ``"en"``."""
    return _native.text(_native.lib.verify_language())
