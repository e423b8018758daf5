//! The doctor: "why can't my program log in?" answered in one call.
//!
//! [`diagnose()`] takes the program's URL, AppId, AppKey and client [`Options`] (or
//! [`diagnose_client`] a [`Client`] and the options it was made with) and runs each step a
//! login depends on, timing each and giving it a verdict and a sentence:
//! - the options themselves (what the client would refuse, naming the option and why; plain
//!   http off loopback; a state folder that cannot be written);
//! - per line (the base URL and each mirror) and per address: the name lookup (which
//!   resolver answered: the hosts file, the name servers), the TCP connect, the proxy
//!   (explicit or the system's, where the setting came from; whether it answered), TLS
//!   (protocol, the chain's names, issuer, validity, fingerprint and key pin, the pins
//!   expected, the refusal in words, an interception named);
//! - Init (success, or which refusal and what it means for the developer, or what a reply
//!   that was not the service's showed: its HTTP status, `Server`, `Via`, title) and the
//!   clock (the `Date` of any reply against the local clock);
//! - the offline store (each stored verdict, its last confirmation, the end of its grace,
//!   whether it would answer now and why not; files that do not open and why);
//! - machine code v2's check (outcome and components, never a value).
//!
//! Of the steps that warned or failed, those that follow from another (an Init that could
//! not connect because TLS failed) are its knock-ons; the others are the causes
//! (`causes.rs`), and the report's first line names the first: what is wrong, what to do,
//! and who acts (the user, or the software's vendor).
//!
//! It never sends a login, never spends a count card and changes nothing on the server:
//! Init is the only request. Nothing is written on this machine but a probe file that shows
//! the state folder can be written. The lines are probed and Init runs at the same time,
//! every step bounded by the deadline (default 10 s), whatever the network does, and
//! stopped within a few milliseconds of a cancel of [`DiagnoseOptions::cancel`]; a name
//! lookup still under way then ends on its own thread.
//!
//! The [`Report`] is redacted (no AppKey, api password, card, password or token; host names
//! and addresses stay) and serializes to JSON (docs/doctor.md, English) and to a short text
//! in the end user's language ([`Report::text_in`]). Each step has a stable key
//! (`tls.pin_mismatch`, `init.1011`...), by which its sentence in each language is found in
//! the doctor's table ([`table`]).

mod causes;
mod cert;
mod handshake;
mod hosts;
mod lines;
mod machine;
mod options;
mod proxy;
mod reach;
mod report;
mod service;
mod stop;
mod store;
pub mod table;
mod text;

use std::sync::mpsc;
use std::time::{Duration, Instant, SystemTime};

pub use report::{Report, Step, Verdict, REPORT_VERSION};
pub use table::{Actor, StepKind};

use crate::cancel::CancelToken;
use crate::client::Client;
use crate::net::connect::Origin;
use crate::net::proxy::ProxyChoice;
use crate::net::url::BaseUrl;
use crate::options::Options;
use crate::util::deadline::Deadline;
use stop::Stop;

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
    /// A token whose cancel stops every step within a few milliseconds; the report then
    /// says it was cancelled ([`Report::cancelled`]).
    pub cancel: Option<CancelToken>,
}

impl Default for DiagnoseOptions {
    fn default() -> Self {
        DiagnoseOptions {
            deadline: DEFAULT_DIAGNOSE_DEADLINE,
            machine_salt: None,
            cancel: None,
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
    diagnose_watched(base_url, app_id, app_key, options, settings, &mut |_| {})
}

/// Runs the doctor with the settings `client` was made with (its URL and mirrors, AppId,
/// AppKey, trust and pins, proxy, fixed addresses, state folder, offline grace, log hook;
/// its timeouts as they are now): a program runs it without handing anyone its AppKey.
/// `progress` is called with each step on the calling thread as the steps finish (see
/// [`diagnose_watched`]).
pub fn diagnose_client(
    client: &Client,
    settings: &DiagnoseOptions,
    progress: &mut dyn FnMut(&Step),
) -> Report {
    let made = client.made_with();
    let mut options = made.options.clone();
    let (connect, call) = client.timeouts();
    options.connect_timeout = connect;
    options.call_timeout = call;
    diagnose_watched(
        made.base_url,
        made.app_id,
        made.app_key,
        &options,
        settings,
        progress,
    )
}

/// [`diagnose_with`], calling `progress` with each step on the calling thread as the steps
/// finish: the options and machine code first; each line's steps, Init's, the clock's and
/// the offline store's once Init has finished (a line that failed beside a line that works is then a
/// warning already). The report's steps are the same, in the report's order, with their
/// knock-ons marked.
pub fn diagnose_watched(
    base_url: &str,
    app_id: &str,
    app_key: &str,
    options: &Options,
    settings: &DiagnoseOptions,
    progress: &mut dyn FnMut(&Step),
) -> Report {
    let started_at = SystemTime::now();
    let started = Instant::now();
    let stop = Stop::new(
        Deadline::after(settings.deadline.saturating_sub(MARGIN)),
        settings.cancel.clone(),
    );
    // Each URL parsed once: the options step and the probes read the same parse.
    let bases: Vec<BaseUrl> = std::iter::once(base_url)
        .chain(options.mirrors.iter().map(String::as_str))
        .filter_map(|url| BaseUrl::parse(url).ok())
        .collect();
    let lines = lines_of(&bases, options);
    let proxy = proxy::ProxyPlan::of(options);
    let salt = settings.machine_salt.as_deref().unwrap_or(app_id);
    let mut secrets = vec![app_key.to_owned()];
    if let Some(proxy) = &proxy {
        secrets.extend(proxy.secrets());
    }
    let secrets: Vec<&str> = secrets.iter().map(String::as_str).collect();
    let clean = |mut steps: Vec<Step>| {
        for step in &mut steps {
            step.redact(&secrets);
        }
        steps
    };

    let (sent, heard) = mpsc::channel::<Vec<Step>>();
    let (local, line_steps, service) = std::thread::scope(|scope| {
        let probes = scope.spawn(|| lines::probe(&lines, options, proxy.as_ref(), &stop));
        let service = scope.spawn(|| service::check(base_url, app_id, app_key, options, &stop));
        let local = {
            let sent = sent.clone();
            let clean = &clean;
            scope.spawn(move || {
                let mut local = options::steps(base_url, app_id, app_key, options, &bases);
                local.extend(auto_config_step(options));
                let local = clean(local);
                let _ = sent.send(local.clone());
                let machine = clean(vec![machine::step(salt, options)]);
                let _ = sent.send(machine.clone());
                // The offline steps wait for Init: their verdicts depend on it.
                let kept = clean(store::steps(app_id, app_key, options));
                (local, kept, machine)
            })
        };
        drop(sent);
        // The calling thread hands each step to `progress` as the parts finish.
        for steps in heard.iter() {
            steps.iter().for_each(&mut *progress);
        }
        let local = local.join().unwrap_or_default();
        let service = service.join().ok();
        let line_steps = probes.join().unwrap_or_default();
        (local, line_steps, service)
    });
    let (options_steps, offline, machine) = local;
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
    settle_lines(&mut line_steps, passed);
    let mut offline = offline;
    settle_offline(&mut offline, passed);
    let served = clean(
        line_steps
            .iter()
            .chain([&init, &clock])
            .chain(offline.iter())
            .cloned()
            .collect(),
    );
    served.iter().for_each(&mut *progress);

    let mut steps = options_steps;
    steps.extend(line_steps);
    steps.push(init);
    steps.push(clock);
    steps.extend(offline);
    steps.extend(machine);
    let cancelled = stop.cancelled();
    let causes = if cancelled {
        Vec::new()
    } else {
        causes::mark(&mut steps)
    };
    let mut report = Report {
        url: base_url.to_owned(),
        mirrors: options.mirrors.clone(),
        app_id: app_id.to_owned(),
        started_at,
        elapsed: started.elapsed(),
        deadline: settings.deadline,
        steps,
        causes,
        cancelled,
    };
    report.redact(&secrets);
    report
}

/// The line steps once Init is known: when the client reached the service, a line or an
/// address that failed does not stop the program (racing takes one that works), but the
/// user should know; a hosts-file entry for the service is the cause when the service was
/// not reached, a warning when it was.
fn settle_lines(steps: &mut [Step], init_passed: bool) {
    for step in steps {
        if step.key == "lookup.hosts_file" {
            step.verdict = if init_passed {
                Verdict::Warn
            } else {
                Verdict::Fail
            };
            continue;
        }
        if init_passed && step.verdict == Verdict::Fail {
            step.verdict = Verdict::Warn;
            step.message
                .push_str(" (the program still reaches the service on another line)");
        }
    }
}

/// The offline steps once Init is known: with the service reachable, a stored verdict that
/// would not answer (or files that do not open) is a warning, since the next login renews
/// it; without, it fails. A store that cannot be used or read stays a failure.
fn settle_offline(steps: &mut [Step], init_passed: bool) {
    if !init_passed {
        return;
    }
    for step in steps {
        let lasting = matches!(step.key, "offline.unusable" | "offline.unreadable");
        if step.verdict == Verdict::Fail && !lasting {
            step.verdict = Verdict::Warn;
            step.message.push_str(
                " (the service answers: the next login online renews the stored verdict)",
            );
        }
    }
}

/// The proxy step of a system auto-config script the client does not read (Windows), when
/// the system's proxy is asked for and no proxy variable or registry proxy is set.
fn auto_config_step(options: &Options) -> Option<Step> {
    if options.proxy != ProxyChoice::System || ureq::Proxy::try_from_env().is_some() {
        return None;
    }
    let script = proxy::auto_config()?;
    Some(
        Step::new(
            StepKind::Proxy,
            Verdict::Warn,
            "proxy.auto_config",
            format!(
                "the system's proxy comes from the auto-config script {script}, which the \
                 client does not read: requests go direct"
            ),
        )
        .detail("auto_config", script),
    )
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
