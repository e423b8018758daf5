//! The programs of issue 45's trial (`tests/cpp/cpp_newcomer.cpp`,
//! `tests/csharp/CsharpNewcomer.cs`): the scene they run in (a program with two cards and an
//! account, a URL nothing listens on) and the ban they ask for.

use super::super::{unique, Program, APP_KEY};

/// A fresh program of the test binary's sandbox for one run of a newcomer program.
pub struct Newcomer {
    pub program: Program<'static>,
    card: String,
    /// The program's arguments: BASE_URL APP_ID APP_KEY CARD OTHER_CARD USER PASSWORD
    /// STATE_FOLDER DEAD_URL.
    pub args: Vec<String>,
}

impl Newcomer {
    /// The scene, with the offline store in `state_folder`.
    pub fn new(state_folder: &std::path::Path) -> Newcomer {
        let program = Program::fresh();
        let card = program.day_card(&unique("NEWCOMER-A"), 30);
        let other = program.day_card(&unique("NEWCOMER-B"), 30);
        let user = unique("newcomer");
        program.account(&user, "newcomer-pass");
        let dead = {
            let listener = std::net::TcpListener::bind("127.0.0.1:0").expect("bind");
            format!("http://{}", listener.local_addr().expect("addr"))
        };
        let args = vec![
            program.sandbox.base_url(),
            program.app_id.clone(),
            APP_KEY.to_owned(),
            card.clone(),
            other,
            user,
            "newcomer-pass".to_owned(),
            state_folder.display().to_string(),
            dead,
        ];
        Newcomer {
            program,
            card,
            args,
        }
    }

    /// The answer to the program's request `line`: on `@@ ban`, the first card is disabled
    /// with the remark "shared key".
    pub fn answer(&self, line: &str) -> Option<String> {
        (line == "@@ ban").then(|| {
            self.program
                .sandbox
                .update_card(
                    &self.program.app_id,
                    &self.card,
                    "disable",
                    Some("shared key"),
                )
                .expect("ban");
            "go".to_owned()
        })
    }
}
