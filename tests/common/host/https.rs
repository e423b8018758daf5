//! The https cases of a host program (C++, C#) against sandboxes of their own, and the check
//! of each case's exact code.

use super::*;

/// The card of the program of [`HttpsCases`], for the login over https with the custom CA.
pub const HTTPS_CARD: &str = "HTTP-SCAS-0000-0001";

/// The six https cases for a host program (C++, C#), against sandboxes of their
/// own: one serving a chain for 127.0.0.1 signed by a CA of its own, one for another name,
/// one expired. Its [`args`](HttpsCases::args) are the host's command line:
///
/// `GOOD_URL WRONG_NAME_URL EXPIRED_URL APP_ID APP_KEY CA_FILE WRONG_NAME_CA_FILE
/// EXPIRED_CA_FILE PIN WRONG_PIN CARD`
///
/// The host prints one line `case NAME CODE TEXT` per case (TEXT: `token N` for the login's
/// token length, else the exception's message), checked by [`assert_https_cases`].
pub struct HttpsCases {
    pub args: Vec<String>,
    pub scratch: Scratch,
    _sandboxes: Vec<Sandbox>,
}

impl HttpsCases {
    pub fn start() -> HttpsCases {
        use super::super::tls::{certs, pin_of};
        let app_id = super::super::unique("https");
        let scratch = Scratch::new();
        let good = certs(&["127.0.0.1"], (2020, 2090), false);
        let wrong_name = certs(&["other.example"], (2020, 2090), false);
        let expired = certs(&["127.0.0.1"], (2001, 2002), false);
        let mut urls = Vec::new();
        let mut ca_files = Vec::new();
        let mut sandboxes = Vec::new();
        for (name, certs) in [
            ("good", &good),
            ("wrong_name", &wrong_name),
            ("expired", &expired),
        ] {
            let sandbox = https_sandbox(certs, &app_id, HTTPS_CARD);
            urls.push(sandbox.https_base_url().expect("https listener"));
            let ca_file = scratch.0.join(format!("{name}-ca.pem"));
            std::fs::write(&ca_file, &certs.ca_pem).expect("write a CA file");
            ca_files.push(ca_file.display().to_string());
            sandboxes.push(sandbox);
        }
        let wrong_pin = pin_of(&rcgen::KeyPair::generate().expect("another key"));
        assert_ne!(wrong_pin, good.leaf_pin);
        let mut args = urls;
        args.push(app_id);
        args.push(super::super::APP_KEY.to_owned());
        args.extend(ca_files);
        args.push(good.leaf_pin.clone());
        args.push(wrong_pin);
        args.push(HTTPS_CARD.to_owned());
        HttpsCases {
            args,
            scratch,
            _sandboxes: sandboxes,
        }
    }
}

/// A sandbox of its own over https, serving the leaf of `certs`, with the program `app_id`
/// (the tests' AppKey) and a 30-day duration card `card`.
pub fn https_sandbox(certs: &super::super::tls::Certs, app_id: &str, card: &str) -> Sandbox {
    let sandbox = Sandbox::start(Config {
        tls: Some(verify_sandbox::Tls::Pem {
            cert_chain: certs.chain_pem.clone(),
            key: certs.key_pem.clone(),
        }),
        ..Config::default()
    })
    .expect("https sandbox");
    sandbox
        .load(
            Fixtures::from_value(serde_json::json!({
                "programs": [{"app_id": app_id, "app_key": super::super::APP_KEY,
                    "status": "approved"}],
                "cards": [{"app_id": app_id, "card": card, "kind": "duration", "duration": 30}]
            }))
            .expect("fixtures"),
        )
        .expect("load the program");
    sandbox
}

/// `VERIFY_ERR_TLS` and `VERIFY_ERR_PIN` of verify.h.
const ERR_TLS: i32 = -5;
const ERR_PIN: i32 = -11;

/// Fails unless a host's output (see [`HttpsCases`]) shows each case with its exact code:
/// the custom CA logs in (a 40-character token); Mozilla's roots alone fail with TLS
/// "unknown issuer"; the right pin without a CA succeeds; a wrong pin fails with the pin
/// code; another name and an expired certificate fail with TLS and their causes.
pub fn assert_https_cases(stdout: &str, report: &str) {
    let header = std::fs::read_to_string(root().join("include/verify.h")).expect("verify.h");
    for define in [
        format!("#define VERIFY_ERR_TLS {ERR_TLS}\n"),
        format!("#define VERIFY_ERR_PIN {ERR_PIN}\n"),
    ] {
        assert!(header.contains(&define), "verify.h has no `{define}`");
    }
    let expected: [(&str, i32, &str); 6] = [
        ("custom_ca", 200, "token 40"),
        ("mozilla_only", ERR_TLS, "unknown issuer"),
        ("pin", 200, ""),
        ("wrong_pin", ERR_PIN, ""),
        ("wrong_name", ERR_TLS, "not valid for this host name"),
        ("expired", ERR_TLS, "expired"),
    ];
    for (name, code, cause) in expected {
        let prefix = format!("case {name} ");
        let lines: Vec<&str> = stdout
            .lines()
            .filter_map(|line| line.strip_prefix(&prefix))
            .collect();
        assert_eq!(lines.len(), 1, "one `{prefix}...` line\n{report}");
        let (got, text) = lines[0].split_once(' ').unwrap_or((lines[0], ""));
        assert_eq!(
            got.parse::<i32>().ok(),
            Some(code),
            "case {name}: code `{got}` ({text}), expected {code}\n{report}"
        );
        assert!(
            text.contains(cause),
            "case {name}: `{text}` does not say `{cause}`\n{report}"
        );
    }
}
