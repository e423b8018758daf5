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

/// The page shown instead of the console when the door refuses it (no token, a foreign
/// `Host`).
pub fn refusal_page(status: u16, error: &str) -> String {
    let escaped = error
        .replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
        .replace('"', "&quot;");
    let hint = if status == 401 {
        "<p>This sandbox needs its token: open the <code>console:</code> address it printed at \
         start (<code>/_sandbox/?token=...</code>) once; the browser then keeps the token in a \
         cookie.</p>\n"
    } else {
        "<p>Open the console at the sandbox's own address (as printed at start), at \
         <code>localhost</code>, or at a name given with <code>--allowed-host</code>.</p>\n"
    };
    format!(
        "<!doctype html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">\
         <title>verify-sandbox: {status}</title></head><body>\n<h1>verify-sandbox console: \
         {status}</h1>\n<p id=\"refusal\">{escaped}</p>\n{hint}</body></html>\n"
    )
}
