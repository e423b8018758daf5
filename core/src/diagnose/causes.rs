//! Which steps are causes and which follow from one: an Init that could not connect because
//! the TLS step failed is the TLS step's knock-on, not a second cause; the connection steps
//! of a name the hosts file redirects follow from the hosts file. The causes are counted and
//! the first one is the report's first line: failures before warnings, each in the
//! report's order (options, the lines, the service, what is kept on this machine); a cause
//! repeated on one line (two addresses timing out) counts once.

use super::report::{Step, Verdict};
use super::table::StepKind;

/// Init's keys for a failure to reach the service: they follow from a failed connection
/// step when there is one.
const INIT_UNREACHED: &[&str] = &[
    "init.network",
    "init.timeout",
    "init.tls",
    "init.pin",
    "init.proxy",
];

/// Marks the knock-on steps of `steps` and returns the indexes of the causes, the first
/// line's first.
pub(crate) fn mark(steps: &mut [Step]) -> Vec<usize> {
    let connection = |s: &Step| {
        matches!(
            s.kind,
            StepKind::Lookup | StepKind::Tcp | StepKind::Proxy | StepKind::Tls
        )
    };
    // A line whose name the hosts file redirects: what fails after it follows from it.
    let redirected: Vec<Option<String>> = steps
        .iter()
        .filter(|s| s.key == "lookup.hosts_file" && s.verdict == Verdict::Fail)
        .map(|s| s.line.clone())
        .collect();
    for step in steps.iter_mut() {
        let after_lookup = matches!(step.kind, StepKind::Tcp | StepKind::Tls);
        if after_lookup && step.verdict >= Verdict::Warn && redirected.contains(&step.line) {
            step.knock_on = Some("lookup.hosts_file");
        }
    }
    let first_connection_failure = steps
        .iter()
        .find(|s| connection(s) && s.verdict == Verdict::Fail)
        .map(|s| s.knock_on.unwrap_or(s.key));
    let refused_time = steps
        .iter()
        .any(|s| s.key == "init.1014" && s.verdict == Verdict::Fail);
    for step in steps.iter_mut() {
        if step.kind == StepKind::Init && INIT_UNREACHED.contains(&step.key) {
            step.knock_on = step.knock_on.or(first_connection_failure);
        }
        // The server refused the time: the clock step shows the same cause.
        if step.kind == StepKind::Clock && refused_time && step.verdict >= Verdict::Warn {
            step.knock_on = Some("init.1014");
        }
    }
    let mut causes: Vec<usize> = Vec::new();
    for verdict in [Verdict::Fail, Verdict::Warn] {
        for (at, step) in steps.iter().enumerate() {
            if step.verdict != verdict || step.knock_on.is_some() {
                continue;
            }
            let repeated = causes.iter().any(|&other| {
                let other = &steps[other];
                other.key == step.key && other.line == step.line
            });
            if !repeated {
                causes.push(at);
            }
        }
    }
    causes
}

#[cfg(test)]
mod tests {
    use super::*;

    fn step(kind: StepKind, verdict: Verdict, key: &'static str) -> Step {
        Step::new(kind, verdict, key, key).line("https://a.example:443")
    }

    #[test]
    fn an_init_that_could_not_connect_follows_from_the_connection_step() {
        let mut steps = vec![
            step(StepKind::Options, Verdict::Pass, "options.ok"),
            step(StepKind::Lookup, Verdict::Pass, "lookup.ok"),
            step(StepKind::Tcp, Verdict::Pass, "tcp.ok"),
            step(StepKind::Tls, Verdict::Fail, "tls.pin_mismatch"),
            step(StepKind::Init, Verdict::Fail, "init.pin"),
            step(StepKind::Offline, Verdict::Warn, "offline.grace_over"),
        ];
        let causes = mark(&mut steps);
        assert_eq!(causes, vec![3, 5]);
        assert_eq!(steps[4].knock_on, Some("tls.pin_mismatch"));
    }

    #[test]
    fn a_redirecting_hosts_file_is_the_cause_of_what_fails_after_it() {
        let mut steps = vec![
            step(StepKind::Lookup, Verdict::Fail, "lookup.hosts_file"),
            step(StepKind::Tcp, Verdict::Fail, "tcp.refused"),
            step(StepKind::Tcp, Verdict::Fail, "tcp.refused"),
            step(StepKind::Init, Verdict::Fail, "init.network"),
        ];
        let causes = mark(&mut steps);
        assert_eq!(causes, vec![0]);
        assert_eq!(steps[1].knock_on, Some("lookup.hosts_file"));
        assert_eq!(steps[3].knock_on, Some("lookup.hosts_file"));
    }

    #[test]
    fn a_refusal_of_the_service_is_a_cause_and_repeats_count_once() {
        let mut steps = vec![
            step(StepKind::Tcp, Verdict::Warn, "tcp.timeout"),
            step(StepKind::Tcp, Verdict::Warn, "tcp.timeout"),
            step(StepKind::Init, Verdict::Fail, "init.1011"),
        ];
        let causes = mark(&mut steps);
        assert_eq!(causes, vec![2, 0]);
        assert_eq!(steps[2].knock_on, None);
    }
}
