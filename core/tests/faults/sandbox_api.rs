//! The sandbox's own faults, through its fault API and limits: the card's uses show that a
//! state-changing call is never sent twice; retired sessions; the connection limit.

use super::*;

/// The sandbox's own faults (its fault API) on SingleLogin with a count card: the sandbox
/// acts, so the card's uses show what the server did. A reply that is lost, late, or broken
/// after the action ran spends one use, never two (no resend); a refusal before the action
/// (`non_json`, `http_502`) spends none. The next login works and spends one more.
pub(crate) fn sandbox_fault(ctx: &Ctx, kind: FaultKind, expected: ErrorKind, spent: u64) {
    let (sandbox, state) = common::sandbox_saving_state("verify-core-faults-");
    sandbox
        .load(
            Fixtures::from_value(json!({
                "programs": [{"app_id": APP_ID, "app_key": APP_KEY, "status": "approved"}],
                "cards": [{"app_id": APP_ID, "card": CARD, "type_name": "count",
                           "kind": "count", "total": 5, "used": 0}],
            }))
            .expect("fixtures"),
        )
        .expect("load");
    let client = ctx.client(&sandbox.base_url());
    let init = client.init();
    ctx.keep(&init);
    init.expect("init");
    sandbox.set_fault(Fault {
        kind,
        app_id: Some(APP_ID.to_owned()),
        action: Some("SingleLogin".to_owned()),
        count: Some(1),
        delay_ms: 3000,
    });
    let logins = || {
        sandbox
            .request_log(Some(APP_ID))
            .iter()
            .filter(|entry| entry.action.as_deref() == Some("SingleLogin"))
            .count()
    };
    let used = || sandbox.card(APP_ID, CARD).expect("card")["used"].as_u64();

    let started = Instant::now();
    let result = Call::Login.run(&client);
    let elapsed = started.elapsed();
    ctx.keep(&result);
    let at_deadline = kind == FaultKind::Delay;
    assert_outcome(
        &format!("{kind:?}"),
        &result,
        Err(expected),
        elapsed,
        at_deadline,
        &[],
    );
    assert_eq!(logins(), 1, "SingleLogin sent once");
    assert_eq!(used(), Some(spent), "uses spent by the faulty call");

    let next = Call::Login.run(&client);
    ctx.keep(&next);
    next.expect("the next call works");
    assert_eq!(logins(), 2);
    assert_eq!(used(), Some(spent + 1));

    // The secrets the sandbox issued: the api password, the tokens of the logins.
    for secret in issued_api_passwords(&state) {
        ctx.secret(secret);
    }
    let mut tokens = Vec::new();
    let saved = common::eventually(Duration::from_secs(10), || {
        let state: serde_json::Value = std::fs::read_to_string(&state)
            .ok()
            .and_then(|text| serde_json::from_str(&text).ok())
            .unwrap_or_default();
        tokens = state["sessions"]
            .as_object()
            .into_iter()
            .flatten()
            .filter(|(_, session)| session["app_id"] == json!(APP_ID))
            .map(|(token, _)| token.clone())
            .collect();
        !tokens.is_empty()
    });
    assert!(saved, "the sandbox's state never showed the login's token");
    for token in tokens {
        ctx.secret(token);
    }
    sandbox.stop();
    let _ = std::fs::remove_dir_all(state.parent().expect("the state's folder"));
}

/// A sandbox with `limits`, this suite's program and a count card, serving https too.
pub(crate) fn limited_sandbox(limits: Limits) -> Sandbox {
    let sandbox = Sandbox::start(Config {
        tls: Some(Tls::Generated),
        limits,
        ..Config::default()
    })
    .expect("sandbox");
    sandbox
        .load(
            Fixtures::from_value(json!({
                "programs": [{"app_id": APP_ID, "app_key": APP_KEY, "status": "approved"}],
                "cards": [{"app_id": APP_ID, "card": CARD, "type_name": "count",
                           "kind": "count", "total": 5, "used": 0}],
            }))
            .expect("fixtures"),
        )
        .expect("load");
    sandbox
}

pub(crate) fn sandbox_logins(sandbox: &Sandbox) -> Vec<i64> {
    sandbox
        .request_log(Some(APP_ID))
        .iter()
        .filter(|entry| entry.action.as_deref() == Some("SingleLogin"))
        .map(|entry| entry.code)
        .collect()
}

pub(crate) fn card_uses(sandbox: &Sandbox) -> Option<u64> {
    sandbox.card(APP_ID, CARD).expect("card")["used"].as_u64()
}

/// The sandbox closes kept-alive connections idle for 200 ms (plain and TLS): each later
/// login goes on a new connection, sent once, spending one use.
pub(crate) fn stale_connection_sandbox(ctx: &Ctx, https: bool) {
    let sandbox = limited_sandbox(Limits {
        header_timeout: Duration::from_millis(200),
        ..Limits::default()
    });
    let client = if https {
        let mut trust = Trust::nothing();
        let ca = sandbox.ca_pem().expect("CA");
        trust.add_roots_pem(ca.as_bytes()).expect("roots");
        let url = sandbox.https_base_url().expect("https");
        ctx.client_with(
            &url,
            Options {
                trust,
                ..ctx.options()
            },
        )
    } else {
        ctx.client(&sandbox.base_url())
    };
    let init = client.init();
    ctx.keep(&init);
    init.expect("init");
    for round in 1..=2u64 {
        std::thread::sleep(Duration::from_millis(600));
        let started = Instant::now();
        let result = Call::Login.run(&client);
        let elapsed = started.elapsed();
        ctx.keep(&result);
        assert_outcome("after an idle close", &result, Ok(()), elapsed, false, &[]);
        assert_eq!(
            sandbox_logins(&sandbox),
            vec![200; round as usize],
            "sent once"
        );
        assert_eq!(card_uses(&sandbox), Some(round));
    }
    assert!(
        sandbox.connections_accepted() >= 3,
        "a new connection each time"
    );
    sandbox.stop();
}

/// Another client's Init retires this client's session secret (one per program): its next
/// login gets 1001, runs Init again and is sent once more; the card is spent once.
pub(crate) fn sandbox_session_retired(ctx: &Ctx) {
    let sandbox = limited_sandbox(Limits {
        api_passwords_per_program: 1,
        ..Limits::default()
    });
    let client = ctx.client(&sandbox.base_url());
    let init = client.init();
    ctx.keep(&init);
    init.expect("init");
    let other = ctx.client(&sandbox.base_url());
    let init = other.init();
    ctx.keep(&init);
    init.expect("the other client's Init");
    let started = Instant::now();
    let result = Call::Login.run(&client);
    let elapsed = started.elapsed();
    ctx.keep(&result);
    assert_outcome("retired session", &result, Ok(()), elapsed, false, &[]);
    // The refused request's action is unknown to the sandbox (its secret is): its log shows
    // the Handle requests' codes, and the Inits.
    let log = sandbox.request_log(None);
    let handles: Vec<i64> = log
        .iter()
        .filter(|entry| entry.path.starts_with("/api/verify/"))
        .map(|entry| entry.code)
        .collect();
    assert_eq!(handles, vec![1001, 200], "{log:?}");
    let inits = log
        .iter()
        .filter(|entry| entry.path == "/api/verify")
        .count();
    assert_eq!(inits, 3, "two clients' Inits, one re-Init");
    assert_eq!(card_uses(&sandbox), Some(1));
    let next = Call::Login.run(&client);
    ctx.keep(&next);
    next.expect("the next call works");
    assert_eq!(card_uses(&sandbox), Some(2));
    sandbox.stop();
}

/// The sandbox at its connection limit refuses a new connection with 503 and a JSON
/// envelope, and closes it: the client reads the refusal (503, not retried), or, when the
/// close (an RST: the request is left unread) comes first, fails to send (Network). Nothing
/// reaches the service; once a connection is free, calls work.
pub(crate) fn sandbox_connection_limit(ctx: &Ctx) {
    let sandbox = limited_sandbox(Limits {
        max_connections: 1,
        ..Limits::default()
    });
    let client = ctx.client(&sandbox.base_url());
    let holder = TcpStream::connect(sandbox.base_url().trim_start_matches("http://"))
        .expect("hold the only connection");
    // The holder is counted once the sandbox accepted it.
    std::thread::sleep(Duration::from_millis(200));
    let started = Instant::now();
    let result = Call::Login.run(&client);
    let elapsed = started.elapsed();
    ctx.keep(&result);
    let kind = result.as_ref().err().map(Error::kind);
    assert!(
        matches!(kind, Some(ErrorKind::Server(503) | ErrorKind::Network)),
        "{result:?}"
    );
    let expected = Err(kind.unwrap_or(ErrorKind::Network));
    assert_outcome("connection limit", &result, expected, elapsed, false, &[]);
    assert!(
        sandbox_logins(&sandbox).is_empty(),
        "no login reached the service"
    );
    drop(holder);
    let freed = common::eventually(Duration::from_secs(5), || {
        let next = Call::Login.run(&client);
        ctx.keep(&next);
        next.is_ok()
    });
    assert!(freed, "calls work once a connection is free");
    assert_eq!(sandbox_logins(&sandbox), vec![200]);
    assert_eq!(card_uses(&sandbox), Some(1));
    sandbox.stop();
}

// The sandbox's connection limit answers 503 after reading the request head and closes with
// a lingering close, so the client reads the clear refusal instead of meeting an RST
// ("Broken pipe") while it writes its body.
pub(crate) fn sandbox_connection_limit_refusal_is_read(ctx: &Ctx) {
    let sandbox = limited_sandbox(Limits {
        max_connections: 1,
        ..Limits::default()
    });
    let client = ctx.client(&sandbox.base_url());
    let _holder = TcpStream::connect(sandbox.base_url().trim_start_matches("http://"))
        .expect("hold the only connection");
    std::thread::sleep(Duration::from_millis(200));
    let result = Call::Login.run(&client);
    ctx.keep(&result);
    let err = result.expect_err("refused");
    assert_eq!(err.kind(), ErrorKind::Server(503), "{err:?}");
    sandbox.stop();
}
