//! The doctor's report: each step with its verdict, a stable key and a sentence, the causes
//! among them (`causes.rs` says which steps are causes and which follow from one); as JSON
//! (schema version [`REPORT_VERSION`], docs/doctor.md) and as a short text whose first line
//! names the cause (`text.rs`). Redacted when it is made: no AppKey, api password, card,
//! password or token (host names and addresses stay: support needs them).

use std::fmt;
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use serde_json::{json, Map, Value};

use super::table::{self, Actor, StepKind};
use crate::language::Language;

/// The version of the report's JSON schema (docs/doctor.md, "JSON schema, version 2"). It
/// grows by fields; a change that renames, removes or retypes one bumps it.
pub const REPORT_VERSION: u32 = 2;

/// How a step went. Ordered: `Pass < Skip < Warn < Fail`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Verdict {
    /// It worked.
    Pass = 0,
    /// Not run (not needed with these options, or no time left); says why.
    Skip = 1,
    /// It worked, with something the developer or the user should know.
    Warn = 2,
    /// It failed: this is (one of) why the program cannot log in.
    Fail = 3,
}

impl Verdict {
    /// `pass`, `skip`, `warn` or `fail`.
    pub fn name(self) -> &'static str {
        match self {
            Verdict::Pass => "pass",
            Verdict::Skip => "skip",
            Verdict::Warn => "warn",
            Verdict::Fail => "fail",
        }
    }
}

/// One step of the report.
#[derive(Debug, Clone)]
pub struct Step {
    /// What was checked.
    pub kind: StepKind,
    /// How it went.
    pub verdict: Verdict,
    /// A stable key naming the step and its cause (`tls.pin_mismatch`, `init.1011`,
    /// `lookup.not_found`...): a message in another language is looked up by it, with the
    /// values of `details`.
    pub key: &'static str,
    /// The line (`scheme://host:port`) it concerns, if any.
    pub line: Option<String>,
    /// The address (`ip:port`) it concerns, if any.
    pub address: Option<String>,
    /// How long it took, when it ran.
    pub elapsed: Option<Duration>,
    /// The sentence, in English.
    pub message: String,
    /// The step's facts (addresses, protocol, certificate names and dates, codes...).
    pub details: Map<String, Value>,
    /// The key of the cause this step follows from (an Init that failed because the TLS
    /// step did), when it is not a cause of its own.
    pub knock_on: Option<&'static str>,
}

impl Step {
    pub(crate) fn new(
        kind: StepKind,
        verdict: Verdict,
        key: &'static str,
        message: impl Into<String>,
    ) -> Step {
        Step::made(kind, verdict, key, message.into())
    }

    /// [`Step::new`] once the message is a `String`: one copy for the doctor's 60 steps.
    #[inline(never)]
    fn made(kind: StepKind, verdict: Verdict, key: &'static str, message: String) -> Step {
        Step {
            kind,
            verdict,
            key,
            line: None,
            address: None,
            elapsed: None,
            message,
            details: Map::new(),
            knock_on: None,
        }
    }

    /// Who acts on this step when it is a cause (the table's).
    pub fn actor(&self) -> Actor {
        table::actor(self.key)
    }

    /// A detail as text (a string, or a number written out), for a sentence.
    pub(crate) fn detail_text(&self, name: &str) -> Option<String> {
        match self.details.get(name)? {
            Value::String(text) => Some(text.clone()),
            Value::Number(number) => Some(number.to_string()),
            Value::Array(items) => Some(
                items
                    .iter()
                    .filter_map(|item| item.as_str().map(str::to_owned))
                    .collect::<Vec<_>>()
                    .join(", "),
            ),
            _ => None,
        }
    }

    pub(crate) fn line(mut self, line: &str) -> Step {
        self.line = Some(line.to_owned());
        self
    }

    pub(crate) fn address(mut self, address: impl fmt::Display) -> Step {
        self.address = Some(address.to_string());
        self
    }

    pub(crate) fn took(mut self, elapsed: Duration) -> Step {
        self.elapsed = Some(elapsed);
        self
    }

    pub(crate) fn detail(self, name: &str, value: impl Into<Value>) -> Step {
        self.with_detail(name, value.into())
    }

    /// [`Step::detail`] once converted: one copy of the insertion (and of the move of the
    /// whole step), not one for each type of value or each of the 40 call sites.
    #[inline(never)]
    fn with_detail(mut self, name: &str, value: Value) -> Step {
        self.details.insert(name.to_owned(), value);
        self
    }

    fn to_json(&self) -> Value {
        json!({
            "step": self.kind.name(),
            "verdict": self.verdict.name(),
            "key": self.key,
            "line": self.line,
            "address": self.address,
            "elapsed_ms": self.elapsed.map(millis),
            "message": self.message,
            "who": match self.actor() {
                Actor::None => Value::Null,
                actor => json!(actor.name()),
            },
            "knock_on": self.knock_on,
            "details": self.details,
        })
    }
}

/// The doctor's report (see [`crate::diagnose()`]).
#[derive(Debug, Clone)]
pub struct Report {
    /// The base URL asked for.
    pub url: String,
    /// The mirrors.
    pub mirrors: Vec<String>,
    /// The program's AppId (not a secret).
    pub app_id: String,
    /// When the doctor started (local clock).
    pub started_at: SystemTime,
    /// How long it took.
    pub elapsed: Duration,
    /// The deadline it was given.
    pub deadline: Duration,
    /// The steps, in the order they are listed (options, then per line, then the
    /// service, then what is kept on this machine).
    pub steps: Vec<Step>,
    /// The indexes in `steps` of the causes (steps that warned or failed and follow from
    /// no other), the first line's first: failures before warnings, each in the report's
    /// order.
    pub causes: Vec<usize>,
    /// Whether the doctor was cancelled before it finished (the steps it had not finished
    /// say so).
    pub cancelled: bool,
}

impl Report {
    /// The worst verdict of its steps (`Pass` when every step passed or was skipped).
    pub fn verdict(&self) -> Verdict {
        match self.steps.iter().map(|s| s.verdict).max() {
            Some(Verdict::Skip) | None => Verdict::Pass,
            Some(worst) => worst,
        }
    }

    /// Whether a step failed.
    pub fn failed(&self) -> bool {
        self.verdict() == Verdict::Fail
    }

    /// The steps of `kind`.
    pub fn steps_of(&self, kind: StepKind) -> impl Iterator<Item = &Step> {
        self.steps.iter().filter(move |s| s.kind == kind)
    }

    /// The first cause: the step the first line names (`None` when nothing warned or
    /// failed).
    pub fn cause(&self) -> Option<&Step> {
        self.causes.first().and_then(|&at| self.steps.get(at))
    }

    /// The report as JSON (schema version 2 in docs/doctor.md).
    pub fn to_json(&self) -> Value {
        let count = |verdict| self.steps.iter().filter(|s| s.verdict == verdict).count();
        let cause = |&at: &usize| {
            self.steps.get(at).map(|step| {
                json!({
                    "index": at,
                    "step": step.kind.name(),
                    "key": step.key,
                    "verdict": step.verdict.name(),
                    "who": step.actor().name(),
                    "line": step.line,
                    "address": step.address,
                    "message": self.sentence(step, Language::En),
                })
            })
        };
        json!({
            "version": REPORT_VERSION,
            "library": concat!("verify ", env!("CARGO_PKG_VERSION")),
            "url": self.url,
            "mirrors": self.mirrors,
            "app_id": self.app_id,
            "started_at": rfc3339(self.started_at),
            "elapsed_ms": millis(self.elapsed),
            "deadline_ms": millis(self.deadline),
            "verdict": self.verdict().name(),
            "cancelled": self.cancelled,
            "first_line": self.first_line(Language::En),
            "cause": self.causes.first().and_then(cause),
            "causes": self.causes.iter().filter_map(cause).collect::<Vec<_>>(),
            "counts": {
                "pass": count(Verdict::Pass),
                "warn": count(Verdict::Warn),
                "fail": count(Verdict::Fail),
                "skip": count(Verdict::Skip),
                "causes": self.causes.len(),
            },
            "steps": self.steps.iter().map(Step::to_json).collect::<Vec<_>>(),
        })
    }

    /// The report as a short English text, one line a step, to paste into a chat:
    /// [`Report::text_in`] English.
    pub fn to_text(&self) -> String {
        self.text_in(Language::En)
    }

    /// Replaces every occurrence of each secret (at least 4 bytes long) in the report's
    /// texts with `[redacted]`.
    pub(crate) fn redact(&mut self, secrets: &[&str]) {
        let clean = cleaner(secrets);
        clean(&mut self.url);
        self.mirrors.iter_mut().for_each(&clean);
        for step in &mut self.steps {
            step.redact(secrets);
        }
    }
}

/// A function that replaces each secret (at least 4 bytes long) in a text with
/// `[redacted]`.
fn cleaner<'a>(secrets: &'a [&'a str]) -> impl Fn(&mut String) + 'a {
    move |text: &mut String| {
        for secret in secrets.iter().filter(|s| s.len() >= 4) {
            if text.contains(secret) {
                *text = text.replace(secret, "[redacted]");
            }
        }
    }
}

impl Step {
    /// Replaces every occurrence of each secret in the step's texts with `[redacted]`.
    pub(crate) fn redact(&mut self, secrets: &[&str]) {
        let clean = cleaner(secrets);
        clean(&mut self.message);
        self.line.iter_mut().for_each(&clean);
        self.address.iter_mut().for_each(&clean);
        for value in self.details.values_mut() {
            redact_value(value, &clean);
        }
    }
}

impl fmt::Display for Report {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.to_text())
    }
}

fn redact_value(value: &mut Value, clean: &dyn Fn(&mut String)) {
    match value {
        Value::String(text) => clean(text),
        Value::Array(items) => items.iter_mut().for_each(|v| redact_value(v, clean)),
        Value::Object(map) => map.values_mut().for_each(|v| redact_value(v, clean)),
        _ => {}
    }
}

/// Unix seconds of a time.
pub(crate) fn unix(time: SystemTime) -> i64 {
    match time.duration_since(UNIX_EPOCH) {
        Ok(after) => i64::try_from(after.as_secs()).unwrap_or(i64::MAX),
        Err(before) => -i64::try_from(before.duration().as_secs()).unwrap_or(i64::MAX),
    }
}

/// Unix seconds now.
pub(crate) fn unix_now() -> i64 {
    unix(SystemTime::now())
}

pub(crate) fn millis(duration: Duration) -> u64 {
    u64::try_from(duration.as_millis()).unwrap_or(u64::MAX)
}

/// `YYYY-MM-DDTHH:MM:SSZ` of a time (UTC).
pub(crate) fn rfc3339(time: SystemTime) -> String {
    rfc3339_of(unix(time))
}

/// `YYYY-MM-DDTHH:MM:SSZ` of Unix seconds.
pub(crate) fn rfc3339_of(seconds: i64) -> String {
    let days = seconds.div_euclid(86_400);
    let rest = seconds.rem_euclid(86_400);
    // Howard Hinnant's civil_from_days.
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z.rem_euclid(146_097);
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let day = doy - (153 * mp + 2) / 5 + 1;
    let month = if mp < 10 { mp + 3 } else { mp - 9 };
    let year = yoe + era * 400 + i64::from(month <= 2);
    format!(
        "{year:04}-{month:02}-{day:02}T{:02}:{:02}:{:02}Z",
        rest / 3600,
        rest % 3600 / 60,
        rest % 60
    )
}

/// A span of seconds in words: `45 s`, `12 min`, `3 h`, `2 days`.
pub(crate) fn span(seconds: i64) -> String {
    let s = seconds.unsigned_abs();
    match s {
        0..=119 => format!("{s} s"),
        120..=7199 => format!("{} min", s / 60),
        7200..=172_799 => format!("{} h", s / 3600),
        _ => format!("{} days", s / 86_400),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn dates_print_as_rfc3339() {
        assert_eq!(rfc3339_of(0), "1970-01-01T00:00:00Z");
        assert_eq!(rfc3339_of(951_782_400), "2000-02-29T00:00:00Z");
        assert_eq!(rfc3339_of(4_102_444_799), "2099-12-31T23:59:59Z");
        assert_eq!(rfc3339_of(-1), "1969-12-31T23:59:59Z");
    }

    #[test]
    fn the_worst_step_is_the_verdict_and_secrets_are_redacted() {
        let mut report = Report {
            url: "https://a.example".into(),
            mirrors: vec![],
            app_id: "1".into(),
            started_at: UNIX_EPOCH,
            elapsed: Duration::ZERO,
            deadline: Duration::from_secs(10),
            causes: Vec::new(),
            cancelled: false,
            steps: vec![
                Step::new(StepKind::Options, Verdict::Skip, "options.ok", "fine"),
                Step::new(StepKind::Init, Verdict::Pass, "init.ok", "said SECRETKEY")
                    .detail("echo", json!({"x": ["SECRETKEY"]})),
            ],
        };
        assert_eq!(report.verdict(), Verdict::Pass);
        report.redact(&["SECRETKEY", ""]);
        let text = format!("{}{}", report.to_json(), report.to_text());
        assert!(!text.contains("SECRETKEY"), "{text}");
        assert!(text.contains("[redacted]"), "{text}");
        report
            .steps
            .push(Step::new(StepKind::Tcp, Verdict::Fail, "tcp.refused", "no"));
        assert!(report.failed());
        assert_eq!(report.to_json()["counts"]["fail"], 1);
    }
}
