//! The secrets scan of the tests: whether a text holds a piece of a secret, and every text a
//! doctor's report gives (its JSON and its text in every language). One scanner, used by the
//! fault suite's scan of every message and by the doctor's tests.

use verify_core::diagnose::Report;
use verify_core::Language;

/// The first run of 8 characters (the whole secret when shorter) of `secret` found in
/// `text`.
pub fn leaks(text: &str, secret: &str) -> Option<String> {
    let chars: Vec<char> = secret.chars().collect();
    chars
        .windows(8.min(chars.len()))
        .map(|window| window.iter().collect::<String>())
        .find(|piece| text.contains(piece.as_str()))
}

/// Every text of a doctor's report: its JSON, its text and its support file in every
/// language.
pub fn report_texts(report: &Report) -> Vec<String> {
    std::iter::once(report.to_json().to_string())
        .chain(
            Language::ALL
                .iter()
                .flat_map(|language| [report.text_in(*language), report.support_file(*language)]),
        )
        .collect()
}
