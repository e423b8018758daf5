//! The doctor's steps with the service: one Init (the only request it sends: no login, no
//! card, nothing that changes the server's state), with what a reply that is not the
//! service's showed (status, `Server`, `Via`, content type, the page's title), and the clock
//! read from the `Date` of any reply that came (the service's, or a gateway's page).

use std::sync::{Arc, Mutex, PoisonError};
use std::time::{Duration, SystemTime};

use serde_json::{json, Value};

use super::report::{rfc3339, span, unix, Step, Verdict};
use super::stop::Stop;
use super::table::StepKind;
use crate::client::Client;
use crate::codes;
use crate::error::{Error, ErrorKind, HttpFacts};
use crate::log::LogLevel;
use crate::options::Options;

/// At most this many log lines of the Init are kept in the report.
const MAX_LOG_LINES: usize = 40;
/// A clock off by more than this is reported; by more than the server's tolerance (300 s),
/// it fails.
const CLOCK_WARN: i64 = 60;
const CLOCK_FAIL: i64 = 300;

/// What the service said: the Init step, the clock step, and whether Init passed.
pub(crate) struct Service {
    pub(crate) init: Step,
    pub(crate) clock: Step,
    pub(crate) passed: bool,
}

/// Runs Init as the program's client would (the same lines, trust, proxy and fixed
/// addresses; no state folder: nothing is remembered), within the deadline; a cancel of
/// the host's token stops it at once (the token watches the Init's connections).
pub(crate) fn check(
    base_url: &str,
    app_id: &str,
    app_key: &str,
    options: &Options,
    stop: &Stop,
) -> Service {
    let skipped_clock = |why: &str| {
        Step::new(
            StepKind::Clock,
            Verdict::Skip,
            "clock.no_reply",
            format!("not checked: {why}"),
        )
    };
    let call = stop.remaining();
    if call < Duration::from_millis(50) {
        return Service {
            init: Step::new(
                StepKind::Init,
                Verdict::Skip,
                "init.no_time",
                "not run: the doctor's deadline ran out",
            ),
            clock: skipped_clock("no reply from the server"),
            passed: false,
        };
    }
    let lines: Arc<Mutex<Vec<String>>> = Arc::default();
    let host_hook = options.log.clone();
    let kept = Arc::clone(&lines);
    let mut settings = options.clone();
    settings.state_folder = None;
    settings.offline_grace = None;
    settings.start_budget = None;
    settings.call_timeout = call;
    settings.connect_timeout = options.connect_timeout.min(call);
    settings.log = Some(Arc::new(move |level: LogLevel, message: &str| {
        let mut kept = kept.lock().unwrap_or_else(PoisonError::into_inner);
        if kept.len() < MAX_LOG_LINES {
            kept.push(message.to_owned());
        }
        if let Some(hook) = &host_hook {
            hook(level, message);
        }
    }));
    let client = match Client::with_options(base_url, app_id, app_key, settings) {
        Ok(client) => client,
        Err(err) => {
            return Service {
                init: Step::new(
                    StepKind::Init,
                    Verdict::Skip,
                    "init.bad_options",
                    format!("not run: the options are refused ({})", err.message()),
                ),
                clock: skipped_clock("no reply from the server"),
                passed: false,
            }
        }
    };
    let started = std::time::Instant::now();
    let outcome = {
        let _watch = stop.token().map(|token| token.watch());
        client.init_exchange()
    };
    let took = started.elapsed();
    if stop.cancelled() {
        return Service {
            init: Step::new(
                StepKind::Init,
                Verdict::Skip,
                "init.cancelled",
                "not finished: cancelled",
            )
            .took(took),
            clock: skipped_clock("cancelled"),
            passed: false,
        };
    }
    let offset = client.clock_offset();
    drop(client);
    let log: Vec<String> = lines.lock().unwrap_or_else(PoisonError::into_inner).clone();
    let answered_by = log.iter().rev().find_map(|line| {
        let rest = line.strip_prefix("Init with ")?;
        let url = rest.split(": code").next()?;
        Some(url.trim_end_matches("/api/verify").to_owned())
    });
    let reply = match &outcome {
        Ok(reply) => Some(reply),
        Err(err) => err.reply(),
    };
    let http = outcome.as_ref().err().and_then(Error::http_facts);
    let passed = matches!(&outcome, Ok(reply) if reply.code() == codes::OK);
    let clock = match (reply, http) {
        (Some(reply), _) => clock_step(reply.date(), "the Init reply", passed),
        (None, Some(http)) => clock_step(http.date_time(), "the HTTP reply", passed),
        (None, None) => skipped_clock("the server was not reached"),
    };
    let mut init = match &outcome {
        Ok(_) => {
            let mut words = format!(
                "the server accepted the program (AppId {app_id}){}",
                answered_by
                    .as_deref()
                    .map_or(String::new(), |url| format!(" at {url}"))
            );
            if offset != 0 {
                words.push_str(&format!(
                    "; it first refused this computer's time (1014) and the client corrected \
                     it by {offset} s from the server's Date"
                ));
            }
            Step::new(StepKind::Init, Verdict::Pass, "init.ok", words)
        }
        Err(err) => refusal(err, app_id),
    };
    init = init.took(took).detail("log", log);
    if let Some(http) = http {
        init = init
            .detail("status", http.status)
            .detail(
                "server",
                http.server.clone().unwrap_or_else(|| "?".to_owned()),
            )
            .detail("via", http.via.clone())
            .detail("content_type", http.content_type.clone())
            .detail(
                "title",
                http.title
                    .clone()
                    .or_else(|| http.content_type.clone())
                    .unwrap_or_else(|| "?".to_owned()),
            )
            .detail("body_start", http.body_start.as_str());
    }
    if let Some(url) = answered_by {
        init = init.detail("answered_by", url);
    }
    if let Some(reply) = reply {
        init = init
            .detail("code", reply.code())
            .detail("server_message", reply.message());
    }
    if offset != 0 {
        init = init.detail("clock_correction_s", offset);
    }
    Service {
        init,
        clock,
        passed,
    }
}

/// The Init step of a refusal or a local failure, with what it means for the developer.
fn refusal(err: &Error, app_id: &str) -> Step {
    let fail = |key, words: String| Step::new(StepKind::Init, Verdict::Fail, key, words);
    if let Some(reply) = err.reply() {
        let code = reply.code();
        let (key, meaning) = match code {
            codes::PROGRAM_NOT_FOUND => (
                "init.1001",
                format!(
                    "the server does not know the program {app_id}: check the AppId, and that \
                     the URL is the server the program was created on"
                ),
            ),
            codes::SIGNATURE_ERROR => (
                "init.1010",
                "the server refused the request's signature: the AppId and the AppKey do not \
                 belong together, or something on the way (a proxy, a filter) changed the \
                 request"
                    .to_owned(),
            ),
            codes::APP_KEY_WRONG => (
                "init.1011",
                format!(
                    "the AppKey is wrong for the program {app_id}: copy it again from the \
                     developer console (it is case-sensitive)"
                ),
            ),
            codes::NOT_APPROVED => (
                "init.1012",
                format!(
                    "the program {app_id} is not approved on the server (pending review, \
                     rejected, or its plan expired): the developer has it approved or renews \
                     the plan; no user can log in until then"
                ),
            ),
            codes::TIMESTAMP_SKEW => (
                "init.1014",
                "the server refused this computer's time even after the client corrected it \
                 from the server's Date: set the computer's clock and time zone"
                    .to_owned(),
            ),
            other => (
                "init.refused",
                format!(
                    "the server refused Init with {other} ({})",
                    codes::describe(other)
                ),
            ),
        };
        return fail(key, format!("refused with {code}: {meaning}"));
    }
    if let Some(http) = err.http_facts() {
        let (key, meaning) = http_meaning(http);
        return fail(key, format!("{meaning} ({})", err.message()));
    }
    let key = match err.kind() {
        ErrorKind::Network => "init.network",
        ErrorKind::Timeout => "init.timeout",
        ErrorKind::Tls => "init.tls",
        ErrorKind::Pin => "init.pin",
        ErrorKind::Proxy => "init.proxy",
        ErrorKind::Protocol => "init.protocol",
        _ => "init.failed",
    };
    fail(key, err.message().to_owned())
}

/// What a reply that is not the service's means: a gateway whose server behind it is down
/// (502, 503, 504), a web page with status 200 (a captive portal, a wrong address), another
/// status, or with 200 a body that is no page (the service's reply cut short or mangled).
fn http_meaning(http: &HttpFacts) -> (&'static str, String) {
    let server = http.server.as_deref().unwrap_or("no Server header");
    let title = http.title.as_deref().unwrap_or("no title");
    match http.status {
        502..=504 => (
            "init.gateway",
            format!(
                "a gateway ({server}) answered HTTP {} instead of the licensing service: the \
                 server behind it is down or cannot be reached from it",
                http.status
            ),
        ),
        200 if http.html => (
            "init.not_service",
            format!(
                "a web page ({title}) answered instead of the licensing service: a captive \
                 portal (sign in to the network) or a wrong server address"
            ),
        ),
        200 => (
            "init.protocol",
            "the reply is not the licensing service's (cut short or changed on the way)".to_owned(),
        ),
        status => (
            "init.http_status",
            format!(
                "the server ({server}) answered HTTP {status} ({title}) instead of the \
                 licensing service: check the server address"
            ),
        ),
    }
}

/// The clock step from the `Date` of a reply (`source` names it). A clock far off is a
/// warning when Init passed (the client corrects its requests from the server's `Date`;
/// certificate dates and offline verdicts still go by this clock), a failure when it did
/// not.
fn clock_step(date: Option<SystemTime>, source: &str, init_passed: bool) -> Step {
    let Some(server) = date else {
        return Step::new(
            StepKind::Clock,
            Verdict::Skip,
            "clock.no_date",
            format!("not checked: {source} has no Date header"),
        );
    };
    let local = SystemTime::now();
    let offset = unix(server).saturating_sub(unix(local));
    let direction = if offset > 0 { "behind" } else { "ahead of" };
    let (verdict, key, words) = match offset.abs() {
        0..=CLOCK_WARN => (
            Verdict::Pass,
            "clock.ok",
            format!(
                "this computer's clock agrees with the server's (within {} s)",
                offset.abs().max(1)
            ),
        ),
        ..=CLOCK_FAIL => (
            Verdict::Warn,
            "clock.drift",
            format!(
                "this computer's clock is {} {direction} the server's: within the server's \
                 tolerance of 300 s, but close to it",
                span(offset)
            ),
        ),
        _ => (
            if init_passed {
                Verdict::Warn
            } else {
                Verdict::Fail
            },
            "clock.off",
            format!(
                "this computer's clock is {} {direction} the server's, more than the server's \
                 tolerance of 300 s: the client corrects its requests from the server's Date, \
                 but certificate dates and offline verdicts go by this clock; set the \
                 computer's clock and time zone",
                span(offset)
            ),
        ),
    };
    Step::new(StepKind::Clock, verdict, key, words)
        .detail("offset_s", offset)
        .detail("off_by_s", offset.unsigned_abs())
        .detail("server_time", rfc3339(server))
        .detail("local_time", rfc3339(local))
        .detail("tolerance_s", Value::from(CLOCK_FAIL))
        .detail("source", json!(format!("Date header of {source}")))
}
