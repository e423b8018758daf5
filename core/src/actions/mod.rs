//! The business actions: the table ([`table`](self) source in `table.rs`), what it
//! generates, and the calls built on it (the generic call, the social wait).
//!
//! Every typed call returns its reply view on code 200 (and 201 for the social poll), the
//! server's refusal as an [`Error`] carrying its code, message, remark and reply, or a local
//! failure. A view's fields are accessors that say "absent" (`None`) when the server left a
//! field out or sent it with another type: a field is never a reason to fail a call the
//! server answered.

use std::fmt;
use std::time::Duration;

use serde_json::Value;

use crate::cancel::CancelToken;
use crate::client::Client;
use crate::codes;
use crate::error::{Error, ErrorKind};
use crate::reply::Reply;
pub use crate::request::LoginRole;
use crate::request::{ActionRequest, Purpose};
use crate::util::deadline::Deadline;

pub mod time;

/// How a parameter of an action is given.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ParamKind {
    /// A string that must not be empty.
    Required,
    /// A string that may be absent; an empty string counts as absent (not sent).
    Optional,
    /// The session kind of a heartbeat ([`SessionKind`]), sent as `card` or `user`.
    Session,
}

/// A parameter of an action in [`ACTIONS`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ParamSpec {
    /// The argument's name (`card`, `new_mac`).
    pub name: &'static str,
    /// The key sent on the wire (`Card`, `Mac`).
    pub wire: &'static str,
    /// Required, optional or the session kind.
    pub kind: ParamKind,
    /// What it stands for in a login or a password change, if anything.
    pub role: Option<LoginRole>,
}

/// What an action's requests are for: the action table's purpose column, which the offline
/// verdicts and a reply's session kind go by.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ActionPurpose {
    /// A card-mode login (`SingleLogin`): the offline store keeps and answers it.
    CardLogin,
    /// An account's password login without a card: the offline store keeps and answers it.
    AccountLogin,
    /// A social login: it opens an account session, and is never answered offline.
    SocialLogin,
    /// An account renewed with a card: no session.
    Renewal,
    /// A heartbeat of the session kind its `session` parameter names.
    Heartbeat,
    /// An account's password change: the offline store keeps the new password's hash.
    PasswordChange,
    /// Anything else.
    Other,
}

/// The type of a typed reply field.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FieldType {
    /// A string.
    Str,
    /// A time of the service, `YYYY-MM-DD HH:mm:ss` in Beijing time (UTC+08:00), as a string
    /// ([`time::parse`] gives its Unix seconds; the bindings read it as a number through the C
    /// ABI and give a time with that offset).
    Time,
    /// An integer (64 bits).
    Int,
    /// A boolean.
    Bool,
    /// An object of strings (name to value).
    Map,
}

/// A typed field of a reply view in [`REPLIES`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct FieldSpec {
    /// The field's name in `data`.
    pub name: &'static str,
    /// Its type.
    pub ty: FieldType,
    /// What it holds.
    pub doc: &'static str,
    /// Whether the service gives it on every success of the view (`always` in the table):
    /// the spec's table of the action lists it without a condition. An offline verdict keeps
    /// every field of the server's success but the token, so a token is never `always`. A
    /// binding may type such a field as not optional; a field without it may be absent.
    pub always: bool,
}

/// A reply view in [`REPLIES`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ReplySpec {
    /// The Rust type's name (`CardLogin`).
    pub name: &'static str,
    /// Its documentation.
    pub doc: &'static str,
    /// Its typed fields.
    pub fields: &'static [FieldSpec],
}

/// An action in [`ACTIONS`]: one typed call.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ActionSpec {
    /// The method's name (`single_login`); the C function is `verify_` + this name.
    pub method: &'static str,
    /// The `action` value on the wire (`SingleLogin`).
    pub wire: &'static str,
    /// Whether the action changes state on the server: then it is never sent twice once it
    /// may have reached the server.
    pub changes_state: bool,
    /// Its documentation.
    pub doc: &'static str,
    /// The parameters the caller gives, in order.
    pub params: &'static [ParamSpec],
    /// Parameters with fixed values, sent first.
    pub fixed: &'static [(&'static str, &'static str)],
    /// What its requests are for.
    pub purpose: ActionPurpose,
    /// The name of its reply view in [`REPLIES`].
    pub reply: &'static str,
    /// Whether it may answer 201, pending (`pending` in the table: the social poll), which
    /// is not an error: its typed call then carries none of the view's fields.
    pub pending: bool,
}

impl ActionSpec {
    /// The reply view of this action.
    pub fn reply_spec(&self) -> Option<&'static ReplySpec> {
        REPLIES.iter().find(|reply| reply.name == self.reply)
    }
}

pub use crate::session::SessionKind;

/// The Rust type of a parameter of the given kind.
macro_rules! param_type {
    (required) => { &str };
    (optional) => { Option<&str> };
    (session) => { SessionKind };
}

/// Adds a parameter of the given kind (and login role) to a request.
macro_rules! add_param {
    ($request:ident, required, $name:ident, $wire:literal, $role:expr) => {
        $request = $request.param_as($wire, required(stringify!($name), $name)?, $role);
    };
    ($request:ident, optional, $name:ident, $wire:literal, $role:expr) => {
        $request = $request.opt_param_as($wire, $name, $role);
    };
    ($request:ident, session, $name:ident, $wire:literal, $role:expr) => {
        $request = $request.param_as($wire, $name.as_str(), $role);
    };
}

/// The login role of a parameter: `as identity`, `as machine`, `as password`,
/// `as new_password`, `as token`, or none.
macro_rules! role {
    () => {
        None
    };
    (identity) => {
        Some(LoginRole::Identity)
    };
    (machine) => {
        Some(LoginRole::Machine)
    };
    (password) => {
        Some(LoginRole::Password)
    };
    (new_password) => {
        Some(LoginRole::NewPassword)
    };
    (token) => {
        Some(LoginRole::Token)
    };
}

macro_rules! param_kind {
    (required) => {
        ParamKind::Required
    };
    (optional) => {
        ParamKind::Optional
    };
    (session) => {
        ParamKind::Session
    };
}

/// The purpose column of an action ([`ActionPurpose`]).
macro_rules! purpose {
    (card_login) => {
        ActionPurpose::CardLogin
    };
    (account_login) => {
        ActionPurpose::AccountLogin
    };
    (social_login) => {
        ActionPurpose::SocialLogin
    };
    (renewal) => {
        ActionPurpose::Renewal
    };
    (heartbeat) => {
        ActionPurpose::Heartbeat
    };
    (password_change) => {
        ActionPurpose::PasswordChange
    };
    (other) => {
        ActionPurpose::Other
    };
}

/// The purpose of one request of an action: the table's column, with a heartbeat's session
/// kind (`None`: the heartbeat's kind is not known).
fn request_purpose(purpose: ActionPurpose, kind: Option<SessionKind>) -> Purpose {
    match purpose {
        ActionPurpose::CardLogin => Purpose::CardLogin,
        ActionPurpose::AccountLogin => Purpose::AccountLogin,
        ActionPurpose::SocialLogin => Purpose::SocialLogin,
        ActionPurpose::Renewal => Purpose::Renewal,
        ActionPurpose::Heartbeat => kind.map_or(Purpose::Other, Purpose::Heartbeat),
        ActionPurpose::PasswordChange => Purpose::PasswordChange,
        ActionPurpose::Other => Purpose::Other,
    }
}

/// The session kind argument of a builder's parameters, if it has one.
macro_rules! session_arg {
    () => {
        None
    };
    (session $name:ident $($rest:tt)*) => {
        Some($name)
    };
    ($kind:ident $name:ident $($rest:tt)*) => {
        session_arg!($($rest)*)
    };
}

/// Whether a typed field is given on every success (`always` after its type).
macro_rules! always {
    () => {
        false
    };
    (always) => {
        true
    };
}

/// Whether an action may answer 201, pending (`pending` after its reply view).
macro_rules! pending {
    () => {
        false
    };
    (pending) => {
        true
    };
}

macro_rules! changes_state {
    (changes_state) => {
        true
    };
    (read_only) => {
        false
    };
}

/// The Rust type of a typed field's accessor, and how it reads the reply.
macro_rules! field_accessor {
    ($(#[$meta:meta])* $name:ident, str) => {
        $(#[$meta])*
        pub fn $name(&self) -> Option<&str> {
            self.0.str_field(stringify!($name))
        }
    };
    ($(#[$meta:meta])* $name:ident, time) => {
        $(#[$meta])*
        pub fn $name(&self) -> Option<&str> {
            self.0.str_field(stringify!($name))
        }
    };
    ($(#[$meta:meta])* $name:ident, int) => {
        $(#[$meta])*
        pub fn $name(&self) -> Option<i64> {
            self.0.int_field(stringify!($name))
        }
    };
    ($(#[$meta:meta])* $name:ident, bool) => {
        $(#[$meta])*
        pub fn $name(&self) -> Option<bool> {
            self.0.bool_field(stringify!($name))
        }
    };
    ($(#[$meta:meta])* $name:ident, map) => {
        $(#[$meta])*
        pub fn $name(&self) -> Option<&serde_json::Map<String, Value>> {
            self.0.field(stringify!($name)).and_then(Value::as_object)
        }
    };
}

macro_rules! field_type {
    (str) => {
        FieldType::Str
    };
    (time) => {
        FieldType::Time
    };
    (int) => {
        FieldType::Int
    };
    (bool) => {
        FieldType::Bool
    };
    (map) => {
        FieldType::Map
    };
}

/// Generates the reply views and [`REPLIES`].
macro_rules! replies {
    ($(
        $(#[doc = $doc:literal])*
        $reply:ident { $($field:ident : $ty:ident $($always:ident)? $fdoc:literal),* $(,)? }
    )*) => {
        $(
            $(#[doc = $doc])*
            ///
            /// A view of the server's reply: each field is `None` when the server left it out
            /// or sent it with another type. `Debug` prints the code and message only.
            #[derive(Clone, PartialEq)]
            pub struct $reply(Reply);

            impl $reply {
                $( field_accessor!(#[doc = concat!("`", stringify!($field), "`: ", $fdoc, ".")] $field, $ty); )*

                /// The whole reply (every field, documented or not).
                pub fn reply(&self) -> &Reply {
                    &self.0
                }

                /// Takes the reply out of the view.
                pub fn into_reply(self) -> Reply {
                    self.0
                }
            }

            impl From<Reply> for $reply {
                fn from(reply: Reply) -> Self {
                    $reply(reply)
                }
            }

            impl fmt::Debug for $reply {
                fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                    f.debug_tuple(stringify!($reply)).field(&self.0).finish()
                }
            }
        )*

        /// Every reply view of the table, with its typed fields.
        pub const REPLIES: &[ReplySpec] = &[$(
            ReplySpec {
                name: stringify!($reply),
                doc: concat!($($doc, "\n"),*),
                fields: &[$( FieldSpec {
                    name: stringify!($field),
                    ty: field_type!($ty),
                    doc: $fdoc,
                    always: always!($($always)?),
                } ),*],
            },
        )*];
    };
}

/// Generates the request builders, the `Client` methods and [`ACTIONS`].
macro_rules! actions {
    ($(
        $(#[doc = $doc:literal])*
        $method:ident : $wire:literal, $effect:ident, $purpose:ident, $reply:ident
        $($pending:ident)? $([ $($fkey:literal = $fvalue:literal),* $(,)? ])? {
            $($param:ident : $kind:ident $pwire:literal $(as $role:ident)?),* $(,)?
        }
    )*) => {
        /// Request builders: each checks its required arguments (not empty) before anything
        /// is sent, and leaves out optional ones that are absent or empty.
        pub mod request {
            use super::*;

            $(
                $(#[doc = $doc])*
                pub fn $method($($param: param_type!($kind)),*) -> Result<ActionRequest, Error> {
                    let purpose_kind: Option<SessionKind> = session_arg!($($kind $param)*);
                    #[allow(unused_mut)]
                    let mut request = ActionRequest::new($wire, !changes_state!($effect))
                        .with_purpose(request_purpose(purpose!($purpose), purpose_kind));
                    $($( request = request.param($fkey, $fvalue); )*)?
                    $( add_param!(request, $kind, $param, $pwire, role!($($role)?)); )*
                    Ok(request)
                }
            )*
        }

        /// The typed calls of the action table.
        impl Client {
            $(
                $(#[doc = $doc])*
                pub fn $method(&self, $($param: param_type!($kind)),*) -> Result<$reply, Error> {
                    self.send(request::$method($($param),*)?).map($reply::from)
                }
            )*
        }

        /// Every typed call of the table.
        pub const ACTIONS: &[ActionSpec] = &[$(
            ActionSpec {
                method: stringify!($method),
                wire: $wire,
                changes_state: changes_state!($effect),
                doc: concat!($($doc, "\n"),*),
                params: &[$( ParamSpec {
                    name: stringify!($param),
                    wire: $pwire,
                    kind: param_kind!($kind),
                    role: role!($($role)?),
                } ),*],
                fixed: &[$($( ($fkey, $fvalue) ),*)?],
                purpose: purpose!($purpose),
                reply: stringify!($reply),
                pending: pending!($($pending)?),
            },
        )*];
    };
}

include!("table.rs");

fn required<'a>(name: &str, value: &'a str) -> Result<&'a str, Error> {
    if value.is_empty() {
        Err(Error::invalid_argument(format!("{name} must not be empty")))
    } else {
        Ok(value)
    }
}

fn cancelled() -> Error {
    Error::local(ErrorKind::Cancelled, "cancelled by the host")
}

impl SocialRegistration {
    /// The `state` query parameter of the URL, when it has one.
    pub fn state(&self) -> Option<String> {
        let url = self.url()?;
        let query = url.split_once('?')?.1;
        let query = query.split('#').next().unwrap_or(query);
        query.split('&').find_map(|pair| {
            let value = pair.strip_prefix("state=")?;
            percent_encoding::percent_decode_str(value)
                .decode_utf8()
                .ok()
                .map(|text| text.into_owned())
        })
    }
}

/// Any action with any parameters: never sent twice once it may have been delivered. Its
/// purpose and its login come from the table's row of the action (`from_table`).
pub fn generic_request(action: &str, params: &[(&str, &str)]) -> Result<ActionRequest, Error> {
    let mut request = ActionRequest::new(required("action", action)?, false);
    for (key, value) in params {
        if key.is_empty() {
            return Err(Error::invalid_argument("parameter names must not be empty"));
        }
        if key.eq_ignore_ascii_case("action") {
            return Err(Error::invalid_argument(
                "`action` is given by the action argument, not as a parameter",
            ));
        }
        request = request.param(key, value);
    }
    Ok(from_table(request))
}

/// The table's row of a request built without the table: of the rows of its action, the
/// first (in the table's order) whose keys that the action's first row lacks are all in
/// the request (`UserLogin` with a `Card` is the renewal's, with a `LoginType` a social
/// login's), else the first row; `None` for an action the table does not have.
fn row_of(request: &ActionRequest) -> Option<&'static ActionSpec> {
    let mut rows = ACTIONS.iter().filter(|row| row.wire == request.action);
    let first = rows.next()?;
    let keys_of = |row: &'static ActionSpec| {
        row.fixed
            .iter()
            .map(|(key, _)| *key)
            .chain(row.params.iter().map(|param| param.wire))
    };
    let own = |row: &'static ActionSpec| {
        keys_of(row).filter(move |key| keys_of(first).all(|known| known != *key))
    };
    let chosen = rows.find(|row| {
        own(row).next().is_some() && own(row).all(|key| request.keys().any(|held| held == key))
    });
    Some(chosen.unwrap_or(first))
}

/// A request built without the table (the generic call, [`Client::send`] of a request of
/// [`ActionRequest::new`]) with the purpose and the login roles of its action's row; a
/// heartbeat's session kind is its session parameter's value (`card` or `user`).
fn from_table(request: ActionRequest) -> ActionRequest {
    let Some(row) = row_of(&request) else {
        return request.with_purpose(Purpose::Other);
    };
    let param_of = |key: &str| row.params.iter().find(|param| param.wire == key);
    let mut kind = None;
    let mut roles = Vec::new();
    for (at, key) in request.keys().enumerate() {
        let Some(param) = param_of(key) else {
            continue;
        };
        if let Some(role) = param.role {
            roles.push((at, role));
        }
        if param.kind == ParamKind::Session {
            kind = request
                .params()
                .get(at)
                .and_then(|(_, value)| SessionKind::from_wire(value));
        }
    }
    let request = request.with_purpose(request_purpose(row.purpose, kind));
    roles
        .into_iter()
        .fold(request, |request, (at, role)| request.with_role(at, role))
}

impl Client {
    /// Sends a request and returns its reply for code 200, 201 (pending) and an offline
    /// verdict (202, [`Reply::offline`]); any other code is the server's refusal as an error
    /// carrying the reply.
    pub fn send(&self, request: ActionRequest) -> Result<Reply, Error> {
        let request = if request.has_purpose() {
            request
        } else {
            from_table(request)
        };
        let reply = self.exchange(&request)?;
        match reply.code() {
            codes::OK | codes::PENDING => Ok(reply),
            codes::OFFLINE if reply.offline().is_some() => Ok(reply),
            _ => Err(Error::refused(reply)),
        }
    }

    /// Sends any action with any parameters. `Ok` for codes 200 and 201; other codes are the
    /// server's refusal as an error carrying the reply. Never sent twice once it may have
    /// reached the server.
    pub fn call(&self, action: &str, params: &[(&str, &str)]) -> Result<Reply, Error> {
        self.send(generic_request(action, params)?)
    }

    /// Social login step 2, repeated every `interval` until the user authorizes (the login
    /// payload), the server refuses (its error, e.g. 1016 for an unbound identity), `timeout`
    /// passes (`ErrorKind::Timeout`) or `cancel` is cancelled from another thread
    /// (`ErrorKind::Cancelled`, within milliseconds: a poll in flight is interrupted).
    pub fn social_login_wait(
        &self,
        state: &str,
        mac: Option<&str>,
        interval: Duration,
        timeout: Duration,
        cancel: &CancelToken,
    ) -> Result<UserSession, Error> {
        let reply = self.social_login_wait_reply(state, mac, interval, timeout, cancel)?;
        match reply.code() {
            codes::OK => Ok(UserSession::from(reply)),
            _ => Err(Error::refused(reply)),
        }
    }

    /// [`Client::social_login_wait`], giving the final reply (any code but 201).
    pub fn social_login_wait_reply(
        &self,
        state: &str,
        mac: Option<&str>,
        interval: Duration,
        timeout: Duration,
        cancel: &CancelToken,
    ) -> Result<Reply, Error> {
        if interval.is_zero() {
            return Err(Error::invalid_argument(
                "the poll interval must not be zero",
            ));
        }
        let request = request::social_login_poll(state, mac)?;
        // A cancel interrupts the poll in flight on this thread.
        let watch = cancel.watch();
        let deadline = Deadline::after(timeout);
        let outcome = loop {
            if cancel.is_cancelled() {
                break Err(cancelled());
            }
            let reply = match self.exchange(&request) {
                Ok(reply) => reply,
                Err(_) if cancel.is_cancelled() => break Err(cancelled()),
                Err(error) => break Err(error),
            };
            if reply.code() != codes::PENDING {
                break Ok(reply);
            }
            if deadline.passed() {
                break Err(Error::local(
                    ErrorKind::Timeout,
                    format!(
                        "social authorization not completed within {} ms",
                        timeout.as_millis()
                    ),
                ));
            }
            // The last pause ends at the deadline, for one last poll.
            if cancel.wait(interval.min(deadline.remaining())) {
                break Err(cancelled());
            }
        };
        drop(watch);
        outcome
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn required_arguments_are_checked_before_sending() {
        let err = request::single_login("", "MAC", None).expect_err("empty card");
        assert_eq!(err.code(), codes::ERR_INVALID_ARGUMENT);
        assert!(err.message().contains("card"));
        assert!(generic_request("", &[]).is_err());
        assert!(generic_request("X", &[("action", "Y")]).is_err());
        assert!(generic_request("X", &[("", "Y")]).is_err());
    }

    #[test]
    fn optional_parameters_absent_or_empty_are_left_out() {
        let request = request::user_register("u", "p", None, Some("M"), Some("")).expect("valid");
        let keys: Vec<&str> = request.keys().collect();
        assert_eq!(keys, ["UserName", "Password", "Mac"]);
        let request = request::social_login_poll("S", None).expect("valid");
        let keys: Vec<&str> = request.keys().collect();
        assert_eq!(keys, ["LoginType", "State"]);
    }

    /// The purpose the table gives `request`, checked against that of the same action and
    /// parameters built without the table (the generic call, which takes them from the
    /// table's row): both paths behave the same, the login they carry included.
    fn purpose_of(request: &ActionRequest) -> Purpose {
        let params: Vec<(&str, &str)> = request
            .params()
            .iter()
            .map(|(key, value)| (key.as_str(), value.as_str()))
            .collect();
        let generic = generic_request(&request.action, &params).expect("valid");
        assert_eq!(request.purpose(), generic.purpose(), "{}", request.action);
        let carried = |request: &ActionRequest| {
            request.login().map(|login| {
                (
                    login.kind,
                    login.identity.to_owned(),
                    login.machine.to_owned(),
                    login.password.map(str::to_owned),
                )
            })
        };
        assert_eq!(carried(request), carried(&generic), "{}", request.action);
        for role in [
            LoginRole::Identity,
            LoginRole::Machine,
            LoginRole::Password,
            LoginRole::NewPassword,
            LoginRole::Token,
        ] {
            assert_eq!(
                request.role(role),
                generic.role(role),
                "{} {role:?}",
                request.action
            );
        }
        request.purpose()
    }

    fn login_kind(request: &ActionRequest) -> Option<SessionKind> {
        request.login().map(|login| login.kind)
    }

    fn session_of(request: &ActionRequest) -> Option<SessionKind> {
        request.purpose().session()
    }

    fn heartbeat_kind(request: &ActionRequest) -> Option<SessionKind> {
        request.heartbeat_kind()
    }

    #[test]
    fn a_login_carries_its_identity_machine_and_password_from_the_table() {
        let card = request::single_login("CARD", "MAC", Some("PC")).expect("valid");
        let login = card.login().expect("a card login");
        assert_eq!(
            (login.identity, login.machine, login.password),
            ("CARD", "MAC", None)
        );
        let account = request::user_login("USER", "PASS", None).expect("valid");
        let login = account.login().expect("an account login");
        assert_eq!(
            (login.identity, login.machine, login.password),
            ("USER", "", Some("PASS"))
        );
        let change = request::update_password("USER", "OLD", "NEW").expect("valid");
        assert_eq!(change.role(LoginRole::Identity), Some("USER"));
        assert_eq!(change.role(LoginRole::NewPassword), Some("NEW"));
        assert_eq!(change.role(LoginRole::Password), None);
        // A request sent without the table's purpose takes it from the table's row.
        let raw = from_table(ActionRequest::new("SingleLogin", false).param("Card", "C"));
        assert_eq!(raw.purpose(), Purpose::CardLogin);
        assert_eq!(raw.login().map(|login| login.identity), Some("C"));
        assert_eq!(
            from_table(ActionRequest::new("NoSuchAction", true)).purpose(),
            Purpose::Other
        );
    }

    #[test]
    fn a_card_login_is_answered_offline_in_card_mode() {
        let request = request::single_login("CARD", "MAC", None).expect("valid");
        assert_eq!(purpose_of(&request), Purpose::CardLogin);
        assert_eq!(login_kind(&request), Some(SessionKind::Card));
        assert_eq!(session_of(&request), Some(SessionKind::Card));
        assert_eq!(heartbeat_kind(&request), None);
        // Without its card (only the generic call can send that), no stored verdict answers.
        let generic = generic_request("SingleLogin", &[("Mac", "MAC")]).expect("valid");
        assert_eq!(generic.purpose(), Purpose::CardLogin);
        assert_eq!(login_kind(&generic), None);
        assert_eq!(session_of(&generic), Some(SessionKind::Card));
    }

    #[test]
    fn a_password_login_without_a_card_is_an_account_login() {
        let request = request::user_login("USER", "PASS", Some("MAC")).expect("valid");
        assert_eq!(purpose_of(&request), Purpose::AccountLogin);
        assert_eq!(login_kind(&request), Some(SessionKind::User));
        assert_eq!(session_of(&request), Some(SessionKind::User));
        let generic = generic_request("UserLogin", &[("UserName", "U")]).expect("valid");
        assert_eq!(generic.purpose(), Purpose::AccountLogin);
        assert_eq!(login_kind(&generic), Some(SessionKind::User));
    }

    #[test]
    fn an_account_login_with_a_card_is_a_renewal_not_a_login() {
        let request = request::user_login_with_card("USER", "PASS", "CARD", None).expect("valid");
        assert_eq!(purpose_of(&request), Purpose::Renewal);
        assert_eq!(login_kind(&request), None);
        assert_eq!(session_of(&request), None);
        // A card makes a renewal whatever else is sent, an empty card included.
        for params in [
            &[("UserName", "U"), ("Card", "")][..],
            &[("LoginType", "social"), ("Card", "C")][..],
        ] {
            let generic = generic_request("UserLogin", params).expect("valid");
            assert_eq!(generic.purpose(), Purpose::Renewal);
            assert_eq!(session_of(&generic), None);
        }
    }

    #[test]
    fn a_social_login_opens_an_account_session_but_is_no_password_login() {
        for request in [
            request::social_login_start(Some("MAC")).expect("valid"),
            request::social_login_poll("STATE", None).expect("valid"),
        ] {
            assert_eq!(purpose_of(&request), Purpose::SocialLogin);
            assert_eq!(login_kind(&request), None);
            assert_eq!(session_of(&request), Some(SessionKind::User));
        }
        // Any `LoginType` makes it one.
        let generic =
            generic_request("UserLogin", &[("UserName", "U"), ("LoginType", "qq")]).expect("valid");
        assert_eq!(generic.purpose(), Purpose::SocialLogin);
        assert_eq!(login_kind(&generic), None);
    }

    #[test]
    fn a_heartbeat_names_its_session_kind() {
        for kind in [SessionKind::Card, SessionKind::User] {
            let request = request::heartbeat("TOKEN", kind, None).expect("valid");
            assert_eq!(purpose_of(&request), Purpose::Heartbeat(kind));
            assert_eq!(heartbeat_kind(&request), Some(kind));
            assert_eq!(login_kind(&request), None);
            assert_eq!(session_of(&request), None);
        }
        let generic =
            generic_request("UserHeartbeat", &[("Token", "T"), ("Type", "other")]).expect("valid");
        assert_eq!(generic.purpose(), Purpose::Other);
        assert_eq!(heartbeat_kind(&generic), None);
    }

    #[test]
    fn a_password_change_is_observed_as_one() {
        let request = request::update_password("USER", "OLD", "NEW").expect("valid");
        assert_eq!(purpose_of(&request), Purpose::PasswordChange);
        assert_eq!(login_kind(&request), None);
        assert_eq!(session_of(&request), None);
    }

    #[test]
    fn other_actions_are_neither_logins_nor_heartbeats() {
        for request in [
            request::user_register("USER", "PASS", Some("CARD"), None, None).expect("valid"),
            request::change_bind("USER", "PASS", "MAC").expect("valid"),
            request::user_recharge("USER", "CARD").expect("valid"),
            request::get_latest_version(None).expect("valid"),
            request::get_bulletin().expect("valid"),
            request::get_variable("NAME").expect("valid"),
            request::get_variables().expect("valid"),
            request::get_user_info("USER", "PASS").expect("valid"),
            request::get_card_info("CARD").expect("valid"),
            request::social_register_start("USER", None, None).expect("valid"),
            generic_request("GetBulletin", &[]).expect("valid"),
        ] {
            assert_eq!(purpose_of(&request), Purpose::Other, "{}", request.action);
            assert_eq!(login_kind(&request), None);
            assert_eq!(session_of(&request), None);
            assert_eq!(heartbeat_kind(&request), None);
        }
    }

    #[test]
    fn the_table_is_consistent() {
        let mut methods = std::collections::HashSet::new();
        for action in ACTIONS {
            assert!(methods.insert(action.method), "{} twice", action.method);
            assert!(
                action.reply_spec().is_some(),
                "{}: no reply view",
                action.method
            );
        }
        assert_eq!(ACTIONS.len(), 17);
        // The service's 12 actions are all reachable.
        let wires: std::collections::BTreeSet<&str> = ACTIONS.iter().map(|a| a.wire).collect();
        assert_eq!(wires.len(), 12);
    }

    #[test]
    fn views_say_absent_instead_of_failing() {
        let reply = Reply::from_body(
            br#"{"code":200,"message":"ok","data":{"token":5,"is_times":true,"extra":1}}"#,
        )
        .expect("valid");
        let login = CardLogin::from(reply);
        assert_eq!(login.token(), None);
        assert_eq!(login.is_times(), Some(true));
        assert_eq!(login.expire_at(), None);
    }

    #[test]
    fn social_registration_state_is_read_from_the_url() {
        let reply = Reply::from_body(
            br#"{"code":200,"data":{"url":"https://x.invalid/a?x=1&state=ab%2Bc#f"}}"#,
        )
        .expect("valid");
        assert_eq!(
            SocialRegistration::from(reply).state().as_deref(),
            Some("ab+c")
        );
    }
}
