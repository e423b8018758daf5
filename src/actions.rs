//! The 12 business actions: a request builder for each, paired with its typed reply.
//!
//! Parameter names are the spec's primary names (`Card`, `Mac`, `UserName`, ...). The six
//! actions that the spec does not detail follow the table of `sandbox/README.md`.
//! Each builder checks its required arguments (non-empty) before anything is sent.

use std::collections::BTreeMap;
use std::fmt;
use std::marker::PhantomData;
use std::sync::Arc;
use std::time::{Duration, Instant};

use serde_json::Value;

use crate::cancel::CancelToken;
use crate::client::{ActionRequest, Client};
use crate::error::{Error, ErrorKind, CODE_OK, CODE_PENDING};
use crate::reply::{Fields, FromData, Reply};

/// A request together with the type of its successful reply.
pub struct Call<T> {
    /// What is sent.
    pub request: ActionRequest,
    reply: PhantomData<fn() -> T>,
}

impl<T: FromData> Call<T> {
    pub(crate) fn from_request(request: ActionRequest) -> Call<T> {
        Call {
            request,
            reply: PhantomData,
        }
    }

    /// Checks that a code-200 reply has the documented shape of `T`.
    pub fn check(&self, reply: &Reply) -> Result<(), String> {
        if reply.code() == CODE_OK {
            T::from_data(reply.data()).map(|_| ())
        } else {
            Ok(())
        }
    }
}

fn cancelled() -> Error {
    Error::local(ErrorKind::Cancelled, "cancelled by the host")
}

fn required<'a>(name: &str, value: &'a str) -> Result<&'a str, Error> {
    if value.is_empty() {
        Err(Error::invalid_argument(format!("{name} must not be empty")))
    } else {
        Ok(value)
    }
}

/// A login token: 40 characters, required by the heartbeat. `Debug` does not print it.
#[derive(Clone, PartialEq, Eq)]
pub struct Token(String);

impl Token {
    /// The token text, to pass to [`Client::heartbeat`].
    pub fn as_str(&self) -> &str {
        &self.0
    }
}

impl fmt::Debug for Token {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Token(<{} characters>)", self.0.chars().count())
    }
}

/// Which kind of session a heartbeat keeps alive (`Type` of UserHeartbeat).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SessionKind {
    /// A card-mode session from `SingleLogin` (`Type=card`).
    Card,
    /// An account session from `UserLogin` (`Type=user`).
    User,
}

impl SessionKind {
    /// The wire value: `card` or `user`.
    pub fn as_str(self) -> &'static str {
        match self {
            SessionKind::Card => "card",
            SessionKind::User => "user",
        }
    }
}

/// `total`, `used` and `remaining` of a count card.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct CardUses {
    /// Uses the card was sold with.
    pub total: i64,
    /// Uses consumed so far.
    pub used: i64,
    /// Uses left; 0 makes the card invalid.
    pub remaining: i64,
}

fn card_uses(fields: &Fields<'_>, is_times: bool) -> Result<Option<CardUses>, String> {
    if !is_times {
        return Ok(None);
    }
    Ok(Some(CardUses {
        total: fields.int("total")?,
        used: fields.int("used")?,
        remaining: fields.int("remaining")?,
    }))
}

/// Success of `SingleLogin` (card mode).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CardLogin {
    /// The session token for `heartbeat(.., SessionKind::Card, ..)`.
    pub token: Token,
    /// `active`.
    pub status: String,
    /// True for a count card.
    pub is_times: bool,
    /// The card type's display name.
    pub card_type: String,
    /// `YYYY-MM-DD HH:mm:ss`; far future for a count card.
    pub expire_at: String,
    /// Count-card usage, when `is_times`.
    pub uses: Option<CardUses>,
}

impl FromData for CardLogin {
    fn from_data(data: &Value) -> Result<Self, String> {
        let f = Fields::of("SingleLogin", data)?;
        let is_times = f.bool("is_times")?;
        Ok(CardLogin {
            token: Token(f.str("token")?),
            status: f.str("status")?,
            is_times,
            card_type: f.str("card_type")?,
            expire_at: f.str("expire_at")?,
            uses: card_uses(&f, is_times)?,
        })
    }
}

/// Success of a password `UserLogin` without `Card`, or of a social login.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct UserSession {
    /// The account's username.
    pub username: String,
    /// Bound machine code; empty if unbound.
    pub device_id: String,
    /// `YYYY-MM-DD HH:mm:ss`.
    pub expire_at: String,
    /// `active`.
    pub status: String,
    /// The session token for `heartbeat(.., SessionKind::User, ..)`.
    pub token: Token,
    /// Back-office note (for a social login: the social account's display name).
    pub remark: String,
}

impl FromData for UserSession {
    fn from_data(data: &Value) -> Result<Self, String> {
        let f = Fields::of("UserLogin", data)?;
        Ok(UserSession {
            username: f.str("username")?,
            device_id: f.str("device_id")?,
            expire_at: f.str("expire_at")?,
            status: f.str("status")?,
            token: Token(f.str("token")?),
            remark: f.opt_str("remark")?.unwrap_or_default(),
        })
    }
}

/// Success of `UserLogin` with `Card` (the renewal branch): no token.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Renewal {
    /// The account's username.
    pub username: String,
    /// The new expiry.
    pub expire_at: String,
    /// Days added (an integer in this branch).
    pub added_days: i64,
    /// `active`.
    pub status: String,
}

impl FromData for Renewal {
    fn from_data(data: &Value) -> Result<Self, String> {
        let f = Fields::of("UserLogin", data)?;
        Ok(Renewal {
            username: f.str("username")?,
            expire_at: f.str("expire_at")?,
            added_days: f.int("added_days")?,
            status: f.str("status")?,
        })
    }
}

/// Success of `UserRegin`. Without a card the account is created already expired, with no
/// token; with a duration card it is active and a token is returned.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Registration {
    /// The account's username.
    pub username: String,
    /// The account identifier.
    pub user_id: i64,
    /// The expiry (the registration time when registered without a card).
    pub expire_at: String,
    /// The session token, when registered with a card.
    pub token: Option<Token>,
    /// `active`, when registered with a card.
    pub status: Option<String>,
}

impl FromData for Registration {
    fn from_data(data: &Value) -> Result<Self, String> {
        let f = Fields::of("UserRegin", data)?;
        Ok(Registration {
            username: f.str("username")?,
            user_id: f.int("user_id")?,
            expire_at: f.str("expire_at")?,
            token: f.opt_str("token")?.map(Token),
            status: f.opt_str("status")?,
        })
    }
}

/// Success of `UpdatePwd`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PasswordChanged {
    /// The account's username.
    pub username: String,
}

impl FromData for PasswordChanged {
    fn from_data(data: &Value) -> Result<Self, String> {
        let f = Fields::of("UpdatePwd", data)?;
        Ok(PasswordChanged {
            username: f.str("username")?,
        })
    }
}

/// Success of `ChangeBind`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Rebind {
    /// The account's username.
    pub username: String,
    /// The new machine code.
    pub device_id: String,
    /// Rebinds used, this one included.
    pub bind_count: i64,
    /// The product's rebind limit (0: no limit).
    pub bind_limit: i64,
}

impl FromData for Rebind {
    fn from_data(data: &Value) -> Result<Self, String> {
        let f = Fields::of("ChangeBind", data)?;
        Ok(Rebind {
            username: f.str("username")?,
            device_id: f.str("device_id")?,
            bind_count: f.int("bind_count")?,
            bind_limit: f.int("bind_limit")?,
        })
    }
}

/// Success of `UserHeartbeat`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Heartbeat {
    /// The session's expiry.
    pub expire_at: String,
    /// `active`.
    pub status: String,
    /// A message from the back office, delivered once; `None` when there is none.
    pub msg: Option<String>,
}

impl FromData for Heartbeat {
    fn from_data(data: &Value) -> Result<Self, String> {
        let f = Fields::of("UserHeartbeat", data)?;
        Ok(Heartbeat {
            expire_at: f.str("expire_at")?,
            status: f.str("status")?,
            msg: f.opt_str("msg")?.filter(|msg| !msg.is_empty()),
        })
    }
}

/// Success of `UserRecharge`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Recharge {
    /// The account's username.
    pub username: String,
    /// The new expiry.
    pub expire_at: String,
    /// The amount added with its unit (`added_days` is a string in this action).
    pub added: String,
    /// `active`.
    pub status: String,
}

impl FromData for Recharge {
    fn from_data(data: &Value) -> Result<Self, String> {
        let f = Fields::of("UserRecharge", data)?;
        Ok(Recharge {
            username: f.str("username")?,
            expire_at: f.str("expire_at")?,
            added: f.str("added_days")?,
            status: f.str("status")?,
        })
    }
}

/// Success of `GetLatestVersion`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LatestVersion {
    /// The latest version number.
    pub version: String,
    /// Its change log.
    pub changelog: String,
    /// Where to download it.
    pub download_url: String,
    /// Whether the back office requires the update.
    pub force_update: bool,
    /// Whether the latest version is newer than the one given (true when none was given).
    pub has_update: bool,
}

impl FromData for LatestVersion {
    fn from_data(data: &Value) -> Result<Self, String> {
        let f = Fields::of("GetLatestVersion", data)?;
        Ok(LatestVersion {
            version: f.str("version")?,
            changelog: f.str("changelog")?,
            download_url: f.str("download_url")?,
            force_update: f.bool("force_update")?,
            has_update: f.bool("has_update")?,
        })
    }
}

/// Success of `GetBulletin`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Bulletin {
    /// The bulletin text.
    pub bulletin: String,
    /// When it was last changed.
    pub updated_at: String,
}

impl FromData for Bulletin {
    fn from_data(data: &Value) -> Result<Self, String> {
        let f = Fields::of("GetBulletin", data)?;
        Ok(Bulletin {
            bulletin: f.str("bulletin")?,
            updated_at: f.opt_str("updated_at")?.unwrap_or_default(),
        })
    }
}

/// Success of `GetVariable` with a name.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Variable {
    /// The variable's name.
    pub name: String,
    /// Its value.
    pub value: String,
}

impl FromData for Variable {
    fn from_data(data: &Value) -> Result<Self, String> {
        let f = Fields::of("GetVariable", data)?;
        Ok(Variable {
            name: f.str("name")?,
            value: f.str("value")?,
        })
    }
}

/// Success of `GetVariable` without a name: every variable.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Variables(pub BTreeMap<String, String>);

impl FromData for Variables {
    fn from_data(data: &Value) -> Result<Self, String> {
        let f = Fields::of("GetVariable", data)?;
        let mut out = BTreeMap::new();
        for (name, value) in f.object("variables")? {
            match value {
                Value::String(text) => {
                    out.insert(name.clone(), text.clone());
                }
                other => {
                    return Err(format!(
                        "GetVariable variable `{name}` is {}, not a string",
                        crate::reply::type_name(other)
                    ))
                }
            }
        }
        Ok(Variables(out))
    }
}

/// Success of `GetUserInfo`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct UserInfo {
    /// The account's username.
    pub username: String,
    /// The account identifier.
    pub user_id: i64,
    /// Bound machine code; empty if unbound.
    pub device_id: String,
    /// The expiry.
    pub expire_at: String,
    /// `active`, `expired` or `banned`.
    pub status: String,
    /// Rebinds used.
    pub bind_count: i64,
    /// The product's rebind limit (0: no limit).
    pub bind_limit: i64,
    /// Back-office note.
    pub remark: String,
    /// Registration time.
    pub created_at: String,
}

impl FromData for UserInfo {
    fn from_data(data: &Value) -> Result<Self, String> {
        let f = Fields::of("GetUserInfo", data)?;
        Ok(UserInfo {
            username: f.str("username")?,
            user_id: f.int("user_id")?,
            device_id: f.str("device_id")?,
            expire_at: f.str("expire_at")?,
            status: f.str("status")?,
            bind_count: f.int("bind_count")?,
            bind_limit: f.int("bind_limit")?,
            remark: f.opt_str("remark")?.unwrap_or_default(),
            created_at: f.opt_str("created_at")?.unwrap_or_default(),
        })
    }
}

/// Success of `GetCardInfo`: the card's state, consuming nothing.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CardInfo {
    /// The card key.
    pub card: String,
    /// The card type's display name.
    pub card_type: String,
    /// `unused`, `active`, `expired`, `exhausted`, `used`, `disabled` or `refunded`.
    pub status: String,
    /// True for a count card.
    pub is_times: bool,
    /// Bound machine code; empty when not bound.
    pub device_id: String,
    /// First use; empty when unused.
    pub activated_at: String,
    /// Expiry; empty when unused.
    pub expire_at: String,
    /// Duration in `duration_type` units (0 for a count card).
    pub duration: i64,
    /// `day` or `hour`.
    pub duration_type: String,
    /// Count-card usage, when `is_times`.
    pub uses: Option<CardUses>,
}

impl FromData for CardInfo {
    fn from_data(data: &Value) -> Result<Self, String> {
        let f = Fields::of("GetCardInfo", data)?;
        let is_times = f.bool("is_times")?;
        Ok(CardInfo {
            card: f.str("card")?,
            card_type: f.str("card_type")?,
            status: f.str("status")?,
            is_times,
            device_id: f.opt_str("device_id")?.unwrap_or_default(),
            activated_at: f.opt_str("activated_at")?.unwrap_or_default(),
            expire_at: f.opt_str("expire_at")?.unwrap_or_default(),
            duration: f.opt_int("duration")?.unwrap_or_default(),
            duration_type: f.opt_str("duration_type")?.unwrap_or_default(),
            uses: card_uses(&f, is_times)?,
        })
    }
}

/// Step 1 of a social login: the authorization URL to show, and the state to poll with.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SocialStart {
    /// The external authorization link.
    pub url: String,
    /// The value to pass to [`Client::social_login_poll`].
    pub state: String,
}

impl FromData for SocialStart {
    fn from_data(data: &Value) -> Result<Self, String> {
        let f = Fields::of("UserLogin", data)?;
        Ok(SocialStart {
            url: f.str("url")?,
            state: f.str("state")?,
        })
    }
}

/// Step 1 of a social registration: the authorization URL. The account is created when the
/// user completes the authorization.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SocialRegistration {
    /// The external authorization link.
    pub url: String,
}

impl SocialRegistration {
    /// The `state` query parameter of the URL, when it has one.
    pub fn state(&self) -> Option<String> {
        let query = self.url.split_once('?')?.1;
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

impl FromData for SocialRegistration {
    fn from_data(data: &Value) -> Result<Self, String> {
        let f = Fields::of("UserRegin", data)?;
        Ok(SocialRegistration { url: f.str("url")? })
    }
}

/// Step 2 of a social login.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum SocialPoll {
    /// The user has not authorized yet (code 201): poll again.
    Pending,
    /// Authorized: the login payload (`remark` is the social account's display name).
    LoggedIn(UserSession),
}

/// Request builders. Each returns the request with its reply type, or an invalid-argument
/// error for a missing required value.
pub mod request {
    use super::*;

    /// `SingleLogin`: card key, machine code, optional device display name. Never sent twice
    /// (a count card would spend a use).
    pub fn single_login(
        card: &str,
        mac: &str,
        device_name: Option<&str>,
    ) -> Result<Call<CardLogin>, Error> {
        Ok(Call::from_request(
            ActionRequest::new("SingleLogin", false)
                .param("Card", required("card", card)?)
                .param("Mac", required("mac", mac)?)
                .opt_param("DeviceName", device_name),
        ))
    }

    /// `UserLogin` with a password, without a card.
    pub fn user_login(
        username: &str,
        password: &str,
        mac: Option<&str>,
    ) -> Result<Call<UserSession>, Error> {
        Ok(Call::from_request(
            ActionRequest::new("UserLogin", true)
                .param("UserName", required("username", username)?)
                .param("Password", required("password", password)?)
                .opt_param("Mac", mac),
        ))
    }

    /// `UserLogin` with a recharge card: the renewal branch (no token).
    pub fn user_login_with_card(
        username: &str,
        password: &str,
        card: &str,
        mac: Option<&str>,
    ) -> Result<Call<Renewal>, Error> {
        Ok(Call::from_request(
            ActionRequest::new("UserLogin", false)
                .param("UserName", required("username", username)?)
                .param("Password", required("password", password)?)
                .param("Card", required("card", card)?)
                .opt_param("Mac", mac),
        ))
    }

    /// `UserRegin` with a password, and optionally a card, machine code and device name.
    pub fn user_register(
        username: &str,
        password: &str,
        card: Option<&str>,
        mac: Option<&str>,
        device_name: Option<&str>,
    ) -> Result<Call<Registration>, Error> {
        Ok(Call::from_request(
            ActionRequest::new("UserRegin", false)
                .param("UserName", required("username", username)?)
                .param("Password", required("password", password)?)
                .opt_param("Card", card)
                .opt_param("Mac", mac)
                .opt_param("DeviceName", device_name),
        ))
    }

    /// `UpdatePwd`: old password checked, then replaced.
    pub fn update_password(
        username: &str,
        old_password: &str,
        new_password: &str,
    ) -> Result<Call<PasswordChanged>, Error> {
        Ok(Call::from_request(
            ActionRequest::new("UpdatePwd", false)
                .param("UserName", required("username", username)?)
                .param("Password", required("old_password", old_password)?)
                .param("NewPassword", required("new_password", new_password)?),
        ))
    }

    /// `ChangeBind`: binds the account to a new machine code.
    pub fn change_bind(
        username: &str,
        password: &str,
        new_mac: &str,
    ) -> Result<Call<Rebind>, Error> {
        Ok(Call::from_request(
            ActionRequest::new("ChangeBind", false)
                .param("UserName", required("username", username)?)
                .param("Password", required("password", password)?)
                .param("Mac", required("new_mac", new_mac)?),
        ))
    }

    /// `UserHeartbeat` for a card or account session, with the optional client IP.
    pub fn heartbeat(
        token: &str,
        kind: SessionKind,
        ip: Option<&str>,
    ) -> Result<Call<Heartbeat>, Error> {
        Ok(Call::from_request(
            ActionRequest::new("UserHeartbeat", true)
                .param("Token", required("token", token)?)
                .param("Type", kind.as_str())
                .opt_param("IP", ip),
        ))
    }

    /// `UserRecharge`: adds a duration card's time to an account (no password).
    pub fn user_recharge(username: &str, card: &str) -> Result<Call<Recharge>, Error> {
        Ok(Call::from_request(
            ActionRequest::new("UserRecharge", false)
                .param("UserName", required("username", username)?)
                .param("Card", required("card", card)?),
        ))
    }

    /// `GetLatestVersion`, optionally with the client's current version.
    pub fn get_latest_version(current: Option<&str>) -> Result<Call<LatestVersion>, Error> {
        Ok(Call::from_request(
            ActionRequest::new("GetLatestVersion", true).opt_param("Version", current),
        ))
    }

    /// `GetBulletin`.
    pub fn get_bulletin() -> Result<Call<Bulletin>, Error> {
        Ok(Call::from_request(ActionRequest::new("GetBulletin", true)))
    }

    /// `GetVariable` for one variable.
    pub fn get_variable(name: &str) -> Result<Call<Variable>, Error> {
        Ok(Call::from_request(
            ActionRequest::new("GetVariable", true).param("Name", required("name", name)?),
        ))
    }

    /// `GetVariable` for every variable.
    pub fn get_variables() -> Result<Call<Variables>, Error> {
        Ok(Call::from_request(ActionRequest::new("GetVariable", true)))
    }

    /// `GetUserInfo`.
    pub fn get_user_info(username: &str, password: &str) -> Result<Call<UserInfo>, Error> {
        Ok(Call::from_request(
            ActionRequest::new("GetUserInfo", true)
                .param("UserName", required("username", username)?)
                .param("Password", required("password", password)?),
        ))
    }

    /// `GetCardInfo`.
    pub fn get_card_info(card: &str) -> Result<Call<CardInfo>, Error> {
        Ok(Call::from_request(
            ActionRequest::new("GetCardInfo", true).param("Card", required("card", card)?),
        ))
    }

    /// Social login step 1 (`LoginType=social`, no `State`).
    pub fn social_login_start(mac: Option<&str>) -> Result<Call<SocialStart>, Error> {
        Ok(Call::from_request(
            ActionRequest::new("UserLogin", true)
                .param("LoginType", "social")
                .opt_param("Mac", mac),
        ))
    }

    /// Social login step 2 (`LoginType=social` with `State`). Its success consumes the
    /// state, so it is not sent twice.
    pub fn social_login_poll(state: &str, mac: Option<&str>) -> Result<Call<UserSession>, Error> {
        Ok(Call::from_request(
            ActionRequest::new("UserLogin", false)
                .param("LoginType", "social")
                .param("State", required("state", state)?)
                .opt_param("Mac", mac),
        ))
    }

    /// Social registration step 1 (`UserRegin` with `BindSocial=1`).
    pub fn social_register_start(
        username: &str,
        mac: Option<&str>,
        device_name: Option<&str>,
    ) -> Result<Call<SocialRegistration>, Error> {
        Ok(Call::from_request(
            ActionRequest::new("UserRegin", false)
                .param("UserName", required("username", username)?)
                .param("BindSocial", "1")
                .opt_param("Mac", mac)
                .opt_param("DeviceName", device_name),
        ))
    }

    /// Any action with any parameters, never sent twice once it may have been delivered.
    pub fn generic(action: &str, params: &[(&str, &str)]) -> Result<ActionRequest, Error> {
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
        Ok(request)
    }
}

/// The typed calls. Each returns the typed reply on code 200, the server's refusal as an
/// [`Error`] carrying its code, message, remark and reply, or a local failure.
impl Client {
    /// Sends a built call and reads its typed reply.
    pub fn send<T: FromData>(&self, call: Call<T>) -> Result<T, Error> {
        self.exchange(&call.request)?.into_typed()
    }

    /// Sends any action with any parameters. `Ok` for codes 200 and 201; other codes are the
    /// server's refusal as an error carrying the reply.
    pub fn call(&self, action: &str, params: &[(&str, &str)]) -> Result<Reply, Error> {
        let reply = self.exchange(&request::generic(action, params)?)?;
        match reply.code() {
            CODE_OK | CODE_PENDING => Ok(reply),
            _ => Err(Error::refused(reply)),
        }
    }

    /// `SingleLogin`: activates or re-validates a card on this machine (card mode).
    pub fn single_login(
        &self,
        card: &str,
        mac: &str,
        device_name: Option<&str>,
    ) -> Result<CardLogin, Error> {
        self.send(request::single_login(card, mac, device_name)?)
    }

    /// `UserLogin` with username and password (account mode).
    pub fn user_login(
        &self,
        username: &str,
        password: &str,
        mac: Option<&str>,
    ) -> Result<UserSession, Error> {
        self.send(request::user_login(username, password, mac)?)
    }

    /// `UserLogin` with a recharge card: renews the account; returns no token.
    pub fn user_login_with_card(
        &self,
        username: &str,
        password: &str,
        card: &str,
        mac: Option<&str>,
    ) -> Result<Renewal, Error> {
        self.send(request::user_login_with_card(
            username, password, card, mac,
        )?)
    }

    /// `UserRegin`: registers an account, optionally activated by a duration card.
    pub fn user_register(
        &self,
        username: &str,
        password: &str,
        card: Option<&str>,
        mac: Option<&str>,
        device_name: Option<&str>,
    ) -> Result<Registration, Error> {
        self.send(request::user_register(
            username,
            password,
            card,
            mac,
            device_name,
        )?)
    }

    /// `UpdatePwd`: changes the account's password.
    pub fn update_password(
        &self,
        username: &str,
        old_password: &str,
        new_password: &str,
    ) -> Result<PasswordChanged, Error> {
        self.send(request::update_password(
            username,
            old_password,
            new_password,
        )?)
    }

    /// `ChangeBind`: binds the account to a new machine code.
    pub fn change_bind(
        &self,
        username: &str,
        password: &str,
        new_mac: &str,
    ) -> Result<Rebind, Error> {
        self.send(request::change_bind(username, password, new_mac)?)
    }

    /// `UserHeartbeat`: keeps a session alive and collects a back-office message.
    pub fn heartbeat(
        &self,
        token: &str,
        kind: SessionKind,
        ip: Option<&str>,
    ) -> Result<Heartbeat, Error> {
        self.send(request::heartbeat(token, kind, ip)?)
    }

    /// `UserRecharge`: adds a duration card's time to an account.
    pub fn user_recharge(&self, username: &str, card: &str) -> Result<Recharge, Error> {
        self.send(request::user_recharge(username, card)?)
    }

    /// `GetLatestVersion`.
    pub fn get_latest_version(&self, current: Option<&str>) -> Result<LatestVersion, Error> {
        self.send(request::get_latest_version(current)?)
    }

    /// `GetBulletin`.
    pub fn get_bulletin(&self) -> Result<Bulletin, Error> {
        self.send(request::get_bulletin()?)
    }

    /// `GetVariable` for one variable.
    pub fn get_variable(&self, name: &str) -> Result<Variable, Error> {
        self.send(request::get_variable(name)?)
    }

    /// `GetVariable` for every variable.
    pub fn get_variables(&self) -> Result<Variables, Error> {
        self.send(request::get_variables()?)
    }

    /// `GetUserInfo`.
    pub fn get_user_info(&self, username: &str, password: &str) -> Result<UserInfo, Error> {
        self.send(request::get_user_info(username, password)?)
    }

    /// `GetCardInfo`: the card's state, consuming nothing.
    pub fn get_card_info(&self, card: &str) -> Result<CardInfo, Error> {
        self.send(request::get_card_info(card)?)
    }

    /// Social login step 1: the URL to show the user, and the state to poll with.
    pub fn social_login_start(&self, mac: Option<&str>) -> Result<SocialStart, Error> {
        self.send(request::social_login_start(mac)?)
    }

    /// Social login step 2, once: `Pending` while the user has not authorized (code 201).
    pub fn social_login_poll(&self, state: &str, mac: Option<&str>) -> Result<SocialPoll, Error> {
        let call = request::social_login_poll(state, mac)?;
        let reply = self.exchange(&call.request)?;
        if reply.code() == CODE_PENDING {
            return Ok(SocialPoll::Pending);
        }
        reply.into_typed().map(SocialPoll::LoggedIn)
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
        self.social_login_wait_reply(state, mac, interval, timeout, cancel)?
            .into_typed()
    }

    /// [`Client::social_login_wait`], giving the final reply (any code but 201).
    pub(crate) fn social_login_wait_reply(
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
        let call = request::social_login_poll(state, mac)?;
        let transport = Arc::new(self.sibling_transport());
        cancel.attach(Arc::clone(&transport));
        let deadline = Instant::now() + timeout;
        let outcome = loop {
            if cancel.is_cancelled() {
                break Err(cancelled());
            }
            let reply = match self.exchange_on(&transport, &call.request) {
                Ok(reply) => reply,
                Err(_) if cancel.is_cancelled() => break Err(cancelled()),
                Err(error) => break Err(error),
            };
            if reply.code() != CODE_PENDING {
                break Ok(reply);
            }
            let now = Instant::now();
            if now >= deadline {
                break Err(Error::local(
                    ErrorKind::Timeout,
                    format!(
                        "social authorization not completed within {} ms",
                        timeout.as_millis()
                    ),
                ));
            }
            // The last pause ends at the deadline, for one last poll.
            if cancel.wait(interval.min(deadline - now)) {
                break Err(cancelled());
            }
        };
        cancel.detach(&transport);
        outcome
    }

    /// Social registration step 1: the URL to show the user.
    pub fn social_register_start(
        &self,
        username: &str,
        mac: Option<&str>,
        device_name: Option<&str>,
    ) -> Result<SocialRegistration, Error> {
        self.send(request::social_register_start(username, mac, device_name)?)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn required_arguments_are_checked_before_sending() {
        let err = request::single_login("", "MAC", None)
            .err()
            .expect("empty card");
        assert_eq!(err.code(), crate::error::local::INVALID_ARGUMENT);
        assert!(err.message().contains("card"));
        assert!(request::generic("", &[]).is_err());
        assert!(request::generic("X", &[("action", "Y")]).is_err());
        assert!(request::generic("X", &[("", "Y")]).is_err());
    }

    #[test]
    fn optional_parameters_are_left_out() {
        let call = request::user_register("u", "p", None, Some("M"), None).expect("valid");
        let keys: Vec<&str> = call
            .request
            .params
            .iter()
            .map(|(k, _)| k.as_str())
            .collect();
        assert_eq!(keys, ["UserName", "Password", "Mac"]);
    }

    #[test]
    fn token_debug_is_redacted() {
        let token = Token("a".repeat(40));
        assert_eq!(format!("{token:?}"), "Token(<40 characters>)");
    }

    #[test]
    fn social_registration_state_is_read_from_the_url() {
        let reg = SocialRegistration {
            url: "https://social.example.invalid/oauth/authorize?x=1&state=ab%2Bc#frag".into(),
        };
        assert_eq!(reg.state().as_deref(), Some("ab+c"));
        let none = SocialRegistration {
            url: "https://x/".into(),
        };
        assert_eq!(none.state(), None);
    }

    #[test]
    fn shape_errors_name_the_field() {
        let data = serde_json::json!({"token": 5, "status": "active", "is_times": false,
            "card_type": "t", "expire_at": "e"});
        let err = CardLogin::from_data(&data).expect_err("token is a number");
        assert!(err.contains("`token`"), "{err}");
        let data = serde_json::json!({"username": "u", "expire_at": "e", "added_days": "30天",
            "status": "active"});
        assert!(Renewal::from_data(&data).is_err());
        assert!(Recharge::from_data(&data).is_ok());
    }
}
