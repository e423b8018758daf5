//! The generated sections of `include/verify.hpp`: the `codes` constants and the `Client`
//! methods of the action table.

use verify_core::actions::ParamKind;
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
        out.push_str(" Reply fields:");
        if let Some(reply) = action.reply_spec() {
            let names: Vec<String> = reply
                .fields
                .iter()
                .map(|f| format!("/data/{}", f.name))
                .collect();
            out.push_str(&format!(" {}.", names.join(", ")));
        }
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
