//! The generated sections of `README.md` (the result code table and the retry table) and of
//! `README.zh-CN.md` (the code table with the Chinese messages).

use crate::schema::Schema;
use crate::Output;

/// The generated sections of both READMEs.
pub fn files(schema: &Schema) -> Vec<Output> {
    vec![
        Output::Sections {
            path: "README.md".to_owned(),
            sections: sections(schema),
        },
        Output::Sections {
            path: "README.zh-CN.md".to_owned(),
            sections: sections_zh_cn(schema),
        },
    ]
}

fn sections(schema: &Schema) -> Vec<(&'static str, String)> {
    let mut table = String::from(
        "| code | constant | meaning | the end user reads (`verify_code_user_message`, en) |\n\
         |---|---|---|---|\n",
    );
    for row in schema.codes {
        table.push_str(&format!(
            "| {} | `VERIFY_{}` | {} | {} |\n",
            row.code, row.name, row.text, row.user.en
        ));
    }
    vec![("codes", table), ("retries", retries(schema))]
}

/// The sections of `README.zh-CN.md`: the code table in Simplified and Traditional Chinese.
fn sections_zh_cn(schema: &Schema) -> Vec<(&'static str, String)> {
    let mut table = String::from(
        "| 返回码 | 常量 | 给用户看的提示（zh-CN） | 繁體中文（zh-TW） |\n|---|---|---|---|\n",
    );
    for row in schema.codes {
        table.push_str(&format!(
            "| {} | `VERIFY_{}` | {} | {} |\n",
            row.code, row.name, row.user.zh_cn, row.user.zh_tw
        ));
    }
    vec![("codes", table)]
}

/// Which calls may be sent again after a failure that may have reached the server.
fn retries(schema: &Schema) -> String {
    let mut out = String::from(
        "| call | action | sent again after a read timeout or a reset |\n|---|---|---|\n",
    );
    for action in schema.actions {
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
