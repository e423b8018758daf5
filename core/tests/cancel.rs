//! Every call cancellable in flight: a token watching the calling thread
//! ([`CancelToken::watch`]) cancels a call within 50 ms of its cancel, while the call waits for
//! its reply, connects to a black hole, is in a stalled TLS handshake or a proxy's CONNECT
//! that stalls, and before it starts; an action that changes state
//! says that the server may have received it and is never sent again; the client goes on
//! working after a cancel. The network lab (`tests/lab/`) adds a black-holed line and a slow
//! name server, from C, C# and C++.

#[path = "../../tests/common/mod.rs"]
mod common;

use std::sync::mpsc;
use std::time::{Duration, Instant};

use common::cancel::{hold_reply, received, PROMPT_MS};
use common::net::{BlackHole, Silent};
use common::{Program, APP_KEY};
use serde_json::json;
use verify_core::{CancelToken, Client, Error, ErrorKind, Options};

/// What the issue asks: a cancelled call returns within this of its cancel.
const PROMPT: Duration = Duration::from_millis(PROMPT_MS as u64);

/// When the cancel comes, after the call started: long enough for it to be waiting where
/// the test put it (the reply, the handshake).
const INTO_THE_CALL: Duration = Duration::from_millis(300);

/// Runs `call` on this thread watched by a new token, which another thread cancels
/// [`INTO_THE_CALL`] after the call started; returns the call's outcome and how long after
/// the cancel it returned.
fn cancelled_after<T: Send>(
    call: impl FnOnce() -> Result<T, Error>,
) -> (Result<T, Error>, Duration) {
    let token = CancelToken::new();
    let (cancelled_at, when) = mpsc::channel();
    std::thread::scope(|scope| {
        let canceller = token.clone();
        scope.spawn(move || {
            std::thread::sleep(INTO_THE_CALL);
            let at = Instant::now();
            canceller.cancel();
            cancelled_at.send(at).expect("the call's side listens");
        });
        let watch = token.watch();
        let outcome = call();
        let returned = Instant::now();
        drop(watch);
        let at = when.recv().expect("the cancel came");
        (outcome, returned.saturating_duration_since(at))
    })
}

#[test]
fn a_call_waiting_for_its_reply_is_cancelled_within_50_ms_and_the_client_goes_on() {
    let program = Program::fresh();
    let client = program.client();
    client.init().expect("init");
    hold_reply(&program, "GetBulletin");
    let (outcome, late) = cancelled_after(|| client.get_bulletin());
    let err = outcome.expect_err("cancelled");
    assert_eq!(err.kind(), ErrorKind::Cancelled, "{err:?}");
    assert!(late < PROMPT, "returned {late:?} after the cancel");
    assert!(
        err.message().contains("GetBulletin") && err.message().contains("reply was awaited"),
        "{}",
        err.message()
    );
    // Not sent again, and the next call (a new connection) works.
    assert_eq!(received(&program, "GetBulletin"), 1);
    client.get_bulletin().expect("the client goes on");
}

#[test]
fn a_count_card_login_cancelled_after_it_left_says_so_and_is_not_sent_again() {
    let program = Program::fresh();
    let card = program.count_card("CANC-ELED-0000-0001", 5);
    let client = program.client();
    client.init().expect("init");
    hold_reply(&program, "SingleLogin");
    let (outcome, late) = cancelled_after(|| client.single_login(&card, "M", None));
    let err = outcome.expect_err("cancelled");
    assert_eq!(err.kind(), ErrorKind::Cancelled, "{err:?}");
    assert!(late < PROMPT, "returned {late:?} after the cancel");
    assert!(
        err.message()
            .contains("the server may have received it and acted on it")
            && err.message().contains("not sent again"),
        "{}",
        err.message()
    );
    assert_eq!(received(&program, "SingleLogin"), 1, "never sent twice");
    let stored = program.sandbox.card(&program.app_id, &card).expect("card");
    assert_eq!(stored["used"], json!(1), "one use spent, not two");
}

#[test]
fn a_call_cancelled_before_it_starts_sends_nothing() {
    let program = Program::fresh();
    let client = program.client();
    let token = CancelToken::new();
    token.cancel();
    let watch = token.watch();
    let err = client
        .user_recharge("someone", "CARD")
        .expect_err("cancelled before it starts");
    drop(watch);
    assert_eq!(err.kind(), ErrorKind::Cancelled, "{err:?}");
    assert!(
        err.message().contains("before its request was sent"),
        "{}",
        err.message()
    );
    assert!(
        program
            .sandbox
            .request_log(Some(&program.app_id))
            .is_empty(),
        "nothing reached the server, not even Init"
    );
    // Without the watch the thread's calls are not cancelled.
    client.get_bulletin().expect("not watched any more");
}

#[test]
fn a_stalled_tls_handshake_is_cancelled_within_50_ms() {
    // Accepts, and never says a word of TLS.
    let silent = Silent::start();
    let port = silent.port;
    let client = Client::with_options(
        &format!("https://127.0.0.1:{port}"),
        "1",
        APP_KEY,
        Options::default(),
    )
    .expect("client");
    let (outcome, late) = cancelled_after(|| client.get_bulletin());
    let err = outcome.expect_err("cancelled");
    assert_eq!(err.kind(), ErrorKind::Cancelled, "{err:?}");
    assert!(late < PROMPT, "returned {late:?} after the cancel");
    assert!(
        err.message().contains("before its request was sent"),
        "{}",
        err.message()
    );
}

#[test]
fn a_connect_to_a_black_hole_is_cancelled_within_50_ms() {
    // SYNs go unanswered: the connect would run out its timeout.
    let hole = BlackHole::at("127.0.0.1:0");
    let client = Client::new(&hole.url(), "1", APP_KEY).expect("client");
    let (outcome, late) = cancelled_after(|| client.get_bulletin());
    let err = outcome.expect_err("cancelled");
    assert_eq!(err.kind(), ErrorKind::Cancelled, "{err:?}");
    assert!(late < PROMPT, "returned {late:?} after the cancel");
}

#[test]
fn watches_nest_and_only_the_watching_token_cancels() {
    let program = Program::fresh();
    let client = program.client();
    let outer = CancelToken::new();
    let inner = CancelToken::new();
    let outer_watch = outer.watch();
    {
        let _inner_watch = inner.watch();
        assert!(CancelToken::watching_this_thread().is_some());
        outer.cancel();
        client
            .get_bulletin()
            .expect("the inner token watches: the outer one's cancel does not reach the call");
    }
    let err = client.get_bulletin().expect_err("the outer token again");
    assert_eq!(err.kind(), ErrorKind::Cancelled);
    drop(outer_watch);
    assert!(CancelToken::watching_this_thread().is_none());
}

#[test]
fn a_proxy_that_never_answers_its_connect_request_is_cancelled_within_50_ms() {
    // A "proxy" that accepts and never answers the CONNECT.
    let silent = Silent::start();
    let port = silent.port;
    let mut options = Options {
        proxy: verify_core::ProxyChoice::Url(format!("http://127.0.0.1:{port}")),
        ..Options::default()
    };
    // Not loopback to the client, so the request goes through the proxy; never looked up.
    options
        .add_address("licensing.example.test", "192.0.2.1")
        .expect("address");
    let client = Client::with_options("https://licensing.example.test", "1", APP_KEY, options)
        .expect("client");
    let (outcome, late) = cancelled_after(|| client.get_bulletin());
    let err = outcome.expect_err("cancelled");
    assert_eq!(err.kind(), ErrorKind::Cancelled, "{err:?}");
    assert!(late < PROMPT, "returned {late:?} after the cancel");
}
