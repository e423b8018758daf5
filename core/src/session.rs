//! The two kinds of session of the service: card mode and account mode (the `Type` of a
//! heartbeat). At the bottom of the layers: requests, replies, the store and the keeper all
//! name them.

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

    /// The kind of a wire value (`card` or `user`); `None` for anything else.
    pub fn from_wire(value: &str) -> Option<SessionKind> {
        [SessionKind::Card, SessionKind::User]
            .into_iter()
            .find(|kind| kind.as_str() == value)
    }
}
