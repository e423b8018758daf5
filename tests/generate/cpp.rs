//! The generated sections of `include/verify.hpp`: the `codes` constants and the `Client`
//! methods of the action table. Each method's comment names its reply fields as the
//! `Reply` accessor call that reads them (`str("/data/token")`, `integer(...)`, ...).

use verify_core::actions::{ActionSpec, FieldType, ParamKind};
use verify_core::codes::TABLE;

use super::{actions, doc_lines, trailing_optional};

pub fn sections() -> Vec<(&'static str, String)> {
    vec![("codes", codes()), ("actions", methods())]
}

fn codes() -> String {
    TABLE
        .iter()
        .map(|row| {
            format!(
                "inline constexpr std::int32_t {} = VERIFY_{};\n",
                row.name.to_ascii_lowercase(),
                row.name
            )
        })
        .collect()
}

fn methods() -> String {
    let mut out = String::new();
    for action in actions() {
        out.push_str("    /*");
        for line in doc_lines(action.doc) {
            out.push_str(&format!(" {line}\n     *"));
        }
        out.push_str(&reply_fields(action));
        out.push_str(" */\n");
        let params: Vec<String> = action
            .params
            .iter()
            .enumerate()
            .map(|(index, param)| match param.kind {
                ParamKind::Required => format!("std::string_view {}", param.name),
                ParamKind::Session => format!("SessionKind {}", param.name),
                ParamKind::Optional if trailing_optional(action, index) => format!(
                    "std::optional<std::string_view> {} = std::nullopt",
                    param.name
                ),
                ParamKind::Optional => {
                    format!("std::optional<std::string_view> {}", param.name)
                }
            })
            .collect();
        out.push_str(&format!(
            "    Reply {}({}) const {{\n",
            action.method,
            params.join(", ")
        ));
        let mut args = Vec::new();
        for param in action.params {
            match param.kind {
                ParamKind::Required => {
                    out.push_str(&format!(
                        "        std::string {0}_ = detail::arg({0}, \"{0}\");\n",
                        param.name
                    ));
                    args.push(format!("{}_.c_str()", param.name));
                }
                ParamKind::Optional => {
                    out.push_str(&format!(
                        "        detail::OptionalArg {0}_({0}, \"{0}\");\n",
                        param.name
                    ));
                    args.push(format!("{}_.c_str()", param.name));
                }
                ParamKind::Session => {
                    args.push(format!("static_cast<std::int32_t>({})", param.name));
                }
            }
        }
        args.push("&out".to_owned());
        out.push_str(&format!(
            "        verify_reply *out = nullptr;\n        \
             std::int32_t code = verify_{}(handle_.get(), {});\n        \
             return detail::finish(code, out);\n    }}\n\n",
            action.method,
            args.join(", ")
        ));
    }
    out
}

/// The longest line of a generated comment (the header's code is formatted to 100 columns).
const WIDTH: usize = 100;

/// The tail of a method's comment: ` Reply fields (...): str("/data/token"), ...`, wrapped
/// into comment lines of at most [`WIDTH`] columns (the first line continues the doc's last
/// ` *` prefix).
fn reply_fields(action: &ActionSpec) -> String {
    let calls: Vec<String> = action
        .reply_spec()
        .map(|reply| reply.fields)
        .unwrap_or_default()
        .iter()
        .map(|field| {
            let accessor = match field.ty {
                FieldType::Str => "str",
                FieldType::Int => "integer",
                FieldType::Bool => "boolean",
                FieldType::Map => "json",
            };
            format!("{accessor}(\"/data/{}\")", field.name)
        })
        .collect();
    if calls.is_empty() {
        return " Reply fields: none.".to_owned();
    }
    let mut words = vec![
        "Reply".to_owned(),
        "fields".to_owned(),
        "(each".to_owned(),
        "std::nullopt".to_owned(),
        "when".to_owned(),
        "absent):".to_owned(),
    ];
    let last = calls.len() - 1;
    words.extend(calls.into_iter().enumerate().map(|(index, call)| {
        if index == last {
            format!("{call}.")
        } else {
            format!("{call},")
        }
    }));
    // The doc's last line ends with "     *"; every new line starts with it too.
    let prefix = "     *";
    let mut out = String::new();
    let mut line = prefix.len();
    for word in words {
        if line + 1 + word.len() > WIDTH && line > prefix.len() {
            out.push('\n');
            out.push_str(prefix);
            line = prefix.len();
        }
        out.push(' ');
        out.push_str(&word);
        line += 1 + word.len();
    }
    out
}
