//! Offline-first from C, C++ and C# hosts (the c_keeper host's scenarios `offline`,
//! `writer` and `reader`, in `c_keeper_offline.c`; `tests/cpp/cpp_offline.cpp`;
//! `tests/csharp/CsharpOffline.cs`): a start with the server
//! stopped is licensed from the store (`VERIFY_OFFLINE`, `verify_reply_offline`;
//! `Reply::offline()`; `Reply.IsOffline`), a keeper started from that reply reports the
//! offline event at once, and a card banned while offline ends the session on reconnect with
//! the reason, clearing the store; two processes storing verdicts at once never tear the
//! store, which another machine (a mount namespace with another machine-id) cannot open; a
//! state folder that cannot be written refuses the client; offline, an account's wrong
//! password is refused; the table of moves against the store's pieces (`c_offline_pieces.c`,
//! one start a run: a time mark deleted, an older copy put back, the second place pointed
//! elsewhere) gives no offline verdict where a piece cannot vouch. Each test has a sandbox of its own, paused and resumed as an outage, driven by the
//! hosts' `@@` requests.
//!
//! Needs `cc`, `c++`, `valgrind` and Mono (`scripts/install-deps.sh gcc valgrind mono`).

#[path = "../common/mod.rs"]
mod common;

use std::path::{Path, PathBuf};
use std::sync::Mutex;

use common::host::{
    build_host, compile_csharp, compile_cxx, require_mono, require_tool, root, run_host, Run,
    Scratch, C_POSIX_FLAGS,
};
use common::{Program, APP_KEY};
use serde_json::json;
use verify_sandbox::{Config, Sandbox};

/// Runs `program` (with `prefix` arguments, then `scenario`, before the sandbox's) against a
/// sandbox of its own holding a card, answering its outage and ban requests, and checks that
/// it passed.
fn run_offline(program: &Path, prefix: &[String], scenario: Option<&str>, run: Run) {
    let sandbox = Mutex::new(Sandbox::start(Config::default()).expect("sandbox"));
    let (app_id, card) = {
        let held = sandbox.lock().expect("sandbox");
        let program = Program::new(&held, json!({}));
        let card = program.day_card("COFF-LINE-0000-0001", 30);
        (program.app_id.clone(), card)
    };
    let base_url = sandbox.lock().expect("sandbox").base_url();
    let scratch = Scratch::new();
    let mut args: Vec<String> = prefix.to_vec();
    args.extend(scenario.map(str::to_owned));
    args.extend([
        base_url,
        app_id.clone(),
        APP_KEY.to_owned(),
        card.clone(),
        scratch.0.join("state").display().to_string(),
    ]);
    let output = run_host(program, &args, run, |line| {
        let request = line.strip_prefix("@@ ")?;
        let mut held = sandbox.lock().expect("sandbox");
        match request {
            "pause" => held.pause(),
            "resume" => held.resume().expect("resume"),
            other => match other.strip_prefix("ban ") {
                Some(reason) => held
                    .update_card(&app_id, &card, "disable", Some(reason))
                    .expect("disable"),
                None => panic!("unexpected request `{other}`"),
            },
        }
        Some("go".to_owned())
    });
    output.assert_passed(run);
}

#[test]
fn c_a_start_licensed_offline_ends_on_a_ban_at_reconnect() {
    require_tool("valgrind", "valgrind");
    let scratch = Scratch::new();
    let host = build_host("c_keeper", &scratch, C_POSIX_FLAGS);
    run_offline(&host, &[], Some("offline"), Run::Valgrind);
}

#[test]
fn cpp_a_start_licensed_offline_ends_on_a_ban_at_reconnect() {
    let scratch = Scratch::new();
    let binary = scratch.0.join("cpp_offline");
    compile_cxx(
        &root().join("tests/cpp/cpp_offline.cpp"),
        &binary,
        &["-pthread"],
    );
    run_offline(&binary, &[], None, Run::Native);
}

#[test]
fn csharp_a_start_licensed_offline_ends_on_a_ban_at_reconnect() {
    require_mono();
    let scratch = Scratch::new();
    let exe = scratch.0.join("CsharpOffline.exe");
    compile_csharp(
        &[
            PathBuf::from("bindings/csharp/src"),
            PathBuf::from("tests/csharp/CsharpOffline.cs"),
        ],
        &exe,
    );
    let prefix = ["--debug".to_owned(), exe.display().to_string()];
    run_offline(Path::new("mono"), &prefix, None, Run::Native);
}

/// Account mode through the C ABI: logged in once online, then, with the server stopped,
/// any wrong password gets `VERIFY_ERR_OFFLINE_PASSWORD` and the right one `VERIFY_OFFLINE`.
#[test]
fn c_a_wrong_password_offline_is_refused() {
    let sandbox = Mutex::new(Sandbox::start(Config::default()).expect("sandbox"));
    let (app_id, base_url) = {
        let held = sandbox.lock().expect("sandbox");
        let program = Program::new(&held, json!({}));
        program.account("cuser", "c-secret");
        (program.app_id.clone(), held.base_url())
    };
    let scratch = Scratch::new();
    let host = build_host("c_keeper", &scratch, C_POSIX_FLAGS);
    let args = [
        "password".to_owned(),
        base_url,
        app_id,
        APP_KEY.to_owned(),
        "cuser".to_owned(),
        "c-secret".to_owned(),
        scratch.0.join("state").display().to_string(),
    ];
    let output = run_host(&host, &args, Run::Native, |line| {
        match line.strip_prefix("@@ ")? {
            "pause" => sandbox.lock().expect("sandbox").pause(),
            other => panic!("unexpected request `{other}`"),
        }
        Some("go".to_owned())
    });
    output.assert_passed(Run::Native);
}

#[test]
fn two_processes_storing_verdicts_at_once_never_tear_the_store() {
    let mut sandbox = Sandbox::start(Config::default()).expect("sandbox");
    let program = Program::new(&sandbox, json!({}));
    let card = program.day_card("COFF-LINE-0000-0002", 30);
    let app_id = program.app_id.clone();
    let scratch = Scratch::new();
    let host = build_host("c_keeper", &scratch, C_POSIX_FLAGS);
    let state = scratch.0.join("state").display().to_string();
    let base_url = sandbox.base_url();
    let args = |scenario: &str| {
        let mut args = vec![
            scenario.to_owned(),
            base_url.clone(),
            app_id.clone(),
            APP_KEY.to_owned(),
            card.clone(),
            state.clone(),
        ];
        if scenario == "writer" {
            args.push("40".to_owned());
        }
        args
    };
    let writer = args("writer");
    std::thread::scope(|scope| {
        let runs: Vec<_> = (0..2)
            .map(|_| scope.spawn(|| run_host(&host, &writer, Run::Native, |_| None)))
            .collect();
        for run in runs {
            run.join().expect("writer").assert_passed(Run::Native);
        }
    });
    let reader = args("reader");
    sandbox.pause();
    run_host(&host, &reader, Run::Native, |_| None).assert_passed(Run::Native);

    // The store copied to another machine: the same folder, read in a mount namespace whose
    // /etc/machine-id is another machine's, gives no offline verdict.
    let other_id = scratch.0.join("machine-id");
    std::fs::write(&other_id, "0123456789abcdef0123456789abcdef\n").expect("machine-id");
    let mut command = common::host::host_command("unshare");
    command
        .args(["--mount", "--", "sh", "-c"])
        .arg(format!(
            "set -e\nmount --bind {} /etc/machine-id\nexec \"$@\"",
            other_id.display()
        ))
        .arg("sh")
        .arg(&host)
        .args(args("stranger"));
    let output = command.output().expect("run unshare");
    let (stdout, stderr) = common::host::text(&output);
    assert!(
        output.status.success() && stdout.contains(" checks, 0 failed"),
        "the host failed in its namespace (root and unshare are needed)\n{stdout}\n{stderr}"
    );
}

/// The table of moves against the offline store through the C ABI (SECURITY.md, "The offline
/// store"; the scene of `common::host::pieces`): with the clock behind the time marks, a
/// piece deleted (the state folder's mark, the second place, both; each with an older copy
/// of the state folder put back) or the second place pointed elsewhere (`XDG_CONFIG_HOME`, or
/// `HOME` without it) gives no offline verdict (`VERIFY_ERR_TIME_UNCONFIRMED`), where it gave
/// `VERIFY_OFFLINE` before; the rows refused before still are (`VERIFY_ERR_CLOCK_BACK`);
/// older copies of both places still answer (the stated limit); one online login heals.
#[test]
fn c_every_piece_of_the_offline_store_vouches_for_the_others() {
    use common::host::{folder_files, put_folder, PiecesHost, PiecesScene, State};
    use verify_core::codes::{ERR_CLOCK_BACK, ERR_TIME_UNCONFIRMED, OFFLINE};

    let scratch = Scratch::new();
    let host = build_host("c_offline_pieces", &scratch, &[]);
    let config = scratch.0.join("config");
    let second = config.join("verify");
    let elsewhere = scratch.0.join("elsewhere");
    let home = scratch.0.join("home");
    // Where the second place resolves for the next start: `XDG_CONFIG_HOME`, or `HOME`.
    let place: Mutex<(&str, PathBuf)> = Mutex::new(("XDG_CONFIG_HOME", config.clone()));
    let run = |args: &[String]| {
        let mut command = common::host::host_command(&host);
        let (variable, folder) = place.lock().expect("place").clone();
        command.env_remove("XDG_CONFIG_HOME").env(variable, folder);
        let output = command.args(args).output().expect("run the host");
        let (stdout, stderr) = common::host::text(&output);
        let report = format!("{stdout}\n{stderr}");
        assert!(output.status.success(), "the host failed\n{report}");
        (stdout, report)
    };
    let host = PiecesHost {
        run: Box::new(run),
        state_arg: scratch.0.join("state").display().to_string(),
        state_dir: scratch.0.join("state"),
    };
    let older_second = std::cell::RefCell::new(Default::default());
    let mut scene = PiecesScene::new(host, || {
        *older_second.borrow_mut() = folder_files(&second);
    });
    let older_second = older_second.into_inner();
    let now_second = folder_files(&second);
    assert!(!now_second.is_empty(), "the second place holds the mark");

    let rows: [(&str, State, Option<&common::host::Folder>, i32); 10] = [
        (
            "nothing else (control)",
            State::Now,
            Some(&now_second),
            ERR_CLOCK_BACK,
        ),
        (
            "the state folder's mark deleted",
            State::NowWithoutMark,
            Some(&now_second),
            ERR_TIME_UNCONFIRMED,
        ),
        (
            "the second place deleted",
            State::Now,
            None,
            ERR_TIME_UNCONFIRMED,
        ),
        (
            "both marks deleted",
            State::NowWithoutMark,
            None,
            ERR_TIME_UNCONFIRMED,
        ),
        (
            "an older state folder, its mark deleted",
            State::OlderWithoutMark,
            Some(&now_second),
            ERR_TIME_UNCONFIRMED,
        ),
        (
            "an older state folder, the second place deleted",
            State::Older,
            None,
            ERR_TIME_UNCONFIRMED,
        ),
        (
            "an older state folder, both marks deleted",
            State::OlderWithoutMark,
            None,
            ERR_TIME_UNCONFIRMED,
        ),
        (
            "an older state folder (the second place intact)",
            State::Older,
            Some(&now_second),
            ERR_CLOCK_BACK,
        ),
        (
            "an older second place alone",
            State::Now,
            Some(&older_second),
            ERR_CLOCK_BACK,
        ),
        (
            "older copies of both (the limit)",
            State::Older,
            Some(&older_second),
            OFFLINE,
        ),
    ];
    for (row, state, second_files, expected) in rows {
        scene.set_state(state);
        match second_files {
            Some(files) => put_folder(&second, files),
            None => {
                let _ = std::fs::remove_dir_all(&second);
            }
        }
        scene.expect(row, expected);
    }
    // The second place pointed elsewhere, at a copy of the older one: by XDG_CONFIG_HOME, and
    // by HOME with XDG_CONFIG_HOME unset.
    put_folder(&second, &now_second);
    put_folder(&elsewhere.join("verify"), &older_second);
    put_folder(&home.join(".config/verify"), &older_second);
    for (variable, folder) in [("XDG_CONFIG_HOME", &elsewhere), ("HOME", &home)] {
        scene.set_state(State::Older);
        *place.lock().expect("place") = (variable, folder.clone());
        scene.expect(
            &format!("the second place redirected by {variable}"),
            ERR_TIME_UNCONFIRMED,
        );
    }
    // One online login heals, in the profile as it is now (the redirected one).
    scene.heal("a profile moved without its second place");
    *place.lock().expect("place") = ("XDG_CONFIG_HOME", config.clone());
    scene.set_state(State::NowWithoutMark);
    let _ = std::fs::remove_dir_all(&second);
    scene.expect("both marks deleted again", ERR_TIME_UNCONFIRMED);
    scene.heal("both marks deleted");
}
