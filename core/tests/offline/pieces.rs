//! The pieces of the store vouch for each other: a verdict answers offline only when the time
//! marks it was written under are found in both places (the state folder and the second
//! place), of its store, at least as late as itself, and the second place is where it was.
//! Each row of SECURITY.md's table of moves, played from one scene: a card, a grace of one
//! hour, confirmed at T; the grace seen to run out at T + 2 h; then the clock set to
//! T + 30 min with the server down.

use super::*;

use std::collections::BTreeMap;
use std::path::Path;

type Folder = BTreeMap<String, Vec<u8>>;

/// The scene: the program's folders as they were after the online login at T (`older_*`)
/// and after the grace was seen to run out at T + 2 h (`*`).
struct Scene {
    lab: Lab,
    card: String,
    state: Folder,
    second: Folder,
    older_state: Folder,
    older_second: Folder,
}

const HOUR: i64 = 3600;

fn hour_grace(lab: &Lab) -> Options {
    let mut options = lab.options();
    options.offline_grace = Some(Duration::from_secs(HOUR as u64));
    options
}

/// Options of the scene with the local clock moved by `shift` seconds.
fn at(lab: &Lab, shift: i64) -> Options {
    let mut options = hour_grace(lab);
    options.clock_shift = shift;
    options
}

impl Scene {
    fn new() -> Scene {
        let mut lab = Lab::new();
        let card = lab.card(30);
        lab.client_with(hour_grace(&lab))
            .single_login(&card, "M", None)
            .expect("online at T");
        let older_state = files(&lab.folder);
        let older_second = files(&lab.mark_folder);
        assert!(!older_second.is_empty(), "the second place holds the mark");
        lab.sandbox.pause();
        let err = lab
            .client_with(at(&lab, 2 * HOUR))
            .single_login(&card, "M", None)
            .expect_err("the grace seen to run out at T + 2 h");
        assert_eq!(err.kind(), ErrorKind::GraceOver, "{err}");
        let (state, second) = (files(&lab.folder), files(&lab.mark_folder));
        assert_ne!(state, older_state, "the mark moved to T + 2 h");
        Scene {
            lab,
            card,
            state,
            second,
            older_state,
            older_second,
        }
    }

    /// Puts the folders back as the scene left them, `state` and `second` given.
    fn set(&self, state: &Folder, second: &Folder) {
        put_back(&self.lab.folder, state);
        put_back(&self.lab.mark_folder, second);
    }

    /// A start at T + 30 min with the server down, with `options`: its code.
    fn start_with(&self, options: Options) -> (i32, String) {
        match self
            .lab
            .client_with(options)
            .single_login(&self.card, "M", None)
        {
            Ok(login) => (login.reply().code(), String::new()),
            Err(err) => (err.code(), err.message().to_owned()),
        }
    }

    fn start(&self) -> (i32, String) {
        self.start_with(at(&self.lab, HOUR / 2))
    }
}

/// The time mark's file of the program in `folder`'s listing.
fn without_mark(folder: &Folder) -> Folder {
    let kept: Folder = folder
        .iter()
        .filter(|(name, _)| !name.starts_with("clock-"))
        .map(|(name, bytes)| (name.clone(), bytes.clone()))
        .collect();
    assert_ne!(kept.len(), folder.len(), "a time mark in {folder:?}");
    kept
}

fn empty() -> Folder {
    Folder::new()
}

/// Every move of the table: deleting a piece, an older copy of the state folder put back
/// with a piece deleted, the second place pointed elsewhere, a foreign mark: no offline
/// verdict (`ERR_TIME_UNCONFIRMED`, the reason in the error and the log); the rows that
/// refused before still do (`ERR_CLOCK_BACK`); older copies of both places still answer (the
/// limit SECURITY.md states).
#[test]
pub(crate) fn every_piece_vouches_for_the_others() {
    let scene = Scene::new();
    let (state, second) = (&scene.state, &scene.second);
    let (older_state, older_second) = (&scene.older_state, &scene.older_second);
    let unconfirmed = codes::ERR_TIME_UNCONFIRMED;
    let rows: [(&str, Folder, Folder, i32); 9] = [
        (
            "nothing else (control)",
            state.clone(),
            second.clone(),
            codes::ERR_CLOCK_BACK,
        ),
        (
            "the state folder's mark deleted",
            without_mark(state),
            second.clone(),
            unconfirmed,
        ),
        (
            "the second place deleted",
            state.clone(),
            empty(),
            unconfirmed,
        ),
        (
            "both marks deleted",
            without_mark(state),
            empty(),
            unconfirmed,
        ),
        (
            "an older state folder put back, its mark deleted",
            without_mark(older_state),
            second.clone(),
            unconfirmed,
        ),
        (
            "an older state folder put back, the second place deleted",
            older_state.clone(),
            empty(),
            unconfirmed,
        ),
        (
            "an older state folder put back, both marks deleted",
            without_mark(older_state),
            empty(),
            unconfirmed,
        ),
        (
            "an older state folder put back (the second place intact)",
            older_state.clone(),
            second.clone(),
            codes::ERR_CLOCK_BACK,
        ),
        (
            "an older second place put back alone",
            state.clone(),
            older_second.clone(),
            codes::ERR_CLOCK_BACK,
        ),
    ];
    for (row, state, second, expected) in rows {
        scene.set(&state, &second);
        let (code, message) = scene.start();
        assert_eq!(code, expected, "{row}: {message}");
        if expected == unconfirmed {
            assert!(
                message.contains("cannot be confirmed") && message.contains("log in online once"),
                "{row}: {message}"
            );
        }
    }
    assert!(
        scene
            .lab
            .logged("no offline verdict: the offline time check cannot be confirmed"),
        "the reason reaches the log hook"
    );

    // Older copies of both places: the older state answers. The limit: someone who puts
    // back older copies of every piece winds the clock back unseen.
    scene.set(older_state, older_second);
    let (code, message) = scene.start();
    assert_eq!(code, codes::OFFLINE, "older copies of both: {message}");
}

/// The second place is where it was: pointed elsewhere (another folder, though it holds a
/// whole copy of the mark), it counts as missing; a foreign mark (another store's, of the
/// same program on the same machine) neither vouches.
#[test]
pub(crate) fn a_second_place_elsewhere_or_a_foreign_mark_does_not_vouch() {
    let mut scene = Scene::new();
    let elsewhere = scene.lab.mark_folder.with_extension("elsewhere");
    let _ = std::fs::remove_dir_all(&elsewhere);
    // An older state folder put back, the second place pointed at a copy of the older one.
    scene.set(&scene.older_state, &scene.second);
    put_back(&elsewhere, &scene.older_second);
    let mut redirected = at(&scene.lab, HOUR / 2);
    redirected.clock_mark_folder = Some(elsewhere.clone());
    let (code, message) = scene.start_with(redirected);
    assert_eq!(code, codes::ERR_TIME_UNCONFIRMED, "{message}");
    assert!(message.contains("now resolves to"), "{message}");
    let _ = std::fs::remove_dir_all(&elsewhere);

    // A second store of the program (another state folder and second place) logged in
    // online at T + 10 min: its marks are later than the verdict and earlier than the
    // clock, but they are not this store's.
    let other_state = scene.lab.folder.with_extension("other-state");
    let other_second = scene.lab.folder.with_extension("other-second");
    let mut options = at(&scene.lab, 0);
    options.state_folder = Some(StateFolder::Path(other_state.clone()));
    options.clock_mark_folder = Some(other_second.clone());
    scene.lab.sandbox.resume().expect("resume");
    scene
        .lab
        .client_with(options)
        .single_login(&scene.card, "M", None)
        .expect("the other store online");
    scene.lab.sandbox.pause();
    let foreign = |folder: &Path| {
        files(folder)
            .into_iter()
            .filter(|(name, _)| name.starts_with("clock-"))
            .collect::<Folder>()
    };
    let mut state = without_mark(&scene.older_state);
    state.extend(foreign(&other_state));
    scene.set(&state, &foreign(&other_second));
    let (code, message) = scene.start();
    assert_eq!(code, codes::ERR_TIME_UNCONFIRMED, "{message}");
    assert!(message.contains("another store"), "{message}");
    for folder in [other_state, other_second] {
        let _ = std::fs::remove_dir_all(folder);
    }
}

/// Nothing is lost for honest users: one login that reaches the server heals every case and
/// writes both places again; an offline check never makes a missing piece again (so a
/// deletion cannot be healed by starting twice offline).
#[test]
pub(crate) fn one_online_login_heals_and_offline_starts_never_do() {
    let mut scene = Scene::new();
    scene.set(&without_mark(&scene.state), &empty());
    for _ in 0..2 {
        let (code, message) = scene.start();
        assert_eq!(code, codes::ERR_TIME_UNCONFIRMED, "{message}");
    }
    assert!(
        files(&scene.lab.mark_folder).is_empty(),
        "an offline start wrote a mark"
    );
    assert!(
        files(&scene.lab.folder)
            .keys()
            .all(|name| !name.starts_with("clock-")),
        "an offline start wrote a mark"
    );
    scene.lab.sandbox.resume().expect("resume");
    scene
        .lab
        .client_with(hour_grace(&scene.lab))
        .single_login(&scene.card, "M", None)
        .expect("online");
    assert!(
        !files(&scene.lab.mark_folder).is_empty(),
        "the second place written again"
    );
    scene.lab.sandbox.pause();
    let offline = scene
        .lab
        .client_with(hour_grace(&scene.lab))
        .single_login(&scene.card, "M", None)
        .expect("healed: offline again");
    assert_eq!(offline.reply().code(), codes::OFFLINE);
}

/// A profile moved without its second place (a new configuration folder): offline starts
/// are refused until one online login; a store of several programs keeps each working.
#[test]
pub(crate) fn a_moved_profile_and_several_programs_keep_working() {
    let mut lab = Lab::new();
    let card = lab.card(30);
    lab.client().single_login(&card, "M", None).expect("online");
    // Another program in the same state folder and second place.
    let mut second = Lab::new();
    let other_card = second.card(30);
    let mut shared = second.options();
    shared.state_folder = Some(StateFolder::Path(lab.folder.clone()));
    shared.clock_mark_folder = Some(lab.mark_folder.clone());
    second
        .client_with(shared.clone())
        .single_login(&other_card, "M", None)
        .expect("the other program online");
    lab.sandbox.pause();
    second.sandbox.pause();
    for (name, code) in [
        (
            "the first program",
            lab.client()
                .single_login(&card, "M", None)
                .map(|l| l.reply().code()),
        ),
        (
            "the second program",
            second
                .client_with(shared)
                .single_login(&other_card, "M", None)
                .map(|l| l.reply().code()),
        ),
    ] {
        assert_eq!(code.expect(name), codes::OFFLINE, "{name}");
    }

    // The profile moved: the state folder came along, the second place did not.
    let moved = lab.mark_folder.with_extension("moved");
    let _ = std::fs::remove_dir_all(&moved);
    let mut options = lab.options();
    options.clock_mark_folder = Some(moved.clone());
    let err = lab
        .client_with(options.clone())
        .single_login(&card, "M", None)
        .expect_err("the second place is not where it was");
    assert_eq!(err.kind(), ErrorKind::TimeUnconfirmed, "{err}");
    lab.sandbox.resume().expect("resume");
    lab.client_with(options.clone())
        .single_login(&card, "M", None)
        .expect("online once");
    lab.sandbox.pause();
    let offline = lab
        .client_with(options)
        .single_login(&card, "M", None)
        .expect("offline in the moved profile");
    assert_eq!(offline.reply().code(), codes::OFFLINE);
    let _ = std::fs::remove_dir_all(&moved);
}
