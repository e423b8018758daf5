//! The generated sections of `README.md` (the result code table and the retry table) and of
//! `README.zh-CN.md` (the code table with the Chinese messages).

use verify_core::actions::ACTIONS;
use verify_core::codes::TABLE;

pub fn sections() -> Vec<(&'static str, String)> {
    let mut table = String::from(
        "| code | constant | meaning | the end user reads (`verify_code_user_message`, en) |\n\
         |---|---|---|---|\n",
    );
    for row in TABLE {
        table.push_str(&format!(
            "| {} | `VERIFY_{}` | {} | {} |\n",
            row.code, row.name, row.text, row.user.en
        ));
    }
    vec![("codes", table), ("retries", retries())]
}

/// The sections of `README.zh-CN.md`: the code table in Simplified and Traditional Chinese.
pub fn sections_zh_cn() -> Vec<(&'static str, String)> {
    let mut table = String::from(
        "| 代码 | 常量 | 给最终用户的提示（zh-CN） | 繁體中文（zh-TW） |\n|---|---|---|---|\n",
    );
    for row in TABLE {
        table.push_str(&format!(
            "| {} | `VERIFY_{}` | {} | {} |\n",
            row.code, row.name, row.user.zh_cn, row.user.zh_tw
        ));
    }
    vec![("codes", table)]
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
