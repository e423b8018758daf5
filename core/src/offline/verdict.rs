//! A stored verdict: what the store keeps of the last good login of an identity (a card, an
//! account), and its file format.

use std::time::{Duration, SystemTime, UNIX_EPOCH};

use serde_json::{json, Map, Value};

use super::clock_mark::Stamp;
use super::password_hash::PasswordHash;
use crate::session::SessionKind;

/// The format of the verdict file's contents (3: with the stamp of the time mark it was
/// written under; 2: with the password's hash in account mode; a verdict of format 1 or 2 is
/// judged as then until its next online login, and one of format 1 answers in card mode
/// only).
const FORMAT: i64 = 3;

/// The stored verdict.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Verdict {
    pub(crate) kind: SessionKind,
    /// A keyed hash of the card key or username.
    pub(crate) identity: String,
    pub(crate) machine: String,
    /// The server's `data` of the licence, without the token.
    pub(crate) data: Map<String, Value>,
    /// Unix seconds of the last confirmation by the server (its `Date`, else the local
    /// clock).
    pub(crate) confirmed_at: i64,
    /// Unix seconds of the latest server time seen.
    pub(crate) server_time: i64,
    /// Account mode: the slow salted hash of the password of the last online login.
    pub(crate) password: Option<PasswordHash>,
    /// The time mark the verdict was written under.
    pub(crate) marked: Marked,
    /// A keyed hash of the session token the login gave (never the token): a heartbeat of
    /// that session finds its verdict by it.
    pub(crate) token: Option<String>,
}

/// What a verdict records of the time mark it was written under.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum Marked {
    /// Its stamp: the pieces must vouch for it offline ([`ClockMark::vouch`]).
    By(Stamp),
    /// The mark could not be stored in both places when the verdict was written (a place
    /// not writable, no second place): it cannot answer offline.
    Unmarked,
    /// Stored by a version before marks had an identity (formats 1 and 2): judged as then
    /// until its next online login ([`ClockMark::latest_unstamped`]).
    Unstamped,
}

impl Marked {
    pub(crate) fn of(stamp: Option<Stamp>) -> Marked {
        stamp.map_or(Marked::Unmarked, Marked::By)
    }
}

impl Verdict {
    pub(crate) fn to_bytes(&self) -> Vec<u8> {
        // An unstamped verdict (its password hash changed online) keeps its format.
        let format = match self.marked {
            Marked::Unstamped => 2,
            Marked::By(_) | Marked::Unmarked => FORMAT,
        };
        json!({
            "format": format,
            "mode": self.kind.as_str(),
            "identity": self.identity,
            "machine": self.machine,
            "data": self.data,
            "confirmed_at": self.confirmed_at,
            "server_time": self.server_time,
            "password": self.password.as_ref().map(|hash| json!({
                "salt": hex::encode(&hash.salt),
                "hash": hex::encode(&hash.hash),
                "rounds": hash.rounds,
            })),
            "mark": match &self.marked {
                Marked::By(stamp) => stamp.to_json(),
                Marked::Unmarked | Marked::Unstamped => Value::Null,
            },
            "token": self.token,
        })
        .to_string()
        .into_bytes()
    }

    pub(crate) fn from_bytes(bytes: &[u8]) -> Option<Verdict> {
        let value: Value = serde_json::from_slice(bytes).ok()?;
        let format = value.get("format")?.as_i64()?;
        let marked = match format {
            1 | 2 => Marked::Unstamped,
            FORMAT => match value.get("mark") {
                None | Some(Value::Null) => Marked::Unmarked,
                Some(stamp) => Marked::By(Stamp::from_json(stamp)?),
            },
            _ => return None,
        };
        let password = match value.get("password") {
            None | Some(Value::Null) => None,
            Some(hash) => Some(PasswordHash {
                salt: hex::decode(hash.get("salt")?.as_str()?).ok()?,
                hash: hex::decode(hash.get("hash")?.as_str()?).ok()?,
                rounds: u32::try_from(hash.get("rounds")?.as_u64()?).ok()?,
            }),
        };
        Some(Verdict {
            kind: match value.get("mode")?.as_str()? {
                "card" => SessionKind::Card,
                "user" => SessionKind::User,
                _ => return None,
            },
            identity: value.get("identity")?.as_str()?.to_owned(),
            machine: value.get("machine")?.as_str()?.to_owned(),
            data: value.get("data")?.as_object()?.clone(),
            confirmed_at: value.get("confirmed_at")?.as_i64()?,
            server_time: value.get("server_time")?.as_i64()?,
            password,
            marked,
            token: value
                .get("token")
                .and_then(Value::as_str)
                .map(str::to_owned),
        })
    }

    /// The licence's expiry, from the service's `expire_at`.
    pub(crate) fn expiry(&self) -> Option<i64> {
        self.data
            .get("expire_at")
            .and_then(Value::as_str)
            .and_then(service_time)
    }
}

/// Unix seconds of a service time `YYYY-MM-DD HH:mm:ss` (UTC+08:00): the action table's
/// reading ([`crate::actions::time::parse`]), the one the C ABI gives every binding.
pub fn service_time(text: &str) -> Option<i64> {
    crate::actions::time::parse(text).map(|time| time.unix_seconds)
}

/// Unix seconds of a time.
pub(crate) fn unix(time: SystemTime) -> i64 {
    match time.duration_since(UNIX_EPOCH) {
        Ok(after) => i64::try_from(after.as_secs()).unwrap_or(i64::MAX),
        Err(before) => -i64::try_from(before.duration().as_secs()).unwrap_or(i64::MAX),
    }
}

/// The time of Unix seconds.
pub(crate) fn system_time(unix: i64) -> SystemTime {
    let magnitude = Duration::from_secs(unix.unsigned_abs());
    if unix >= 0 {
        UNIX_EPOCH.checked_add(magnitude).unwrap_or(UNIX_EPOCH)
    } else {
        UNIX_EPOCH.checked_sub(magnitude).unwrap_or(UNIX_EPOCH)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn service_times_are_beijing_time() {
        // 2024-01-01 08:00:00 in Beijing is 2024-01-01 00:00:00 UTC.
        assert_eq!(service_time("2024-01-01 08:00:00"), Some(1_704_067_200));
        assert_eq!(service_time("1970-01-01 08:00:00"), Some(0));
        assert_eq!(service_time("2099-12-31 23:59:59"), Some(4_102_415_999));
        for bad in [
            "",
            "2024-13-01 00:00:00",
            "2024-01-01",
            "x-y-z 1:2:3",
            "2024-01-01 25:00:00",
        ] {
            assert_eq!(service_time(bad), None, "{bad:?}");
        }
    }

    /// A store of the previous version (a format 2 verdict, marks without an identity) is
    /// judged as then, and migrated by the next online login; put back afterwards, the old

    #[test]
    fn verdicts_round_trip() {
        let verdict = Verdict {
            kind: SessionKind::User,
            identity: "ab".into(),
            machine: "M".into(),
            data: json!({"expire_at": "2099-01-01 00:00:00"})
                .as_object()
                .cloned()
                .unwrap_or_default(),
            confirmed_at: 1,
            server_time: 2,
            password: Some(PasswordHash {
                salt: vec![1; 16],
                hash: vec![2; 32],
                rounds: 30_000,
            }),
            marked: Marked::By(Stamp {
                id: "00ff".into(),
                at: 3,
                second: "ab".into(),
            }),
            token: Some("cd".into()),
        };
        assert_eq!(
            Verdict::from_bytes(&verdict.to_bytes()),
            Some(verdict.clone())
        );
        assert_eq!(Verdict::from_bytes(b"{}"), None);
        let unmarked = Verdict {
            marked: Marked::Unmarked,
            ..verdict.clone()
        };
        assert_eq!(
            Verdict::from_bytes(&unmarked.to_bytes()),
            Some(unmarked.clone())
        );
        // A verdict of the previous format reads as unstamped.
        let mut older: Value = serde_json::from_slice(&verdict.to_bytes()).expect("json");
        older["format"] = json!(2);
        let older = Verdict::from_bytes(older.to_string().as_bytes()).expect("format 2");
        assert_eq!(older.marked, Marked::Unstamped);
        assert_eq!(Verdict::from_bytes(&older.to_bytes()), Some(older));
        assert_eq!(verdict.expiry(), service_time("2099-01-01 00:00:00"));
    }
}
