//! The doctor's options step: what the client would refuse, each refusal naming the option
//! and why, and what it accepts but the developer should know. It writes nothing but a
//! probe file that shows the state folder can be written (removed at once).

use std::path::Path;

use super::report::{millis, Step, Verdict};
use super::table::StepKind;
use crate::client::Client;
use crate::net::proxy::{without_credentials, ProxyChoice};
use crate::net::url::BaseUrl;
use crate::options::Options;

/// The options step(s): what the client would refuse, and what it would accept but the
/// developer should know.
pub(crate) fn steps(
    base_url: &str,
    app_id: &str,
    app_key: &str,
    options: &Options,
    bases: &[BaseUrl],
) -> Vec<Step> {
    let mut steps = named_refusals(base_url, app_id, app_key, options);
    if steps.is_empty() {
        let mut checked = options.clone();
        checked.log = None;
        if let Err(err) = Client::with_options(base_url, app_id, app_key, checked) {
            let why = err.message().trim_end_matches('.').to_owned();
            let option = refused_option(&why);
            steps.push(
                Step::new(
                    StepKind::Options,
                    Verdict::Fail,
                    "options.refused",
                    format!("the client refuses the option {option}: {why}"),
                )
                .detail("option", option)
                .detail("why", why),
            );
        }
    }
    for base in bases {
        if !base.is_https() && !base.is_loopback() && options.allow_insecure_http {
            steps.push(Step::new(
                StepKind::Options,
                Verdict::Warn,
                "options.insecure_http",
                format!(
                    "{} is plain http to a host that is not loopback, allowed by the \
                     options: the api password and every reply travel in clear",
                    base.as_str()
                ),
            ));
        }
    }
    if let Some(folder) = &options.state_folder {
        match folder.path() {
            Ok(path) => {
                if let Err(why) = writable(&path) {
                    steps.push(Step::new(
                        StepKind::Options,
                        Verdict::Fail,
                        "options.state_folder",
                        format!(
                            "the state folder {} cannot be written ({why}): nothing outlives \
                             the process (no offline verdict, no remembered line)",
                            crate::error::quoted_path(&path)
                        ),
                    ));
                }
            }
            Err(err) => steps.push(Step::new(
                StepKind::Options,
                Verdict::Fail,
                "options.state_folder",
                err.message().to_owned(),
            )),
        }
    }
    if steps.iter().all(|s| s.verdict != Verdict::Fail) {
        let trust = &options.trust;
        let mut trusted = Vec::new();
        if trust.mozilla {
            trusted.push("Mozilla's roots");
        }
        if trust.system {
            trusted.push("the system's store");
        }
        let proxy = match &options.proxy {
            ProxyChoice::None => "none".to_owned(),
            ProxyChoice::System => "the system's settings".to_owned(),
            ProxyChoice::Url(url) => without_credentials(url),
        };
        steps.insert(
            0,
            Step::new(
                StepKind::Options,
                Verdict::Pass,
                "options.ok",
                format!(
                    "{} line(s); trust: {}; {} pin(s); proxy: {proxy}",
                    1 + options.mirrors.len(),
                    if trusted.is_empty() {
                        "given roots or pins only".to_owned()
                    } else {
                        trusted.join(" and ")
                    },
                    trust.pin_count()
                ),
            )
            .detail("mirrors", options.mirrors.len())
            .detail("pins", trust.pin_count())
            .detail("proxy", proxy)
            .detail("fixed_addresses", options.addresses.len())
            .detail("connect_timeout_ms", millis(options.connect_timeout))
            .detail(
                "state_folder",
                options
                    .state_folder
                    .as_ref()
                    .and_then(|f| f.path().ok())
                    .map(|p| p.display().to_string()),
            )
            .detail(
                "offline_grace_s",
                options.offline_grace.map(|g| g.as_secs()),
            ),
        );
    }
    steps
}

/// The refusals the doctor names itself, each with the option and why: an empty AppKey or
/// AppId, a server address or mirror that does not parse (one with `/api/verify` told how
/// to write it).
fn named_refusals(base_url: &str, app_id: &str, app_key: &str, options: &Options) -> Vec<Step> {
    let mut steps = Vec::new();
    let fail = |key, message: String| Step::new(StepKind::Options, Verdict::Fail, key, message);
    if app_key.is_empty() {
        steps.push(
            fail(
                "options.app_key_empty",
                "the AppKey is empty (VERIFY_APP_KEY, or the program's setting)".to_owned(),
            )
            .detail("option", "app_key"),
        );
    }
    if app_id.is_empty() {
        steps.push(
            fail("options.app_id_empty", "the AppId is empty".to_owned())
                .detail("option", "app_id"),
        );
    }
    let urls = std::iter::once(("base_url", base_url))
        .chain(options.mirrors.iter().map(|m| ("mirror", m.as_str())));
    for (option, url) in urls {
        let Err(err) = BaseUrl::parse(url) else {
            continue;
        };
        let lower = url.to_ascii_lowercase();
        let shown = crate::error::quoted(url);
        let step = match lower.find("/api/verify") {
            Some(at) => {
                let fix = url[..at].to_owned();
                fail(
                    "options.url_api_path",
                    format!(
                        "{option} {shown} includes /api/verify: give {fix} (the client adds it)"
                    ),
                )
                .detail("fix", fix)
            }
            None => {
                let why = err
                    .message()
                    .trim_start_matches("base_url ")
                    .trim_end_matches('.')
                    .to_owned();
                fail("options.url", format!("{option} {shown}: {why}")).detail("why", why)
            }
        };
        steps.push(step.detail("option", option).detail("value", shown));
    }
    steps
}

/// The option a refusal of the client names (its message's first words), for the report.
fn refused_option(why: &str) -> &'static str {
    let lower = why.to_ascii_lowercase();
    [
        ("proxy", "proxy"),
        ("offline grace", "offline_grace"),
        ("start budget", "start_budget"),
        ("timeout", "timeouts"),
        ("attempt delay", "attempt_delay"),
        ("trust", "trust"),
        ("state folder", "state_folder"),
        ("plain http", "allow_insecure_http"),
        ("machine", "machine_identity"),
    ]
    .into_iter()
    .find(|(words, _)| lower.contains(words))
    .map_or("options", |(_, option)| option)
}

/// Whether a file can be made in `folder` (or, when it does not exist yet, in the nearest
/// folder above it that does, where the client would create it).
fn writable(folder: &Path) -> Result<(), String> {
    let existing = folder
        .ancestors()
        .find(|p| p.exists())
        .ok_or_else(|| "no part of the path exists".to_owned())?;
    if !existing.is_dir() {
        return Err(format!(
            "{} is not a folder",
            crate::error::quoted_path(existing)
        ));
    }
    let probe = existing.join(format!(".verify-doctor-{}", std::process::id()));
    std::fs::write(&probe, b"")
        .map_err(|err| err.to_string())
        .map(|()| {
            let _ = std::fs::remove_file(&probe);
        })
}
