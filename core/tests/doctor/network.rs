//! The network: a black-holed primary beside a healthy mirror, the deadline whatever the
//! network does, a refusing or absent proxy, racing attempts, a gateway's 502 page, and a
//! cancel that stops the doctor within 50 ms.

use super::*;

#[test]
fn a_black_holed_primary_beside_a_healthy_mirror_is_a_warning_on_its_line() {
    let sandbox = common::sandbox();
    let app_id = program_on(sandbox, "approved");
    let hole = BlackHole::at("127.0.0.1:0");
    let options = Options {
        mirrors: vec![sandbox.base_url()],
        connect_timeout: Duration::from_secs(2),
        ..options()
    };
    let started = Instant::now();
    let report = run(&hole.url(), &app_id, &options, &[]);
    assert!(
        started.elapsed() < Duration::from_secs(8),
        "{:?}",
        started.elapsed()
    );
    assert!(!report.failed(), "{}", report.to_text());
    let primary = format!("http://{}", hole.addr);
    let tcp: Vec<_> = report.steps_of(StepKind::Tcp).collect();
    assert!(
        tcp.iter()
            .any(|s| s.line.as_deref() == Some(primary.as_str())
                && s.key == "tcp.timeout"
                && s.verdict == Verdict::Warn),
        "{}",
        report.to_text()
    );
    let mirror = sandbox.base_url();
    assert!(
        tcp.iter()
            .any(|s| s.line.as_deref().is_some_and(|l| mirror.starts_with(l))
                && s.verdict == Verdict::Pass),
        "{}",
        report.to_text()
    );
    let init = report.steps_of(StepKind::Init).next().expect("init");
    assert_eq!(init.verdict, Verdict::Pass, "{}", report.to_text());
    assert!(init.message.contains(&mirror), "{}", init.message);
}

#[test]
fn the_deadline_holds_whatever_the_network_does() {
    let hole = BlackHole::at("127.0.0.1:0");
    // A server that accepts and never speaks TLS.
    let mute = TcpListener::bind("127.0.0.1:0").expect("bind");
    let mute_url = format!("https://{}", mute.local_addr().expect("addr"));
    let options = Options {
        mirrors: vec![mute_url.clone()],
        connect_timeout: Duration::from_secs(30),
        call_timeout: Duration::from_secs(30),
        ..options()
    };
    let settings = DiagnoseOptions {
        deadline: Duration::from_secs(2),
        ..DiagnoseOptions::default()
    };
    let started = Instant::now();
    let report = diagnose_with(&hole.url(), "1", APP_KEY, &options, &settings);
    let took = started.elapsed();
    assert!(took < Duration::from_millis(2600), "took {took:?}");
    assert!(report.failed());
    assert!(
        has(&report, StepKind::Tcp, Verdict::Fail, "tcp.timeout"),
        "{}",
        report.to_text()
    );
    assert!(
        has(&report, StepKind::Tls, Verdict::Fail, "tls.timeout"),
        "{}",
        report.to_text()
    );
    drop(mute);
}

/// A loopback server that reads each request's head and writes `reply()`; with `hold`, the
/// connection then stays open until the client closes it. Its address.
fn answering(reply: impl Fn() -> Vec<u8> + Send + 'static, hold: bool) -> SocketAddr {
    let listener = TcpListener::bind("127.0.0.1:0").expect("bind");
    let addr = listener.local_addr().expect("addr");
    std::thread::spawn(move || {
        for mut stream in listener.incoming().flatten() {
            let mut head = Vec::new();
            let mut byte = [0u8; 1];
            while !head.ends_with(b"\r\n\r\n") && matches!(stream.read(&mut byte), Ok(1)) {
                head.push(byte[0]);
            }
            let _ = stream.write_all(&reply());
            if hold {
                let _ = stream.read_to_end(&mut head);
            }
        }
    });
    addr
}

/// A proxy that answers every tunnel request with 403: the whole request head, then the
/// refusal; the connection stays open until the client closes it (a close before the client
/// has written would be another failure than a refusal).
fn refusing_proxy() -> String {
    let addr = answering(
        || b"HTTP/1.1 403 Forbidden\r\nContent-Length: 0\r\n\r\n".to_vec(),
        true,
    );
    format!("http://user:proxy-secret-pw@{addr}")
}

#[test]
fn a_refusing_or_absent_proxy_is_named_as_the_proxy() {
    // The service's name is never looked up here: the proxy would.
    let url = "https://licensing.example";
    let proxy = refusing_proxy();
    let refusing = Options {
        proxy: ProxyChoice::Url(proxy),
        ..options()
    };
    let report = run(url, "1", &refusing, &["proxy-secret-pw"]);
    assert_eq!(
        problems(&report),
        vec![
            (StepKind::Proxy, Verdict::Fail, "proxy.refused"),
            (StepKind::Init, Verdict::Fail, "init.proxy")
        ],
        "{}",
        report.to_text()
    );
    let proxy = report
        .steps_of(StepKind::Proxy)
        .next()
        .expect("a proxy step");
    assert!(proxy.message.contains("403"), "{}", proxy.message);
    assert_eq!(proxy.details["proxy_source"], "options");
    assert_eq!(
        first_cause(
            &report,
            [
                "FAIL: The proxy refused to connect",
                "FAIL：代理服务器拒绝连接",
                "FAIL：代理伺服器拒絕連線"
            ]
        ),
        "proxy.refused"
    );

    let closed = {
        let gone = TcpListener::bind("127.0.0.1:0").expect("bind");
        gone.local_addr().expect("addr")
    };
    let absent = Options {
        proxy: ProxyChoice::Url(format!("http://{closed}")),
        ..options()
    };
    let report = run(url, "1", &absent, &[]);
    assert_eq!(
        problems(&report),
        vec![
            (StepKind::Proxy, Verdict::Fail, "proxy.unreachable"),
            (StepKind::Init, Verdict::Fail, "init.proxy")
        ],
        "{}",
        report.to_text()
    );
}

#[test]
fn racing_attempt_lines_say_what_the_refusal_says() {
    let good = certs(&["127.0.0.1"], (2020, 2090), false);
    let sandbox = https_sandbox(&good);
    let app_id = program_on(&sandbox, "approved");
    let mut trust = roots(&good.ca_pem);
    trust
        .add_pin(&pin_of(&rcgen::KeyPair::generate().expect("key")))
        .expect("pin");
    let lines: Arc<Mutex<Vec<String>>> = Arc::default();
    let kept = Arc::clone(&lines);
    let options = Options {
        trust,
        log: Some(Arc::new(move |_: LogLevel, line: &str| {
            kept.lock().expect("log").push(line.to_owned());
        })),
        ..options()
    };
    let client = Client::with_options(
        &sandbox.https_base_url().expect("https"),
        &app_id,
        APP_KEY,
        options,
    )
    .expect("client");
    let err = client.init().expect_err("wrong pin");
    let lines = lines.lock().expect("log").join("\n");
    let attempt = lines
        .lines()
        .find(|l| l.starts_with("attempt") && l.contains("failed"))
        .unwrap_or_else(|| panic!("no failed attempt line in:\n{lines}"));
    assert!(
        attempt.contains(err.message()),
        "{attempt} / {}",
        err.message()
    );
    assert!(!lines.contains("OtherError"), "{lines}");
    assert!(!lines.contains("PinMismatch"), "{lines}");
}

/// A reverse proxy whose server behind it is down: every request gets nginx's 502 page,
/// with its `Server` and `Date` headers.
fn bad_gateway() -> String {
    let addr = answering(
        || {
            let page = "<html>\r\n<head><title>502 Bad Gateway</title></head>\r\n<body>\r\n\
                        <center><h1>502 Bad Gateway</h1></center>\r\n<hr><center>nginx</center>\r\n\
                        </body>\r\n</html>\r\n";
            let date = httpdate::fmt_http_date(std::time::SystemTime::now());
            let reply = format!(
                "HTTP/1.1 502 Bad Gateway\r\nServer: nginx/1.22.1\r\nDate: {date}\r\n\
                 Content-Type: text/html\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{page}",
                page.len()
            );
            reply.into_bytes()
        },
        false,
    );
    format!("http://{addr}")
}

#[test]
fn a_gateways_502_page_is_named_with_its_status_server_and_title() {
    let url = bad_gateway();
    let report = run(&url, "10001", &options(), &[]);
    assert_eq!(
        problems(&report),
        vec![(StepKind::Init, Verdict::Fail, "init.gateway")],
        "{}",
        report.to_text()
    );
    let init = report.steps_of(StepKind::Init).next().expect("init");
    assert_eq!(init.details["status"], 502);
    assert_eq!(init.details["server"], "nginx/1.22.1");
    assert_eq!(init.details["title"], "502 Bad Gateway");
    assert_eq!(init.details["content_type"], "text/html");
    // The clock is judged from the page's Date.
    let clock = report.steps_of(StepKind::Clock).next().expect("clock");
    assert_eq!(clock.key, "clock.ok", "{}", report.to_text());
    assert_eq!(
        first_cause(
            &report,
            [
                "FAIL: A gateway (nginx/1.22.1) answered HTTP 502",
                "FAIL：网关（nginx/1.22.1）返回 HTTP 502",
                "FAIL：閘道（nginx/1.22.1）回傳 HTTP 502"
            ]
        ),
        "init.gateway"
    );
    assert_eq!(report.cause().map(|s| s.actor()), Some(Actor::Vendor));
}

#[test]
fn a_cancel_stops_the_doctor_within_50_ms() {
    let hole = BlackHole::at("127.0.0.1:0");
    let token = CancelToken::new();
    let settings = DiagnoseOptions {
        deadline: Duration::from_secs(20),
        cancel: Some(token.clone()),
        ..DiagnoseOptions::default()
    };
    let options = Options {
        connect_timeout: Duration::from_secs(20),
        call_timeout: Duration::from_secs(20),
        ..options()
    };
    let cancelled_at = Arc::new(Mutex::new(None::<Instant>));
    let canceller = {
        let token = token.clone();
        let cancelled_at = Arc::clone(&cancelled_at);
        std::thread::spawn(move || {
            std::thread::sleep(Duration::from_millis(300));
            *cancelled_at.lock().expect("lock") = Some(Instant::now());
            token.cancel();
        })
    };
    let report = diagnose_with(&hole.url(), "1", APP_KEY, &options, &settings);
    let returned = Instant::now();
    canceller.join().expect("canceller");
    let cancelled = cancelled_at.lock().expect("lock").expect("cancelled");
    let after = returned.saturating_duration_since(cancelled);
    assert!(report.cancelled, "{}", report.to_text());
    assert!(
        after <= Duration::from_millis(50),
        "the doctor returned {after:?} after the cancel"
    );
    assert!(report.causes.is_empty());
    assert!(report.first_line(Language::En).starts_with("CANCELLED"));
}
