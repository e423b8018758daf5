# Generated from the action table (core/src/actions/table.rs) and the code table
# (core/src/codes.rs) by tests/generate/python.rs; do not edit.
# Regenerate: VERIFY_BLESS=1 cargo test --test generated
"""The result codes: one code space, the server's own (200, 201, 202, 1001..1024) and
negative codes for local failures."""

import enum


class Code(enum.IntEnum):
    """Every result code of the library (`VERIFY_*` in verify.h). A code not listed here
    (a later server's) still arrives as an `int`."""

    OK = 200
    """success (`VERIFY_OK`)."""

    PENDING = 201
    """waiting for social authorization; keep polling (`VERIFY_PENDING`)."""

    OFFLINE = 202
    """licensed offline: the server could not be reached; the stored verdict answers (`VERIFY_OFFLINE`)."""

    PROGRAM_NOT_FOUND = 1001
    """program not found (or session secret unknown to the server) (`VERIFY_PROGRAM_NOT_FOUND`)."""

    WRONG_PASSWORD = 1003
    """wrong password (`VERIFY_WRONG_PASSWORD`)."""

    CARD_INVALID = 1004
    """card invalid, refunded, or not of this program (`VERIFY_CARD_INVALID`)."""

    EXPIRED = 1005
    """expired, not activated, or count card used up (`VERIFY_EXPIRED`)."""

    DISABLED = 1006
    """disabled, frozen or banned; the remark carries the reason (`VERIFY_DISABLED`)."""

    TOKEN_INVALID = 1007
    """token invalid; log in again (`VERIFY_TOKEN_INVALID`)."""

    SIGNATURE_ERROR = 1010
    """signature error (`VERIFY_SIGNATURE_ERROR`)."""

    APP_KEY_WRONG = 1011
    """program key (AppKey) wrong (`VERIFY_APP_KEY_WRONG`)."""

    NOT_APPROVED = 1012
    """program not approved (pending, rejected, or plan expired) (`VERIFY_NOT_APPROVED`)."""

    INCOMPLETE_PARAMETERS = 1013
    """incomplete parameters, or invalid heartbeat type (`VERIFY_INCOMPLETE_PARAMETERS`)."""

    TIMESTAMP_SKEW = 1014
    """timestamp outside the server's tolerance of 300 seconds (`VERIFY_TIMESTAMP_SKEW`)."""

    UNKNOWN_ACTION = 1015
    """unknown action (`VERIFY_UNKNOWN_ACTION`)."""

    USER_NOT_REGISTERED = 1016
    """user not registered, or social identity not bound (`VERIFY_USER_NOT_REGISTERED`)."""

    USERNAME_TAKEN = 1017
    """username already registered (`VERIFY_USERNAME_TAKEN`)."""

    IP_REGISTRATION_LIMIT = 1019
    """registration limit per IP address reached (`VERIFY_IP_REGISTRATION_LIMIT`)."""

    SAME_MACHINE_CODE = 1020
    """new machine code equals the current one (`VERIFY_SAME_MACHINE_CODE`)."""

    REBIND_LIMIT = 1021
    """rebind limit reached (`VERIFY_REBIND_LIMIT`)."""

    MACHINE_CHANGED = 1022
    """machine code changed; the remark is the previously bound code (`VERIFY_MACHINE_CHANGED`)."""

    BLACKLISTED = 1023
    """blacklisted (IP address or machine code) (`VERIFY_BLACKLISTED`)."""

    COUNT_CARD_NOT_ALLOWED = 1024
    """count card not allowed here (`VERIFY_COUNT_CARD_NOT_ALLOWED`)."""

    ERR_INVALID_ARGUMENT = -1
    """invalid argument: NULL where required, empty, too long, or out of range (`VERIFY_ERR_INVALID_ARGUMENT`)."""

    ERR_INVALID_UTF8 = -2
    """a string argument is not valid UTF-8 (`VERIFY_ERR_INVALID_UTF8`)."""

    ERR_NETWORK = -3
    """network error: server unreachable or connection broken (`VERIFY_ERR_NETWORK`)."""

    ERR_TIMEOUT = -4
    """timed out (connect or whole-call timeout) (`VERIFY_ERR_TIMEOUT`)."""

    ERR_TLS = -5
    """TLS handshake or certificate check failed (`VERIFY_ERR_TLS`)."""

    ERR_PROTOCOL = -6
    """protocol error: the reply is not the service's JSON (`VERIFY_ERR_PROTOCOL`)."""

    ERR_CANCELLED = -7
    """cancelled by the host (`VERIFY_ERR_CANCELLED`)."""

    ERR_PANIC = -8
    """internal error (panic caught at the library boundary) (`VERIFY_ERR_PANIC`)."""

    ERR_NO_SUCH_FIELD = -9
    """no such field in the reply, or of another type (`VERIFY_ERR_NO_SUCH_FIELD`)."""

    ERR_SYSTEM = -10
    """operating system failure (thread, machine identity, randomness) (`VERIFY_ERR_SYSTEM`)."""

    ERR_PIN = -11
    """TLS: the server's certificate matches none of the pinned keys (`VERIFY_ERR_PIN`)."""

    ERR_PROXY = -12
    """proxy unreachable, or it refused the credentials or the tunnel (`VERIFY_ERR_PROXY`)."""

    ERR_TOO_LARGE = -13
    """request too large: its body would exceed 1 MiB; nothing was sent (`VERIFY_ERR_TOO_LARGE`)."""

    ERR_CLOCK_BACK = -14
    """offline verdict refused: the clock was moved back (`VERIFY_ERR_CLOCK_BACK`)."""

    ERR_GRACE_OVER = -15
    """offline verdict refused: the offline grace period is over (`VERIFY_ERR_GRACE_OVER`)."""

    ERR_OFFLINE_EXPIRED = -16
    """offline verdict refused: the stored licence has expired (`VERIFY_ERR_OFFLINE_EXPIRED`)."""

    ERR_OFFLINE_PASSWORD = -17
    """offline verdict refused: wrong password (`VERIFY_ERR_OFFLINE_PASSWORD`)."""

    ERR_STATE_FOLDER = -18
    """the state folder cannot be created or written (`VERIFY_ERR_STATE_FOLDER`)."""

    ERR_TIME_UNCONFIRMED = -19
    """offline verdict refused: the time cannot be confirmed offline; connect once (`VERIFY_ERR_TIME_UNCONFIRMED`)."""
