//! The rule that decides whether a machine is the one a v2 code was issued to: each
//! component has a weight; one that matches its stored hash adds its weight, one that
//! differs takes it away, one not read on either side (or a placeholder) counts nothing.
//! The stored code is kept when the sum is positive and at least one identifying component
//! (board UUID, board serial, OS installation, system volume) matches.
//!
//! The weights make the board decide: each weight is larger than the sum of the weights
//! below it, from the board serial up, so the heaviest component read on both sides wins
//! unless it is the OS installation, which the system volume can outvote.
//! docs/machine-code.md walks its table of machine changes through it.

use super::components::ComponentKind;

/// The weight of a component in the rule.
pub fn weight(kind: ComponentKind) -> i32 {
    match kind {
        // More than everything else together (12 + 4 + 4 + 1 + 1 = 22): a new board UUID is
        // another machine (a VM clone, a new motherboard, an image copied to another PC),
        // whatever else still matches.
        ComponentKind::BoardUuid => 24,
        // More than everything below it (4 + 4 + 1 + 1 = 10): where the UUID is missing or a
        // placeholder, the board's serial decides.
        ComponentKind::BoardSerial => 12,
        // The installation and its volume weigh the same: one of them changing alone (a
        // MachineGuid edited in the registry, a restored volume) leaves the code, both
        // changing (a reinstall, another machine) does not, unless the board says otherwise.
        ComponentKind::OsInstall => 4,
        ComponentKind::SystemVolume => 4,
        // Shared by every machine of a model: they only tip a tie.
        ComponentKind::Cpu => 1,
        ComponentKind::Model => 1,
    }
}

/// How a component compares with the stored one.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum ComponentState {
    /// Read now, and equal to the stored one.
    Matches = 1,
    /// Read now, and not the stored one.
    Differs = 2,
    /// Read now; nothing stored to compare with (the first run, or it was not readable
    /// when stored). Counts nothing.
    NotStored = 3,
    /// Not readable now (no permission, missing). Counts nothing.
    Unreadable = 4,
    /// Read now, but a known placeholder value (an all-zero SMBIOS UUID, "To be filled by
    /// O.E.M."). Counts nothing.
    Placeholder = 5,
}

impl ComponentState {
    /// Its name: `matches`, `differs`, `not_stored`, `unreadable`, `placeholder`.
    pub fn name(self) -> &'static str {
        match self {
            ComponentState::Matches => "matches",
            ComponentState::Differs => "differs",
            ComponentState::NotStored => "not_stored",
            ComponentState::Unreadable => "unreadable",
            ComponentState::Placeholder => "placeholder",
        }
    }
}

/// The verdict over a list of compared components.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Verdict {
    pub score: i32,
    pub identifying_match: bool,
}

impl Verdict {
    /// The same machine: a positive sum, and an identifying component that matches.
    pub fn same(&self) -> bool {
        self.score > 0 && self.identifying_match
    }
}

/// Sums the weights of the compared components.
pub(crate) fn decide(states: &[(ComponentKind, ComponentState)]) -> Verdict {
    let mut score = 0;
    let mut identifying_match = false;
    for &(kind, state) in states {
        match state {
            ComponentState::Matches => {
                score += weight(kind);
                identifying_match |= kind.identifies();
            }
            ComponentState::Differs => score -= weight(kind),
            _ => {}
        }
    }
    Verdict {
        score,
        identifying_match,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_board_weight_outweighs_everything_below_it() {
        let all = ComponentKind::ALL;
        for (i, kind) in all.iter().enumerate().take(2) {
            let below: i32 = all[i + 1..].iter().map(|k| weight(*k)).sum();
            assert!(weight(*kind) > below, "{kind:?}");
        }
        let hardware: i32 = weight(ComponentKind::Cpu) + weight(ComponentKind::Model);
        assert!(weight(ComponentKind::OsInstall) > hardware);
        assert_eq!(
            weight(ComponentKind::OsInstall),
            weight(ComponentKind::SystemVolume)
        );
    }

    #[test]
    fn processor_and_model_alone_never_keep_a_code() {
        use ComponentState::*;
        let v = decide(&[
            (ComponentKind::Cpu, Matches),
            (ComponentKind::Model, Matches),
            (ComponentKind::OsInstall, Unreadable),
        ]);
        assert_eq!(v.score, 2);
        assert!(!v.same());
    }
}
