//! Running a case once per process: the context that keeps every message and secret, the
//! outcome and duration checks, and a table row run against the scripted server.

use super::*;

/// What a case leaves: every message it saw, and its failure, if any.
pub(crate) struct Outcome {
    pub(crate) messages: Vec<String>,
    pub(crate) secrets: Vec<String>,
    pub(crate) failure: Option<String>,
}

/// The context of a running case: it keeps the messages of every error and log line, and
/// the secrets learned along the way.
#[derive(Default)]
pub(crate) struct Ctx {
    pub(crate) messages: Arc<Mutex<Vec<String>>>,
    pub(crate) secrets: Mutex<Vec<String>>,
}

impl Ctx {
    pub(crate) fn options(&self) -> Options {
        let messages = Arc::clone(&self.messages);
        Options {
            connect_timeout: CONNECT,
            call_timeout: CALL,
            proxy: ProxyChoice::None,
            log: Some(Arc::new(move |level: LogLevel, line: &str| {
                messages
                    .lock()
                    .expect("messages")
                    .push(format!("log {level:?}: {line}"));
            })),
            ..Options::default()
        }
    }

    pub(crate) fn client(&self, url: &str) -> Client {
        self.client_with(url, self.options())
    }

    pub(crate) fn client_with(&self, url: &str, options: Options) -> Client {
        Client::with_options(url, APP_ID, APP_KEY, options).expect("client")
    }

    /// Keeps the texts of an error a host may print, log or show its user (the end user's
    /// message of its code in every language).
    pub(crate) fn keep<T>(&self, result: &Result<T, Error>) {
        if let Err(err) = result {
            let mut messages = self.messages.lock().expect("messages");
            messages.extend([
                err.message().to_owned(),
                err.to_string(),
                format!("{err:?}"),
            ]);
            messages.extend(
                verify_core::Language::ALL
                    .iter()
                    .map(|language| verify_core::user_message(err.code(), *language).to_owned()),
            );
        }
    }

    /// Runs the doctor against a server of the case with `options` and keeps its report's
    /// texts (the JSON and the text in every language) for the secrets scan.
    pub(crate) fn diagnose(&self, url: &str, options: &Options) {
        let settings = verify_core::DiagnoseOptions {
            deadline: Duration::from_secs(3),
            ..verify_core::DiagnoseOptions::default()
        };
        let report = verify_core::diagnose_with(url, APP_ID, APP_KEY, options, &settings);
        self.messages
            .lock()
            .expect("messages")
            .extend(report_texts(&report));
    }

    pub(crate) fn secret(&self, secret: String) {
        self.secrets.lock().expect("secrets").push(secret);
    }
}

pub(crate) fn outcomes() -> &'static [OnceLock<Outcome>] {
    static OUTCOMES: OnceLock<Vec<OnceLock<Outcome>>> = OnceLock::new();
    OUTCOMES.get_or_init(|| cases().iter().map(|_| OnceLock::new()).collect())
}

/// The outcome of case `index`, run once per process (a second caller waits for the first).
pub(crate) fn outcome(index: usize) -> &'static Outcome {
    outcomes()[index].get_or_init(|| {
        let case = &cases()[index];
        let ctx = Ctx::default();
        let result = catch_unwind(AssertUnwindSafe(|| match &case.run {
            Run::Row(row) => run_row(&ctx, row),
            Run::Special(run) => run(&ctx),
        }));
        let failure = result.err().map(|panic| {
            panic
                .downcast_ref::<String>()
                .cloned()
                .or_else(|| panic.downcast_ref::<&str>().map(|s| (*s).to_owned()))
                .unwrap_or_else(|| "panicked".to_owned())
        });
        let messages = std::mem::take(&mut *ctx.messages.lock().expect("messages"));
        let secrets = std::mem::take(&mut *ctx.secrets.lock().expect("secrets"));
        Outcome {
            messages,
            secrets,
            failure,
        }
    })
}

/// Runs the case `name` (once per process) and fails with its failure.
pub(crate) fn check(name: &str) {
    let index = cases()
        .iter()
        .position(|case| case.name == name)
        .unwrap_or_else(|| panic!("no case {name}"));
    if let Some(failure) = &outcome(index).failure {
        panic!("{name}: {failure}");
    }
}

/// The outcome and duration checks every case makes.
pub(crate) fn assert_outcome(
    what: &str,
    result: &Result<(), Error>,
    expected: Result<(), ErrorKind>,
    elapsed: Duration,
    at_deadline: bool,
    says: &[&str],
) {
    match (result, expected) {
        (Ok(()), Ok(())) => {}
        (Err(err), Err(kind)) => {
            assert_eq!(err.kind(), kind, "{what}: {err:?}");
            assert_eq!(err.code(), kind.code(), "{what}: {err:?}");
            for word in says {
                assert!(
                    err.message().contains(word),
                    "{what}: {word:?} not in {err}"
                );
            }
        }
        (result, expected) => panic!("{what}: {result:?}, expected {expected:?}"),
    }
    assert!(
        elapsed < CALL + SLACK,
        "{what}: returned after {elapsed:?} with a call timeout of {CALL:?}"
    );
    if at_deadline {
        assert!(
            elapsed >= CALL - EARLY,
            "{what}: returned after {elapsed:?}, before its deadline ({CALL:?})"
        );
    } else {
        assert!(
            elapsed < CALL - EARLY,
            "{what}: a fault visible at once took {elapsed:?}"
        );
    }
}

pub(crate) fn run_row(ctx: &Ctx, row: &Row) {
    let armed = Arc::new(AtomicBool::new(true));
    let hits = Arc::new(AtomicUsize::new(0));
    let server = {
        let (armed, hits) = (Arc::clone(&armed), Arc::clone(&hits));
        let (target, times, fault, call) = (row.target, row.times, row.fault, row.call);
        FakeServer::start(move |request| {
            let at_target = match target {
                Target::Init => request.is_init(),
                Target::Handle => request.action() == Some(call.wire()),
            };
            if at_target
                && armed.load(Ordering::SeqCst)
                && times.is_none_or(|times| hits.fetch_add(1, Ordering::SeqCst) < times)
            {
                let body = match target {
                    Target::Init => init_body(),
                    Target::Handle => call.body(),
                };
                return fault(&body);
            }
            healthy(request)
        })
    };
    let client = ctx.client(server.url());
    if row.target == Target::Handle {
        let init = client.init();
        ctx.keep(&init);
        init.expect("the Init before the fault");
    }
    let inits_before = server.inits();
    let wire = row.call.wire();

    let started = Instant::now();
    let result = row.call.run(&client);
    let elapsed = started.elapsed();
    ctx.keep(&result);
    let seen = match row.target {
        Target::Init => server.inits(),
        Target::Handle => server.handled_of(wire),
    };
    armed.store(false, Ordering::SeqCst);

    assert_outcome(
        "the faulty call",
        &result,
        row.outcome,
        elapsed,
        row.at_deadline,
        row.says,
    );
    assert_eq!(
        seen, row.seen,
        "requests seen at the fault ({:?})",
        row.target
    );
    // The rules behind the numbers: a read-only request at most twice; a state-changing one
    // once, unless the server refused it before acting.
    assert!(seen <= 2, "{seen} requests");
    if row.call.changes_state() && row.target == Target::Handle && !row.refused_before_acting {
        assert!(seen <= 1, "{wire} sent {seen} times");
    }
    if row.target == Target::Init && row.outcome.is_err() {
        assert_eq!(server.handled_of(wire), 0, "no {wire} without a session");
    }
    if let Some(inits) = row.inits {
        assert_eq!(server.inits() - inits_before, inits, "re-Inits");
    }
    if let Some(more) = row.more {
        more(&client, &server);
    }
    assert_secrets_sent(&server, row.call);

    // The fault is gone: the next call works, sent once.
    let before = server.handled_of(wire);
    let started = Instant::now();
    let next = row.call.run(&client);
    let elapsed = started.elapsed();
    ctx.keep(&next);
    assert_outcome("the next call", &next, Ok(()), elapsed, false, &[]);
    assert_eq!(
        server.handled_of(wire) - before,
        1,
        "the next call sent once"
    );

    // The doctor against a server that answers every Init with the same fault: its report
    // goes through the secrets scan with the case's messages.
    if row.target == Target::Init {
        let fault = row.fault;
        let faulty = FakeServer::start(move |request| {
            if request.is_init() {
                fault(&init_body())
            } else {
                healthy(request)
            }
        });
        ctx.diagnose(faulty.url(), &ctx.options());
    }
}

/// The secrets of the run are real: the server saw the AppKey in Init and the call's
/// secrets in its plaintext.
pub(crate) fn assert_secrets_sent(server: &FakeServer, call: Call) {
    let requests = server.requests();
    let field = |pairs: &[(String, String)], key: &str| {
        pairs.iter().find(|(k, _)| k == key).map(|(_, v)| v.clone())
    };
    for init in requests.iter().filter(|r| r.is_init()) {
        assert_eq!(field(&init.form, "AppKey").as_deref(), Some(APP_KEY));
    }
    let expected: &[(&str, &str)] = match call {
        Call::Login => &[("Card", CARD), ("Mac", MAC)],
        Call::UserLogin => &[("Password", PASSWORD), ("Mac", MAC)],
        Call::Heartbeat => &[("Token", TOKEN)],
        Call::Bulletin => &[],
    };
    for request in requests.iter().filter(|r| r.action() == Some(call.wire())) {
        let plaintext = request.plaintext.as_deref().unwrap_or_default();
        for (key, value) in expected {
            assert_eq!(field(plaintext, key).as_deref(), Some(*value), "{key}");
        }
    }
}

/// A huge body was cut at the cap: the client read about 1 MiB, not 100 MB, and closed the
/// connection (the server's writes stop).
pub(crate) fn stopped_early(_client: &Client, server: &FakeServer) {
    let mut sent = server.bytes_sent();
    let settled = common::eventually(Duration::from_secs(5), || {
        std::thread::sleep(Duration::from_millis(100));
        let now = server.bytes_sent();
        let still = now == sent;
        sent = now;
        still
    });
    assert!(
        settled,
        "the server is still writing: the client still reads"
    );
    eprintln!("the server wrote {sent} bytes before the client stopped reading");
    // The client's cap (1 MiB) plus what the sockets' buffers hold.
    assert!(
        sent < 16 << 20,
        "the server wrote {sent} bytes of a 100 MB body before the client stopped"
    );
}

pub(crate) fn clock_an_hour_ahead(client: &Client, _server: &FakeServer) {
    let offset = client.clock_offset();
    assert!((3590..=3610).contains(&offset), "clock offset {offset}");
}
