//! The scene of the table of moves against the offline store (SECURITY.md, "The offline
//! store"), played through the C host `tests/c/c_offline_pieces.c`, one start a run: on
//! Linux (the second place a folder, tests/c/offline.rs) and under Wine (the registry,
//! tests/platforms/windows/offline.rs).
//!
//! The host's clock cannot be moved, so the sandbox's is: a card confirmed at T (the server
//! 30 minutes behind the local clock), grace one hour; an account's login with the server two
//! hours ahead moves the time marks past the grace; then, with the server down, the local
//! clock reads T + 30 min: inside the card's grace, behind the marks.

use super::*;

use std::collections::BTreeMap;
use std::path::Path;

use serde_json::json;

/// A folder's files, by name.
pub type Folder = BTreeMap<String, Vec<u8>>;

/// The offline grace of the scene's program, in seconds.
pub const PIECES_GRACE: u64 = 3600;

/// The files of `folder`, by name (none when it is missing).
pub fn folder_files(folder: &Path) -> Folder {
    std::fs::read_dir(folder)
        .map(|entries| {
            entries
                .map(|e| e.expect("entry").path())
                .filter(|p| p.is_file())
                .map(|p| {
                    let name = p.file_name().expect("name").to_string_lossy().into_owned();
                    (name, std::fs::read(&p).expect("read"))
                })
                .collect()
        })
        .unwrap_or_default()
}

/// Makes `folder` hold exactly `files`.
pub fn put_folder(folder: &Path, files: &Folder) {
    let _ = std::fs::remove_dir_all(folder);
    std::fs::create_dir_all(folder).expect("folder");
    for (name, bytes) in files {
        std::fs::write(folder.join(name), bytes).expect("write");
    }
}

/// `files` without the time mark's file (`clock-*`); panics when there is none.
pub fn without_mark(files: &Folder) -> Folder {
    let kept: Folder = files
        .iter()
        .filter(|(name, _)| !name.starts_with("clock-"))
        .map(|(name, bytes)| (name.clone(), bytes.clone()))
        .collect();
    assert_ne!(kept.len(), files.len(), "no time mark in {files:?}");
    kept
}

/// The state folder at one of the scene's two moments, with or without its time mark.
#[derive(Clone, Copy, Debug)]
pub enum State {
    /// As the scene left it (the marks past the grace).
    Now,
    /// Now, its mark deleted.
    NowWithoutMark,
    /// An older copy: as it was after the card's login at T.
    Older,
    /// The older copy, its mark deleted.
    OlderWithoutMark,
}

/// Runs the host once with these arguments; returns what it printed (stdout) and the whole
/// report for failures.
pub type RunHost<'a> = Box<dyn Fn(&[String]) -> (String, String) + 'a>;

/// How to run the host program on a platform.
pub struct PiecesHost<'a> {
    /// Runs the host once.
    pub run: RunHost<'a>,
    /// The state folder as the host names it.
    pub state_arg: String,
    /// The state folder where this test reads and writes it.
    pub state_dir: PathBuf,
}

/// The scene: its sandbox (stopped), program, card, and the state folder at both moments.
pub struct PiecesScene<'a> {
    host: PiecesHost<'a>,
    pub sandbox: Sandbox,
    pub app_id: String,
    card: String,
    now: Folder,
    older: Folder,
}

impl<'a> PiecesScene<'a> {
    /// Plays the scene up to the server going down; `after_t` runs right after the card's
    /// login at T (the moment of the older copies: the driver keeps its second place's).
    pub fn new(host: PiecesHost<'a>, after_t: impl FnOnce()) -> PiecesScene<'a> {
        let sandbox = Sandbox::start(Config::default()).expect("sandbox");
        let app_id = crate::common::unique("pieces");
        let card = format!("PIECE-{app_id}");
        sandbox
            .load(
                Fixtures::from_value(json!({
                    "programs": [{"app_id": app_id, "app_key": crate::common::APP_KEY,
                        "status": "approved"}],
                    "cards": [{"app_id": app_id, "card": card, "kind": "duration",
                        "duration": 30, "duration_type": "day"}],
                    "accounts": [{"app_id": app_id, "username": "pieces", "password": "pw",
                        "expire_at": "2099-01-01 00:00:00", "status": "active"}],
                }))
                .expect("fixtures"),
            )
            .expect("load");
        let _ = std::fs::remove_dir_all(&host.state_dir);
        let mut scene = PiecesScene {
            host,
            sandbox,
            app_id,
            card,
            now: Folder::new(),
            older: Folder::new(),
        };
        scene.sandbox.set_clock_offset(-30 * 60);
        scene.expect_card(200, "the card online at T");
        scene.older = folder_files(&scene.host.state_dir);
        after_t();
        scene.sandbox.set_clock_offset(2 * 3600);
        let (code, message) = scene.login(&["account", "pieces", "pw"]);
        assert_eq!(code, 200, "the account online at T + 2.5 h: {message}");
        scene.now = folder_files(&scene.host.state_dir);
        assert_ne!(scene.now, scene.older, "the marks moved");
        scene.sandbox.pause();
        scene
    }

    fn login(&self, what: &[&str]) -> (i32, String) {
        let mut args = vec![
            self.sandbox.base_url(),
            self.app_id.clone(),
            crate::common::APP_KEY.to_owned(),
            self.host.state_arg.clone(),
            PIECES_GRACE.to_string(),
        ];
        args.extend(what.iter().map(|s| (*s).to_owned()));
        let (stdout, report) = (self.host.run)(&args);
        let code = stdout
            .lines()
            .find_map(|line| line.strip_prefix("code "))
            .and_then(|code| code.trim().parse().ok())
            .unwrap_or_else(|| panic!("no code printed\n{report}"));
        let message = stdout
            .lines()
            .find_map(|line| line.strip_prefix("message "))
            .unwrap_or_default()
            .to_owned();
        (code, message)
    }

    /// A card login (the server down: a start); its code and message.
    pub fn start(&self) -> (i32, String) {
        self.login(&["card", &self.card])
    }

    fn expect_card(&self, expected: i32, what: &str) {
        let (code, message) = self.start();
        assert_eq!(code, expected, "{what}: {message}");
    }

    /// Puts the state folder back as `state` says.
    pub fn set_state(&self, state: State) {
        let files = match state {
            State::Now => self.now.clone(),
            State::NowWithoutMark => without_mark(&self.now),
            State::Older => self.older.clone(),
            State::OlderWithoutMark => without_mark(&self.older),
        };
        put_folder(&self.host.state_dir, &files);
    }

    /// Asserts the start's code for a row; a refusal for want of the marks says why.
    pub fn expect(&self, row: &str, expected: i32) {
        let (code, message) = self.start();
        assert_eq!(code, expected, "{row}: {message}");
        if expected == verify_core::codes::ERR_TIME_UNCONFIRMED {
            assert!(
                message.contains("cannot be confirmed"),
                "{row}: the reason is in the last error: {message}"
            );
        }
    }

    /// One login that reaches the server (its clock right again) heals every piece: then a
    /// start with the server down answers offline.
    pub fn heal(&mut self, row: &str) {
        self.sandbox.resume().expect("resume");
        self.sandbox.set_clock_offset(0);
        self.expect_card(200, &format!("{row}: online once"));
        self.sandbox.pause();
        self.expect_card(202, &format!("{row}: healed, offline again"));
    }
}
