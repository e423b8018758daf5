//! The time high-water mark of the offline store: the latest time seen on this machine, so
//! that a clock wound back does not give offline verdicts again (see SECURITY.md, "Offline
//! verdicts").
//!
//! - It is advanced to the local time at every login, heartbeat and offline check, and set
//!   to the server's time (its `Date`) by every confirmation by the server, so that a clock
//!   once set ahead by mistake costs offline starts only until the next online one.
//! - It is written only when it moves by [`STEP`] or more: a warm start writes nothing.
//! - It is kept in two places, sealed as the state folder's files are (the program's key and
//!   the machine's identity): the state folder, and a second place outside it (the user's
//!   configuration folder; on Windows the user's registry, `HKEY_CURRENT_USER\Software\verify`);
//!   the later of the two is used, so that an older copy of the state folder put back does
//!   not roll the mark back.
//! - The modification times of a few files that the system keeps writing (logs, the time
//!   synchronizer's stamp) are witnesses too, read at each offline check (a few `stat`s).

use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::{SystemTime, UNIX_EPOCH};

use serde_json::{json, Value};

use crate::error::Error;
use crate::log::{log, LogHook, LogLevel};
use crate::options::Options;
use crate::state::Sealed;
use crate::wiped::Wiped;

/// The mark's file in each place.
const FILE: &str = "clock";
/// The mark is written only when it moves by this many seconds or more.
pub const STEP: i64 = 60;
/// The environment variable that names the second place's folder when the host gave none
/// (tests point it at a temporary folder, never at the user's).
pub const FOLDER_VARIABLE: &str = "VERIFY_CLOCK_MARK_FOLDER";

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

/// The second place: the host's folder, else [`FOLDER_VARIABLE`]'s, else the user's
/// registry on Windows (`HKEY_CURRENT_USER\Software\verify`, a value per program), the user's
/// configuration folder elsewhere (`$XDG_CONFIG_HOME/verify` or `~/.config/verify`;
/// `~/Library/Preferences/verify` on macOS).
pub(crate) fn second_place(given: Option<&Path>) -> Option<SecondPlace> {
    if cfg!(windows) && given.is_none() && second_folder(None, false).is_none() {
        return Some(SecondPlace::Registry);
    }
    second_folder(given, true).map(SecondPlace::Folder)
}

/// The second place's folder: the host's, else [`FOLDER_VARIABLE`]'s, else (with
/// `default`) the user's configuration folder.
fn second_folder(given: Option<&Path>, default: bool) -> Option<PathBuf> {
    let env_dir = |name: &str| {
        std::env::var_os(name)
            .filter(|value| !value.is_empty())
            .map(PathBuf::from)
    };
    if let Some(folder) = given {
        return Some(folder.to_owned());
    }
    if let Some(folder) = env_dir(FOLDER_VARIABLE) {
        return Some(folder);
    }
    if !default || cfg!(windows) {
        // Windows keeps the second place in the registry.
        None
    } else if cfg!(target_os = "macos") {
        env_dir("HOME").map(|home| home.join("Library/Preferences/verify"))
    } else {
        env_dir("XDG_CONFIG_HOME")
            .or_else(|| env_dir("HOME").map(|home| home.join(".config")))
            .map(|dir| dir.join("verify"))
    }
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

/// The mark of one program on one machine, in its places.
pub(crate) struct ClockMark {
    places: Vec<Place>,
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
    /// The mark kept in `state` (the state folder) and in a second place outside it: a
    /// folder's store (`second`), or the user's registry (`registry`), if any.
    pub(crate) fn new(
        state: Arc<Sealed>,
        second: Option<Sealed>,
        registry: bool,
        shift: i64,
        log: Option<LogHook>,
    ) -> ClockMark {
        let mut places = vec![Place::File(Arc::clone(&state))];
        match second {
            Some(store) => places.push(Place::File(Arc::new(store))),
            None if registry => places.push(Place::Registry(state)),
            None => {}
        }
        ClockMark { places, shift, log }
    }

    /// The mark of the program sealed in `state` (the state folder `folder`), with its
    /// second place as `options` say ([`second_place`]): a folder's store sealed with the same
    /// program, key and machine `identity`, or the user's registry. Opening writes nothing.
    pub(crate) fn open(
        state: Arc<Sealed>,
        folder: &Path,
        app_id: &str,
        app_key: &[u8],
        identity: &[u8],
        options: &Options,
    ) -> Result<ClockMark, Error> {
        let place = second_place(options.clock_mark_folder.as_deref());
        let registry = place == Some(SecondPlace::Registry);
        let second = match place {
            Some(SecondPlace::Folder(place)) if place != folder => Some(Sealed::new(
                place,
                app_id,
                app_key,
                identity,
                options.log.clone(),
            )?),
            _ => None,
        };
        Ok(ClockMark::new(
            state,
            second,
            registry,
            options.clock_shift,
            options.log.clone(),
        ))
    }

    /// The local time, in Unix seconds.
    pub(crate) fn local_now(&self) -> i64 {
        unix(SystemTime::now()).saturating_add(self.shift)
    }

    fn read_place(&self, place: &Place) -> Option<Stored> {
        let bytes = place.read(&self.log)?;
        let value = serde_json::from_slice::<Value>(&bytes).ok()?;
        Some(Stored {
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

    /// The mark: the later of the places and of the witnesses written since the last
    /// confirmation by the server (older ones may date from a clock then ahead by mistake);
    /// `None` when nothing holds one.
    pub(crate) fn read(&self) -> Option<i64> {
        let places: Vec<Stored> = self.read_places().into_iter().flatten().collect();
        let stored = places.iter().map(|place| place.mark).max();
        let floor = places
            .iter()
            .map(|place| place.floor)
            .max()
            .unwrap_or(i64::MIN);
        stored.max(ClockMark::witnessed().filter(|witness| *witness > floor))
    }

    fn write(&self, place: &Place, stored: Stored) {
        let bytes = json!({ "mark": stored.mark, "floor": stored.floor })
            .to_string()
            .into_bytes();
        if let Err(err) = place.write(&bytes) {
            log(&self.log, LogLevel::Warn, || {
                format!("the time mark is not stored: {}", err.message())
            });
        }
    }

    /// Moves the mark up to `time` in every place where it is [`STEP`] or more behind.
    pub(crate) fn advance(&self, time: i64) {
        for (place, stored) in self.places.iter().zip(self.read_places()) {
            match stored {
                None => self.write(
                    place,
                    Stored {
                        mark: time,
                        floor: i64::MIN,
                    },
                ),
                Some(stored) if time >= stored.mark.saturating_add(STEP) => self.write(
                    place,
                    Stored {
                        mark: time,
                        ..stored
                    },
                ),
                Some(_) => {}
            }
        }
    }

    /// A confirmation by the server at its time `server`: the mark becomes it (up or down)
    /// in every place where it is [`STEP`] or more away, and the witnesses written until now
    /// count no more when they are ahead of it.
    pub(crate) fn confirm(&self, server: i64) {
        let floor = ClockMark::witnessed()
            .filter(|witness| *witness > server.saturating_add(STEP))
            .unwrap_or(i64::MIN);
        let wanted = Stored {
            mark: server,
            floor,
        };
        for (place, stored) in self.places.iter().zip(self.read_places()) {
            let moved = stored.is_none_or(|stored| {
                server.abs_diff(stored.mark) >= STEP.unsigned_abs()
                    || (floor != i64::MIN && floor >= stored.floor.saturating_add(STEP))
            });
            if moved {
                self.write(place, wanted);
            }
        }
    }
}

/// What a place holds.
#[derive(Debug, Clone, Copy)]
struct Stored {
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

    fn marks(mark: &ClockMark) -> Vec<Option<i64>> {
        mark.read_places()
            .into_iter()
            .map(|place| place.map(|stored| stored.mark))
            .collect()
    }

    #[test]
    fn the_mark_moves_by_a_minute_or_more_and_the_server_sets_it() {
        let root = std::env::temp_dir().join(format!("verify-clock-mark-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&root);
        let (state, second) = (root.join("state"), root.join("second"));
        let mark = ClockMark::new(
            Arc::new(store(&state)),
            Some(store(&second)),
            false,
            0,
            None,
        );
        assert_eq!(marks(&mark), [None, None]);
        mark.advance(1_000_000);
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
        // Never backwards by the local clock; the server's time sets it either way.
        mark.advance(900_000);
        assert_eq!(marks(&mark), [Some(1_000_060), Some(1_000_060)]);
        mark.confirm(900_000);
        assert_eq!(marks(&mark), [Some(900_000), Some(900_000)]);
        // A place that lost its mark gets it again; the other moves by a minute or more only.
        store(&state).remove(FILE);
        mark.advance(900_030);
        assert_eq!(marks(&mark), [Some(900_030), Some(900_000)]);
        let _ = std::fs::remove_dir_all(&root);
    }
}
