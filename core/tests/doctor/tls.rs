//! TLS: a healthy https line's chain and pin, and each certificate the client refuses
//! (self-signed, wrongly pinned, expired, for another name) named by its own key.

use super::*;

#[test]
fn a_healthy_https_line_shows_its_protocol_chain_and_pin() {
    let certs = certs(&["127.0.0.1"], (2020, 2090), false);
    let mut trust = roots(&certs.ca_pem);
    trust.add_pin(&certs.leaf_pin).expect("pin");
    let (report, found) = tls_problem(&certs, trust);
    assert_eq!(found, vec![], "{}", report.to_text());
    let tls = report.steps_of(StepKind::Tls).next().expect("tls");
    assert_eq!(tls.key, "tls.ok");
    assert!(tls.message.contains("TLS 1."), "{}", tls.message);
    assert!(
        tls.message.contains("CN=verify tests server"),
        "{}",
        tls.message
    );
    assert!(
        tls.message.contains("issued by CN=verify tests CA"),
        "{}",
        tls.message
    );
    assert!(tls.message.contains("2090-01-01"), "{}", tls.message);
    assert!(tls.message.contains("own key is pinned"), "{}", tls.message);
    assert_eq!(tls.details["pin_matched"], true);
    // What openssl would show: the names, the fingerprint, the key's pin, the pins expected.
    let leaf = &tls.details["chain"][0];
    assert_eq!(leaf["names"], json!(["127.0.0.1"]), "{leaf}");
    let fingerprint = leaf["sha256"].as_str().expect("fingerprint");
    assert_eq!(fingerprint.len(), 32 * 3 - 1, "{fingerprint}");
    assert_eq!(
        leaf["spki_pin"],
        format!("sha256/{}", certs.leaf_pin),
        "{leaf}"
    );
    assert_eq!(
        tls.details["expected_pins"],
        json!([format!("sha256/{}", certs.leaf_pin)])
    );
    assert_eq!(tls.details["issuer"], "CN=verify tests CA");
}

/// The doctor's report of an https sandbox with `certs` and `trust`, and its problems.
fn tls_problem(certs: &Certs, trust: Trust) -> (Report, Vec<(StepKind, Verdict, &'static str)>) {
    let sandbox = https_sandbox(certs);
    let app_id = program_on(&sandbox, "approved");
    let options = Options { trust, ..options() };
    let report = run(
        &sandbox.https_base_url().expect("https"),
        &app_id,
        &options,
        &[],
    );
    let found = problems(&report);
    (report, found)
}

/// [`tls_problem`] where the TLS step fails with `key` and Init fails for it (`init.tls`),
/// and nothing else: the report, for the test's further checks.
fn tls_refused(certs: &Certs, trust: Trust, key: &str) -> Report {
    let (report, found) = tls_problem(certs, trust);
    assert_eq!(
        found,
        vec![
            (StepKind::Tls, Verdict::Fail, key),
            (StepKind::Init, Verdict::Fail, "init.tls")
        ],
        "{}",
        report.to_text()
    );
    report
}

#[test]
fn self_signed_wrongly_pinned_and_expired_certificates_are_named() {
    let self_signed = certs(&["127.0.0.1"], (2020, 2090), true);
    let report = tls_refused(&self_signed, Trust::default(), "tls.self_signed");
    let tls = report.steps_of(StepKind::Tls).next().expect("tls");
    assert!(tls.message.contains("self-signed"), "{}", tls.message);
    let init = report.steps_of(StepKind::Init).next().expect("init");
    assert_eq!(init.knock_on, Some("tls.self_signed"));
    assert_eq!(report.causes.len(), 1, "{}", report.to_text());
    assert_eq!(
        first_cause(
            &report,
            [
                "FAIL: The server's certificate is self-signed",
                "FAIL：服务器证书为自签名证书",
                "FAIL：伺服器憑證為自簽憑證"
            ]
        ),
        "tls.self_signed"
    );
    // The chain the server showed is reported even though it was refused.
    assert_eq!(tls.details["chain"][0]["subject"], "CN=verify tests server");

    let good = certs(&["127.0.0.1"], (2020, 2090), false);
    let mut wrong_pin = roots(&good.ca_pem);
    wrong_pin
        .add_pin(&pin_of(&rcgen::KeyPair::generate().expect("key")))
        .expect("pin");
    let (report, found) = tls_problem(&good, wrong_pin);
    assert_eq!(
        found,
        vec![
            (StepKind::Tls, Verdict::Fail, "tls.pin_mismatch"),
            (StepKind::Init, Verdict::Fail, "init.pin")
        ],
        "{}",
        report.to_text()
    );
    assert!(report.to_text().contains("matches none of the pinned keys"));
    // The server's actual pin is named beside the one expected.
    let tls = report.steps_of(StepKind::Tls).next().expect("tls");
    assert_eq!(
        tls.details["server_pin"],
        format!("sha256/{}", good.leaf_pin)
    );
    assert!(report.first_line(Language::En).contains(&good.leaf_pin));

    let expired = certs(&["127.0.0.1"], (2001, 2002), false);
    let report = tls_refused(&expired, roots(&expired.ca_pem), "tls.expired");
    let tls = report.steps_of(StepKind::Tls).next().expect("tls");
    assert_eq!(tls.details["chain"][0]["not_after"], "2002-01-01T00:00:00Z");
}

#[test]
fn a_certificate_for_another_name_names_both_without_rust_words() {
    let other = certs(&["localhost"], (2020, 2090), false);
    let report = tls_refused(&other, roots(&other.ca_pem), "tls.wrong_name");
    let text = format!("{}{}", report.to_json(), report.to_text());
    assert!(!text.contains("IpAddress("), "{text}");
    assert!(!text.contains("DnsName("), "{text}");
    let first = report.first_line(Language::En);
    assert!(
        first.contains("is for localhost, not for 127.0.0.1"),
        "{first}"
    );
}
