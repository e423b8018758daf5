//! The doctor's options step: what the client would refuse, and what it accepts but the
//! developer should know. It writes nothing but a probe file that shows the state folder
//! can be written (removed at once).

use std::path::Path;

use super::report::{millis, Step, StepKind, Verdict};
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
    let mut steps = Vec::new();
    let mut checked = options.clone();
    checked.log = None;
    if let Err(err) = Client::with_options(base_url, app_id, app_key, checked) {
        steps.push(Step::new(
            StepKind::Options,
            Verdict::Fail,
            "options.refused",
            format!("the client refuses these options: {}", err.message()),
        ));
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
