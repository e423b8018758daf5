//! The report as text, in the end user's language: the first line names the cause (what is
//! wrong, what to do, who acts), the second sums the run up, then one line a step; and the
//! support file a program saves for its vendor. Every sentence comes from the doctor's
//! table (`table.rs`), filled with the step's values.

use super::report::{millis, rfc3339, Report, Step};
use super::table::{self, Actor};
use crate::language::Language;

impl Report {
    /// The first line of the text in `language`: the first cause's verdict (`FAIL`,
    /// `WARN`), its sentence (what is wrong and what to do) and who acts, and how many more
    /// causes follow; for a report without a cause, that the connection is fine and a
    /// login that still fails is about the card or the account.
    pub fn first_line(&self, language: Language) -> String {
        let words = |key: &str, value: &dyn Fn(&str) -> Option<String>| {
            table::fill(key, language, value).unwrap_or_default()
        };
        if self.cancelled {
            return words("line.cancelled", &|_| None);
        }
        let Some(cause) = self.cause() else {
            return words("line.pass", &|_| None);
        };
        let who = match cause.actor() {
            Actor::User => words("who.user", &|_| None),
            Actor::Vendor | Actor::None => words("who.vendor", &|_| None),
        };
        let sentence = self.sentence(cause, language);
        let verdict = cause.verdict.name().to_ascii_uppercase();
        let mut line = words("line.cause", &|name| match name {
            "verdict" => Some(verdict.clone()),
            "sentence" => Some(sentence.clone()),
            "who" => Some(who.clone()),
            _ => None,
        });
        let more = self.causes.len().saturating_sub(1);
        if more > 0 {
            line.push_str(&words("line.more", &|name| {
                (name == "more").then(|| more.to_string())
            }));
        }
        line
    }

    /// The report as a short text in `language`, to paste into a chat: the first line
    /// ([`Report::first_line`]), a summary line (version, URL, AppId, verdict, how many
    /// causes, how long), then per step its verdict and step name (`FAIL init`, the same
    /// tokens in every language, for support), the line and address it concerns, its
    /// sentence in `language` (a step that follows from a cause says from which) and how
    /// long it took. The JSON keeps each step's English sentence and facts.
    pub fn text_in(&self, language: Language) -> String {
        let mut text = self.first_line(language);
        text.push('\n');
        let verdict = self.verdict().name().to_ascii_uppercase();
        let version = env!("CARGO_PKG_VERSION");
        let summary = table::fill("line.summary", language, &|name| match name {
            "version" => Some(version.to_owned()),
            "url" => Some(self.url.clone()),
            "app_id" => Some(self.app_id.clone()),
            "verdict" => Some(verdict.clone()),
            "causes" => Some(self.causes.len().to_string()),
            "elapsed_ms" => Some(millis(self.elapsed).to_string()),
            "started_at" => Some(rfc3339(self.started_at)),
            _ => None,
        });
        text.push_str(&summary.unwrap_or_default());
        text.push('\n');
        for step in &self.steps {
            let place = match (&step.line, &step.address) {
                (Some(line), Some(address)) => format!(" {line} {address}:"),
                (Some(line), None) => format!(" {line}:"),
                (None, Some(address)) => format!(" {address}:"),
                (None, None) => String::new(),
            };
            let took = step
                .elapsed
                .map_or(String::new(), |e| format!(" ({} ms)", millis(e)));
            let follows = step
                .knock_on
                .and_then(|cause| {
                    table::fill("line.knock_on", language, &|name| {
                        (name == "cause").then(|| cause.to_owned())
                    })
                })
                .unwrap_or_default();
            text.push_str(&format!(
                "{:<4} {:<7}{place} {}{follows}{took}\n",
                step.verdict.name().to_ascii_uppercase(),
                step.kind.name(),
                self.sentence(step, language)
            ));
        }
        text
    }

    /// A step's sentence in `language`: the table's, with `{app_id}` and the step's
    /// details filled in; the step's English sentence when the table lacks its key.
    pub fn sentence(&self, step: &Step, language: Language) -> String {
        step.sentence_in(language, &self.app_id)
    }

    /// The support file: what a program saves for its vendor ("send this file to the
    /// vendor"): a line that says so in `language`, the text in `language`, the text in
    /// English when that is another, and the JSON. Redacted as the report is (it is made of
    /// the report alone).
    pub fn support_file(&self, language: Language) -> String {
        let header = table::fill("support.header", language, &|_| None).unwrap_or_default();
        let mut file = format!("{header}\n\n{}", self.text_in(language));
        if language != Language::En {
            file.push('\n');
            file.push_str(&self.text_in(Language::En));
        }
        let json = serde_json::to_string_pretty(&self.to_json()).unwrap_or_default();
        file.push('\n');
        file.push_str(&json);
        file.push('\n');
        file
    }
}

impl Step {
    /// The step's sentence in `language`: the table's, with `{app_id}` (`app_id`) and the
    /// step's details filled in; its English sentence when the table lacks its key.
    pub fn sentence_in(&self, language: Language, app_id: &str) -> String {
        table::fill(self.key, language, &|name| match name {
            "app_id" => Some(app_id.to_owned()),
            _ => self.detail_text(name),
        })
        .unwrap_or_else(|| self.message.clone())
    }
}
