//! The session keeper, the cancellable social wait, and the machine code, against the
//! sandbox. Intervals are 1 s; nothing sleeps to wait for state: tests poll with deadlines.

#[path = "../../tests/common/mod.rs"]
mod common;

use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use common::events::{count, fast, recorder, Events};
use common::APP_KEY;
use common::{eventually, unique, Program};
use verify_core::{
    codes, CancelToken, Client, ErrorKind, Event, EventKind, Keeper, KeeperOptions, KeeperState,
    Options, ProxyChoice, SessionKind,
};
use verify_sandbox::{Fault, FaultKind};

const PATIENCE: Duration = Duration::from_secs(20);

/// A logged-in account of `program` whose session a keeper keeps, with its events recorded.
struct Kept {
    user: String,
    keeper: Keeper,
    events: Events,
}

fn keep_user(program: &Program<'_>, prefix: &str, options: KeeperOptions) -> Kept {
    let user = unique(prefix);
    program.account(&user, "pw");
    let client = Arc::new(program.client());
    let session = client.user_login(&user, "pw", None).expect("login");
    let (events, callback) = recorder();
    let keeper = Keeper::start(
        client,
        session.token().expect("token"),
        SessionKind::User,
        options,
        Some(callback),
    )
    .expect("keeper");
    Kept {
        user,
        keeper,
        events,
    }
}

#[test]
fn a_back_office_message_arrives_exactly_once() {
    let program = Program::fresh();
    let card = program.day_card("KEEP-CARD-0000-0001", 30);
    let client = Arc::new(program.client());
    let login = client
        .single_login(&card, "KEEPER-MAC", None)
        .expect("login");
    let (events, callback) = recorder();
    let keeper = Keeper::start(
        Arc::clone(&client),
        login.token().expect("token"),
        SessionKind::Card,
        fast(),
        Some(callback),
    )
    .expect("keeper");
    assert!(
        eventually(PATIENCE, || count(&events, EventKind::Alive) >= 1),
        "a first heartbeat"
    );
    program
        .sandbox
        .leave_card_message(&program.app_id, &card, "请更新到 2.1")
        .expect("message");
    assert!(
        eventually(PATIENCE, || count(&events, EventKind::Message) >= 1),
        "the message"
    );
    let alive_then = count(&events, EventKind::Alive);
    assert!(
        eventually(PATIENCE, || count(&events, EventKind::Alive)
            >= alive_then + 2),
        "more beats"
    );
    keeper.stop();
    let events = events.lock().expect("events");
    let messages: Vec<&Event> = events
        .iter()
        .filter(|e| e.kind == EventKind::Message)
        .collect();
    assert_eq!(messages.len(), 1, "delivered once: {events:?}");
    assert_eq!(messages[0].text.as_deref(), Some("请更新到 2.1"));
    let alive = events
        .iter()
        .find(|e| e.kind == EventKind::Alive)
        .expect("alive event");
    assert!(login.expire_at().is_some());
    assert_eq!(alive.expire_at.as_deref(), login.expire_at());
    assert_eq!(alive.code, 200);
}

#[test]
fn without_a_callback_messages_are_queued_for_polling() {
    let program = Program::fresh();
    let user = unique("poll");
    program.account(&user, "pw");
    let client = Arc::new(program.client());
    let session = client.user_login(&user, "pw", None).expect("login");
    let keeper = Keeper::start(
        Arc::clone(&client),
        session.token().expect("token"),
        SessionKind::User,
        fast(),
        None,
    )
    .expect("keeper");
    program
        .sandbox
        .leave_account_message(&program.app_id, &user, "hello")
        .expect("message");
    let mut received = Vec::new();
    assert!(eventually(PATIENCE, || {
        received.extend(keeper.take_messages());
        !received.is_empty()
    }));
    assert_eq!(received, ["hello"]);
    let status = keeper.status();
    assert_eq!(status.state, KeeperState::Alive);
    assert_eq!(status.last_code, 200);
    assert!(status.last_success.is_some());
    assert!(status.beats_ok >= 1, "{status:?}");
    assert_eq!(status.beats_failed, 0, "{status:?}");
    assert!(session.expire_at().is_some());
    assert_eq!(status.expire_at.as_deref(), session.expire_at());
}

#[test]
fn a_ban_ends_the_session_with_its_remark() {
    let program = Program::fresh();
    let Kept {
        user,
        keeper,
        events,
    } = keep_user(&program, "banned", fast());
    program
        .sandbox
        .update_account(&program.app_id, &user, "ban", Some("账号共享"))
        .expect("ban");
    assert!(
        eventually(PATIENCE, || count(&events, EventKind::Ended) == 1),
        "the end"
    );
    let ended = events
        .lock()
        .expect("events")
        .iter()
        .find(|e| e.kind == EventKind::Ended)
        .cloned()
        .expect("ended");
    assert_eq!(ended.code, 1006);
    assert_eq!(ended.remark.as_deref(), Some("账号共享"));
    let status = keeper.status();
    assert_eq!((status.state, status.last_code), (KeeperState::Ended, 1006));
    assert_eq!(status.remark.as_deref(), Some("账号共享"));
    assert_eq!(status.beats_failed, 1, "{status:?}");
    assert_eq!(
        status.beats_ok as usize,
        count(&events, EventKind::Alive),
        "{status:?}"
    );
}

#[test]
fn stop_is_prompt_in_the_middle_of_a_wait_and_of_a_request() {
    let program = Program::fresh();
    let card = program.day_card("STOP-CARD-0000-0001", 30);
    let client = Arc::new(program.client());
    let login = client.single_login(&card, "STOP-MAC", None).expect("login");
    let token = login.token().expect("token");

    // In the middle of a wait: the default interval is 5 minutes.
    let keeper = Keeper::start(
        Arc::clone(&client),
        token,
        SessionKind::Card,
        KeeperOptions::default(),
        None,
    )
    .expect("keeper");
    let started = Instant::now();
    keeper.stop();
    assert!(
        started.elapsed() < Duration::from_millis(100),
        "stop took {:?}",
        started.elapsed()
    );

    // In the middle of a request: the sandbox holds heartbeats for 10 s.
    program.sandbox.set_fault(Fault {
        kind: FaultKind::Delay,
        app_id: Some(program.app_id.clone()),
        action: Some("UserHeartbeat".into()),
        count: None,
        delay_ms: 10_000,
    });
    let keeper =
        Keeper::start(Arc::clone(&client), token, SessionKind::Card, fast(), None).expect("keeper");
    let in_flight = || {
        program
            .sandbox
            .request_log(Some(&program.app_id))
            .iter()
            .any(|entry| entry.action.as_deref() == Some("UserHeartbeat"))
    };
    assert!(
        eventually(PATIENCE, in_flight),
        "a heartbeat reached the sandbox"
    );
    let started = Instant::now();
    drop(keeper);
    assert!(
        started.elapsed() < Duration::from_millis(100),
        "stop took {:?}",
        started.elapsed()
    );
    // The client itself is unaffected by the keeper's cancelled connection.
    program.sandbox.clear_faults(Some(&program.app_id));
    client.get_bulletin().expect("the client still works");
}

/// The test host name of the sandbox: `scripts/install-deps.sh test-hosts` maps it to
/// 127.0.0.1 in /etc/hosts, so that the client has a name to look up.
const HOST: &str = "verify-sandbox.test";

#[test]
fn heartbeats_reuse_the_clients_connection_and_look_nothing_up() {
    let hosts = std::fs::read_to_string("/etc/hosts").unwrap_or_default();
    assert!(
        hosts.contains(HOST),
        "{HOST} is not in /etc/hosts: run `scripts/install-deps.sh test-hosts`"
    );
    let program = Program::fresh();
    let card = program.day_card(&unique("REUSE-CARD-"), 30);
    let log: Arc<Mutex<Vec<String>>> = Arc::default();
    let sink = Arc::clone(&log);
    let options = Options {
        proxy: ProxyChoice::None,
        allow_insecure_http: true,
        log: Some(Arc::new(move |_, line: &str| {
            sink.lock().expect("log").push(line.to_owned())
        })),
        ..Options::default()
    };
    let url = format!("http://{HOST}:{}", program.sandbox.port());
    let client =
        Arc::new(Client::with_options(&url, &program.app_id, APP_KEY, options).expect("client"));
    let login = client
        .single_login(&card, "REUSE-MAC", None)
        .expect("login");
    let keeper = Keeper::start(
        Arc::clone(&client),
        login.token().expect("token"),
        SessionKind::Card,
        fast(),
        None,
    )
    .expect("keeper");
    // Heartbeats with host calls between them, on the same client.
    for beats in 1..=3 {
        assert!(
            eventually(PATIENCE, || keeper.status().beats_ok >= beats),
            "heartbeat {beats}: {:?}",
            keeper.status()
        );
        client
            .get_bulletin()
            .expect("a host call between heartbeats");
    }
    drop(keeper);
    let heartbeats = program
        .sandbox
        .request_log(Some(&program.app_id))
        .iter()
        .filter(|entry| entry.action.as_deref() == Some("UserHeartbeat"))
        .count();
    assert!(heartbeats >= 3, "{heartbeats} heartbeats logged");
    // Init, the login, the heartbeats and the host calls all went over one connection...
    assert_eq!(
        program.connections_used(),
        1,
        "{:?}",
        log.lock().expect("log")
    );
    let lines = log.lock().expect("log");
    let count = |what: &str| lines.iter().filter(|line| line.contains(what)).count();
    assert_eq!(count("connected to"), 1, "{lines:?}");
    // ...and the host name was looked up once, for that connection: a heartbeat on a kept
    // connection resolves nothing (so it starts no resolver thread).
    assert_eq!(count("looking up"), 1, "{lines:?}");
}

#[test]
fn bad_keeper_arguments_are_refused() {
    let program = Program::fresh();
    let client = Arc::new(program.client());
    let short = KeeperOptions {
        interval: Duration::from_millis(500),
        ..KeeperOptions::default()
    };
    let err = Keeper::start(Arc::clone(&client), "t", SessionKind::Card, short, None)
        .expect_err("interval");
    assert_eq!(err.kind(), ErrorKind::InvalidArgument);
    let err = Keeper::start(client, "", SessionKind::Card, fast(), None).expect_err("token");
    assert_eq!(err.kind(), ErrorKind::InvalidArgument);
}

fn polls_logged(program: &Program<'_>) -> usize {
    program
        .sandbox
        .request_log(Some(&program.app_id))
        .iter()
        .filter(|entry| entry.code == 201)
        .count()
}

#[test]
fn social_wait_returns_when_the_user_authorizes() {
    let program = Program::fresh();
    let client = program.client();
    let user = unique("sw");
    let registration = client
        .social_register_start(&user, None, None)
        .expect("register");
    program
        .sandbox
        .authorize_social(
            &registration.state().expect("state"),
            "openid-wait",
            "等待者",
        )
        .expect("registered");
    let start = client.social_login_start(None).expect("step 1");
    let state = start.state().expect("state");
    std::thread::scope(|scope| {
        scope.spawn(|| {
            assert!(
                eventually(PATIENCE, || polls_logged(&program) >= 2),
                "the wait polls"
            );
            program
                .sandbox
                .authorize_social(state, "openid-wait", "等待者")
                .expect("authorize");
        });
        let session = client
            .social_login_wait(
                state,
                None,
                Duration::from_millis(50),
                PATIENCE,
                &CancelToken::new(),
            )
            .expect("logged in");
        assert_eq!(session.reply().code(), codes::OK);
        assert_eq!(session.username(), Some(user.as_str()));
        assert_eq!(session.remark(), Some("等待者"));
    });
}

#[test]
fn social_wait_is_cancelled_promptly_and_times_out() {
    let program = Program::fresh();
    let client = program.client();
    let start = client.social_login_start(None).expect("step 1");
    let state = start.state().expect("state");
    let cancel = CancelToken::new();
    std::thread::scope(|scope| {
        let canceller = scope.spawn(|| {
            assert!(
                eventually(PATIENCE, || polls_logged(&program) >= 1),
                "the wait polls"
            );
            let at = Instant::now();
            cancel.cancel();
            at
        });
        let err = client
            .social_login_wait(state, None, Duration::from_secs(60), PATIENCE, &cancel)
            .expect_err("cancelled");
        let returned = Instant::now();
        let cancelled_at = canceller.join().expect("canceller");
        assert_eq!(err.kind(), ErrorKind::Cancelled);
        assert!(
            returned - cancelled_at < Duration::from_millis(100),
            "{:?}",
            returned - cancelled_at
        );
    });

    let started = Instant::now();
    let err = client
        .social_login_wait(
            state,
            None,
            Duration::from_millis(50),
            Duration::from_millis(300),
            &CancelToken::new(),
        )
        .expect_err("times out");
    assert_eq!(err.kind(), ErrorKind::Timeout);
    assert!(started.elapsed() < Duration::from_secs(5));
}

#[test]
fn machine_codes_are_stable_and_salted() {
    let code = verify_core::machine_code("app-1").expect("machine code");
    assert_eq!(code.len(), verify_core::MACHINE_CODE_LEN);
    assert!(code
        .chars()
        .all(|c| c.is_ascii_hexdigit() && !c.is_ascii_lowercase()));
    assert_eq!(code, verify_core::machine_code("app-1").expect("again"));
    assert_ne!(
        code,
        verify_core::machine_code("app-2").expect("other salt")
    );
}

#[test]
fn when_the_server_stays_away_grace_runs_out_and_the_session_ends() {
    let sandbox =
        verify_sandbox::Sandbox::start(verify_sandbox::Config::default()).expect("own sandbox");
    let program = Program::new(&sandbox, serde_json::json!({}));
    let options = KeeperOptions {
        interval: Duration::from_secs(1),
        grace: Duration::from_secs(2),
        ip: None,
    };
    let Kept { keeper, events, .. } = keep_user(&program, "away", options);
    assert!(eventually(PATIENCE, || count(&events, EventKind::Alive) >= 1));
    drop(program);
    sandbox.stop();
    // Grace begins with a trouble event. The event, not a sample of the state, is waited
    // for: the state is Grace for only 2 s, which a loaded machine's poll can miss.
    assert!(
        eventually(PATIENCE, || count(&events, EventKind::Trouble) >= 1),
        "grace begins"
    );
    let trouble = events
        .lock()
        .expect("events")
        .iter()
        .find(|e| e.kind == EventKind::Trouble)
        .cloned()
        .expect("trouble");
    assert_eq!(trouble.code, codes::ERR_NETWORK, "{trouble:?}");
    assert!(
        eventually(PATIENCE, || count(&events, EventKind::Ended) == 1),
        "grace runs out"
    );
    let ended = events
        .lock()
        .expect("events")
        .iter()
        .find(|e| e.kind == EventKind::Ended)
        .cloned()
        .expect("ended");
    assert!(ended.message.contains("grace period"), "{ended:?}");
    assert_eq!(keeper.status().state, KeeperState::Ended);
}

#[test]
fn network_trouble_then_grace_then_recovery_when_the_server_returns() {
    let mut sandbox =
        verify_sandbox::Sandbox::start(verify_sandbox::Config::default()).expect("own sandbox");
    let Kept { keeper, events, .. } = {
        let program = Program::new(&sandbox, serde_json::json!({}));
        let options = KeeperOptions {
            interval: Duration::from_secs(1),
            grace: Duration::from_secs(60),
            ip: None,
        };
        keep_user(&program, "outage", options)
    };
    assert!(eventually(PATIENCE, || count(&events, EventKind::Alive) >= 1));

    sandbox.pause();
    assert!(
        eventually(PATIENCE, || keeper.status().state == KeeperState::Grace),
        "grace"
    );
    // Events reach the callback on the keeper's event thread, after the state changed: the
    // trouble event is waited for, not read at once.
    assert!(
        eventually(PATIENCE, || count(&events, EventKind::Trouble) >= 1),
        "trouble reported"
    );
    let alive_before = count(&events, EventKind::Alive);

    sandbox
        .resume()
        .expect("the server returns on the same port");
    assert!(
        eventually(PATIENCE, || keeper.status().state == KeeperState::Alive
            && count(&events, EventKind::Alive) > alive_before),
        "recovery"
    );
    assert_eq!(
        count(&events, EventKind::Ended),
        0,
        "the session never ended"
    );
    assert_eq!(keeper.status().last_code, 200);
}

#[test]
fn a_wrong_token_ends_the_keeper_at_once() {
    // The first heartbeat of a keeper started with a token goes out at once: a token the
    // server does not know ends the session well before the (default, 5-minute) interval.
    let program = Program::fresh();
    let client = Arc::new(program.client());
    let (events, callback) = recorder();
    let started = Instant::now();
    let keeper = Keeper::start(
        Arc::clone(&client),
        &"X".repeat(40),
        SessionKind::Card,
        KeeperOptions::default(),
        Some(callback),
    )
    .expect("keeper");
    assert!(eventually(PATIENCE, || count(&events, EventKind::Ended) == 1));
    assert!(
        started.elapsed() < Duration::from_secs(10),
        "{:?}",
        started.elapsed()
    );
    let ended = events
        .lock()
        .expect("events")
        .iter()
        .find(|e| e.kind == EventKind::Ended)
        .cloned()
        .expect("ended");
    assert_eq!(ended.code, codes::TOKEN_INVALID);
    assert_eq!(count(&events, EventKind::Alive), 0);
    assert_eq!(keeper.status().state, KeeperState::Ended);
}
