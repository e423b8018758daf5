//! The doctor's steps on this machine: the options themselves, the offline store, and
//! machine code v2's check. They read; they write nothing but a probe file that shows the
//! state folder can be written (removed at once).

use std::path::Path;
use std::sync::Arc;
use std::time::SystemTime;

use serde_json::json;

use super::report::{rfc3339, Step, StepKind, Verdict};
use crate::error::ErrorKind;
use crate::machine::{machine_check_unwritten, ComponentState, Outcome};
use crate::offline::Offline;
use crate::options::{without_credentials, Options, ProxyChoice};
use crate::session::SessionKind;
use crate::state::Sealed;
use crate::url::BaseUrl;
use crate::Client;

/// The options step(s): what the client would refuse, and what it would accept but the
/// developer should know.
pub(crate) fn options_steps(
    base_url: &str,
    app_id: &str,
    app_key: &str,
    options: &Options,
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
    for url in std::iter::once(base_url).chain(options.mirrors.iter().map(String::as_str)) {
        if let Ok(base) = BaseUrl::parse(url) {
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
                            path.display()
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
            .detail(
                "connect_timeout_ms",
                super::report::millis(options.connect_timeout),
            )
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
        return Err(format!("{} is not a folder", existing.display()));
    }
    let probe = existing.join(format!(".verify-doctor-{}", std::process::id()));
    std::fs::write(&probe, b"")
        .map_err(|err| err.to_string())
        .map(|()| {
            let _ = std::fs::remove_file(&probe);
        })
}

/// The offline store's steps: each mode's stored verdict, when it was last confirmed, when
/// its grace ends, and whether it would answer now (or why not).
pub(crate) fn offline_steps(app_id: &str, app_key: &str, options: &Options) -> Vec<Step> {
    let skip = |key, words: &str| vec![Step::new(StepKind::Offline, Verdict::Skip, key, words)];
    let Some(folder) = &options.state_folder else {
        return skip(
            "offline.off",
            "offline verdicts are off (no state folder): a start without the server fails",
        );
    };
    let Some(grace) = options.offline_grace else {
        return skip(
            "offline.off",
            "offline verdicts are off (no offline grace period): a start without the server \
             fails",
        );
    };
    let opened = folder.path().and_then(|path| {
        let identity = match &options.machine_identity {
            Some(identity) => identity.clone(),
            None => crate::machine::identity()?,
        };
        Sealed::new(path, app_id, app_key.as_bytes(), identity.as_bytes(), None)
    });
    let store = match opened {
        Ok(store) => store,
        Err(err) => {
            return vec![Step::new(
                StepKind::Offline,
                Verdict::Fail,
                "offline.unusable",
                format!("the offline store cannot be used: {}", err.message()),
            )]
        }
    };
    let offline = Offline::new(Arc::new(store), grace, options.clock_tolerance, None, None);
    let now = SystemTime::now();
    let mut steps = Vec::new();
    for (kind, mode) in [(SessionKind::Card, "card"), (SessionKind::User, "account")] {
        let Some(seen) = offline.inspect(kind, now) else {
            continue;
        };
        let dates = format!(
            "last confirmed by the server {}, grace until {}",
            rfc3339(seen.confirmed_at),
            rfc3339(seen.grace_end)
        );
        let step = match seen.answers {
            Ok(()) => Step::new(
                StepKind::Offline,
                Verdict::Pass,
                "offline.answers",
                format!(
                    "a stored verdict ({mode} mode), {dates}: a login that cannot reach the \
                     server answers from it now (for the same {mode} on this machine)"
                ),
            ),
            Err((why, words)) => Step::new(
                StepKind::Offline,
                Verdict::Fail,
                match why {
                    ErrorKind::GraceOver => "offline.grace_over",
                    ErrorKind::ClockBack => "offline.clock_back",
                    ErrorKind::OfflineExpired => "offline.expired",
                    _ => "offline.refused",
                },
                format!(
                    "a stored verdict ({mode} mode), {dates}, would not answer now: {words}; \
                     a login must reach the server"
                ),
            )
            .detail("code", why.code()),
        };
        steps.push(
            step.detail("mode", mode)
                .detail("confirmed_at", rfc3339(seen.confirmed_at))
                .detail("grace_end", rfc3339(seen.grace_end)),
        );
    }
    if steps.is_empty() {
        steps.push(Step::new(
            StepKind::Offline,
            Verdict::Pass,
            "offline.none",
            "no stored verdict yet: one is kept after the next login the server confirms; a \
             start without the server fails until then",
        ));
    }
    steps
}

/// Machine code v2's check for `salt`, with the state folder's store when there is one;
/// nothing is stored. The outcome and each component's state, never a value or the code.
pub(crate) fn machine_step(salt: &str, options: &Options) -> Step {
    let folder = options.state_folder.as_ref().and_then(|f| f.path().ok());
    let stored = folder.is_some();
    // A folder not made yet holds nothing; one that cannot be a folder is the options
    // step's to report, not a store that does not open.
    let folder = folder.filter(|path| path.is_dir());
    let check = match machine_check_unwritten(salt, folder) {
        Ok(check) => check,
        Err(err) => {
            return Step::new(
                StepKind::Machine,
                Verdict::Warn,
                "machine.failed",
                format!("machine code v2 cannot be computed: {}", err.message()),
            )
        }
    };
    let (verdict, key, words) = match check.outcome {
        Outcome::Kept => (
            Verdict::Pass,
            "machine.kept",
            "the stored machine code is kept: enough components match".to_owned(),
        ),
        Outcome::Issued if !stored => (
            Verdict::Pass,
            "machine.no_store",
            "no state folder: the machine code is computed from the components each time"
                .to_owned(),
        ),
        Outcome::Issued => (
            Verdict::Pass,
            "machine.issued",
            "no machine code stored yet: one is issued from the components".to_owned(),
        ),
        Outcome::Reissued => (
            Verdict::Warn,
            "machine.reissued",
            "the components say this is another machine (or a new board): the machine code \
             changes, and a card bound to the old one may need a rebind"
                .to_owned(),
        ),
        Outcome::StoreUnreadable => (
            Verdict::Warn,
            "machine.store_unreadable",
            "the stored machine code does not open (sealed for another processor or program, \
             or damaged): a new code is issued"
                .to_owned(),
        ),
    };
    let matching = check
        .components
        .iter()
        .filter(|c| c.state == ComponentState::Matches)
        .count();
    let words = format!(
        "{words} ({matching} of {} components match, score {})",
        check.components.len(),
        check.score
    );
    Step::new(StepKind::Machine, verdict, key, words)
        .detail("outcome", check.outcome.name())
        .detail("score", check.score)
        .detail(
            "components",
            check
                .components
                .iter()
                .map(
                    |c| json!({"kind": c.kind.name(), "state": c.state.name(), "weight": c.weight}),
                )
                .collect::<Vec<_>>(),
        )
        .detail("note", check.note)
}
