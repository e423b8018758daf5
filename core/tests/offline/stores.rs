//! The store attacked: a store from another machine, changed or cut does not open, an
//! unwritable folder refuses the client, and the store answers no one else.

use super::*;

#[test]
pub(crate) fn a_store_from_another_machine_or_changed_or_cut_does_not_open() {
    let mut lab = Lab::new();
    let card = lab.card(30);
    lab.client()
        .single_login(&card, "M", None)
        .expect("online login");
    lab.sandbox.pause();
    let file = std::fs::read_dir(&lab.folder)
        .expect("folder")
        .map(|e| e.expect("entry").path())
        .find(|p| p.to_string_lossy().contains("verdict"))
        .expect("the verdict file");
    let good = std::fs::read(&file).expect("read");

    // Copied to a machine with another identity.
    let mut elsewhere = lab.options();
    elsewhere.machine_identity = Some("another machine".into());
    let err = lab
        .client_with(elsewhere)
        .single_login(&card, "M", None)
        .expect_err("sealed for another machine");
    assert_eq!(err.kind(), ErrorKind::Network);
    assert!(lab.logged("sealed on another machine"));

    // One byte flipped, anywhere; or cut short.
    for at in [0, 5, good.len() / 2, good.len() - 1] {
        let mut bad = good.clone();
        bad[at] ^= 0x40;
        std::fs::write(&file, &bad).expect("write");
        let err = lab
            .client()
            .single_login(&card, "M", None)
            .expect_err("changed");
        assert_eq!(err.kind(), ErrorKind::Network, "byte {at}");
    }
    for len in [0, 10, good.len() - 1] {
        std::fs::write(&file, &good[..len]).expect("write");
        lab.client()
            .single_login(&card, "M", None)
            .expect_err("cut short");
    }
    assert!(lab.logged("it is damaged"));
    // The good file still answers.
    std::fs::write(&file, &good).expect("write");
    let offline = lab
        .client()
        .single_login(&card, "M", None)
        .expect("the good store");
    assert_eq!(offline.reply().code(), codes::OFFLINE);
}

/// The files of a folder, by name, and a folder made to hold exactly some files (the same
/// helpers as the C ABI's table of moves, `common::host::pieces`).
pub(crate) use common::host::{folder_files as files, put_folder as put_back};

/// A store that cannot work says so: offline verdicts on with a state folder that is a
/// file, under `/proc`, 64 KiB long, or not writable, refuse the client at once with
/// `ERR_STATE_FOLDER` and a message naming the folder; without offline verdicts nothing
/// changes; a good folder holds nothing more after the check.
#[test]
pub(crate) fn an_unwritable_state_folder_refuses_the_client() {
    let lab = Lab::new();
    let scratch = std::env::temp_dir().join(format!("verify-unwritable-{}", lab.app_id));
    std::fs::create_dir_all(&scratch).expect("scratch");
    let a_file = scratch.join("a-file");
    std::fs::write(&a_file, b"not a folder").expect("file");
    let mut bad = vec![
        a_file.clone(),
        a_file.join("below"),
        PathBuf::from("/proc/verify-offline-store"),
        scratch.join("x".repeat(64 * 1024)),
    ];
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        let locked = scratch.join("locked");
        std::fs::create_dir_all(&locked).expect("locked");
        std::fs::set_permissions(&locked, std::fs::Permissions::from_mode(0o500)).expect("chmod");
        // Root writes anyway: the row is checked where the permission holds.
        if std::fs::write(locked.join("try"), b"x").is_err() {
            bad.push(locked);
        }
    }
    for folder in bad {
        let mut options = lab.options();
        options.state_folder = Some(StateFolder::Path(folder.clone()));
        let err = Client::with_options(&lab.sandbox.base_url(), &lab.app_id, APP_KEY, options)
            .expect_err("an unwritable state folder");
        assert_eq!(
            err.code(),
            codes::ERR_STATE_FOLDER,
            "{}: {err}",
            folder.display()
        );
        assert_eq!(err.kind(), ErrorKind::StateFolder);
        assert!(err.message().contains("state folder"), "{err}");
        // Without offline verdicts, the client is made as before.
        let mut plain = Options {
            state_folder: Some(StateFolder::Path(folder.clone())),
            ..Options::default()
        };
        plain.machine_identity = Some("a machine".into());
        Client::with_options(&lab.sandbox.base_url(), &lab.app_id, APP_KEY, plain)
            .unwrap_or_else(|e| panic!("{}: {e}", folder.display()));
    }
    // A good folder: the check leaves nothing behind.
    lab.client();
    assert!(
        files(&lab.folder).is_empty(),
        "{:?}",
        files(&lab.folder).keys()
    );
    let _ = std::fs::remove_dir_all(&scratch);
}

/// The store's file of the card verdict.
pub(crate) fn verdict_file(folder: &std::path::Path) -> PathBuf {
    std::fs::read_dir(folder)
        .expect("folder")
        .map(|e| e.expect("entry").path())
        .find(|p| p.to_string_lossy().contains("verdict-card"))
        .expect("the verdict file")
}

/// The attack table: a verdict stored for one card, program and machine never answers
/// another card, another program (AppId) or another AppKey; a store replaced by random
/// bytes does not open; a symlink planted at a store's file makes nothing outside the
/// folder written.
#[test]
pub(crate) fn the_store_answers_no_one_else() {
    let mut lab = Lab::new();
    let card = lab.card(30);
    let other_card = lab.card(30);
    lab.client().single_login(&card, "M", None).expect("online");
    lab.sandbox.pause();
    let no_verdict = |client: Client, card: &str, row: &str| {
        let err = client.single_login(card, "M", None).expect_err(row);
        assert_eq!(err.kind(), ErrorKind::Network, "{row}: {err}");
    };
    no_verdict(lab.client(), &other_card, "another card");
    let other_app = Client::with_options(&lab.sandbox.base_url(), "99999", APP_KEY, lab.options())
        .expect("client");
    no_verdict(other_app, &card, "another AppId");
    let other_key = Client::with_options(
        &lab.sandbox.base_url(),
        &lab.app_id,
        "another-app-key",
        lab.options(),
    )
    .expect("client");
    no_verdict(other_key, &card, "another AppKey");
    assert!(lab.logged("sealed for another program or AppKey"));

    // Random bytes in place of the store.
    let file = verdict_file(&lab.folder);
    let good = std::fs::read(&file).expect("read");
    let mut random = vec![0u8; good.len()];
    let mut seed = 0x9E37_79B9_7F4A_7C15u64 ^ u64::from(std::process::id());
    for byte in &mut random {
        seed ^= seed << 13;
        seed ^= seed >> 7;
        seed ^= seed << 17;
        *byte = seed as u8;
    }
    std::fs::write(&file, &random).expect("write");
    no_verdict(lab.client(), &card, "random bytes");
    std::fs::write(&file, b"").expect("write");
    no_verdict(lab.client(), &card, "emptied");
    std::fs::write(&file, &good).expect("write");
    let offline = lab.client().single_login(&card, "M", None).expect("good");
    assert_eq!(offline.reply().code(), codes::OFFLINE);

    // A symlink planted at the store's files: a login writes the folder's own files, never
    // the target outside it.
    #[cfg(unix)]
    {
        lab.sandbox.resume().expect("resume");
        let outside = std::env::temp_dir().join(format!("verify-outside-{}", lab.app_id));
        std::fs::create_dir_all(&outside).expect("outside");
        let mut planted = Vec::new();
        for path in std::fs::read_dir(&lab.folder)
            .expect("folder")
            .map(|e| e.expect("entry").path())
        {
            let target = outside.join(path.file_name().expect("name"));
            std::fs::write(&target, b"the user's own file").expect("target");
            std::fs::remove_file(&path).expect("remove");
            std::os::unix::fs::symlink(&target, &path).expect("symlink");
            planted.push(target);
        }
        assert!(!planted.is_empty());
        lab.client().single_login(&card, "M", None).expect("online");
        for target in &planted {
            assert_eq!(
                std::fs::read(target).expect("target"),
                b"the user's own file",
                "{} was written through the symlink",
                target.display()
            );
        }
        lab.sandbox.set_clock_offset(0);
        lab.sandbox.pause();
        let offline = lab
            .client()
            .single_login(&card, "M", None)
            .expect("offline");
        assert_eq!(offline.reply().code(), codes::OFFLINE);
        let _ = std::fs::remove_dir_all(&outside);
    }
}
