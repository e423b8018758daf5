//! Stale kept-alive connections: closed while idle (sent again on a new connection) and
//! closed as a request arrives (only a read-only call is sent again).

use super::*;

/// A kept-alive connection the server closed while it was idle: the client notices and
/// connects again; nothing is sent twice.
pub(crate) fn stale_idle(ctx: &Ctx, call: Call) {
    let server = FakeServer::start_with(
        Setup {
            idle_close: Some(Duration::from_millis(100)),
            ..Setup::default()
        },
        healthy,
    );
    let client = ctx.client(server.url());
    client.init().expect("init");
    for round in 1..=2 {
        std::thread::sleep(Duration::from_millis(400));
        let started = Instant::now();
        let result = call.run(&client);
        let elapsed = started.elapsed();
        ctx.keep(&result);
        assert_outcome(
            "after the server closed the idle connection",
            &result,
            Ok(()),
            elapsed,
            false,
            &[],
        );
        assert_eq!(server.handled_of(call.wire()), round, "sent once");
        assert_eq!(
            server.connections(),
            round + 1,
            "a new connection each time"
        );
    }
}

/// The server closes a kept-alive connection just as a request arrives on it (it read the
/// request: it may have acted). A read-only call is sent again on a new connection;
/// SingleLogin is not, and fails.
pub(crate) fn stale_race(ctx: &Ctx, call: Call) {
    let armed = Arc::new(AtomicBool::new(false));
    let server = {
        let armed = Arc::clone(&armed);
        FakeServer::start(move |request| {
            if !request.is_init()
                && request.on_connection > 0
                && armed.swap(false, Ordering::SeqCst)
            {
                return Response::hang_up();
            }
            healthy(request)
        })
    };
    let client = ctx.client(server.url());
    client.init().expect("init");
    armed.store(true, Ordering::SeqCst);
    let started = Instant::now();
    let result = call.run(&client);
    let elapsed = started.elapsed();
    ctx.keep(&result);
    let expected = if call.changes_state() {
        Err(ErrorKind::Network)
    } else {
        Ok(())
    };
    assert_outcome("stale connection", &result, expected, elapsed, false, &[]);
    let seen = server.handled_of(call.wire());
    assert_eq!(seen, if call.changes_state() { 1 } else { 2 });

    let next = call.run(&client);
    ctx.keep(&next);
    next.expect("the next call works");
    assert_eq!(server.handled_of(call.wire()), seen + 1);
}
