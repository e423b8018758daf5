//! The doctor's offline-store step: read only, never written. Each mode's stored verdict,
//! when it was last confirmed, when its grace ends, and whether it would answer now (or
//! why not); and stored files that do not open, with the likely reason (made on another
//! machine, for another AppKey, or damaged).

use std::sync::Arc;
use std::time::SystemTime;

use super::report::{rfc3339, Step, Verdict};
use super::table::StepKind;
use crate::error::ErrorKind;
use crate::offline::clock_mark::ClockMark;
use crate::offline::{mode_files, Offline};
use crate::options::Options;
use crate::session::SessionKind;
use crate::state::{Sealed, Unsealed};

/// The offline store's steps.
pub(crate) fn steps(app_id: &str, app_key: &str, options: &Options) -> Vec<Step> {
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
        let store = Arc::new(Sealed::new(
            path.clone(),
            app_id,
            app_key.as_bytes(),
            identity.as_bytes(),
            None,
        )?);
        let mark = ClockMark::open(
            Arc::clone(&store),
            &path,
            app_id,
            app_key.as_bytes(),
            identity.as_bytes(),
            options,
        )?;
        Ok((store, mark))
    });
    let (store, mark) = match opened {
        Ok(opened) => opened,
        Err(err) => {
            return vec![Step::new(
                StepKind::Offline,
                Verdict::Fail,
                "offline.unusable",
                format!("the offline store cannot be used: {}", err.message()),
            )]
        }
    };
    let unopened: Vec<(&str, Unsealed)> =
        [(SessionKind::Card, "card"), (SessionKind::User, "account")]
            .into_iter()
            .flat_map(|(kind, mode)| {
                let mut files = store.names_starting(&mode_files(kind));
                files.sort();
                files.into_iter().map(move |(file, _)| (mode, file))
            })
            .filter_map(|(mode, file)| store.open(&file).err().map(|why| (mode, why)))
            .collect();
    let offline = Offline::new(store, mark, grace, options.clock_tolerance, None, None);
    let now = SystemTime::now();
    let mut steps: Vec<Step> = unopened
        .into_iter()
        .map(|(mode, why)| not_opened(mode, why))
        .collect();
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
                    ErrorKind::TimeUnconfirmed => "offline.unconfirmed",
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

/// The step of a stored verdict's file that does not open, with the likely reason.
fn not_opened(mode: &str, why: Unsealed) -> Step {
    let (key, reason) = match why {
        Unsealed::OtherMachine => (
            "offline.other_machine",
            "it was made for this program on another machine (copied, or this machine's \
             identity changed)",
        ),
        Unsealed::OtherKey => (
            "offline.other_key",
            "it was made for another program or another AppKey (the program's AppKey changed)",
        ),
        Unsealed::OtherMachineOrKey => (
            "offline.other_machine_or_key",
            "it was made on another machine or for another AppKey (a file of the first format \
             does not say which)",
        ),
        Unsealed::Damaged => (
            "offline.damaged",
            "it is damaged (cut short or changed after it was written)",
        ),
        Unsealed::Unreadable => ("offline.unreadable", "it cannot be read (permissions)"),
    };
    Step::new(
        StepKind::Offline,
        Verdict::Fail,
        key,
        format!(
            "the stored verdict's file ({mode} mode) does not open: {reason}; it is ignored, \
             and a login must reach the server (an online login writes it anew)"
        ),
    )
    .detail("mode", mode)
}
