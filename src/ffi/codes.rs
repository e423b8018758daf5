//! Constants of the C ABI: result codes and session kinds. The values are those of
//! `crate::error` (a unit test keeps them in step).

/// Success.
pub const VERIFY_OK: i32 = 200;
/// Social authorization pending: poll again.
pub const VERIFY_PENDING: i32 = 201;

/// Program not found (or the session secret unknown to the server).
pub const VERIFY_PROGRAM_NOT_FOUND: i32 = 1001;
/// Wrong password.
pub const VERIFY_WRONG_PASSWORD: i32 = 1003;
/// Card invalid, refunded, or not of this program.
pub const VERIFY_CARD_INVALID: i32 = 1004;
/// Expired, not activated, or count card used up.
pub const VERIFY_EXPIRED: i32 = 1005;
/// Disabled, frozen or banned; the reply's `remark` carries the reason.
pub const VERIFY_DISABLED: i32 = 1006;
/// Token invalid: log in again.
pub const VERIFY_TOKEN_INVALID: i32 = 1007;
/// Signature error.
pub const VERIFY_SIGNATURE_ERROR: i32 = 1010;
/// Program key (AppKey) wrong.
pub const VERIFY_APP_KEY_WRONG: i32 = 1011;
/// Program not approved.
pub const VERIFY_NOT_APPROVED: i32 = 1012;
/// Incomplete parameters, or invalid heartbeat type.
pub const VERIFY_INCOMPLETE_PARAMETERS: i32 = 1013;
/// Timestamp outside the server's tolerance.
pub const VERIFY_TIMESTAMP_SKEW: i32 = 1014;
/// Unknown action.
pub const VERIFY_UNKNOWN_ACTION: i32 = 1015;
/// User not registered, or social identity not bound.
pub const VERIFY_USER_NOT_REGISTERED: i32 = 1016;
/// Username already registered.
pub const VERIFY_USERNAME_TAKEN: i32 = 1017;
/// Registration limit per IP address reached.
pub const VERIFY_IP_REGISTRATION_LIMIT: i32 = 1019;
/// New machine code equals the current one.
pub const VERIFY_SAME_MACHINE_CODE: i32 = 1020;
/// Rebind limit reached.
pub const VERIFY_REBIND_LIMIT: i32 = 1021;
/// Machine code changed; the reply's `remark` is the previously bound code.
pub const VERIFY_MACHINE_CHANGED: i32 = 1022;
/// Blacklisted (IP address or machine code).
pub const VERIFY_BLACKLISTED: i32 = 1023;
/// Count card not allowed here.
pub const VERIFY_COUNT_CARD_NOT_ALLOWED: i32 = 1024;

/// Invalid argument: NULL where a value is required, empty, too long, out of range.
pub const VERIFY_ERR_INVALID_ARGUMENT: i32 = -1;
/// A string argument is not valid UTF-8.
pub const VERIFY_ERR_INVALID_UTF8: i32 = -2;
/// Network error: server unreachable or connection broken.
pub const VERIFY_ERR_NETWORK: i32 = -3;
/// A connect or whole-call timeout ran out.
pub const VERIFY_ERR_TIMEOUT: i32 = -4;
/// TLS handshake or certificate check failed.
pub const VERIFY_ERR_TLS: i32 = -5;
/// The reply is not the service's JSON, or a field has another type than documented.
pub const VERIFY_ERR_PROTOCOL: i32 = -6;
/// Cancelled by the host.
pub const VERIFY_ERR_CANCELLED: i32 = -7;
/// Internal error: a panic was caught at the library boundary.
pub const VERIFY_ERR_PANIC: i32 = -8;
/// A reply field that was asked for is absent or of another type.
pub const VERIFY_ERR_NO_SUCH_FIELD: i32 = -9;

/// `kind` of `verify_heartbeat` for a card-mode session (`Type=card`).
pub const VERIFY_SESSION_CARD: i32 = 1;
/// `kind` of `verify_heartbeat` for an account session (`Type=user`).
pub const VERIFY_SESSION_USER: i32 = 2;

/// The ABI version of this header; `verify_abi_version()` returns the library's.
pub const VERIFY_ABI_VERSION: u32 = 1;

#[cfg(test)]
mod tests {
    use super::*;
    use crate::error::{local, CODE_OK, CODE_PENDING};

    #[test]
    fn constants_match_the_rust_codes() {
        assert_eq!(VERIFY_OK, CODE_OK);
        assert_eq!(VERIFY_PENDING, CODE_PENDING);
        assert_eq!(VERIFY_ERR_INVALID_ARGUMENT, local::INVALID_ARGUMENT);
        assert_eq!(VERIFY_ERR_INVALID_UTF8, local::INVALID_UTF8);
        assert_eq!(VERIFY_ERR_NETWORK, local::NETWORK);
        assert_eq!(VERIFY_ERR_TIMEOUT, local::TIMEOUT);
        assert_eq!(VERIFY_ERR_TLS, local::TLS);
        assert_eq!(VERIFY_ERR_PROTOCOL, local::PROTOCOL);
        assert_eq!(VERIFY_ERR_CANCELLED, local::CANCELLED);
        assert_eq!(VERIFY_ERR_PANIC, local::PANIC);
        assert_eq!(VERIFY_ERR_NO_SUCH_FIELD, local::NO_SUCH_FIELD);
        assert_eq!(VERIFY_ABI_VERSION, crate::ABI_VERSION);
        for code in [
            VERIFY_PROGRAM_NOT_FOUND,
            VERIFY_WRONG_PASSWORD,
            VERIFY_CARD_INVALID,
            VERIFY_EXPIRED,
            VERIFY_DISABLED,
            VERIFY_TOKEN_INVALID,
            VERIFY_SIGNATURE_ERROR,
            VERIFY_APP_KEY_WRONG,
            VERIFY_NOT_APPROVED,
            VERIFY_INCOMPLETE_PARAMETERS,
            VERIFY_TIMESTAMP_SKEW,
            VERIFY_UNKNOWN_ACTION,
            VERIFY_USER_NOT_REGISTERED,
            VERIFY_USERNAME_TAKEN,
            VERIFY_IP_REGISTRATION_LIMIT,
            VERIFY_SAME_MACHINE_CODE,
            VERIFY_REBIND_LIMIT,
            VERIFY_MACHINE_CHANGED,
            VERIFY_BLACKLISTED,
            VERIFY_COUNT_CARD_NOT_ALLOWED,
        ] {
            assert!(
                !crate::describe(code).starts_with("error code not documented"),
                "{code}"
            );
        }
    }
}
