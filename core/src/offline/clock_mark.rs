//! The time high-water mark of the offline store: the latest time seen on this machine, so
//! that a clock wound back does not give offline verdicts again (see SECURITY.md, "Offline
//! verdicts").
//!
//! - It is kept in two places, sealed as the state folder's files are (the program's key and
//!   the machine's identity): the state folder, and a second place outside it (the user's
//!   configuration folder; on Windows the user's registry, `HKEY_CURRENT_USER\Software\verify`).
//! - It has an identity, random and known only to this store, written in both places. A
//!   verdict records the mark it was written under ([`Stamp`]: that identity, the mark's time
//!   at writing, and a keyed hash of where the second place was); at an offline check the
//!   verdict answers only when both places hold a mark of that identity at least as late as
//!   its time, and the second place still resolves to where it was ([`ClockMark::vouch`]).
//!   So deleting a piece, putting back an older copy of one, or pointing the second place
//!   elsewhere refuses until a login reaches the server.
//! - Only a confirmation by the server ([`ClockMark::confirm`]) creates a missing place or the
//!   identity, and sets the mark to the server's time (its `Date`; up or down, so that a clock
//!   once set ahead by mistake costs offline starts only until the next online one). An
//!   offline check only moves the places that are there up to the local time
//!   ([`ClockMark::advance`]), so that a deleted piece never comes back offline.
//! - A place is written only when its mark moves by [`STEP`] or more: a warm start writes
//!   nothing.
//! - The modification times of a few files that the system keeps writing (logs, the time
//!   synchronizer's stamp) are witnesses too, read at each offline check (a few `stat`s).

use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::{SystemTime, UNIX_EPOCH};

use ring::rand::{SecureRandom, SystemRandom};
use serde_json::{json, Value};

use crate::error::Error;
use crate::log::{log, LogHook, LogLevel};
use crate::options::Options;
use crate::state::Sealed;
use crate::util::wiped::Wiped;

/// The mark's file in each place.
const FILE: &str = "clock";
/// The mark is written only when it moves by this many seconds or more.
pub const STEP: i64 = 60;
/// Bytes of a mark's identity.
const ID_LEN: usize = 16;

/// Files that the system keeps writing: their modification times witness the time.
#[cfg(target_os = "linux")]
const WITNESSES: &[&str] = &[
    "/var/lib/systemd/timesync/clock",
    "/var/log/wtmp",
    "/var/log/syslog",
    "/var/log/messages",
];
#[cfg(target_os = "macos")]
const WITNESSES: &[&str] = &["/private/var/log/system.log", "/private/var/log/wtmp"];
#[cfg(windows)]
const WITNESSES: &[&str] = &[
    "C:\\Windows\\System32\\winevt\\Logs\\System.evtx",
    "C:\\Windows\\System32\\winevt\\Logs\\Application.evtx",
];
#[cfg(not(any(target_os = "linux", target_os = "macos", windows)))]
const WITNESSES: &[&str] = &[];

/// The registry key of the second place on Windows, under `HKEY_CURRENT_USER`.
const REGISTRY_KEY: &str = "Software\\verify";

/// Where the second place is.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum SecondPlace {
    /// A folder.
    Folder(PathBuf),
    /// The user's registry (Windows).
    Registry,
}

impl SecondPlace {
    /// The place in words, for the log and the doctor (the folder's path, or the key).
    pub(crate) fn describe(&self) -> String {
        match self {
            SecondPlace::Folder(folder) => crate::error::quoted_path(folder),
            SecondPlace::Registry => format!("HKEY_CURRENT_USER\\{REGISTRY_KEY}"),
        }
    }

    /// What the keyed hash of the place's location is made of.
    fn location(&self) -> Vec<u8> {
        match self {
            SecondPlace::Folder(folder) => {
                let mut bytes = b"folder:".to_vec();
                bytes.extend_from_slice(folder.as_os_str().as_encoded_bytes());
                bytes
            }
            SecondPlace::Registry => format!("registry:HKCU\\{REGISTRY_KEY}").into_bytes(),
        }
    }
}

/// The second place: the folder the host gave in code ([`Options::clock_mark_folder`]),
/// else the user's registry on Windows (`HKEY_CURRENT_USER\Software\verify`, a value per
/// program), the user's configuration folder elsewhere (`$XDG_CONFIG_HOME/verify` or
/// `~/.config/verify`; `~/Library/Preferences/verify` on macOS). `None` when no
/// configuration folder is known (no `HOME`). No variable of the environment names it: a
/// verdict records where the second place was, and one that now resolves elsewhere
/// counts as missing.
pub(crate) fn second_place(given: Option<&Path>) -> Option<SecondPlace> {
    if let Some(folder) = given {
        return Some(SecondPlace::Folder(folder.to_owned()));
    }
    if cfg!(windows) {
        return Some(SecondPlace::Registry);
    }
    let env_dir = |name: &str| {
        std::env::var_os(name)
            .filter(|value| !value.is_empty())
            .map(PathBuf::from)
    };
    let folder = if cfg!(target_os = "macos") {
        env_dir("HOME").map(|home| home.join("Library/Preferences/verify"))
    } else {
        env_dir("XDG_CONFIG_HOME")
            .or_else(|| env_dir("HOME").map(|home| home.join(".config")))
            .map(|dir| dir.join("verify"))
    };
    folder.map(SecondPlace::Folder)
}

/// Unix seconds of a time.
pub(crate) fn unix(time: SystemTime) -> i64 {
    match time.duration_since(UNIX_EPOCH) {
        Ok(after) => i64::try_from(after.as_secs()).unwrap_or(i64::MAX),
        Err(before) => -i64::try_from(before.duration().as_secs()).unwrap_or(i64::MAX),
    }
}

/// One place of the mark.
enum Place {
    /// A sealed file (in the state folder, or in a folder outside it).
    File(Arc<Sealed>),
    /// A value under `HKEY_CURRENT_USER\Software\verify` (Windows), sealed by this store.
    Registry(Arc<Sealed>),
}

impl Place {
    fn read(&self, hook: &Option<LogHook>) -> Option<Wiped<Vec<u8>>> {
        match self {
            Place::File(store) => store.read(FILE),
            Place::Registry(store) => {
                let name = store.scoped(FILE);
                let bytes = verify_machine_sys::user_registry_value(REGISTRY_KEY, &name)?;
                store
                    .unseal(FILE, bytes)
                    .map_err(|_| {
                        log(hook, LogLevel::Warn, || {
                            format!(
                                "the time mark in HKEY_CURRENT_USER\\{REGISTRY_KEY} ({name}) does \
                                 not open; it is ignored"
                            )
                        });
                    })
                    .ok()
            }
        }
    }

    fn write(&self, plain: &[u8]) -> Result<(), Error> {
        match self {
            Place::File(store) => store.write(FILE, plain),
            Place::Registry(store) => {
                let sealed = store.seal(FILE, plain)?;
                let name = store.scoped(FILE);
                if verify_machine_sys::set_user_registry_value(REGISTRY_KEY, &name, &sealed) {
                    Ok(())
                } else {
                    Err(Error::system(format!(
                        "cannot write HKEY_CURRENT_USER\\{REGISTRY_KEY} ({name})"
                    )))
                }
            }
        }
    }
}

/// What a verdict records of the mark it was written under: the mark's identity, its time
/// at writing, and a keyed hash of where its second place was. Kept inside the verdict's
/// sealed file; never printed.
#[derive(Clone, PartialEq, Eq)]
pub(crate) struct Stamp {
    /// The mark's identity (hex).
    pub(crate) id: String,
    /// Unix seconds: the earliest of the places' marks when the verdict was written.
    pub(crate) at: i64,
    /// A keyed hash (hex) of the second place's location.
    pub(crate) second: String,
}

impl std::fmt::Debug for Stamp {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Stamp")
            .field("at", &self.at)
            .finish_non_exhaustive()
    }
}

impl Stamp {
    pub(crate) fn to_json(&self) -> Value {
        json!({ "id": self.id, "at": self.at, "second": self.second })
    }

    pub(crate) fn from_json(value: &Value) -> Option<Stamp> {
        Some(Stamp {
            id: value.get("id")?.as_str()?.to_owned(),
            at: value.get("at")?.as_i64()?,
            second: value.get("second")?.as_str()?.to_owned(),
        })
    }
}

/// How the mark judges a verdict's time at an offline check.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Vouched {
    /// The pieces agree: the latest time seen (the places and the witnesses).
    Latest(i64),
    /// A piece is missing, foreign, older than the verdict or elsewhere: why, in words.
    Unconfirmed(String),
}

/// The mark of one program on one machine, in its places.
pub(crate) struct ClockMark {
    /// The state folder's place, then the second place when there is one.
    places: Vec<Place>,
    /// The second place, when there is one.
    second: Option<SecondPlace>,
    /// The keyed hash of the second place's location ([`Stamp::second`]).
    second_hash: String,
    /// Seconds added to the local clock (tests move the clock with it).
    shift: i64,
    log: Option<LogHook>,
}

impl std::fmt::Debug for ClockMark {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ClockMark")
            .field("places", &self.places.len())
            .field("shift", &self.shift)
            .finish_non_exhaustive()
    }
}

impl ClockMark {
    /// The mark kept in `state` (the state folder) and in the second place `second` (its
    /// folder's store `folder_store`, or the user's registry), if any.
    fn new(
        state: Arc<Sealed>,
        second: Option<SecondPlace>,
        folder_store: Option<Sealed>,
        shift: i64,
        log: Option<LogHook>,
    ) -> ClockMark {
        let second_hash = state.keyed_hash(
            b"clock mark second place",
            &second
                .as_ref()
                .map(SecondPlace::location)
                .unwrap_or_default(),
        );
        let mut places = vec![Place::File(Arc::clone(&state))];
        match (&second, folder_store) {
            (Some(SecondPlace::Folder(_)), Some(store)) => {
                places.push(Place::File(Arc::new(store)))
            }
            (Some(SecondPlace::Registry), _) => places.push(Place::Registry(state)),
            _ => {}
        }
        ClockMark {
            second: second.filter(|_| places.len() == 2),
            places,
            second_hash,
            shift,
            log,
        }
    }

    /// The mark of the program sealed in `state` (the state folder `folder`), with its
    /// second place as `options` say ([`second_place`]): a folder's store sealed with the same
    /// program, key and machine `identity`, or the user's registry. A second place that is
    /// the state folder itself is none. Opening writes nothing.
    pub(crate) fn open(
        state: Arc<Sealed>,
        folder: &Path,
        app_id: &str,
        app_key: &[u8],
        identity: &[u8],
        options: &Options,
    ) -> Result<ClockMark, Error> {
        let place = second_place(options.clock_mark_folder.as_deref())
            .filter(|place| *place != SecondPlace::Folder(folder.to_owned()));
        let folder_store = match &place {
            Some(SecondPlace::Folder(place)) => Some(Sealed::new(
                place.clone(),
                app_id,
                app_key,
                identity,
                options.log.clone(),
            )?),
            _ => None,
        };
        Ok(ClockMark::new(
            state,
            place,
            folder_store,
            options.clock_shift,
            options.log.clone(),
        ))
    }

    /// The second place in words, or why there is none.
    pub(crate) fn second_place(&self) -> String {
        match &self.second {
            Some(place) => place.describe(),
            None => "none (no configuration folder is known: HOME is not set)".to_owned(),
        }
    }

    /// The local time, in Unix seconds.
    pub(crate) fn local_now(&self) -> i64 {
        unix(SystemTime::now()).saturating_add(self.shift)
    }

    fn read_place(&self, place: &Place) -> Option<Stored> {
        let bytes = place.read(&self.log)?;
        let value = serde_json::from_slice::<Value>(&bytes).ok()?;
        Some(Stored {
            id: value.get("id").and_then(Value::as_str).map(str::to_owned),
            mark: value.get("mark")?.as_i64()?,
            floor: value
                .get("floor")
                .and_then(Value::as_i64)
                .unwrap_or(i64::MIN),
        })
    }

    /// The mark in each place (`None` where there is none, or it does not open).
    fn read_places(&self) -> Vec<Option<Stored>> {
        self.places
            .iter()
            .map(|place| self.read_place(place))
            .collect()
    }

    /// The latest time that the system's own files were written (their modification times).
    fn witnessed() -> Option<i64> {
        WITNESSES
            .iter()
            .filter_map(|path| std::fs::metadata(path).ok()?.modified().ok())
            .map(unix)
            .max()
    }

    /// The latest time of `places` and of the witnesses written since the last
    /// confirmation by the server (older ones may date from a clock then ahead by mistake).
    fn latest<'a>(places: impl Iterator<Item = &'a Stored>) -> Option<i64> {
        let (mut stored, mut floor) = (None, i64::MIN);
        for place in places {
            stored = stored.max(Some(place.mark));
            floor = floor.max(place.floor);
        }
        stored.max(ClockMark::witnessed().filter(|witness| *witness > floor))
    }

    /// Whether the pieces vouch for a verdict written under `stamp`: both places hold a mark
    /// of its identity at least as late as its time, and the second place is where it was.
    /// Then the latest time seen; else why not, in words.
    pub(crate) fn vouch(&self, stamp: &Stamp) -> Vouched {
        let Some(second) = &self.second else {
            return Vouched::Unconfirmed(
                "the time mark has no second place here (no configuration folder is known: \
                 HOME is not set)"
                    .to_owned(),
            );
        };
        if !super::constant_eq(&stamp.second, &self.second_hash) {
            return Vouched::Unconfirmed(format!(
                "the time mark's second place now resolves to {}, not where it was when the \
                 licence was stored",
                second.describe()
            ));
        }
        let places = self.read_places();
        for (stored, name) in places.iter().zip(["the state folder", "the second place"]) {
            let why = match stored {
                None => "is missing",
                Some(stored) if stored.id.as_deref() != Some(stamp.id.as_str()) => {
                    "belongs to another store"
                }
                Some(stored) if stored.mark < stamp.at => {
                    "is older than the stored licence (an older copy was put back)"
                }
                Some(_) => continue,
            };
            let at = if name == "the state folder" {
                name.to_owned()
            } else {
                format!("{name} ({})", second.describe())
            };
            return Vouched::Unconfirmed(format!("the time mark in {at} {why}"));
        }
        match ClockMark::latest(places.iter().flatten()) {
            Some(latest) => Vouched::Latest(latest),
            None => Vouched::Unconfirmed("the time mark is missing".to_owned()),
        }
    }

    /// For a verdict stored before marks had an identity (judged as then until its next
    /// online login): the latest time seen, or why it may not answer (a place's mark has an
    /// identity: the store has moved on, and an older verdict was put back).
    pub(crate) fn latest_unstamped(&self) -> Vouched {
        let places: Vec<Stored> = self.read_places().into_iter().flatten().collect();
        if places.iter().any(|place| place.id.is_some()) {
            return Vouched::Unconfirmed(
                "the stored licence was written by an older version, and the time mark has \
                 moved on since (an older copy was put back)"
                    .to_owned(),
            );
        }
        Vouched::Latest(ClockMark::latest(places.iter()).unwrap_or(i64::MIN))
    }

    fn write(&self, place: &Place, stored: &Stored) -> bool {
        let bytes = json!({ "id": stored.id, "mark": stored.mark, "floor": stored.floor })
            .to_string()
            .into_bytes();
        match place.write(&bytes) {
            Ok(()) => true,
            Err(err) => {
                log(&self.log, LogLevel::Warn, || {
                    format!("the time mark is not stored: {}", err.message())
                });
                false
            }
        }
    }

    /// An offline check at the local time `time`: moves the mark up to it in every place
    /// that holds one [`STEP`] or more behind. A place without a mark stays without: only
    /// the server's confirmation makes one.
    pub(crate) fn advance(&self, time: i64) {
        for (place, stored) in self.places.iter().zip(self.read_places()) {
            if let Some(stored) = stored.filter(|s| time >= s.mark.saturating_add(STEP)) {
                self.write(
                    place,
                    &Stored {
                        mark: time,
                        ..stored
                    },
                );
            }
        }
    }

    /// A confirmation by the server at its time `server` (its `Date`; else the local time
    /// `now`, which only moves the mark up): every place gets the mark, of this store's
    /// identity (the state folder's, else the second place's, else a new one), at that time
    /// where it is [`STEP`] or more away; the witnesses written until now count no more when
    /// they are ahead of the server. The stamp for a verdict written now, or `None` when a
    /// place could not be written or there is no second place (then the verdict cannot
    /// answer offline).
    pub(crate) fn confirm(&self, server: Option<i64>, now: i64) -> Option<Stamp> {
        let stored = self.read_places();
        let id = stored
            .iter()
            .flatten()
            .find_map(|place| place.id.clone())
            .or_else(new_id)?;
        let floor = match server {
            Some(server) => ClockMark::witnessed()
                .filter(|witness| *witness > server.saturating_add(STEP))
                .unwrap_or(i64::MIN),
            None => i64::MIN,
        };
        let mut earliest = i64::MAX;
        let mut whole = true;
        for (place, stored) in self.places.iter().zip(stored) {
            let kept = stored.filter(|s| s.id.as_deref() == Some(id.as_str()));
            let wanted = match (server, &kept) {
                (Some(server), _) => server,
                (None, Some(kept)) => kept.mark.max(now),
                (None, None) => now,
            };
            let moved = kept.as_ref().is_none_or(|kept| {
                wanted.abs_diff(kept.mark) >= STEP.unsigned_abs()
                    || (floor != i64::MIN && floor >= kept.floor.saturating_add(STEP))
            });
            let mark = if moved {
                let fresh = Stored {
                    id: Some(id.clone()),
                    mark: wanted,
                    floor: if server.is_some() {
                        floor
                    } else {
                        kept.as_ref().map_or(i64::MIN, |kept| kept.floor)
                    },
                };
                whole &= self.write(place, &fresh);
                wanted
            } else {
                kept.map_or(wanted, |kept| kept.mark)
            };
            earliest = earliest.min(mark);
        }
        (whole && self.second.is_some()).then(|| Stamp {
            id,
            at: earliest,
            second: self.second_hash.clone(),
        })
    }
}

/// A new identity for a mark (hex), or `None` without system randomness.
fn new_id() -> Option<String> {
    let mut bytes = [0u8; ID_LEN];
    SystemRandom::new().fill(&mut bytes).ok()?;
    Some(hex::encode(bytes))
}

/// What a place holds.
#[derive(Debug, Clone)]
struct Stored {
    /// The mark's identity (hex); `None` in a mark stored before marks had one.
    id: Option<String>,
    /// Unix seconds of the latest time seen.
    mark: i64,
    /// Witnesses written at or before this time count no more (they were ahead of the
    /// server when it last confirmed).
    floor: i64,
}

#[cfg(test)]
mod tests {
    use super::*;

    fn store(folder: &Path) -> Sealed {
        Sealed::new(folder.to_owned(), "10001", b"APPKEY", b"machine-a", None).expect("sealed")
    }

    fn mark_in(state: &Path, second: &Path) -> ClockMark {
        ClockMark::new(
            Arc::new(store(state)),
            Some(SecondPlace::Folder(second.to_owned())),
            Some(store(second)),
            0,
            None,
        )
    }

    fn marks(mark: &ClockMark) -> Vec<Option<i64>> {
        mark.read_places()
            .into_iter()
            .map(|place| place.map(|stored| stored.mark))
            .collect()
    }

    fn scratch(name: &str) -> (PathBuf, PathBuf, PathBuf) {
        let root =
            std::env::temp_dir().join(format!("verify-clock-mark-{name}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&root);
        (root.join("state"), root.join("second"), root)
    }

    #[test]
    fn the_mark_moves_by_a_minute_or_more_and_the_server_sets_it() {
        let (state, second, root) = scratch("moves");
        let mark = mark_in(&state, &second);
        assert_eq!(marks(&mark), [None, None]);
        // Offline checks never make a mark.
        mark.advance(1_000_000);
        assert_eq!(marks(&mark), [None, None]);
        let stamp = mark.confirm(None, 1_000_000).expect("stamped");
        assert_eq!(stamp.at, 1_000_000);
        assert_eq!(marks(&mark), [Some(1_000_000), Some(1_000_000)]);
        let written = std::fs::read(store(&second).path(FILE)).expect("second place");
        // Less than a minute: nothing is written.
        mark.advance(1_000_059);
        assert_eq!(marks(&mark), [Some(1_000_000), Some(1_000_000)]);
        assert_eq!(
            std::fs::read(store(&second).path(FILE)).expect("second place"),
            written
        );
        mark.advance(1_000_060);
        assert_eq!(marks(&mark), [Some(1_000_060), Some(1_000_060)]);
        // Never backwards by the local clock; the server's time sets it either way, and
        // keeps the identity.
        mark.advance(900_000);
        assert_eq!(marks(&mark), [Some(1_000_060), Some(1_000_060)]);
        let again = mark.confirm(Some(900_000), 900_000).expect("stamped");
        assert_eq!(marks(&mark), [Some(900_000), Some(900_000)]);
        assert_eq!(again.id, stamp.id);
        // A place that lost its mark stays without it offline, and gets it again (with the
        // same identity) from the server's confirmation.
        store(&state).remove(FILE);
        mark.advance(900_090);
        assert_eq!(marks(&mark), [None, Some(900_090)]);
        let healed = mark.confirm(Some(900_100), 900_100).expect("stamped");
        assert_eq!(healed.id, stamp.id);
        assert_eq!(marks(&mark), [Some(900_100), Some(900_090)]);
        assert_eq!(healed.at, 900_090, "the earliest of the places");
        let _ = std::fs::remove_dir_all(&root);
    }

    #[test]
    fn a_verdict_answers_only_when_every_piece_vouches_for_it() {
        let (state, second, root) = scratch("vouch");
        let mark = mark_in(&state, &second);
        let stamp = mark.confirm(Some(2_000_000), 2_000_000).expect("stamped");
        mark.advance(2_000_600);
        assert!(matches!(mark.vouch(&stamp), Vouched::Latest(t) if t >= 2_000_600));

        // Each place deleted.
        for (folder, words) in [(&state, "the state folder"), (&second, "the second place")] {
            let kept = std::fs::read(store(folder).path(FILE)).expect("kept");
            store(folder).remove(FILE);
            let Vouched::Unconfirmed(why) = mark.vouch(&stamp) else {
                panic!("{words} deleted still vouches");
            };
            assert!(why.contains(words) && why.contains("missing"), "{why}");
            std::fs::write(store(folder).path(FILE), kept).expect("restore");
        }
        // A mark of another store (another identity), and one older than the verdict.
        let other = scratch("vouch-other");
        let foreign = mark_in(&other.0, &other.1);
        foreign
            .confirm(Some(2_000_600), 2_000_600)
            .expect("stamped");
        let kept = std::fs::read(store(&second).path(FILE)).expect("kept");
        std::fs::copy(store(&other.1).path(FILE), store(&second).path(FILE)).expect("copy");
        let Vouched::Unconfirmed(why) = mark.vouch(&stamp) else {
            panic!("a foreign mark vouches");
        };
        assert!(why.contains("another store"), "{why}");
        std::fs::write(store(&second).path(FILE), &kept).expect("restore");
        let older = Stamp {
            at: 2_000_601,
            ..stamp.clone()
        };
        let Vouched::Unconfirmed(why) = mark.vouch(&older) else {
            panic!("a mark older than the verdict vouches");
        };
        assert!(why.contains("older"), "{why}");

        // The second place elsewhere: as missing, though a whole copy is there.
        let moved = root.join("moved");
        std::fs::create_dir_all(&moved).expect("moved");
        std::fs::copy(store(&second).path(FILE), store(&moved).path(FILE)).expect("copy");
        let elsewhere = mark_in(&state, &moved);
        let Vouched::Unconfirmed(why) = elsewhere.vouch(&stamp) else {
            panic!("a second place elsewhere vouches");
        };
        assert!(why.contains("now resolves to"), "{why}");
        // No second place at all: nothing vouches.
        let alone = ClockMark::new(Arc::new(store(&state)), None, None, 0, None);
        assert!(matches!(alone.vouch(&stamp), Vouched::Unconfirmed(_)));
        assert_eq!(alone.confirm(Some(2_000_700), 2_000_700), None);
        let _ = std::fs::remove_dir_all(&root);
        let _ = std::fs::remove_dir_all(&other.2);
    }

    #[test]
    fn a_mark_from_before_identities_is_judged_as_then_until_the_store_moves_on() {
        let (state, second, root) = scratch("legacy");
        let mark = mark_in(&state, &second);
        for folder in [&state, &second] {
            store(folder)
                .write(FILE, br#"{"mark":3000000,"floor":-1}"#)
                .expect("legacy mark");
        }
        assert!(matches!(mark.latest_unstamped(), Vouched::Latest(t) if t >= 3_000_000));
        // The next confirmation gives both places an identity: an unstamped verdict put
        // back afterwards no longer answers.
        let stamp = mark.confirm(Some(3_000_100), 3_000_100).expect("stamped");
        assert!(matches!(mark.latest_unstamped(), Vouched::Unconfirmed(_)));
        assert!(matches!(mark.vouch(&stamp), Vouched::Latest(t) if t >= 3_000_100));
        let _ = std::fs::remove_dir_all(&root);
    }
}
