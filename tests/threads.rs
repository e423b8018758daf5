//! One client shared by threads: every call succeeds, and no lock is held across I/O.

mod common;

use std::sync::Arc;
use std::time::{Duration, Instant};

use common::Program;
use verify_sandbox::{Fault, FaultKind};

#[test]
fn eight_threads_make_a_thousand_calls_on_one_client() {
    let program = Program::fresh();
    let client = Arc::new(program.client());
    let workers: Vec<_> = (0..8)
        .map(|_| {
            let client = Arc::clone(&client);
            std::thread::spawn(move || {
                (0..125)
                    .filter(|_| {
                        client
                            .get_bulletin()
                            .is_ok_and(|b| b.bulletin == "公告 bulletin")
                    })
                    .count()
            })
        })
        .collect();
    let succeeded: usize = workers.into_iter().map(|w| w.join().expect("worker")).sum();
    assert_eq!(succeeded, 1000);
}

#[test]
fn concurrent_slow_calls_overlap() {
    let program = Program::fresh();
    let client = Arc::new(program.client());
    client.init().expect("init");
    program.sandbox.set_fault(Fault {
        kind: FaultKind::Delay,
        app_id: Some(program.app_id.clone()),
        action: Some("GetBulletin".into()),
        count: None,
        delay_ms: 200,
    });
    let started = Instant::now();
    client.get_bulletin().expect("one slow call");
    let one = started.elapsed();
    assert!(one >= Duration::from_millis(200));

    let started = Instant::now();
    let workers: Vec<_> = (0..8)
        .map(|_| {
            let client = Arc::clone(&client);
            std::thread::spawn(move || client.get_bulletin().is_ok())
        })
        .collect();
    assert!(workers.into_iter().all(|w| w.join().expect("worker")));
    let eight = started.elapsed();
    assert!(
        eight < one * 2,
        "8 concurrent calls took {eight:?}, one took {one:?}"
    );
}
