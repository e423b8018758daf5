//! https beside http (README "HTTPS"): the generated CA verifies the server for
//! 127.0.0.1 and localhost, both listeners share one state, and a test can serve its own
//! (expired, wrong-name) certificate.

use std::sync::Arc;
use std::time::Duration;

use rcgen::{CertificateParams, KeyPair};
use serde_json::{json, Value};
use verify_sandbox::{Config, Sandbox, Tls};

fn agent(roots: &[&str]) -> ureq::Agent {
    let certs = roots
        .iter()
        .map(|p| ureq::tls::Certificate::from_pem(p.as_bytes()).expect("PEM"))
        .collect();
    let tls = ureq::tls::TlsConfig::builder()
        .root_certs(ureq::tls::RootCerts::Specific(Arc::new(certs)))
        .build();
    ureq::Agent::config_builder()
        .http_status_as_error(false)
        .timeout_global(Some(Duration::from_secs(10)))
        .tls_config(tls)
        .build()
        .into()
}

fn get(agent: &ureq::Agent, url: &str) -> Result<Value, ureq::Error> {
    let mut r = agent.get(url).call()?;
    Ok(serde_json::from_str(&r.body_mut().read_to_string()?).expect("JSON"))
}

fn https_sandbox(tls: Tls) -> Sandbox {
    Sandbox::start(Config {
        tls: Some(tls),
        ..Config::default()
    })
    .expect("start")
}

#[test]
fn default_config_is_http_only() {
    let sb = Sandbox::start(Config::default()).expect("start");
    assert_eq!(sb.https_base_url(), None);
    assert_eq!(sb.ca_pem(), None);
}

#[test]
fn generated_ca_verifies_127_0_0_1_and_localhost_and_state_is_shared() {
    let sb = https_sandbox(Tls::Generated);
    let https = sb.https_base_url().expect("https url");
    assert!(https.starts_with("https://127.0.0.1:"), "{https}");
    let ca = sb.ca_pem().expect("generated CA");
    let a = agent(&[&ca]);
    let v = get(&a, &format!("{https}/_sandbox/clock")).expect("https call");
    assert_eq!(v["ok"], true, "{v}");
    let port = https.rsplit(':').next().expect("port");
    let v = get(&a, &format!("https://localhost:{port}/_sandbox/clock")).expect("localhost");
    assert_eq!(v["ok"], true, "{v}");

    // A card made over http is seen over https, and the reverse.
    let plain: ureq::Agent = ureq::Agent::config_builder()
        .http_status_as_error(false)
        .build()
        .into();
    let prog = json!({"app_id": "h1", "app_key": "K"});
    plain
        .post(format!("{}/_sandbox/programs", sb.base_url()))
        .header("Content-Type", "application/json")
        .send(prog.to_string())
        .expect("program");
    a.post(format!("{https}/_sandbox/cards"))
        .header("Content-Type", "application/json")
        .send(json!({"app_id": "h1", "card": "HTTP-SAND-HTTP-S001"}).to_string())
        .expect("card over https");
    let mut r = plain
        .get(format!(
            "{}/_sandbox/cards/get?app_id=h1&card=HTTP-SAND-HTTP-S001",
            sb.base_url()
        ))
        .call()
        .expect("card over http");
    let v: Value =
        serde_json::from_str(&r.body_mut().read_to_string().expect("body")).expect("JSON");
    assert_eq!(v["ok"], true, "{v}");

    // Without the CA the certificate is not trusted.
    let other = https_sandbox(Tls::Generated);
    let wrong_ca = other.ca_pem().expect("CA");
    assert!(get(&agent(&[&wrong_ca]), &format!("{https}/_sandbox/clock")).is_err());
}

fn self_signed(names: &[&str], expired: bool) -> (String, String) {
    let key = KeyPair::generate().expect("key");
    let mut p = CertificateParams::new(names.iter().map(|s| s.to_string()).collect::<Vec<_>>())
        .expect("params");
    if expired {
        p.not_before = time::OffsetDateTime::now_utc() - time::Duration::days(30);
        p.not_after = time::OffsetDateTime::now_utc() - time::Duration::days(1);
    }
    let cert = p.self_signed(&key).expect("cert");
    (cert.pem(), key.serialize_pem())
}

#[test]
fn a_given_certificate_is_served_and_checked_by_the_client() {
    // Valid self-signed for 127.0.0.1: trusted when it is the root.
    let (cert, key) = self_signed(&["127.0.0.1", "localhost"], false);
    let sb = https_sandbox(Tls::Pem {
        cert_chain: cert.clone(),
        key,
    });
    assert_eq!(sb.ca_pem(), None);
    let url = format!("{}/_sandbox/clock", sb.https_base_url().expect("url"));
    assert!(get(&agent(&[&cert]), &url).is_ok());

    // Expired: refused by the client even with the certificate as root.
    let (cert, key) = self_signed(&["127.0.0.1"], true);
    let sb = https_sandbox(Tls::Pem {
        cert_chain: cert.clone(),
        key,
    });
    let url = format!("{}/_sandbox/clock", sb.https_base_url().expect("url"));
    let err = get(&agent(&[&cert]), &url).expect_err("expired certificate");
    assert!(format!("{err}").to_lowercase().contains("expired"), "{err}");

    // Wrong name: refused.
    let (cert, key) = self_signed(&["example.invalid"], false);
    let sb = https_sandbox(Tls::Pem {
        cert_chain: cert.clone(),
        key,
    });
    let url = format!("{}/_sandbox/clock", sb.https_base_url().expect("url"));
    let err = get(&agent(&[&cert]), &url).expect_err("wrong name");
    assert!(format!("{err:?}").contains("NotValidForName"), "{err:?}");
}

#[test]
fn a_key_that_does_not_fit_is_refused_at_start() {
    let (cert, _) = self_signed(&["127.0.0.1"], false);
    let (_, other_key) = self_signed(&["127.0.0.1"], false);
    let err = Sandbox::start(Config {
        tls: Some(Tls::Pem {
            cert_chain: cert,
            key: other_key,
        }),
        ..Config::default()
    })
    .expect_err("mismatched key");
    assert_eq!(err.kind(), std::io::ErrorKind::InvalidInput, "{err}");
    let err = Sandbox::start(Config {
        tls: Some(Tls::Pem {
            cert_chain: "not pem".into(),
            key: "not pem".into(),
        }),
        ..Config::default()
    })
    .expect_err("no PEM");
    assert_eq!(err.kind(), std::io::ErrorKind::InvalidInput, "{err}");
}
