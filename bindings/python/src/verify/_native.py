"""The C ABI (include/verify.h, ABI 2) as ctypes declarations: the library, the prototypes of
the hand-written exports, the event struct and the callback types. The action functions are
declared by :mod:`verify._generated.native`, from the action table.

ctypes releases the GIL for the duration of every call into the library, so calls on one
client from several threads (or from :mod:`asyncio`'s executor) run at once.
"""

from __future__ import annotations

import ctypes
from ctypes import (
    POINTER,
    Structure,
    c_char_p,
    c_int32,
    c_int64,
    c_size_t,
    c_uint32,
    c_uint64,
    c_void_p,
)
from typing import Any, List, Optional, Tuple

from . import _library
from ._generated import native as _generated_native

#: The ABI version these declarations follow (``VERIFY_ABI_VERSION`` of verify.h).
ABI_VERSION = 2


class EventStruct(Structure):
    """``struct verify_event``: one report of a keeper, borrowed for the callback."""

    _fields_ = [
        ("kind", c_int32),
        ("code", c_int32),
        ("message", c_char_p),
        ("remark", c_char_p),
        ("expire_at", c_char_p),
        ("text", c_char_p),
        ("grace_end", c_int64),
    ]


#: ``verify_event_callback``: (user_data, event).
EVENT_CALLBACK: Any = _library.functype(None, c_void_p, POINTER(EventStruct))
#: ``verify_log_callback``: (user_data, level, message).
LOG_CALLBACK: Any = _library.functype(None, c_void_p, c_int32, c_char_p)

OUT = POINTER(c_void_p)
STR_OUT = POINTER(c_char_p)

_PROTOTYPES: List[Tuple[str, Any, List[Any]]] = [
    ("verify_abi_version", c_uint32, []),
    ("verify_version", c_char_p, []),
    ("verify_code_describe", c_char_p, [c_int32]),
    ("verify_last_error_message", c_char_p, []),
    ("verify_last_error_code", c_int32, []),
    ("verify_cancel_new", c_int32, [OUT]),
    ("verify_cancel_cancel", c_int32, [c_void_p]),
    ("verify_cancel_free", None, [c_void_p]),
    ("verify_client_new", c_int32, [c_char_p, c_char_p, c_char_p, OUT]),
    ("verify_client_new_with_options", c_int32, [c_char_p, c_char_p, c_char_p, c_void_p, OUT]),
    ("verify_client_free", None, [c_void_p]),
    ("verify_client_set_timeouts", c_int32, [c_void_p, c_uint32, c_uint32]),
    ("verify_init", c_int32, [c_void_p, OUT]),
    ("verify_call", c_int32, [c_void_p, c_char_p, POINTER(c_char_p), POINTER(c_char_p), c_size_t, OUT]),
    ("verify_social_login_wait", c_int32, [c_void_p, c_char_p, c_char_p, c_uint32, c_uint32, c_void_p, OUT]),
    ("verify_client_options_new", c_int32, [OUT]),
    ("verify_client_options_free", None, [c_void_p]),
    ("verify_client_options_add_mirror", c_int32, [c_void_p, c_char_p]),
    ("verify_client_options_set_trust", c_int32, [c_void_p, c_uint32]),
    ("verify_client_options_add_root_pem", c_int32, [c_void_p, c_char_p]),
    ("verify_client_options_add_root_file", c_int32, [c_void_p, c_char_p]),
    ("verify_client_options_add_pin", c_int32, [c_void_p, c_char_p]),
    ("verify_client_options_set_proxy", c_int32, [c_void_p, c_int32, c_char_p]),
    ("verify_client_options_allow_insecure_http", c_int32, [c_void_p, c_int32]),
    ("verify_client_options_set_timeouts", c_int32, [c_void_p, c_uint32, c_uint32]),
    ("verify_client_options_set_attempt_delay", c_int32, [c_void_p, c_uint32]),
    ("verify_client_options_add_address", c_int32, [c_void_p, c_char_p, c_char_p]),
    ("verify_client_options_set_state_folder", c_int32, [c_void_p, c_char_p]),
    ("verify_client_options_set_offline_grace", c_int32, [c_void_p, c_uint32]),
    ("verify_client_options_set_start_budget", c_int32, [c_void_p, c_uint32]),
    ("verify_client_options_set_clock_tolerance", c_int32, [c_void_p, c_uint32]),
    ("verify_client_options_set_log", c_int32, [c_void_p, LOG_CALLBACK, c_void_p]),
    ("verify_reply_code", c_int32, [c_void_p]),
    ("verify_reply_message", c_char_p, [c_void_p]),
    ("verify_reply_str", c_int32, [c_void_p, c_char_p, STR_OUT]),
    ("verify_reply_int", c_int32, [c_void_p, c_char_p, POINTER(c_int64)]),
    ("verify_reply_bool", c_int32, [c_void_p, c_char_p, POINTER(c_int32)]),
    ("verify_reply_json", c_int32, [c_void_p, c_char_p, STR_OUT]),
    ("verify_reply_offline", c_int32, [c_void_p, POINTER(c_int64), POINTER(c_int64), POINTER(c_int32)]),
    ("verify_reply_free", None, [c_void_p]),
    ("verify_keeper_options_new", c_int32, [OUT]),
    ("verify_keeper_options_free", None, [c_void_p]),
    ("verify_keeper_options_set_interval", c_int32, [c_void_p, c_uint32]),
    ("verify_keeper_options_set_grace", c_int32, [c_void_p, c_uint32]),
    ("verify_keeper_options_set_ip", c_int32, [c_void_p, c_char_p]),
    ("verify_keeper_options_set_callback", c_int32, [c_void_p, EVENT_CALLBACK, c_void_p]),
    ("verify_keeper_start", c_int32, [c_void_p, c_char_p, c_int32, c_void_p, OUT]),
    ("verify_keeper_start_from_reply", c_int32, [c_void_p, c_void_p, c_void_p, OUT]),
    ("verify_keeper_stop", c_int32, [c_void_p]),
    ("verify_keeper_free", None, [c_void_p]),
    ("verify_keeper_state", c_int32, [c_void_p]),
    ("verify_keeper_get_status", c_int32, [c_void_p, OUT]),
    ("verify_keeper_status_free", None, [c_void_p]),
    ("verify_keeper_status_state", c_int32, [c_void_p, POINTER(c_int32)]),
    ("verify_keeper_status_last_code", c_int32, [c_void_p, POINTER(c_int32)]),
    ("verify_keeper_status_last_message", c_int32, [c_void_p, STR_OUT]),
    ("verify_keeper_status_remark", c_int32, [c_void_p, STR_OUT]),
    ("verify_keeper_status_expire_at", c_int32, [c_void_p, STR_OUT]),
    ("verify_keeper_status_last_confirmed", c_int32, [c_void_p, POINTER(c_int64)]),
    ("verify_keeper_status_grace_end", c_int32, [c_void_p, POINTER(c_int64)]),
    ("verify_keeper_status_last_success", c_int32, [c_void_p, POINTER(c_int64)]),
    ("verify_keeper_status_counts", c_int32, [c_void_p, POINTER(c_uint64), POINTER(c_uint64)]),
    ("verify_keeper_status_message_count", c_int32, [c_void_p, POINTER(c_size_t)]),
    ("verify_keeper_status_message", c_int32, [c_void_p, c_size_t, STR_OUT]),
    ("verify_machine_code", c_int32, [c_char_p, c_char_p, c_size_t]),
    ("verify_machine_code_ex", c_int32, [c_char_p, c_int32, c_char_p, c_char_p, c_size_t]),
    ("verify_machine_check_new", c_int32, [c_char_p, c_char_p, OUT]),
    ("verify_machine_check_free", None, [c_void_p]),
    ("verify_machine_check_code", c_int32, [c_void_p, STR_OUT]),
    ("verify_machine_check_outcome", c_int32, [c_void_p, POINTER(c_int32)]),
    ("verify_machine_check_score", c_int32, [c_void_p, POINTER(c_int32)]),
    ("verify_machine_check_note", c_int32, [c_void_p, STR_OUT]),
    ("verify_machine_check_count", c_int32, [c_void_p, POINTER(c_size_t)]),
    (
        "verify_machine_check_component",
        c_int32,
        [c_void_p, c_size_t, POINTER(c_int32), POINTER(c_int32), POINTER(c_int32)],
    ),
    ("verify_machine_component_name", c_char_p, [c_int32]),
    ("verify_machine_state_name", c_char_p, [c_int32]),
    ("verify_machine_virtual_new", c_int32, [OUT]),
    ("verify_machine_virtual_free", None, [c_void_p]),
    ("verify_machine_virtual_looks_virtual", c_int32, [c_void_p, POINTER(c_int32)]),
    ("verify_machine_virtual_count", c_int32, [c_void_p, POINTER(c_size_t)]),
    ("verify_machine_virtual_sign", c_int32, [c_void_p, c_size_t, POINTER(c_int32), STR_OUT]),
]


def _declare(lib: ctypes.CDLL) -> ctypes.CDLL:
    for name, restype, argtypes in _PROTOTYPES:
        function = getattr(lib, name)
        function.restype = restype
        function.argtypes = argtypes
    _generated_native.declare(lib)
    found = lib.verify_abi_version()
    if found != ABI_VERSION:
        raise OSError(
            f"verify: the native library has ABI {found}; this package needs ABI {ABI_VERSION}"
        )
    return lib


#: The loaded library, its functions declared.
lib: Any = _declare(_library.load())


def text(value: bytes) -> str:
    """A string the library gave (UTF-8, the library's default code page)."""
    return value.decode("utf-8", errors="replace")


def arg(value: str, name: str) -> bytes:
    """A string argument as NUL-terminated UTF-8; a NUL inside it is refused."""
    if not isinstance(value, str):
        raise TypeError(f"{name} must be a str, not {type(value).__name__}")
    if "\0" in value:
        raise ValueError(f"{name} must not contain a NUL character")
    return value.encode("utf-8")


def optional_arg(value: Optional[str], name: str) -> Optional[bytes]:
    """An optional string argument: None (or empty) is not sent."""
    return None if value is None else arg(value, name)


def describe(code: int) -> str:
    """A static English description of any result code (``verify_code_describe``)."""
    return text(lib.verify_code_describe(int(code)))
