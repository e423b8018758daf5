//! Parameter names: parameters sent under a name the action does not read, aliases that
//! disagree, and required parameters missing.

use std::collections::HashSet;

use super::seen::{error, list, norm, warning};
use crate::inspect::detail::{Diagnosis, Read};
use crate::wire::Params;

/// Names the machine code goes by in clients (compared after [`norm`]).
const MACHINE_WORDS: &[&str] = &[
    "mac",
    "newmac",
    "deviceid",
    "machinecode",
    "machineid",
    "machine",
    "hwid",
    "hardwareid",
    "macaddress",
    "macaddr",
    "devicecode",
    "computerid",
    "pcid",
    "jiqima",
    "机器码",
];

/// Parameters sent under a name the action does not read, aliases that disagree, and
/// required parameters missing.
pub(super) fn parameter_names(action: &str, params: &Params, reads: &[Read]) -> Vec<Diagnosis> {
    let mut out = Vec::new();
    let mut groups: Vec<Read> = Vec::new();
    for r in reads {
        if !groups.iter().any(|g| g.names == r.names) {
            groups.push(*r);
        }
    }
    let read_names: HashSet<&str> = groups
        .iter()
        .flat_map(|g| g.names.iter().copied())
        .collect();
    let is_mac = |g: &Read| g.names.contains(&"Mac");
    let kind_of = |g: &Read| {
        if is_mac(g) {
            "mac_alias"
        } else {
            "parameter_name"
        }
    };
    let what = |g: &Read| {
        if is_mac(g) {
            "the machine code".to_string()
        } else {
            g.names[0].to_string()
        }
    };
    let mut explained: Vec<&'static [&'static str]> = Vec::new();
    for g in &groups {
        let sent: Vec<(&str, &str)> = g
            .names
            .iter()
            .filter_map(|n| {
                params
                    .pairs()
                    .iter()
                    .find(|(k, v)| k == n && !v.is_empty())
                    .map(|(k, v)| (k.as_str(), v.as_str()))
            })
            .collect();
        if let Some((first, value)) = sent.first() {
            if let Some((other, _)) = sent.iter().find(|(_, v)| v != value) {
                out.push(warning(
                    kind_of(g),
                    format!("{first} and {other} both sent, with different values"),
                    format!(
                        "{action} reads {}, in that order: it took {first} and ignored {other}",
                        list(g.names)
                    ),
                ));
            }
        }
    }
    for (key, _) in params.pairs() {
        if key == "action" || read_names.contains(key.as_str()) {
            continue;
        }
        let normed = norm(key);
        let Some(g) = groups.iter().find(|g| {
            g.names.iter().any(|n| norm(n) == normed)
                || (is_mac(g) && MACHINE_WORDS.contains(&normed.as_str()))
        }) else {
            continue;
        };
        let mut detail = format!(
            "{action} reads {} as {}; {key} is ignored",
            what(g),
            list(g.names)
        );
        if !g.found && g.required {
            detail.push_str(&format!(", so {} is missing (1013)", g.names[0]));
        } else if !g.found && is_mac(g) {
            detail.push_str(
                ", so the request went on without a machine code (no check of the bound machine)",
            );
        } else if !g.found {
            detail.push_str(&format!(", so {} was not sent", g.names[0]));
        }
        if normed == "newmac" && action != "ChangeBind" {
            detail.push_str("; NewMac is ChangeBind's name for the new machine code");
        }
        let title = format!(
            "{action} does not read {key}: {} goes in {}",
            what(g),
            g.names[0]
        );
        out.push(if g.required && !g.found {
            error(kind_of(g), title, detail)
        } else {
            warning(kind_of(g), title, detail)
        });
        explained.push(g.names);
    }
    for g in &groups {
        if g.required && !g.found && !explained.contains(&g.names) {
            let keys: Vec<&str> = params.pairs().iter().map(|(k, _)| k.as_str()).collect();
            out.push(error(
                "missing_parameter",
                format!("{action} needs {}", g.names[0]),
                format!(
                    "it reads {} from the plaintext, which has {}",
                    list(g.names),
                    if keys.is_empty() {
                        "no parameters".to_string()
                    } else {
                        keys.join(", ")
                    }
                ),
            ));
        }
    }
    out
}
