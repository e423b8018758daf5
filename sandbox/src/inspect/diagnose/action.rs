//! An unknown action: the nearest of the 12 by edit distance.

use super::seen::error;
use crate::inspect::detail::Diagnosis;
use crate::inspect::mask::cut;
use crate::wire::ACTIONS;

fn levenshtein(a: &str, b: &str) -> usize {
    let b: Vec<char> = b.chars().collect();
    let mut row: Vec<usize> = (0..=b.len()).collect();
    for (i, ca) in a.chars().enumerate() {
        let mut prev = row[0];
        row[0] = i + 1;
        for (j, cb) in b.iter().enumerate() {
            let cur = row[j + 1];
            row[j + 1] = (prev + usize::from(ca != *cb)).min(row[j] + 1).min(cur + 1);
            prev = cur;
        }
    }
    row[b.len()]
}

pub(super) fn unknown_action(action: Option<&str>) -> Option<Diagnosis> {
    let action = action?;
    let shown = cut(action);
    if action.eq_ignore_ascii_case("init") {
        return Some(error(
            "unknown_action",
            "Init is not an action".to_string(),
            "Init is its own request: POST /api/verify with the form AppId, AppKey, TimeStamp \
             and Sign; its reply's api_password keys the Handle requests"
                .to_string(),
        ));
    }
    let lower = action.trim().to_ascii_lowercase();
    let guess = ACTIONS
        .iter()
        .find(|a| a.eq_ignore_ascii_case(&lower))
        .or_else(|| {
            // No action's name is near a long string.
            (lower.len() <= 32).then_some(())?;
            ACTIONS
                .iter()
                .map(|a| (levenshtein(&lower, &a.to_ascii_lowercase()), a))
                .filter(|(d, _)| *d <= 3)
                .min_by_key(|(d, _)| *d)
                .map(|(_, a)| a)
        });
    Some(error(
        "unknown_action",
        format!("action {shown:?} is not one of the 12 actions"),
        match guess {
            Some(g) => format!(
                "did you mean {g}? Action names are case-sensitive and have no spaces (the 12: {})",
                ACTIONS.join(", ")
            ),
            None => format!("the 12 actions are {}", ACTIONS.join(", ")),
        },
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn edit_distance() {
        assert_eq!(levenshtein("singlelogn", "singlelogin"), 1);
    }
}
