//! Injected faults: what they are and which request they apply to.

use serde::{Deserialize, Serialize};

/// What a fault does to a matching request.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum FaultKind {
    /// The reply is sent after `delay_ms`.
    Delay,
    /// The action takes effect, then the connection is closed without a reply.
    Drop,
    /// The reply body is `this is not json` (HTTP 200); the action does not run.
    NonJson,
    /// HTTP 502 with an HTML page; the action does not run.
    #[serde(rename = "http_502")]
    Http502,
    /// The reply is cut in the middle of its JSON, after the action ran.
    TruncatedJson,
    /// HTTP 503 with a reverse proxy's HTML page; the action does not run.
    #[serde(rename = "http_503")]
    Http503,
    /// HTTP 504 with an empty body; the action does not run.
    #[serde(rename = "http_504")]
    Http504,
    /// HTTP 522 with a CDN's HTML page (the origin did not answer); the action does not run.
    #[serde(rename = "http_522")]
    Http522,
    /// HTTP 200 with a captive portal's HTML login page; the action does not run.
    CaptivePortal,
}

impl FaultKind {
    /// The name of the kind, as in JSON.
    pub fn name(self) -> &'static str {
        match self {
            FaultKind::Delay => "delay",
            FaultKind::Drop => "drop",
            FaultKind::NonJson => "non_json",
            FaultKind::Http502 => "http_502",
            FaultKind::TruncatedJson => "truncated_json",
            FaultKind::Http503 => "http_503",
            FaultKind::Http504 => "http_504",
            FaultKind::Http522 => "http_522",
            FaultKind::CaptivePortal => "captive_portal",
        }
    }
}

/// A fault for service requests of `app_id` (all when `None`) and `action` (all when `None`;
/// `"Init"` names the handshake), for the next `count` matching requests or until cleared.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Fault {
    pub kind: FaultKind,
    #[serde(default)]
    pub app_id: Option<String>,
    #[serde(default)]
    pub action: Option<String>,
    #[serde(default)]
    pub count: Option<u32>,
    #[serde(default)]
    pub delay_ms: u64,
}

impl Fault {
    fn matches(&self, app_id: Option<&str>, action: Option<&str>) -> bool {
        let app_ok = match &self.app_id {
            None => true,
            Some(want) => app_id == Some(want.as_str()),
        };
        let action_ok = match &self.action {
            None => true,
            Some(want) => action == Some(want.as_str()),
        };
        app_ok && action_ok && self.count != Some(0)
    }
}

/// The active faults, in the order they were set.
#[derive(Debug, Default)]
pub struct Faults(Vec<Fault>);

impl Faults {
    pub fn add(&mut self, f: Fault) {
        if f.count != Some(0) {
            self.0.push(f);
        }
    }

    /// Removes all faults, or those set for one program.
    pub fn clear(&mut self, app_id: Option<&str>) {
        match app_id {
            None => self.0.clear(),
            Some(id) => self.0.retain(|f| f.app_id.as_deref() != Some(id)),
        }
    }

    /// The active faults, in order (`count` is what remains), of one program or all; a
    /// fault set for every program is listed for each.
    pub fn list(&self, app_id: Option<&str>) -> Vec<Fault> {
        self.0
            .iter()
            .filter(|f| app_id.is_none() || f.app_id.is_none() || f.app_id.as_deref() == app_id)
            .cloned()
            .collect()
    }

    /// The first fault that matches a request, consuming one of its uses.
    pub fn take(&mut self, app_id: Option<&str>, action: Option<&str>) -> Option<Fault> {
        let i = self.0.iter().position(|f| f.matches(app_id, action))?;
        let fault = self.0[i].clone();
        if let Some(n) = self.0[i].count.as_mut() {
            *n -= 1;
            if *n == 0 {
                self.0.remove(i);
            }
        }
        Some(fault)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn kinds_parse_in_snake_case() {
        let f: Fault = serde_json::from_str(r#"{"kind":"http_502","count":1}"#).unwrap();
        assert_eq!(f.kind, FaultKind::Http502);
        let f: Fault = serde_json::from_str(r#"{"kind":"truncated_json"}"#).unwrap();
        assert_eq!(f.kind, FaultKind::TruncatedJson);
        let f: Fault = serde_json::from_str(r#"{"kind":"non_json"}"#).unwrap();
        assert_eq!(f.kind, FaultKind::NonJson);
        for kind in [
            FaultKind::Http503,
            FaultKind::Http504,
            FaultKind::Http522,
            FaultKind::CaptivePortal,
        ] {
            let text = format!(r#"{{"kind":"{}"}}"#, kind.name());
            let f: Fault = serde_json::from_str(&text).unwrap();
            assert_eq!(f.kind, kind);
        }
    }

    #[test]
    fn counted_faults_run_out() {
        let mut faults = Faults::default();
        faults.add(Fault {
            kind: FaultKind::Drop,
            app_id: Some("1".into()),
            action: Some("Init".into()),
            count: Some(2),
            delay_ms: 0,
        });
        assert!(faults.take(Some("2"), Some("Init")).is_none());
        assert!(faults.take(Some("1"), Some("GetBulletin")).is_none());
        assert!(faults.take(Some("1"), Some("Init")).is_some());
        assert!(faults.take(Some("1"), Some("Init")).is_some());
        assert!(faults.take(Some("1"), Some("Init")).is_none());
    }
}
