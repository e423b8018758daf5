//! The 常见错误码 tables of the FAQ: `docs/faq.md` (English) and `docs/zh-CN/faq.md`
//! (Simplified Chinese), between their `codes` markers. Each row joins the code table
//! (`core/src/codes.rs`: number, name, the end user's message) and the FAQ facts
//! ([`crate::schema::faq`]: cause, what the developer does). The questions around the tables
//! are written by hand.

use crate::schema::faq::rows;
use crate::schema::Schema;
use crate::Output;

/// The generated sections of both FAQ pages; an error when a code has no FAQ row.
pub fn files(schema: &Schema) -> Result<Vec<Output>, String> {
    let rows = rows(schema.codes, schema.faq)?;
    let mut en = String::from(
        "| code | constant | why | what the developer does | the end user reads (`verify_code_user_message`) |\n\
         |---|---|---|---|---|\n",
    );
    let mut zh = String::from(
        "| 返回码 | 常量 | 原因 | 开发者怎么处理 | 用户看到的提示（`verify_code_user_message`） |\n\
         |---|---|---|---|---|\n",
    );
    for (code, faq) in rows {
        en.push_str(&format!(
            "| {} | `VERIFY_{}` | {} | {} | {} |\n",
            code.code, code.name, faq.cause_en, faq.fix_en, code.user.en
        ));
        zh.push_str(&format!(
            "| {} | `VERIFY_{}` | {} | {} | {} |\n",
            code.code, code.name, faq.cause_zh, faq.fix_zh, code.user.zh_cn
        ));
    }
    Ok(vec![
        Output::Sections {
            path: "docs/faq.md".to_owned(),
            sections: vec![("codes", en)],
        },
        Output::Sections {
            path: "docs/zh-CN/faq.md".to_owned(),
            sections: vec![("codes", zh)],
        },
    ])
}
