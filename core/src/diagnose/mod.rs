//! The doctor: "why can't my program log in?" answered in one call.
//!
//! [`diagnose()`] takes the program's URL, AppId, AppKey and client [`Options`] and runs each
//! step a login depends on, timing each and giving it a verdict and a sentence:
//! - the options themselves (what the client would refuse; plain http off loopback; a state
//!   folder that cannot be written);
//! - per line (the base URL and each mirror) and per address: the name lookup (which
//!   resolver, how long), the TCP connect, the proxy (explicit or the system's; whether it
//!   answered), TLS (protocol, the chain's subject, issuer and expiry, the pins, the refusal
//!   in words);
//! - Init (success, or which refusal and what it means for the developer) and the clock
//!   (the server's `Date` against the local clock);
//! - the offline store (each stored verdict, its last confirmation, the end of its grace,
//!   whether it would answer now and why not);
//! - machine code v2's check (outcome and components, never a value).
//!
//! It never sends a login, never spends a count card and changes nothing on the server:
//! Init is the only request. Nothing is written on this machine but a probe file that shows
//! the state folder can be written. The lines are probed and Init runs at the same time,
//! every step bounded by the deadline (default 10 s), whatever the network does; a name
//! lookup still under way then ends on its own thread.
//!
//! The [`Report`] is redacted (no AppKey, api password, card, password or token; host names
//! and addresses stay) and serializes to JSON (docs/doctor.md, English) and to a short text
//! in the end user's language ([`Report::text_in`]). Each step has a stable key
//! (`tls.pin_mismatch`, `init.1011`...), by which its sentence in each language is found
//! ([`words`]).

mod cert;
mod handshake;
mod lines;
mod machine;
mod options;
mod proxy;
mod reach;
mod report;
mod service;
mod store;
pub mod words;

use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

pub use report::{Report, Step, StepKind, Verdict, REPORT_VERSION};

use crate::net::connect::Origin;
use crate::net::url::BaseUrl;
use crate::options::Options;
use crate::util::deadline::Deadline;

/// The doctor's default deadline: 10 seconds.
pub const DEFAULT_DIAGNOSE_DEADLINE: Duration = Duration::from_secs(10);

/// Time kept back from the deadline to put the report together.
const MARGIN: Duration = Duration::from_millis(100);

/// The doctor's own settings.
#[derive(Debug, Clone)]
pub struct DiagnoseOptions {
    /// The whole doctor finishes within this. Default [`DEFAULT_DIAGNOSE_DEADLINE`].
    pub deadline: Duration,
    /// The salt of machine code v2's check (the program's own salt); default: the AppId.
    pub machine_salt: Option<String>,
}

impl Default for DiagnoseOptions {
    fn default() -> Self {
        DiagnoseOptions {
            deadline: DEFAULT_DIAGNOSE_DEADLINE,
            machine_salt: None,
        }
    }
}

/// Runs the doctor with the default deadline (see the module's documentation).
pub fn diagnose(base_url: &str, app_id: &str, app_key: &str, options: &Options) -> Report {
    diagnose_with(
        base_url,
        app_id,
        app_key,
        options,
        &DiagnoseOptions::default(),
    )
}

/// Runs the doctor (see the module's documentation) with its own settings. The log hook of
/// `options`, if any, receives the Init client's messages during the call, from a thread
/// of the doctor's.
pub fn diagnose_with(
    base_url: &str,
    app_id: &str,
    app_key: &str,
    options: &Options,
    settings: &DiagnoseOptions,
) -> Report {
    let started_at = SystemTime::now();
    let started = Instant::now();
    let deadline = Deadline::after(settings.deadline.saturating_sub(MARGIN));
    // Each URL parsed once: the options step and the probes read the same parse.
    let bases: Vec<BaseUrl> = std::iter::once(base_url)
        .chain(options.mirrors.iter().map(String::as_str))
        .filter_map(|url| BaseUrl::parse(url).ok())
        .collect();
    let mut steps = options::steps(base_url, app_id, app_key, options, &bases);
    let lines = lines_of(&bases, options);
    let proxy = proxy::ProxyPlan::of(options);
    let salt = settings.machine_salt.as_deref().unwrap_or(app_id);

    let (line_steps, service, offline, machine) = std::thread::scope(|scope| {
        let probes = scope.spawn(|| lines::probe(&lines, options, proxy.as_ref(), deadline));
        let service = scope.spawn(|| service::check(base_url, app_id, app_key, options, deadline));
        let offline = store::steps(app_id, app_key, options);
        let machine = machine::step(salt, options);
        (
            probes.join().unwrap_or_default(),
            service.join().ok(),
            offline,
            machine,
        )
    });
    let mut line_steps = line_steps;
    let (init, clock, passed) = match service {
        Some(service) => (service.init, service.clock, service.passed),
        None => (
            Step::new(
                StepKind::Init,
                Verdict::Fail,
                "internal",
                "Init stopped on an internal error",
            ),
            Step::new(
                StepKind::Clock,
                Verdict::Skip,
                "clock.no_reply",
                "not checked",
            ),
            false,
        ),
    };
    // The client reached the service: a line or an address that failed does not stop the
    // program (racing takes one that works), but the user should know.
    if passed {
        for step in &mut line_steps {
            if step.verdict == Verdict::Fail {
                step.verdict = Verdict::Warn;
                step.message
                    .push_str(" (the program still reaches the service on another line)");
            }
        }
    }
    steps.extend(line_steps);
    steps.push(init);
    steps.push(clock);
    steps.extend(offline);
    steps.push(machine);

    let mut report = Report {
        url: base_url.to_owned(),
        mirrors: options.mirrors.clone(),
        app_id: app_id.to_owned(),
        started_at,
        elapsed: started.elapsed(),
        deadline: settings.deadline,
        steps,
    };
    let mut secrets = vec![app_key.to_owned()];
    if let Some(proxy) = &proxy {
        secrets.extend(proxy.secrets());
    }
    let secrets: Vec<&str> = secrets.iter().map(String::as_str).collect();
    report.redact(&secrets);
    report
}

/// The lines of the service: the base URLs (the base URL and each mirror that parses) that the
/// client would use (the options step reports the others: a URL that does not parse, plain
/// http off loopback without the opt-in).
fn lines_of(bases: &[BaseUrl], options: &Options) -> Vec<reach::Line> {
    bases
        .iter()
        .filter(|base| base.is_https() || base.is_loopback() || options.allow_insecure_http)
        .map(|base| reach::Line {
            label: Origin::of_base(base).label(),
            host: base.host().to_owned(),
            port: base.port(),
            https: base.is_https(),
            loopback: base.is_loopback(),
        })
        .collect()
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
