//! The generated section of `README.md`: the result code table.

use verify_core::codes::TABLE;

pub fn sections() -> Vec<(&'static str, String)> {
    let mut table = String::from("| code | constant | meaning |\n|---|---|---|\n");
    for row in TABLE {
        table.push_str(&format!(
            "| {} | `VERIFY_{}` | {} |\n",
            row.code, row.name, row.text
        ));
    }
    vec![("codes", table)]
}
