//! Machine code v2: issued from the strongest component read, kept (sealed in the state
//! folder with a salted hash of each component) while enough components still match.
//!
//! - The code is HMAC-SHA256(salt, "verify machine code v2" ‖ anchor), its first 16 bytes
//!   as 32 uppercase hex characters, where the anchor is the board UUID, else the board
//!   serial, else the OS installation and system volume together, else v1's identity (the
//!   stored random one where the OS has none). So the same board gives the same code even
//!   when the store is gone (a reinstalled OS, a new disk).
//! - The store (`machine-v2` in the state folder) holds the code issued and a hash of each
//!   component, never a value. On a later run the stored code is kept when the rule of
//!   [`super::rule`] says "same machine"; otherwise a new code is issued from the anchor.
//! - The store is sealed with [`Sealed`] under the salt (the secret) and the processor's
//!   signature (the key identity): both survive every change after which the code must be
//!   kept (a reinstall, a new `MachineGuid`, a new disk, a component that cannot be read),
//!   so the store still opens then. A store copied to a machine of the same processor
//!   model opens too; there the board (or installation) components differ and the rule
//!   issues that machine its own code. docs/machine-code.md says why in full.

use std::path::PathBuf;

use ring::hmac;

use super::components::{component_hash, ComponentKind, Components};
use super::rule::{decide, weight, ComponentState};
use crate::error::Error;
use crate::log::LogHook;
use crate::state::{Sealed, StateFolder, Unsealed};

/// The store's file name in the state folder.
const STORE: &str = "machine-v2";
/// The first line of the store's contents.
const HEADER: &str = "verify machine code v2";

/// How the code of a [`MachineCheck`] came about. The numbers are the C ABI's
/// (`VERIFY_MACHINE_OUTCOME_*`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum Outcome {
    /// Nothing was stored: the code was issued from the components, and stored (or not,
    /// where nothing can be: a state folder under a file, a path too long; the note says
    /// why).
    Issued = 1,
    /// The stored code was kept: enough components match.
    Kept = 2,
    /// The stored code was not kept: the components say this is another machine (or a
    /// new board); a new code was issued and stored.
    Reissued = 3,
    /// A store was there but did not open (sealed for another processor or program,
    /// or damaged): the code was issued from the components, and stored.
    StoreUnreadable = 4,
}

impl Outcome {
    /// Its name: `issued`, `kept`, `reissued`, `store_unreadable`.
    pub fn name(self) -> &'static str {
        match self {
            Outcome::Issued => "issued",
            Outcome::Kept => "kept",
            Outcome::Reissued => "reissued",
            Outcome::StoreUnreadable => "store_unreadable",
        }
    }
}

/// One component in a [`MachineCheck`]: never its value.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ComponentCheck {
    /// Which component.
    pub kind: ComponentKind,
    /// How it compares with the stored one.
    pub state: ComponentState,
    /// Its weight in the rule.
    pub weight: i32,
}

/// The code of machine code v2 and why it is what it is ("why did it change"): every
/// component and whether it matches the stored one, without any value.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct MachineCheck {
    /// The machine code: 32 uppercase hex characters.
    pub code: String,
    /// Kept, issued or reissued.
    pub outcome: Outcome,
    /// Every component, in order of weight.
    pub components: Vec<ComponentCheck>,
    /// The rule's sum over the components (matching +weight, differing -weight).
    pub score: i32,
    /// What went wrong with the store, if anything (not opened, not written): the code is
    /// still right, but a later change is judged without it.
    pub note: Option<String>,
}

/// The stored record: the code and the hash of each component.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Record {
    code: String,
    hashes: Vec<(ComponentKind, String)>,
}

impl Record {
    fn hash(&self, kind: ComponentKind) -> Option<&str> {
        self.hashes
            .iter()
            .find(|(k, _)| *k == kind)
            .map(|(_, h)| h.as_str())
    }

    pub(crate) fn encode(&self) -> String {
        let mut text = format!("{HEADER}\ncode={}\n", self.code);
        for (kind, hash) in &self.hashes {
            text.push_str(kind.name());
            text.push('=');
            text.push_str(hash);
            text.push('\n');
        }
        text
    }

    pub(crate) fn decode(bytes: &[u8]) -> Option<Record> {
        let text = std::str::from_utf8(bytes).ok()?;
        let mut lines = text.lines();
        if lines.next()? != HEADER {
            return None;
        }
        let mut code = None;
        let mut hashes = Vec::new();
        for line in lines {
            let (key, value) = line.split_once('=')?;
            if key == "code" {
                code = Some(value.to_owned());
            } else if let Some(kind) = ComponentKind::from_name(key) {
                hashes.push((kind, value.to_owned()));
            }
            // Unknown keys (components of a later version) are skipped.
        }
        let code = code.filter(|c| {
            c.len() == super::MACHINE_CODE_LEN
                && c.bytes()
                    .all(|b| b.is_ascii_digit() || (b'A'..=b'F').contains(&b))
        })?;
        Some(Record { code, hashes })
    }
}

/// The code issued for `current`: from its anchor (see the module's documentation).
fn issue(salt: &str, current: &Components) -> Result<String, Error> {
    let key = hmac::Key::new(hmac::HMAC_SHA256, salt.as_bytes());
    let mut context = hmac::Context::with_key(&key);
    context.update(b"verify machine code v2\0");
    let mut anchored = false;
    for group in [
        &[ComponentKind::BoardUuid][..],
        &[ComponentKind::BoardSerial][..],
        &[ComponentKind::OsInstall, ComponentKind::SystemVolume][..],
    ] {
        for kind in group {
            if let Some(value) = current.get(*kind) {
                context.update(kind.name().as_bytes());
                context.update(b"\0");
                context.update(value.as_bytes());
                context.update(b"\0");
                anchored = true;
            }
        }
        if anchored {
            break;
        }
    }
    if !anchored {
        // No identifying component at all (a container without machine-id): v1's identity,
        // which is the stored random one there.
        let identity = super::identity()?;
        context.update(b"fallback\0");
        context.update(identity.as_bytes());
    }
    Ok(hex::encode_upper(
        &context.sign().as_ref()[..super::MACHINE_CODE_LEN / 2],
    ))
}

/// The store of machine code v2 for `salt` in `folder`, keyed with the processor
/// signature of `current`.
fn store(
    salt: &str,
    folder: PathBuf,
    current: &Components,
    log: Option<LogHook>,
) -> Result<Sealed, Error> {
    let identity = current.get(ComponentKind::Cpu).unwrap_or("");
    Sealed::new(folder, salt, salt.as_bytes(), identity.as_bytes(), log)
}

/// Machine code v2 for `salt`, given the components read now and the state folder.
pub(crate) fn check_with(
    salt: &str,
    folder: Option<PathBuf>,
    current: &Components,
    log: Option<LogHook>,
) -> Result<MachineCheck, Error> {
    check_stored(salt, folder, current, log, true)
}

/// [`check_with`], storing the outcome only when `write`.
fn check_stored(
    salt: &str,
    folder: Option<PathBuf>,
    current: &Components,
    log: Option<LogHook>,
    write: bool,
) -> Result<MachineCheck, Error> {
    let mut note = None;
    let sealed = match folder {
        // Nothing was ever stored in a file that is not a folder, and nothing can be: a new
        // code is issued (not "unreadable", which says a stored code did not open).
        Some(folder) if folder.exists() && !folder.is_dir() => {
            note = Some(format!(
                "the state folder {} is not a folder: the machine code is not stored",
                crate::error::quoted(&folder.to_string_lossy())
            ));
            None
        }
        Some(folder) => Some(store(salt, folder, current, log)?),
        None => None,
    };
    let mut unreadable = None;
    let stored = match &sealed {
        Some(sealed) => match sealed.open(STORE) {
            Ok(Some(bytes)) => {
                let record = Record::decode(&bytes);
                if record.is_none() {
                    unreadable = Some(Unsealed::Damaged);
                }
                record
            }
            Ok(None) => None,
            Err(why) => {
                unreadable = Some(why);
                None
            }
        },
        None => None,
    };
    if let Some(why) = unreadable {
        note = Some(format!(
            "the stored machine code does not open ({why:?}); a new one was issued"
        ));
    }

    let mut components = Vec::with_capacity(ComponentKind::ALL.len());
    let mut hashes = Vec::new();
    for kind in ComponentKind::ALL {
        let now = current.get(kind).map(|v| component_hash(salt, kind, v));
        let before = stored.as_ref().and_then(|r| r.hash(kind));
        let state = match (&now, before) {
            (Some(now), Some(before)) if now == before => ComponentState::Matches,
            (Some(_), Some(_)) => ComponentState::Differs,
            (Some(_), None) => ComponentState::NotStored,
            (None, _) if current.is_placeholder(kind) => ComponentState::Placeholder,
            (None, _) => ComponentState::Unreadable,
        };
        components.push(ComponentCheck {
            kind,
            state,
            weight: weight(kind),
        });
        if let Some(now) = now {
            hashes.push((kind, now));
        }
    }
    let verdict = decide(
        &components
            .iter()
            .map(|c| (c.kind, c.state))
            .collect::<Vec<_>>(),
    );
    let (code, outcome) = match &stored {
        Some(record) if verdict.same() => (record.code.clone(), Outcome::Kept),
        Some(_) => (issue(salt, current)?, Outcome::Reissued),
        None if unreadable.is_some() => (issue(salt, current)?, Outcome::StoreUnreadable),
        None => (issue(salt, current)?, Outcome::Issued),
    };
    // A kept code keeps the hashes of components not readable now, so that they count
    // again when they are back.
    if outcome == Outcome::Kept {
        if let Some(record) = &stored {
            for (kind, hash) in &record.hashes {
                if !current.has(*kind) {
                    hashes.push((*kind, hash.clone()));
                }
            }
            hashes.sort_by_key(|(kind, _)| *kind);
        }
    }
    let record = Record {
        code: code.clone(),
        hashes,
    };
    if let Some(sealed) = sealed.as_ref().filter(|_| write) {
        if stored.as_ref() != Some(&record) {
            if let Err(err) = sealed.write(STORE, record.encode().as_bytes()) {
                note = Some(format!("the machine code is not stored: {}", err.message()));
            }
        }
    }
    Ok(MachineCheck {
        code,
        outcome,
        components,
        score: verdict.score,
        note,
    })
}

/// Machine code v2 of this machine for `salt`, kept in `folder` (see [`MachineCheck`]).
pub fn machine_check(salt: &str, folder: &StateFolder) -> Result<MachineCheck, Error> {
    machine_check_logged(salt, folder, None)
}

/// [`machine_check`] that writes nothing: what the check would say now (the doctor's view).
pub(crate) fn machine_check_unwritten(
    salt: &str,
    folder: Option<PathBuf>,
) -> Result<MachineCheck, Error> {
    let current = super::read::components();
    check_stored(salt, folder, &current, None, false)
}

pub(crate) fn machine_check_logged(
    salt: &str,
    folder: &StateFolder,
    log: Option<LogHook>,
) -> Result<MachineCheck, Error> {
    let current = super::read::components();
    let (folder, note) = match folder.path() {
        Ok(path) => (Some(path), None),
        Err(err) => (None, Some(err.message().to_owned())),
    };
    let mut check = check_with(salt, folder, &current, log)?;
    if check.note.is_none() {
        check.note = note;
    }
    Ok(check)
}
