//! The result codes: one table, written once.
//!
//! One code space for every result (DESIGN section 5): 200 success, 201 pending, 1001..1024
//! the server's refusals (spec section 7), negative codes for local failures. Each row is
//! the Rust constant (its C name is `VERIFY_` + the same name), the number and the English
//! text that `describe` returns. The C constants of `verify.h`, the C++ and C# constants and
//! the README's code table are generated from [`TABLE`] (`VERIFY_BLESS=1 cargo test --test
//! generated` in the repository root), and a test fails when one of them is stale.

/// One row of the code table.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct CodeInfo {
    /// The number.
    pub code: i32,
    /// The name without prefix (`CARD_INVALID`); the C name is `VERIFY_` + this.
    pub name: &'static str,
    /// The English description returned by [`describe`].
    pub text: &'static str,
}

macro_rules! code_table {
    ($( $(#[doc = $doc:literal])* $name:ident = $code:literal, $text:literal; )*) => {
        $( $(#[doc = $doc])* pub const $name: i32 = $code; )*

        /// Every code, in the order of the table.
        pub const TABLE: &[CodeInfo] = &[
            $( CodeInfo { code: $code, name: stringify!($name), text: $text }, )*
        ];
    };
}

code_table! {
    /// Success.
    OK = 200, "success";
    /// Social authorization pending: poll again.
    PENDING = 201, "waiting for social authorization; keep polling";
    /// Licensed offline: the server could not be reached (DNS, connect, timeout, an
    /// unfinished TLS handshake, an unreachable proxy) and the stored verdict of the last
    /// good login answers (the host opted in with a state folder and an offline grace).
    OFFLINE = 202, "licensed offline: the server could not be reached; the stored verdict answers";
    /// Program not found (from Handle: the session secret is unknown; the client runs Init
    /// again once by itself).
    PROGRAM_NOT_FOUND = 1001, "program not found (or session secret unknown to the server)";
    /// Wrong password.
    WRONG_PASSWORD = 1003, "wrong password";
    /// Card invalid, refunded, or of another program.
    CARD_INVALID = 1004, "card invalid, refunded, or not of this program";
    /// Expired, not activated, or count card used up.
    EXPIRED = 1005, "expired, not activated, or count card used up";
    /// Disabled, frozen or banned; the reply's remark carries the reason.
    DISABLED = 1006, "disabled, frozen or banned; the remark carries the reason";
    /// Token invalid: log in again.
    TOKEN_INVALID = 1007, "token invalid; log in again";
    /// Signature error.
    SIGNATURE_ERROR = 1010, "signature error";
    /// Program key (AppKey) wrong.
    APP_KEY_WRONG = 1011, "program key (AppKey) wrong";
    /// Program not approved (pending, rejected, plan expired).
    NOT_APPROVED = 1012, "program not approved (pending, rejected, or plan expired)";
    /// Incomplete parameters, or invalid heartbeat type.
    INCOMPLETE_PARAMETERS = 1013, "incomplete parameters, or invalid heartbeat type";
    /// Timestamp off by more than 300 s (the client corrects its clock from the reply's
    /// `Date` header and retries once by itself).
    TIMESTAMP_SKEW = 1014, "timestamp outside the server's tolerance of 300 seconds";
    /// Unknown action.
    UNKNOWN_ACTION = 1015, "unknown action";
    /// User not registered, or social identity not bound.
    USER_NOT_REGISTERED = 1016, "user not registered, or social identity not bound";
    /// Username already registered.
    USERNAME_TAKEN = 1017, "username already registered";
    /// Registrations per IP address limit reached.
    IP_REGISTRATION_LIMIT = 1019, "registration limit per IP address reached";
    /// New machine code equals the current one.
    SAME_MACHINE_CODE = 1020, "new machine code equals the current one";
    /// Rebind limit reached.
    REBIND_LIMIT = 1021, "rebind limit reached";
    /// Machine code changed; the reply's remark is the previously bound code.
    MACHINE_CHANGED = 1022, "machine code changed; the remark is the previously bound code";
    /// Blacklisted (IP address or machine code).
    BLACKLISTED = 1023, "blacklisted (IP address or machine code)";
    /// Count card not allowed here.
    COUNT_CARD_NOT_ALLOWED = 1024, "count card not allowed here";
    /// NULL where a value is required, empty, too long, out of range.
    ERR_INVALID_ARGUMENT = -1, "invalid argument: NULL where required, empty, too long, or out of range";
    /// A string argument is not UTF-8.
    ERR_INVALID_UTF8 = -2, "a string argument is not valid UTF-8";
    /// Server unreachable, or the connection broke.
    ERR_NETWORK = -3, "network error: server unreachable or connection broken";
    /// Connect or call timeout.
    ERR_TIMEOUT = -4, "timed out (connect or whole-call timeout)";
    /// TLS handshake or certificate check failed.
    ERR_TLS = -5, "TLS handshake or certificate check failed";
    /// The reply is not the service's JSON envelope.
    ERR_PROTOCOL = -6, "protocol error: the reply is not the service's JSON";
    /// Cancelled by the host.
    ERR_CANCELLED = -7, "cancelled by the host";
    /// Internal error caught at the boundary.
    ERR_PANIC = -8, "internal error (panic caught at the library boundary)";
    /// A reply field asked for is absent or of another type.
    ERR_NO_SUCH_FIELD = -9, "no such field in the reply, or of another type";
    /// The operating system failed: a thread could not start, the machine identity could not
    /// be read or stored, no randomness.
    ERR_SYSTEM = -10, "operating system failure (thread, machine identity, randomness)";
    /// The server's certificate chain is valid but matches none of the pinned keys.
    ERR_PIN = -11, "TLS: the server's certificate matches none of the pinned keys";
    /// The proxy is unreachable, or refused the credentials or the tunnel.
    ERR_PROXY = -12, "proxy unreachable, or it refused the credentials or the tunnel";
    /// The request is larger than the library sends (1 MiB of body); nothing was sent.
    ERR_TOO_LARGE = -13, "request too large: its body would exceed 1 MiB; nothing was sent";
    /// Offline verdict refused: the local clock is earlier than the latest server time seen
    /// by more than the tolerance (the clock was moved back).
    ERR_CLOCK_BACK = -14, "offline verdict refused: the clock was moved back";
    /// Offline verdict refused: the server has not confirmed the licence within the offline
    /// grace period.
    ERR_GRACE_OVER = -15, "offline verdict refused: the offline grace period is over";
    /// Offline verdict refused: the stored licence has expired.
    ERR_OFFLINE_EXPIRED = -16, "offline verdict refused: the stored licence has expired";
    /// Offline verdict refused: the password does not match the one of the last online
    /// login of the account (the store keeps a slow salted hash of it, never the password).
    ERR_OFFLINE_PASSWORD = -17, "offline verdict refused: wrong password";
    /// Offline verdicts are on but the state folder cannot be created or written (a file, a
    /// read-only or system path, a name too long, no permission): the client is not made.
    ERR_STATE_FOLDER = -18, "the state folder cannot be created or written";
}

/// The table row of `code`, when the code is in the table.
pub fn info(code: i32) -> Option<&'static CodeInfo> {
    TABLE.iter().find(|row| row.code == code)
}

/// An English description of any code: the table's text, or a generic text for codes the
/// table does not have.
pub fn describe(code: i32) -> &'static str {
    match info(code) {
        Some(row) => row.text,
        None if code > 0 => UNDOCUMENTED_SERVER_CODE,
        None => UNKNOWN_LOCAL_CODE,
    }
}

/// [`describe`] of a positive code the table does not have.
pub const UNDOCUMENTED_SERVER_CODE: &str = "error code not documented by the service";
/// [`describe`] of a negative code the table does not have.
pub const UNKNOWN_LOCAL_CODE: &str = "unknown local error";

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn codes_names_and_texts_are_unique() {
        let mut codes = std::collections::HashSet::new();
        let mut names = std::collections::HashSet::new();
        let mut texts = std::collections::HashSet::new();
        for row in TABLE {
            assert!(codes.insert(row.code), "{} twice", row.code);
            assert!(names.insert(row.name), "{} twice", row.name);
            assert!(texts.insert(row.text), "{} shares its text", row.code);
            assert_eq!(row.code < 0, row.name.starts_with("ERR_"), "{}", row.name);
        }
        assert_eq!(describe(1002), UNDOCUMENTED_SERVER_CODE);
        assert_eq!(describe(-100), UNKNOWN_LOCAL_CODE);
        assert_eq!(describe(CARD_INVALID), info(1004).map_or("", |r| r.text));
    }
}
