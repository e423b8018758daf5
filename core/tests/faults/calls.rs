//! The calls a case makes, and the service as the scripted server plays it.

use super::*;

/// The call a case makes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Call {
    /// SingleLogin with the card and machine code: changes state.
    Login,
    /// GetBulletin: read-only.
    Bulletin,
    /// UserLogin with the password and machine code: read-only.
    UserLogin,
    /// UserHeartbeat with the token: read-only.
    Heartbeat,
}

impl Call {
    pub(crate) fn wire(self) -> &'static str {
        match self {
            Call::Login => "SingleLogin",
            Call::Bulletin => "GetBulletin",
            Call::UserLogin => "UserLogin",
            Call::Heartbeat => "UserHeartbeat",
        }
    }

    pub(crate) fn changes_state(self) -> bool {
        self == Call::Login
    }

    pub(crate) fn run(self, client: &Client) -> Result<(), Error> {
        match self {
            Call::Login => client.single_login(CARD, MAC, None).map(drop),
            Call::Bulletin => client.get_bulletin().map(drop),
            Call::UserLogin => client.user_login(USERNAME, PASSWORD, Some(MAC)).map(drop),
            Call::Heartbeat => client.heartbeat(TOKEN, SessionKind::Card, None).map(drop),
        }
    }

    /// The service's answer to this call: a login echoes the card and machine code and
    /// issues the token, so that a message quoting a reply would show a secret.
    pub(crate) fn body(self) -> String {
        match self {
            Call::Login | Call::UserLogin => json!({
                "code": 200, "message": "ok",
                "data": {"token": TOKEN, "card": CARD, "mac": MAC,
                         "expire_time": "2099-01-01 00:00:00"}
            }),
            Call::Bulletin => json!({
                "code": 200, "message": "ok",
                "data": {"bulletin": "all is well", "updated_at": "2026-01-01 00:00:00"}
            }),
            Call::Heartbeat => json!({"code": 200, "message": "ok", "data": {"token": TOKEN}}),
        }
        .to_string()
    }
}

/// The Init reply of the scripted server.
pub(crate) fn init_body() -> String {
    json!({"code": 200, "message": "ok", "data": {"api_password": fake::API_PASSWORD}}).to_string()
}

/// The service as the scripted server plays it: Init, and each call's answer; 1001 for a
/// Handle request sealed with another session secret than its own.
pub(crate) fn healthy(request: &Request) -> Response {
    if request.is_init() {
        return Response::raw(200, init_body());
    }
    if request.plaintext.is_none() {
        return Response::envelope(1001, json!(null));
    }
    let call = [
        Call::Login,
        Call::Bulletin,
        Call::UserLogin,
        Call::Heartbeat,
    ]
    .into_iter()
    .find(|call| request.action() == Some(call.wire()));
    match call {
        Some(call) => Response::raw(200, call.body()),
        None => Response::envelope(1002, json!(null)),
    }
}
