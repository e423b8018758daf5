//! What a diagnosis looks at (the request as the service saw it, and what the store lends
//! of its records), and how one is made.

use std::collections::{BTreeMap, HashMap, VecDeque};

use crate::fixtures::Program;
use crate::inspect::detail::{Diagnosis, Read, Severity};
use crate::wire::{Form, Params};

pub fn error(kind: &'static str, title: String, detail: String) -> Diagnosis {
    Diagnosis {
        kind,
        severity: Severity::Error,
        title,
        detail,
        signed: None,
    }
}

pub fn warning(kind: &'static str, title: String, detail: String) -> Diagnosis {
    Diagnosis {
        severity: Severity::Warning,
        ..error(kind, title, detail)
    }
}

/// What the diagnoses read of the store, lent with the state locked: the programs, their
/// session secrets (live and retired) and the clock's offset.
#[derive(Clone, Copy)]
pub struct Known<'a> {
    pub clock_offset: i64,
    pub programs: &'a BTreeMap<String, Program>,
    /// ApiPassword -> app_id.
    pub api_passwords: &'a HashMap<String, String>,
    /// Session secrets of each program, oldest first.
    pub api_password_order: &'a HashMap<String, VecDeque<String>>,
    pub retired: &'a HashMap<String, Retired>,
}

/// A session secret that was valid once: the store remembers the newest few thousand for
/// the diagnoses of a stale ApiPassword.
#[derive(Debug, Clone)]
pub struct Retired {
    pub app_id: String,
    /// When it was retired (sandbox clock).
    pub at: i64,
    pub why: String,
}

/// Everything a diagnosis may look at.
pub struct Seen<'a> {
    pub st: Known<'a>,
    pub now: i64,
    pub body: &'a [u8],
    pub content_type: Option<&'a str>,
    pub form: &'a Form,
    pub header_password: Option<&'a str>,
    pub segment: &'a str,
    pub code: i64,
    /// The plaintext's bytes, when `Data` decoded with the request's ApiPassword.
    pub plaintext: Option<&'a [u8]>,
    pub params: Option<&'a Params>,
    pub action: Option<&'a str>,
    /// The parameters the action looked up.
    pub reads: &'a [Read],
}

/// Lowercase, without `_`, `-` and spaces: how names are compared for near misses.
pub fn norm(s: &str) -> String {
    s.chars()
        .filter(|c| !matches!(c, '_' | '-' | ' '))
        .flat_map(char::to_lowercase)
        .collect()
}

pub fn list(names: &[&str]) -> String {
    match names {
        [] => String::new(),
        [one] => one.to_string(),
        [init @ .., last] => format!("{} or {last}", init.join(", ")),
    }
}
