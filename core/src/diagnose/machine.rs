//! The doctor's machine step: machine code v2's check, nothing stored.

use serde_json::json;

use super::report::{Step, Verdict};
use super::table::StepKind;
use crate::machine::{machine_check_unwritten, ComponentState, Outcome};
use crate::options::Options;

/// Machine code v2's check for `salt`, with the state folder's store when there is one;
/// nothing is stored. The outcome and each component's state, never a value or the code.
pub(crate) fn step(salt: &str, options: &Options) -> Step {
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
