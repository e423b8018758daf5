//! The generated sections of `README.md`: the result code table and the retry table.

use verify_core::actions::ACTIONS;
use verify_core::codes::TABLE;

pub fn sections() -> Vec<(&'static str, String)> {
    let mut table = String::from("| code | constant | meaning |\n|---|---|---|\n");
    for row in TABLE {
        table.push_str(&format!(
            "| {} | `VERIFY_{}` | {} |\n",
            row.code, row.name, row.text
        ));
    }
    vec![("codes", table), ("retries", retries())]
}

/// Which calls may be sent again after a failure that may have reached the server.
fn retries() -> String {
    let mut out = String::from(
        "| call | action | sent again after a read timeout or a reset |\n|---|---|---|\n",
    );
    for action in ACTIONS {
        out.push_str(&format!(
            "| `verify_{}` | `{}` | {} |\n",
            action.method,
            action.wire,
            if action.changes_state {
                "never (it changes state on the server)"
            } else {
                "once"
            }
        ));
    }
    out
}
