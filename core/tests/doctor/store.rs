//! The offline store: a verdict past its grace, a missing or foreign time mark, and stored
//! files of another machine or AppKey, each named.

use super::*;

/// A sandbox of its own (its clock is moved) with a program and a 30-day card, and offline
/// options on a fresh state folder (the time mark beside it) for the machine `machine`.
fn with_store(machine: &str) -> (Sandbox, String, String, PathBuf, Options) {
    let sandbox = Sandbox::start(Config::default()).expect("sandbox");
    let app_id = program_on(&sandbox, "approved");
    let card = format!("DOCT-{}", unique("")).replace('x', "-");
    sandbox
        .load(
            Fixtures::from_value(json!({"cards": [{"app_id": app_id, "card": card,
                "kind": "duration", "duration": 30}]}))
            .expect("card"),
        )
        .expect("load");
    let folder = folder(&app_id);
    let options = Options {
        state_folder: Some(StateFolder::Path(folder.clone())),
        clock_mark_folder: Some(folder.with_extension("mark")),
        offline_grace: Some(Duration::from_secs(3600)),
        machine_identity: Some(machine.into()),
        ..options()
    };
    (sandbox, app_id, card, folder, options)
}

#[test]
fn a_stored_verdict_past_its_grace_is_named() {
    let (sandbox, app_id, card, _folder, options) = with_store("doctor-test-machine");
    // Confirmed two hours ago by the server's clock: a grace of one hour has run out.
    sandbox.shift_clock(-2 * 3600);
    Client::with_options(&sandbox.base_url(), &app_id, APP_KEY, options.clone())
        .expect("client")
        .single_login(&card, "M", None)
        .expect("online login");
    sandbox.set_clock_offset(0);
    let report = run(&sandbox.base_url(), &app_id, &options, &[&card]);
    // The server answers: the next login renews it, a warning.
    assert_eq!(
        problems(&report),
        vec![(StepKind::Offline, Verdict::Warn, "offline.grace_over")],
        "{}",
        report.to_text()
    );
    let offline = report.steps_of(StepKind::Offline).next().expect("offline");
    assert_eq!(offline.details["mode"], "card");
    assert!(offline.message.contains("grace"), "{}", offline.message);
    assert_eq!(
        first_cause(
            &report,
            [
                "WARN: The stored licence's offline period is over",
                "WARN：已保存授权的离线使用时间已到",
                "WARN：已儲存授權的離線使用時間已到"
            ]
        ),
        "offline.grace_over"
    );
    assert_eq!(report.to_json()["verdict"], "warn");
}

/// A stored verdict whose time marks are not all there (the second place deleted, or
/// another store's mark in its place) is named in words: the offline time check cannot be
/// confirmed; log in online once.
#[test]
fn a_missing_or_foreign_time_mark_is_named() {
    let (sandbox, app_id, card, folder, options) = with_store("doctor-test-machine");
    let mark = folder.with_extension("mark");
    let login = |options: &Options| {
        Client::with_options(&sandbox.base_url(), &app_id, APP_KEY, options.clone())
            .expect("client")
            .single_login(&card, "M", None)
            .expect("online login");
    };
    login(&options);
    let report = run(&sandbox.base_url(), &app_id, &options, &[&card]);
    assert!(problems(&report).is_empty(), "{}", report.to_text());

    let _ = std::fs::remove_dir_all(&mark);
    let report = run(&sandbox.base_url(), &app_id, &options, &[&card]);
    assert_eq!(
        problems(&report),
        vec![(StepKind::Offline, Verdict::Warn, "offline.unconfirmed")],
        "{}",
        report.to_text()
    );
    let offline = report.steps_of(StepKind::Offline).next().expect("offline");
    assert!(
        offline.message.contains("cannot be confirmed") && offline.message.contains("missing"),
        "{}",
        offline.message
    );
    assert_eq!(offline.details["code"], codes::ERR_TIME_UNCONFIRMED);
    assert!(
        report.to_text().contains("Log in online once"),
        "{}",
        report.to_text()
    );
    assert!(
        report.text_in(Language::ZhCn).contains("请联网登录一次"),
        "{}",
        report.text_in(Language::ZhCn)
    );

    // Another store's mark (of the same program and machine) in both places.
    let other = Options {
        state_folder: Some(StateFolder::Path(folder.with_extension("other"))),
        clock_mark_folder: Some(folder.with_extension("other-mark")),
        ..options.clone()
    };
    login(&other);
    for (from, to) in [
        (folder.with_extension("other"), &folder),
        (folder.with_extension("other-mark"), &mark),
    ] {
        std::fs::create_dir_all(to).expect("folder");
        for entry in std::fs::read_dir(&from).expect("list") {
            let path = entry.expect("entry").path();
            let name = path.file_name().expect("name").to_owned();
            if name.to_string_lossy().starts_with("clock-") {
                std::fs::copy(&path, to.join(name)).expect("copy");
            }
        }
    }
    let report = run(&sandbox.base_url(), &app_id, &options, &[&card]);
    let offline = report.steps_of(StepKind::Offline).next().expect("offline");
    assert_eq!(offline.key, "offline.unconfirmed", "{}", report.to_text());
    assert!(
        offline.message.contains("another store"),
        "{}",
        offline.message
    );
    for extra in ["other", "other-mark", "mark"] {
        let _ = std::fs::remove_dir_all(folder.with_extension(extra));
    }
}

#[test]
fn stored_files_of_another_machine_or_another_app_key_are_named() {
    let (sandbox, app_id, card, folder, options) = with_store("another-machine");
    Client::with_options(&sandbox.base_url(), &app_id, APP_KEY, options.clone())
        .expect("client")
        .single_login(&card, "M", None)
        .expect("online login");
    // This machine: the files were sealed on another.
    let here = Options {
        machine_identity: Some("doctor-test-machine".into()),
        ..options.clone()
    };
    let report = run(&sandbox.base_url(), &app_id, &here, &[&card]);
    let offline: Vec<_> = report
        .steps_of(StepKind::Offline)
        .map(|s| (s.verdict, s.key))
        .collect();
    assert!(
        offline.contains(&(Verdict::Warn, "offline.other_machine")),
        "{}",
        report.to_text()
    );
    assert_eq!(
        first_cause(
            &report,
            [
                "WARN: The stored licence files were made on another computer",
                "WARN：已保存的授权文件来自另一台电脑",
                "WARN：已儲存的授權檔案來自另一台電腦"
            ]
        ),
        "offline.other_machine"
    );
    // Another AppKey: Init is refused (the cause), and the files are named too.
    let report = diagnose_with(
        &sandbox.base_url(),
        &app_id,
        "OTHERKEY0123456789ABCDEFGHIJKLMN",
        &options,
        &DiagnoseOptions::default(),
    );
    assert_eq!(report.cause().map(|s| s.key), Some("init.1011"));
    assert!(
        report
            .steps_of(StepKind::Offline)
            .any(|s| s.key == "offline.other_key" && s.verdict == Verdict::Fail),
        "{}",
        report.to_text()
    );
    let _ = std::fs::remove_dir_all(folder.with_extension("mark"));
    let _ = std::fs::remove_dir_all(&folder);
}
