//! The client's state folder: the files that outlive a process (the remembered winning
//! line and its addresses, the offline store of the last good verdict, machine code v2's
//! component hashes).
//!
//! Opt-in: nothing is written unless the host gives a folder or asks for the per-user
//! default ([`StateFolder`]). Every file there is:
//! - sealed: ChaCha20-Poly1305 under a key derived (HKDF-SHA256) from a secret of the program (its
//!   AppKey) and the machine's identity, so that a file copied to another machine, or made
//!   for another program, does not open, and one changed byte makes it not open;
//! - per program: its name carries a hash of the AppId, so programs may share a folder;
//! - written atomically: a temporary file of its own, flushed to disk, then renamed over the
//!   old one, so that two processes of one program writing at once never leave a torn file
//!   (the last rename wins whole); the files that only help a later start (the remembered
//!   line and addresses) are not flushed ([`Sealed::write_unflushed`]);
//! - readable by its owner only (mode 0600 in a folder created 0700 on Unix; on Windows the
//!   per-user default folder's ACL lets only the user, administrators and SYSTEM in);
//! - free of secrets in clear: callers store hashes, never a card key, password, token or
//!   api password.
//!
//! A file that does not open is ignored and reported to the log hook (sealed on another
//! machine or for another AppKey, or damaged: the header holds a check of the key and,
//! since format 2, a check of the program and its AppKey alone, which tell these apart for
//! the doctor); it is never an error that stops a login.

use std::fs::{self, OpenOptions};
use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::SystemTime;

use ring::aead::{Aad, LessSafeKey, Nonce, UnboundKey, CHACHA20_POLY1305, NONCE_LEN};
use ring::rand::{SecureRandom, SystemRandom};
use ring::{hkdf, hmac};
use zeroize::Zeroizing;

use crate::error::{quoted_path, Error};
use crate::log::{log, LogHook, LogLevel};
use crate::util::wiped::Wiped;

/// Where the state of a client lives.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum StateFolder {
    /// This folder (created if missing).
    Path(PathBuf),
    /// The per-user default: `$XDG_STATE_HOME/verify` (or `~/.local/state/verify`) on Linux
    /// and other Unix systems, `~/Library/Application Support/verify/state` on macOS,
    /// `%LOCALAPPDATA%\verify\state` on Windows.
    UserDefault,
}

impl StateFolder {
    /// The folder's path (the per-user default from the environment).
    pub fn path(&self) -> Result<PathBuf, Error> {
        match self {
            StateFolder::Path(path) => Ok(path.clone()),
            StateFolder::UserDefault => user_default().ok_or_else(|| {
                Error::system(
                    "no per-user state folder is known (set HOME, or XDG_STATE_HOME, or \
                     LOCALAPPDATA on Windows), or give the client a state folder",
                )
            }),
        }
    }
}

fn user_default() -> Option<PathBuf> {
    let env_dir = |name: &str| {
        std::env::var_os(name)
            .filter(|value| !value.is_empty())
            .map(PathBuf::from)
    };
    if cfg!(windows) {
        env_dir("LOCALAPPDATA").map(|dir| dir.join("verify").join("state"))
    } else if cfg!(target_os = "macos") {
        env_dir("HOME").map(|home| home.join("Library/Application Support/verify/state"))
    } else {
        env_dir("XDG_STATE_HOME")
            .or_else(|| env_dir("HOME").map(|home| home.join(".local").join("state")))
            .map(|dir| dir.join("verify"))
    }
}

/// The first bytes of a sealed file.
const MAGIC: &[u8; 4] = b"VFYS";
/// The format of the sealed files written: 2 adds the program check to 1's header. Files of
/// format 1 are still read.
const VERSION: u8 = 2;
/// Bytes of the key check in the header (tells "another machine or program" from "damaged"),
/// and of the program check (format 2: tells "another machine" from "another program or
/// AppKey").
const CHECK_LEN: usize = 8;
/// Format 1: magic, version, key check, nonce.
const HEADER_LEN_1: usize = MAGIC.len() + 1 + CHECK_LEN + NONCE_LEN;
/// Format 2: magic, version, key check, program check, nonce.
const HEADER_LEN: usize = MAGIC.len() + 1 + 2 * CHECK_LEN + NONCE_LEN;
/// The largest sealed file read: the state is small.
const MAX_FILE: u64 = 64 * 1024;

/// Why a sealed file was not opened.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Unsealed {
    /// Sealed for this program and AppKey on another machine (or this machine's identity
    /// changed).
    OtherMachine,
    /// Sealed for another program or AppKey.
    OtherKey,
    /// Sealed with another key, in the first format, which does not say whether another
    /// machine or another program or AppKey.
    OtherMachineOrKey,
    /// Shorter than a sealed file, not one at all, or changed after it was written.
    Damaged,
    /// Not readable (permissions, I/O).
    Unreadable,
}

impl Unsealed {
    fn describe(self) -> &'static str {
        match self {
            Unsealed::OtherMachine => "it was sealed on another machine; it is ignored",
            Unsealed::OtherKey => "it was sealed for another program or AppKey; it is ignored",
            Unsealed::OtherMachineOrKey => {
                "it was sealed on another machine or for another program (AppKey); it is ignored"
            }
            Unsealed::Damaged => "it is damaged (truncated or changed); it is ignored",
            Unsealed::Unreadable => "it cannot be read; it is ignored",
        }
    }
}

/// The sealed files of one program on one machine, in one folder.
pub(crate) struct Sealed {
    folder: PathBuf,
    /// A hash of the AppId: the part of every file name that makes it this program's.
    scope: String,
    key: LessSafeKey,
    check: [u8; CHECK_LEN],
    /// The check of the program and its secret alone (no machine identity).
    program_check: [u8; CHECK_LEN],
    /// Keys the hashes of identities kept in the files.
    hasher: hmac::Key,
    log: Option<LogHook>,
}

impl std::fmt::Debug for Sealed {
    /// The key is never printed.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Sealed")
            .field("folder", &self.folder)
            .field("scope", &self.scope)
            .finish_non_exhaustive()
    }
}

/// Output lengths for HKDF expansion.
struct Len(usize);

impl hkdf::KeyType for Len {
    fn len(&self) -> usize {
        self.0
    }
}

impl Sealed {
    /// The sealed files of the program `app_id` with the secret `secret` (its AppKey) on the
    /// machine whose identity is `identity`, in `folder` (created when first written).
    pub(crate) fn new(
        folder: PathBuf,
        app_id: &str,
        secret: &[u8],
        identity: &[u8],
        log: Option<LogHook>,
    ) -> Result<Sealed, Error> {
        let salt = hkdf::Salt::new(hkdf::HKDF_SHA256, b"verify state folder v1");
        // Lengths first, so that no two (secret, identity) pairs give the same input.
        let mut input = Wiped::new(Vec::with_capacity(16 + secret.len() + identity.len()));
        for part in [secret, identity, app_id.as_bytes()] {
            input.extend_from_slice(&(part.len() as u64).to_be_bytes());
            input.extend_from_slice(part);
        }
        let prk = salt.extract(&input);
        let mut key = Zeroizing::new([0u8; 32]);
        let mut check = [0u8; CHECK_LEN];
        let derive = |info: &[u8], out: &mut [u8]| {
            prk.expand(&[info], Len(out.len()))
                .and_then(|okm| okm.fill(out))
                .map_err(|_| Error::system("deriving the state folder's key failed"))
        };
        derive(b"seal", &mut key[..])?;
        derive(b"check", &mut check)?;
        // The program check: the same derivation without the machine identity.
        let mut program_input = Wiped::new(Vec::with_capacity(16 + secret.len()));
        for part in [secret, app_id.as_bytes()] {
            program_input.extend_from_slice(&(part.len() as u64).to_be_bytes());
            program_input.extend_from_slice(part);
        }
        let mut program_check = [0u8; CHECK_LEN];
        salt.extract(&program_input)
            .expand(&[b"program check"], Len(CHECK_LEN))
            .and_then(|okm| okm.fill(&mut program_check))
            .map_err(|_| Error::system("deriving the state folder's key failed"))?;
        let mut hasher = Zeroizing::new([0u8; 32]);
        derive(b"identity", &mut hasher[..])?;
        let key = UnboundKey::new(&CHACHA20_POLY1305, &key[..])
            .map_err(|_| Error::system("the state folder's key is not usable"))?;
        let scope = ring::digest::digest(&ring::digest::SHA256, app_id.as_bytes());
        Ok(Sealed {
            folder,
            scope: hex::encode(&scope.as_ref()[..6]),
            key: LessSafeKey::new(key),
            check,
            program_check,
            hasher: hmac::Key::new(hmac::HMAC_SHA256, &hasher[..]),
            log,
        })
    }

    /// A keyed hash (hex) of `data` under `label`: how a file names an identity (a card key,
    /// a username) without holding it.
    pub(crate) fn keyed_hash(&self, label: &[u8], data: &[u8]) -> String {
        let mut context = hmac::Context::with_key(&self.hasher);
        context.update(&(label.len() as u64).to_be_bytes());
        context.update(label);
        context.update(data);
        hex::encode(context.sign().as_ref())
    }

    /// Whether the file `name` exists.
    #[cfg(test)]
    pub(crate) fn exists(&self, name: &str) -> bool {
        self.path(name).exists()
    }

    /// The path of the file `name`.
    pub(crate) fn path(&self, name: &str) -> PathBuf {
        self.folder.join(format!("{name}-{}.sealed", self.scope))
    }

    fn aad(&self, name: &str, header: &[u8]) -> Vec<u8> {
        let mut aad = Vec::with_capacity(header.len() + name.len() + self.scope.len() + 2);
        aad.extend_from_slice(header);
        aad.extend_from_slice(name.as_bytes());
        aad.push(0);
        aad.extend_from_slice(self.scope.as_bytes());
        aad
    }

    /// The contents of the file `name`, or `None` when it is absent or does not open (then
    /// the log hook says why).
    pub(crate) fn read(&self, name: &str) -> Option<Wiped<Vec<u8>>> {
        match self.open(name) {
            Ok(found) => found,
            Err(why) => {
                let path = self.path(name);
                log(&self.log, LogLevel::Warn, || {
                    format!(
                        "state file {} does not open: {}",
                        quoted_path(&path),
                        why.describe()
                    )
                });
                None
            }
        }
    }

    /// The contents of the file `name`: `Ok(None)` when there is none (nor can be: a folder
    /// under a file, a path too long), `Err` with the reason when it does not open.
    pub(crate) fn open(&self, name: &str) -> Result<Option<Wiped<Vec<u8>>>, Unsealed> {
        let path = self.path(name);
        let bytes = match read_limited(&path) {
            Ok(bytes) => bytes,
            Err(err) if err.kind() == std::io::ErrorKind::NotFound => return Ok(None),
            Err(err) if err.kind() == std::io::ErrorKind::InvalidData => {
                return Err(Unsealed::Damaged)
            }
            Err(_) => {
                // Unreadable only when something is there (or may be, behind a folder that
                // cannot be listed): a path that cannot name a file holds nothing.
                return match fs::symlink_metadata(&path) {
                    Err(err) if err.kind() != std::io::ErrorKind::PermissionDenied => Ok(None),
                    _ => Err(Unsealed::Unreadable),
                };
            }
        };
        self.unseal(name, bytes).map(Some)
    }

    /// The contents of `bytes` sealed for the name `name` (a file's bytes, or a value kept
    /// elsewhere: the registry), or why they do not open.
    pub(crate) fn unseal(&self, name: &str, bytes: Vec<u8>) -> Result<Wiped<Vec<u8>>, Unsealed> {
        let mut bytes = Wiped::new(bytes);
        let header_len = match bytes.get(MAGIC.len()) {
            Some(1) => HEADER_LEN_1,
            Some(2) => HEADER_LEN,
            _ => return Err(Unsealed::Damaged),
        };
        if bytes.len() < header_len + CHACHA20_POLY1305.tag_len() || &bytes[..MAGIC.len()] != MAGIC
        {
            return Err(Unsealed::Damaged);
        }
        let check_at = MAGIC.len() + 1;
        let mut nonce_at = check_at + CHECK_LEN;
        let ours = crate::util::constant_eq(&bytes[check_at..nonce_at], &self.check);
        if header_len == HEADER_LEN {
            let program = crate::util::constant_eq(
                &bytes[nonce_at..nonce_at + CHECK_LEN],
                &self.program_check,
            );
            nonce_at += CHECK_LEN;
            match (ours, program) {
                (true, _) => {}
                (false, true) => return Err(Unsealed::OtherMachine),
                (false, false) => return Err(Unsealed::OtherKey),
            }
        } else if !ours {
            return Err(Unsealed::OtherMachineOrKey);
        }
        let nonce = Nonce::try_assume_unique_for_key(&bytes[nonce_at..header_len])
            .map_err(|_| Unsealed::Damaged)?;
        let aad = self.aad(name, &bytes[..header_len]);
        let (_, sealed) = bytes.split_at_mut(header_len);
        let plain = self
            .key
            .open_in_place(nonce, Aad::from(&aad), sealed)
            .map_err(|_| Unsealed::Damaged)?;
        Ok(Wiped::new(plain.to_vec()))
    }

    /// The name `name` with this program's scope, as files and other places name it.
    pub(crate) fn scoped(&self, name: &str) -> String {
        format!("{name}-{}", self.scope)
    }

    /// `plain` sealed for the name `name`: the bytes of its file (or of a value kept
    /// elsewhere: the registry).
    pub(crate) fn seal(&self, name: &str, plain: &[u8]) -> Result<Wiped<Vec<u8>>, Error> {
        let mut nonce = [0u8; NONCE_LEN];
        SystemRandom::new()
            .fill(&mut nonce)
            .map_err(|_| Error::system("no system randomness"))?;
        let mut file = Wiped::new(Vec::with_capacity(
            HEADER_LEN + plain.len() + CHACHA20_POLY1305.tag_len(),
        ));
        file.extend_from_slice(MAGIC);
        file.push(VERSION);
        file.extend_from_slice(&self.check);
        file.extend_from_slice(&self.program_check);
        file.extend_from_slice(&nonce);
        let aad = self.aad(name, &file);
        // Room for the tag up front: growing would leave the first block unwiped.
        let mut sealed = Wiped::new(Vec::with_capacity(
            plain.len() + CHACHA20_POLY1305.tag_len(),
        ));
        sealed.extend_from_slice(plain);
        self.key
            .seal_in_place_append_tag(
                Nonce::assume_unique_for_key(nonce),
                Aad::from(&aad),
                &mut *sealed,
            )
            .map_err(|_| Error::system("sealing a state file failed"))?;
        file.extend_from_slice(&sealed);
        Ok(file)
    }

    /// Seals `plain` into the file `name`, atomically: a temporary file of this process,
    /// flushed, then renamed over the old file.
    pub(crate) fn write(&self, name: &str, plain: &[u8]) -> Result<(), Error> {
        self.write_with(name, plain, true)
    }

    /// [`Sealed::write`] without flushing to disk (no `fsync`, which takes about 10 ms on
    /// some disks, on the path of a connection): for what is only a help to a later start
    /// (the remembered line and addresses). After a power cut the file may hold the previous
    /// contents, or not open (then it is ignored, as any damaged file is).
    pub(crate) fn write_unflushed(&self, name: &str, plain: &[u8]) -> Result<(), Error> {
        self.write_with(name, plain, false)
    }

    fn write_with(&self, name: &str, plain: &[u8], flush: bool) -> Result<(), Error> {
        let failed = |what: &str, path: &Path, err: std::io::Error| {
            Error::system(format!("cannot {what} {}: {err}", quoted_path(path)))
        };
        let file = self.seal(name, plain)?;
        create_folder(&self.folder).map_err(|err| failed("create", &self.folder, err))?;
        let target = self.path(name);
        let aside = self.folder.join(format!(
            ".{name}-{}.{}.{}.tmp",
            self.scope,
            std::process::id(),
            next_temporary()
        ));
        let written = owner_only().open(&aside).and_then(|mut out| {
            out.write_all(&file)?;
            if flush {
                out.sync_all()?;
            }
            Ok(())
        });
        if let Err(err) = written {
            let _ = fs::remove_file(&aside);
            return Err(failed("write", &aside, err));
        }
        if let Err(err) = fs::rename(&aside, &target) {
            let _ = fs::remove_file(&aside);
            return Err(failed("replace", &target, err));
        }
        if flush {
            sync_folder(&self.folder);
        }
        Ok(())
    }

    /// Whether the folder can be created and written: a file of its own is made there and
    /// removed (nothing stays). `Err` says why not.
    pub(crate) fn check_writable(&self) -> Result<(), Error> {
        let failed = |what: &str, path: &Path, err: std::io::Error| {
            Error::local(
                crate::error::ErrorKind::StateFolder,
                format!(
                    "the state folder {} cannot be used: cannot {what} it: {err}",
                    quoted_path(path)
                ),
            )
        };
        create_folder(&self.folder).map_err(|err| failed("create", &self.folder, err))?;
        let probe = self.folder.join(format!(
            ".probe-{}.{}.{}.tmp",
            self.scope,
            std::process::id(),
            next_temporary()
        ));
        owner_only()
            .open(&probe)
            .and_then(|mut out| out.write_all(b"probe"))
            .map_err(|err| failed("write in", &self.folder, err))?;
        fs::remove_file(&probe).map_err(|err| failed("remove a file in", &self.folder, err))
    }

    /// The names of this program's files whose names start with `prefix`, each with when it
    /// was last written (in no order).
    pub(crate) fn names_starting(&self, prefix: &str) -> Vec<(String, SystemTime)> {
        let suffix = format!("-{}.sealed", self.scope);
        let Ok(entries) = fs::read_dir(&self.folder) else {
            return Vec::new();
        };
        entries
            .filter_map(Result::ok)
            .filter_map(|entry| {
                let file = entry.file_name().into_string().ok()?;
                let name = file.strip_suffix(&suffix)?;
                let written = entry
                    .metadata()
                    .and_then(|meta| meta.modified())
                    .unwrap_or(SystemTime::UNIX_EPOCH);
                name.starts_with(prefix).then(|| (name.to_owned(), written))
            })
            .collect()
    }

    /// Removes the file `name`, if it exists.
    pub(crate) fn remove(&self, name: &str) {
        let path = self.path(name);
        match fs::remove_file(&path) {
            Ok(()) => sync_folder(&self.folder),
            Err(err) if err.kind() == std::io::ErrorKind::NotFound => {}
            Err(err) => log(&self.log, LogLevel::Warn, || {
                format!("cannot remove state file {}: {err}", quoted_path(&path))
            }),
        }
    }
}

/// Reads at most [`MAX_FILE`] bytes; a longer file is `InvalidData`.
fn read_limited(path: &Path) -> std::io::Result<Vec<u8>> {
    use std::io::Read;
    let mut bytes = Vec::new();
    fs::File::open(path)?
        .take(MAX_FILE + 1)
        .read_to_end(&mut bytes)?;
    if bytes.len() as u64 > MAX_FILE {
        return Err(std::io::ErrorKind::InvalidData.into());
    }
    Ok(bytes)
}

/// A number for a temporary file name, unique within the process.
fn next_temporary() -> u64 {
    static NEXT: AtomicU64 = AtomicU64::new(0);
    NEXT.fetch_add(1, Ordering::Relaxed)
}

/// Options to create a new file readable by its owner only.
fn owner_only() -> OpenOptions {
    let mut options = OpenOptions::new();
    options.write(true).create_new(true);
    #[cfg(unix)]
    {
        use std::os::unix::fs::OpenOptionsExt;
        options.mode(0o600);
    }
    options
}

/// Creates the folder (and its parents), the last one owner-only on Unix.
fn create_folder(folder: &Path) -> std::io::Result<()> {
    if folder.is_dir() {
        return Ok(());
    }
    let mut builder = fs::DirBuilder::new();
    builder.recursive(true);
    #[cfg(unix)]
    {
        use std::os::unix::fs::DirBuilderExt;
        builder.mode(0o700);
    }
    builder.create(folder)
}

/// Flushes a folder's entries (a rename) to disk where the platform allows it.
fn sync_folder(folder: &Path) {
    #[cfg(unix)]
    if let Ok(dir) = fs::File::open(folder) {
        let _ = dir.sync_all();
    }
    #[cfg(not(unix))]
    let _ = folder;
}

#[cfg(test)]
mod tests {
    use super::*;

    fn scratch(name: &str) -> PathBuf {
        let dir = std::env::temp_dir().join(format!("verify-state-{}-{name}", std::process::id()));
        let _ = fs::remove_dir_all(&dir);
        dir
    }

    fn sealed(folder: &Path, app: &str, secret: &str, identity: &str) -> Sealed {
        Sealed::new(
            folder.to_owned(),
            app,
            secret.as_bytes(),
            identity.as_bytes(),
            None,
        )
        .expect("sealed")
    }

    #[test]
    fn a_file_opens_for_its_program_and_machine_only() {
        let dir = scratch("keys");
        let mine = sealed(&dir, "10001", "APPKEY", "machine-a");
        assert!(mine.read("line").is_none(), "nothing yet");
        mine.write("line", b"hello").expect("write");
        assert_eq!(
            mine.read("line").as_deref().map(Vec::as_slice),
            Some(&b"hello"[..])
        );

        // Unflushed, it is the same sealed file.
        mine.write_unflushed("line", b"again").expect("write");
        assert_eq!(
            mine.read("line").as_deref().map(Vec::as_slice),
            Some(&b"again"[..])
        );

        let other_machine = sealed(&dir, "10001", "APPKEY", "machine-b");
        assert_eq!(
            other_machine.open("line").err(),
            Some(Unsealed::OtherMachine)
        );
        let other_key = sealed(&dir, "10001", "OTHERKEY", "machine-a");
        assert_eq!(other_key.open("line").err(), Some(Unsealed::OtherKey));
        // Another program has its own file name: nothing there.
        let other_app = sealed(&dir, "10002", "APPKEY", "machine-a");
        assert!(matches!(other_app.open("line"), Ok(None)));
        // A file copied under another program's name does not open either.
        fs::copy(mine.path("line"), other_app.path("line")).expect("copy");
        assert!(other_app.open("line").is_err());
        let _ = fs::remove_dir_all(&dir);
    }

    #[test]
    fn a_file_of_the_first_format_still_opens_and_says_less_when_it_does_not() {
        let dir = scratch("format1");
        let mine = sealed(&dir, "10001", "APPKEY", "machine-a");
        // A file of format 1: the header without the program check, sealed over that header.
        let mut nonce = [0u8; NONCE_LEN];
        nonce[0] = 7;
        let mut file = Vec::new();
        file.extend_from_slice(MAGIC);
        file.push(1);
        file.extend_from_slice(&mine.check);
        file.extend_from_slice(&nonce);
        let aad = mine.aad("line", &file);
        let mut sealed_part = b"old".to_vec();
        mine.key
            .seal_in_place_append_tag(
                Nonce::assume_unique_for_key(nonce),
                Aad::from(&aad),
                &mut sealed_part,
            )
            .expect("seal");
        file.extend_from_slice(&sealed_part);
        fs::create_dir_all(&dir).expect("folder");
        fs::write(mine.path("line"), &file).expect("write");
        assert_eq!(
            mine.open("line")
                .expect("opens")
                .as_deref()
                .map(Vec::as_slice),
            Some(&b"old"[..])
        );
        let other_machine = sealed(&dir, "10001", "APPKEY", "machine-b");
        assert_eq!(
            other_machine.open("line").err(),
            Some(Unsealed::OtherMachineOrKey)
        );
        let _ = fs::remove_dir_all(&dir);
    }

    #[test]
    fn a_path_that_cannot_hold_a_file_holds_nothing() {
        let dir = scratch("nowhere");
        fs::create_dir_all(&dir).expect("folder");
        let file = dir.join("a-file");
        fs::write(&file, b"x").expect("file");
        let long = dir.join("x".repeat(64 * 1024));
        for folder in [
            file.join("state"),
            long,
            PathBuf::from("/proc/verify-state"),
        ] {
            let store = sealed(&folder, "10001", "APPKEY", "machine-a");
            assert!(
                matches!(store.open("line"), Ok(None)),
                "{}",
                folder
                    .display()
                    .to_string()
                    .chars()
                    .take(80)
                    .collect::<String>()
            );
        }
        let _ = fs::remove_dir_all(&dir);
    }

    #[test]
    fn a_changed_or_truncated_file_does_not_open() {
        let dir = scratch("damage");
        let store = sealed(&dir, "10001", "APPKEY", "machine-a");
        store.write("verdict", b"0123456789abcdef").expect("write");
        let path = store.path("verdict");
        let good = fs::read(&path).expect("read");
        for at in 0..good.len() {
            let mut bad = good.clone();
            bad[at] ^= 0x01;
            fs::write(&path, &bad).expect("write");
            assert!(
                store.open("verdict").is_err(),
                "byte {at} flipped still opens"
            );
        }
        for len in [0, 3, HEADER_LEN, good.len() - 1] {
            fs::write(&path, &good[..len]).expect("write");
            assert_eq!(
                store.open("verdict").err(),
                Some(Unsealed::Damaged),
                "{len}"
            );
        }
        fs::write(&path, &good).expect("write");
        assert!(store.open("verdict").expect("opens").is_some());
        let _ = fs::remove_dir_all(&dir);
    }

    #[cfg(unix)]
    #[test]
    fn files_are_owner_only_and_no_temporary_file_is_left() {
        use std::os::unix::fs::PermissionsExt;
        let dir = scratch("mode").join("nested");
        let store = sealed(&dir, "10001", "APPKEY", "machine-a");
        store.write("line", b"x").expect("write");
        store.write("line", b"y").expect("rewrite");
        let mode = fs::metadata(store.path("line"))
            .expect("meta")
            .permissions()
            .mode();
        assert_eq!(mode & 0o777, 0o600);
        let folder_mode = fs::metadata(&dir).expect("meta").permissions().mode();
        assert_eq!(folder_mode & 0o777, 0o700);
        let names: Vec<_> = fs::read_dir(&dir)
            .expect("list")
            .map(|entry| entry.expect("entry").file_name())
            .collect();
        assert_eq!(names.len(), 1, "{names:?}");
        store.remove("line");
        assert!(matches!(store.open("line"), Ok(None)));
        let _ = fs::remove_dir_all(dir.parent().expect("parent"));
    }

    #[test]
    fn concurrent_writers_never_tear_a_file() {
        let dir = scratch("race");
        let store = std::sync::Arc::new(sealed(&dir, "10001", "APPKEY", "machine-a"));
        store.write("verdict", &[b'a'; 512]).expect("first");
        let writers: Vec<_> = (0..4u8)
            .map(|n| {
                let store = std::sync::Arc::clone(&store);
                std::thread::spawn(move || {
                    for _ in 0..50 {
                        store.write("verdict", &[b'a' + n; 512]).expect("write");
                    }
                })
            })
            .collect();
        for _ in 0..200 {
            let read = store.open("verdict").expect("opens").expect("present");
            assert!(read.iter().all(|&b| b == read[0]), "torn");
        }
        for writer in writers {
            writer.join().expect("writer");
        }
        let _ = fs::remove_dir_all(&dir);
    }
}
