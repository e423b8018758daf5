//! The back-office web console: one page, its script and its style sheet, embedded in the
//! binary. The page calls the control API and nothing else.

const PAGE: &str = include_str!("console/index.html");
const SCRIPT: &str = include_str!("console/console.js");
const STYLE: &str = include_str!("console/console.css");

/// The console file served at a `GET` path, with its content type.
pub fn asset(path: &str) -> Option<(&'static str, &'static str)> {
    match path {
        "/_sandbox" | "/_sandbox/" | "/_sandbox/index.html" => {
            Some(("text/html; charset=utf-8", PAGE))
        }
        "/_sandbox/console.js" => Some(("text/javascript; charset=utf-8", SCRIPT)),
        "/_sandbox/console.css" => Some(("text/css; charset=utf-8", STYLE)),
        _ => None,
    }
}
