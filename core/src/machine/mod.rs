//! A stable machine code for the `Mac` parameter.
//!
//! Two algorithms, chosen by [`MachineVersion`]:
//! - v1 (the default, [`machine_code`]): a salted hash of one OS machine identity. Frozen:
//!   cards in the field are bound to it, so its output never changes (a known-answer test
//!   pins it).
//! - v2 ([`machine_code_with`], [`machine_check`]): several components read natively (the
//!   board's SMBIOS UUID and serial, the OS installation, the system volume, the processor,
//!   the model), issued from the strongest one and kept, sealed in the state folder, while
//!   enough of them still match; [`machine_check`] says which match ("why did it
//!   change"). docs/machine-code.md has the rule and its weights.
//!
//! [`machine_virtualization`] reports whether the machine looks virtual.
//!
//! v1's identity is `/etc/machine-id` (or `/var/lib/dbus/machine-id`) on Linux, `MachineGuid`
//! from the registry on Windows, the hardware UUID (`gethostuuid`) on macOS. No process is
//! spawned. When the OS gives none (some containers), a random identity is created once and
//! kept in the user's configuration folder, in `verify/machine-id`:
//! `$XDG_CONFIG_HOME` or `~/.config` on Linux, `~/Library/Application Support` on macOS,
//! `%APPDATA%` on Windows.
//!
//! The code is HMAC-SHA256(key = salt, identity), its first 16 bytes as 32 uppercase hex
//! characters: two programs with different salts see unrelated codes, and the identity
//! cannot be recovered from a code.

use std::fs::{self, OpenOptions};
use std::io::Write;
use std::path::{Path, PathBuf};

use ring::hmac;
use ring::rand::{SecureRandom, SystemRandom};

use crate::error::Error;
use crate::log::LogHook;
use crate::state::StateFolder;

mod components;
mod os;
mod read;
mod rule;
#[cfg(any(windows, test, fuzzing))]
pub(crate) mod smbios;
#[cfg(test)]
mod table;
pub(crate) mod v2;
mod virt;

pub use components::{ComponentKind, Components};
pub use rule::{weight as component_weight, ComponentState};
pub(crate) use v2::machine_check_unwritten;
pub use v2::{machine_check, ComponentCheck, MachineCheck, Outcome};
pub use virt::{machine_virtualization, Sign, SignKind, Virtualization};

/// The machine code's algorithm.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
#[non_exhaustive]
pub enum MachineVersion {
    /// v1, the default: HMAC-SHA256(salt, one OS identity). Frozen.
    #[default]
    V1 = 1,
    /// v2: several components, tolerant matching, kept in the state folder.
    V2 = 2,
}

/// How [`machine_code_with`] makes the code.
#[derive(Clone, Default)]
pub struct MachineOptions {
    /// The algorithm. Default: v1.
    pub version: MachineVersion,
    /// Where v2 keeps the code it issued and the hashes of the components (v1 keeps
    /// nothing there). Default: the per-user state folder.
    pub state_folder: Option<StateFolder>,
    /// Where a stored code that does not open is reported. Default: none.
    pub log: Option<LogHook>,
}

impl std::fmt::Debug for MachineOptions {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("MachineOptions")
            .field("version", &self.version)
            .field("state_folder", &self.state_folder)
            .field("log", &self.log.is_some())
            .finish()
    }
}

/// The machine code of this machine for `salt` with the algorithm and state folder of
/// `options`: v1 as [`machine_code`], v2 as [`machine_check`]'s code.
pub fn machine_code_with(salt: &str, options: &MachineOptions) -> Result<String, Error> {
    match options.version {
        MachineVersion::V1 => machine_code(salt),
        MachineVersion::V2 => {
            let folder = options
                .state_folder
                .clone()
                .unwrap_or(StateFolder::UserDefault);
            v2::machine_check_logged(salt, &folder, options.log.clone()).map(|check| check.code)
        }
    }
}

/// Length of a machine code: 32 uppercase hex characters.
pub const MACHINE_CODE_LEN: usize = 32;

/// Files holding the Linux machine identity, in order of preference.
const LINUX_SOURCES: [&str; 2] = ["/etc/machine-id", "/var/lib/dbus/machine-id"];

/// The v1 machine code of this machine for `salt` (use one salt per program, such as its
/// AppId). The same on every call and in every process of the machine.
pub fn machine_code(salt: &str) -> Result<String, Error> {
    Ok(code_of(salt, &identity()?))
}

/// The machine's identity, unsalted: the OS's, or the one kept in the user's configuration
/// folder. Only for the machine code and for deriving keys; never shown.
pub(crate) fn identity() -> Result<String, Error> {
    match os_identity() {
        Some(identity) => Ok(identity),
        None => stored_identity(&fallback_file()?),
    }
}

/// The salted code of an identity.
fn code_of(salt: &str, identity: &str) -> String {
    let key = hmac::Key::new(hmac::HMAC_SHA256, salt.as_bytes());
    let tag = hmac::sign(&key, identity.as_bytes());
    hex::encode_upper(&tag.as_ref()[..MACHINE_CODE_LEN / 2])
}

/// A usable identity: trimmed, non-empty, not all zeros.
fn usable(text: &str) -> Option<String> {
    let text = text.trim();
    (!text.is_empty() && text.chars().any(|c| c != '0' && c != '-')).then(|| text.to_owned())
}

fn os_identity() -> Option<String> {
    if cfg!(target_os = "linux") {
        identity_from_files(&LINUX_SOURCES.map(PathBuf::from))
    } else {
        os::machine_identity().and_then(|id| usable(&id))
    }
}

fn identity_from_files(sources: &[PathBuf]) -> Option<String> {
    sources
        .iter()
        .find_map(|path| fs::read_to_string(path).ok().and_then(|text| usable(&text)))
}

/// `verify/machine-id` in the user's configuration folder.
fn fallback_file() -> Result<PathBuf, Error> {
    let env_dir = |name: &str| {
        std::env::var_os(name)
            .filter(|v| !v.is_empty())
            .map(PathBuf::from)
    };
    let base = if cfg!(windows) {
        env_dir("APPDATA")
    } else if cfg!(target_os = "macos") {
        env_dir("HOME").map(|home| home.join("Library/Application Support"))
    } else {
        env_dir("XDG_CONFIG_HOME").or_else(|| env_dir("HOME").map(|home| home.join(".config")))
    };
    base.map(|dir| dir.join("verify").join("machine-id"))
        .ok_or_else(|| {
            Error::system(
                "the OS gives no machine identity and no configuration folder is known \
                 (set HOME or XDG_CONFIG_HOME)",
            )
        })
}

/// The identity kept in `file`, created with 16 random bytes on first use. Concurrent
/// first uses agree: only one process creates the file, the others read it.
fn stored_identity(file: &Path) -> Result<String, Error> {
    let failed = |what: &str, err: std::io::Error| {
        Error::system(format!(
            "cannot {what} {}: {err}",
            crate::error::quoted_path(file)
        ))
    };
    if let Some(identity) = fs::read_to_string(file).ok().and_then(|t| usable(&t)) {
        return Ok(identity);
    }
    if let Some(folder) = file.parent() {
        fs::create_dir_all(folder).map_err(|err| failed("create the folder of", err))?;
    }
    let mut bytes = [0u8; 16];
    SystemRandom::new()
        .fill(&mut bytes)
        .map_err(|_| Error::system("no system randomness"))?;
    let identity = hex::encode(bytes);
    // Written aside, then linked into place: the file appears whole or not at all, and a
    // process that loses the race reads the winner's identity.
    let aside = file.with_extension(format!("tmp{}", std::process::id()));
    let written = OpenOptions::new()
        .write(true)
        .create(true)
        .truncate(true)
        .open(&aside)
        .and_then(|mut out| {
            out.write_all(identity.as_bytes())
                .and_then(|()| out.sync_all())
        });
    if let Err(err) = written {
        let _ = fs::remove_file(&aside);
        return Err(failed("write", err));
    }
    let linked = fs::hard_link(&aside, file);
    let _ = fs::remove_file(&aside);
    match linked {
        Ok(()) => Ok(identity),
        Err(err) if err.kind() == std::io::ErrorKind::AlreadyExists => fs::read_to_string(file)
            .ok()
            .and_then(|t| usable(&t))
            .ok_or_else(|| failed("read", err)),
        Err(err) => Err(failed("create", err)),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn scratch(name: &str) -> PathBuf {
        let dir =
            std::env::temp_dir().join(format!("verify-machine-{}-{name}", std::process::id()));
        let _ = fs::remove_dir_all(&dir);
        dir
    }

    /// v1 is frozen: these outputs are what every earlier version gave, bit for bit.
    #[test]
    fn v1_known_answers() {
        assert_eq!(
            code_of("app-1", "identity"),
            "4A47D56C3F3DF022CE9D61A0AEF229A6"
        );
        assert_eq!(
            code_of("10001", "3d1219c7c4c5404aaa1f6d2a48adfda4"),
            "83868DA9E636847D58D5B790C9071DEF"
        );
        assert_eq!(
            code_of("", "0b5e1c1e-7a3d-4c2b-9e8f-0123456789ab"),
            "A365E3536AD7972724D6970FC1302D09"
        );
    }

    #[test]
    fn codes_are_fixed_length_uppercase_hex_and_salted() {
        let one = code_of("app-1", "identity");
        assert_eq!(one.len(), MACHINE_CODE_LEN);
        assert!(one
            .chars()
            .all(|c| c.is_ascii_digit() || c.is_ascii_uppercase()));
        assert_eq!(one, code_of("app-1", "identity"));
        assert_ne!(one, code_of("app-2", "identity"));
        assert_ne!(one, code_of("app-1", "other identity"));
    }

    #[test]
    fn identity_files_are_read_in_order_and_empty_ones_skipped() {
        let dir = scratch("sources");
        fs::create_dir_all(&dir).expect("dir");
        let (empty, zeros, real) = (dir.join("a"), dir.join("b"), dir.join("c"));
        fs::write(&empty, "\n").expect("write");
        fs::write(&zeros, "00000000000000000000000000000000\n").expect("write");
        fs::write(&real, "0123abcd\n").expect("write");
        let missing = dir.join("missing");
        assert_eq!(
            identity_from_files(&[missing.clone(), empty, zeros, real]),
            Some("0123abcd".to_owned())
        );
        assert_eq!(identity_from_files(&[missing]), None);
        let _ = fs::remove_dir_all(&dir);
    }

    #[test]
    fn the_fallback_identity_is_created_once_and_kept() {
        let dir = scratch("fallback");
        let file = dir.join("verify").join("machine-id");
        let first = stored_identity(&file).expect("created");
        assert_eq!(first.len(), 32);
        assert_eq!(fs::read_to_string(&file).expect("kept"), first);
        assert_eq!(stored_identity(&file).expect("read back"), first);
        // Another process's file wins over a fresh one.
        fs::write(&file, "abcdef").expect("replace");
        assert_eq!(stored_identity(&file).expect("read"), "abcdef");
        let _ = fs::remove_dir_all(&dir);
    }

    #[test]
    fn the_machine_code_is_stable_across_calls() {
        let code = machine_code("salt").expect("a machine code");
        assert_eq!(code, machine_code("salt").expect("again"));
        assert_ne!(code, machine_code("other salt").expect("other"));
    }
}
