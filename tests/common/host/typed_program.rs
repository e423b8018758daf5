//! The sandbox side of the typed program (C++ and the NuGet consumer): its fixtures, the
//! ban it asks for, and the check of what it printed.

use super::*;

/// The sandbox side of the typed program (`tests/cpp/cpp_typed.cpp`,
/// `bindings/nuget/consumer/Consumer.cs`): a fresh program with a 30-day card and the account
/// `typed-user` / `typed-pass` expiring 2099-03-04 05:06:07 (UTC+08:00); it answers the
/// program's `@@ ban REASON` by banning the card, and checks what the program printed.
pub struct TypedProgram {
    pub program: super::super::Program<'static>,
    pub card: String,
}

impl TypedProgram {
    /// The fixtures, with the card `card`.
    pub fn new(card: &str) -> TypedProgram {
        let program = super::super::Program::fresh();
        let card = program.day_card(card, 30);
        program.accounts(
            serde_json::json!([{"username": "typed-user", "password": "typed-pass",
            "expire_at": "2099-03-04 05:06:07", "status": "active"}]),
        );
        TypedProgram { program, card }
    }

    /// The program's arguments: BASE_URL APP_ID APP_KEY CARD USERNAME PASSWORD.
    pub fn args(&self) -> Vec<String> {
        vec![
            self.program.sandbox.base_url(),
            self.program.app_id.clone(),
            super::super::APP_KEY.to_owned(),
            self.card.clone(),
            "typed-user".to_owned(),
            "typed-pass".to_owned(),
        ]
    }

    /// The answer to one line of the program (for [`run_host`]): "go" once the card is banned.
    pub fn answer(&self, line: &str) -> Option<String> {
        let reason = line.strip_prefix("@@ ban ")?;
        self.program
            .sandbox
            .update_card(&self.program.app_id, &self.card, "disable", Some(reason))
            .expect("ban the card");
        Some("go".to_owned())
    }

    /// Checks what the program printed: every check held; the card's expiry (the sandbox's
    /// text) as the same text and as its Unix seconds read from UTC+08:00; the account's
    /// expiry; the codes of the wrong password, the bad card and the wrong AppKey (a
    /// configuration refusal); the keeper's end on the ban with its reason.
    pub fn assert_output(&self, output: &HostOutput, report: &str) {
        let stdout = &output.stdout;
        assert!(
            output.status.success() && stdout.contains(" checks, 0 failed"),
            "the program failed\n{report}"
        );
        let card_expire_at = self
            .program
            .client()
            .get_card_info(&self.card)
            .expect("card info from Rust")
            .expire_at()
            .expect("the card's expire_at")
            .to_owned();
        let seconds = verify_core::offline::service_time(&card_expire_at).expect("a service time");
        // 2099-03-04 05:06:07 in UTC+08:00 is 2099-03-03 21:06:07 UTC.
        let account = verify_core::offline::service_time("2099-03-04 05:06:07").expect("a time");
        assert_eq!(account, 4_076_255_167, "2099-03-03T21:06:07Z");
        for line in [
            format!("card expire_at {card_expire_at} {seconds}"),
            format!("account expire_at 2099-03-04 05:06:07 {account}"),
            "wrong password 1003".to_owned(),
            "bad card 1004".to_owned(),
            "wrong key 1011 configuration".to_owned(),
            "keeper ended 1006 cheating detected".to_owned(),
        ] {
            assert!(
                stdout.lines().any(|l| l.trim_end().starts_with(&line)),
                "no line `{line}`\n{report}"
            );
        }
    }
}
