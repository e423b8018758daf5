//! The client options of the C ABI (trust, pins, mirrors, racing with its attempt delay,
//! fixed addresses, the state folder, plain-http opt-in, proxy choice, timeouts, the log
//! callback), from a C host: `tests/c/c_networks.c` against the
//! sandbox's http and https listeners, under valgrind where time does not matter. Needs `cc`
//! and `valgrind` (`scripts/install-deps.sh gcc valgrind`).

#[path = "../common/mod.rs"]
mod common;

use common::host::{build_host, require_tool, run_host, Run, Scratch, C_POSIX_FLAGS};
use common::net::BlackHole;
use common::tls::certs;
use common::{unique, Program, APP_KEY};
use serde_json::json;
use verify_sandbox::{Config, Fixtures, Sandbox, Tls};

fn run(args: &[String], how: Run) -> String {
    if how == Run::Valgrind {
        require_tool("valgrind", "valgrind");
    }
    let scratch = Scratch::new();
    let program = build_host("c_networks", &scratch, C_POSIX_FLAGS);
    let output = run_host(&program, args, how, |_| None);
    output.assert_passed(how);
    output.stdout
}

#[test]
fn option_setters_refuse_bad_values_and_plain_http_needs_an_opt_in() {
    run(&["options".to_owned()], Run::Valgrind);
}

#[test]
fn https_with_a_ca_file_a_pin_and_a_wrong_pin() {
    let certs = certs(&["127.0.0.1"], (2020, 2090), false);
    let sandbox = Sandbox::start(Config {
        tls: Some(Tls::Pem {
            cert_chain: certs.chain_pem.clone(),
            key: certs.key_pem.clone(),
        }),
        ..Config::default()
    })
    .expect("https sandbox");
    let app_id = unique("ctls");
    sandbox
        .load(
            Fixtures::from_value(json!({
                "programs": [{"app_id": app_id, "app_key": APP_KEY, "status": "approved"}],
                "cards": [{"app_id": app_id, "card": "CTLS-CARD-0000-0001", "kind": "duration", "duration": 30}]
            }))
            .expect("fixtures"),
        )
        .expect("load");
    let scratch = Scratch::new();
    let ca_file = scratch.0.join("ca.pem");
    std::fs::write(&ca_file, &certs.ca_pem).expect("ca file");
    let other = certs_of_another_key();
    run(
        &[
            "tls".to_owned(),
            sandbox.https_base_url().expect("https"),
            app_id,
            APP_KEY.to_owned(),
            ca_file.display().to_string(),
            certs.leaf_pin.clone(),
            other,
            "CTLS-CARD-0000-0001".to_owned(),
        ],
        Run::Native,
    );
}

fn certs_of_another_key() -> String {
    certs(&["127.0.0.1"], (2020, 2090), false).leaf_pin
}

#[test]
fn a_mirror_takes_over_and_the_log_callback_sees_no_secret() {
    let program = Program::fresh();
    let card = program.day_card("CFAI-LOVE-R000-0001", 30);
    let dead_port = std::net::TcpListener::bind("127.0.0.1:0")
        .and_then(|l| l.local_addr())
        .map(|a| a.port())
        .expect("a free port");
    let stdout = run(
        &[
            "failover".to_owned(),
            format!("http://127.0.0.1:{dead_port}"),
            program.sandbox.base_url(),
            program.app_id.clone(),
            APP_KEY.to_owned(),
            card,
            "MAC-C-FAILOVER-SECRET".to_owned(),
        ],
        Run::Valgrind,
    );
    assert!(stdout.contains("unreachable"), "{stdout}");
}

#[test]
fn a_black_holed_primary_costs_the_attempt_delay_once_and_nothing_after() {
    let program = Program::fresh();
    let hole = BlackHole::at("127.0.0.1:0");
    let scratch = Scratch::new();
    let state = scratch.0.join("state");
    let good = program.sandbox.base_url();
    let port = good.rsplit(':').next().expect("port").to_owned();
    let stdout = run(
        &[
            "race".to_owned(),
            hole.url(),
            good,
            port,
            program.app_id.clone(),
            APP_KEY.to_owned(),
            state.display().to_string(),
        ],
        Run::Native,
    );
    assert!(stdout.contains("connected to"), "{stdout}");
}
