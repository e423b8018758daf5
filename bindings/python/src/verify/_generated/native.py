# Generated from the action table (core/src/actions/table.rs) and the code table
# (core/src/codes.rs) by tests/generate/python.rs; do not edit.
# Regenerate: VERIFY_BLESS=1 cargo test --test generated
"""The ctypes prototypes of the action functions (`verify_<action>` of verify.h)."""

from ctypes import POINTER, c_char_p, c_int32, c_void_p
from typing import Any


def declare(lib: Any) -> None:
    """Declares the action functions of the loaded library."""
    out = POINTER(c_void_p)
    lib.verify_single_login.argtypes = [c_void_p, c_char_p, c_char_p, c_char_p, out]
    lib.verify_single_login.restype = c_int32
    lib.verify_user_login.argtypes = [c_void_p, c_char_p, c_char_p, c_char_p, out]
    lib.verify_user_login.restype = c_int32
    lib.verify_user_login_with_card.argtypes = [c_void_p, c_char_p, c_char_p, c_char_p, c_char_p, out]
    lib.verify_user_login_with_card.restype = c_int32
    lib.verify_user_register.argtypes = [c_void_p, c_char_p, c_char_p, c_char_p, c_char_p, c_char_p, out]
    lib.verify_user_register.restype = c_int32
    lib.verify_update_password.argtypes = [c_void_p, c_char_p, c_char_p, c_char_p, out]
    lib.verify_update_password.restype = c_int32
    lib.verify_change_bind.argtypes = [c_void_p, c_char_p, c_char_p, c_char_p, out]
    lib.verify_change_bind.restype = c_int32
    lib.verify_heartbeat.argtypes = [c_void_p, c_char_p, c_int32, c_char_p, out]
    lib.verify_heartbeat.restype = c_int32
    lib.verify_user_recharge.argtypes = [c_void_p, c_char_p, c_char_p, out]
    lib.verify_user_recharge.restype = c_int32
    lib.verify_get_latest_version.argtypes = [c_void_p, c_char_p, out]
    lib.verify_get_latest_version.restype = c_int32
    lib.verify_get_bulletin.argtypes = [c_void_p, out]
    lib.verify_get_bulletin.restype = c_int32
    lib.verify_get_variable.argtypes = [c_void_p, c_char_p, out]
    lib.verify_get_variable.restype = c_int32
    lib.verify_get_variables.argtypes = [c_void_p, out]
    lib.verify_get_variables.restype = c_int32
    lib.verify_get_user_info.argtypes = [c_void_p, c_char_p, c_char_p, out]
    lib.verify_get_user_info.restype = c_int32
    lib.verify_get_card_info.argtypes = [c_void_p, c_char_p, out]
    lib.verify_get_card_info.restype = c_int32
    lib.verify_social_login_start.argtypes = [c_void_p, c_char_p, out]
    lib.verify_social_login_start.restype = c_int32
    lib.verify_social_login_poll.argtypes = [c_void_p, c_char_p, c_char_p, out]
    lib.verify_social_login_poll.restype = c_int32
    lib.verify_social_register_start.argtypes = [c_void_p, c_char_p, c_char_p, c_char_p, out]
    lib.verify_social_register_start.restype = c_int32
