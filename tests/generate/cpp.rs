//! The generated sections of `include/verify.hpp`: the `codes` constants, the typed results
//! (one struct per reply view of the action table, with the code that reads it from a
//! `Reply`) and the `Client` methods of the action table, each returning
//! `Result<TheReplyView>`.

use verify_core::actions::{ActionSpec, FieldSpec, FieldType, ParamKind, ReplySpec};
use verify_core::codes::TABLE;

use super::{actions, doc_lines, is_time, replies, trailing_optional};

pub fn sections() -> Vec<(&'static str, String)> {
    vec![
        ("codes", codes()),
        ("results", results()),
        ("actions", methods()),
    ]
}

/// The C++ type of a typed field.
fn field_type(field: &FieldSpec) -> &'static str {
    match field.ty {
        FieldType::Time => "std::optional<Time>",
        FieldType::Str => "std::optional<std::string>",
        FieldType::Int => "std::optional<std::int64_t>",
        FieldType::Bool => "std::optional<bool>",
        FieldType::Map => "std::optional<std::map<std::string, std::string>>",
    }
}

/// The expression reading a typed field from `reply`.
fn field_read(field: &FieldSpec) -> String {
    let pointer = format!("\"/data/{}\"", field.name);
    match field.ty {
        FieldType::Time => format!("detail::read_time(reply, {pointer})"),
        FieldType::Str => format!("reply.str({pointer})"),
        FieldType::Int => format!("reply.integer({pointer})"),
        FieldType::Bool => format!("reply.boolean({pointer})"),
        FieldType::Map => format!("detail::read_map(reply, {pointer})"),
    }
}

/// Text for a C++ comment: the table's backticks kept, `*/` made harmless.
fn comment(text: &str) -> String {
    text.replace("*/", "* /")
}

fn results() -> String {
    let mut out = String::new();
    for reply in replies() {
        out.push_str("/*");
        for line in doc_lines(reply.doc).into_iter().filter(|l| !l.is_empty()) {
            out.push_str(&format!(" {}\n *", comment(line)));
        }
        out.push_str(&format!(
            " The result of `Result<{}>::value()`. */\nstruct {} : Answer {{\n",
            reply.name, reply.name
        ));
        for field in reply.fields {
            let unit = if is_time(field) {
                " (read from UTC+08:00)"
            } else {
                ""
            };
            out.push_str(&format!(
                "    /* {}: {}{unit}. */\n    {} {};\n",
                field.name,
                comment(field.doc),
                field_type(field),
                field.name
            ));
        }
        out.push_str(&reader(reply));
        out.push_str("};\n\n");
    }
    out
}

/// The static `from(const Reply &)` of a result struct.
fn reader(reply: &ReplySpec) -> String {
    let mut out = format!(
        "\n    /* The fields of `reply`, each std::nullopt when absent or of another type. */\n    \
         static {0} from(const Reply &reply) {{\n        {0} out;\n        \
         detail::read_answer(reply, out);\n",
        reply.name
    );
    for field in reply.fields {
        out.push_str(&format!(
            "        out.{} = {};\n",
            field.name,
            field_read(field)
        ));
    }
    out.push_str("        return out;\n    }\n");
    out
}

fn codes() -> String {
    TABLE
        .iter()
        .map(|row| {
            // ASCII only, as verify.h (see generate::rust::codes): the English message.
            format!(
                "{}inline constexpr std::int32_t {} = VERIFY_{};\n",
                comment_lines(&format!("{}. End user: \"{}\"", row.text, row.user.en)),
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
        if let Some(reply) = action.reply_spec() {
            for line in doc_lines(reply.doc).into_iter().filter(|l| !l.is_empty()) {
                out.push_str(&format!(" {}\n     *", comment(line)));
            }
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
            "    Result<{}> {}({}) const {{\n",
            action.reply,
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
             return Result<{}>(detail::finish(code, out));\n    }}\n\n",
            action.method,
            args.join(", "),
            action.reply
        ));
    }
    out
}

/// The longest line of a generated comment (the header's code is formatted to 100 columns).
const WIDTH: usize = 100;

/// The tail of a method's comment: ` Returns Result<CardLogin>, fields: token, ...`, wrapped
/// into comment lines of at most [`WIDTH`] columns (the first line continues the doc's last
/// ` *` prefix).
fn reply_fields(action: &ActionSpec) -> String {
    let calls: Vec<String> = action
        .reply_spec()
        .map(|reply| reply.fields)
        .unwrap_or_default()
        .iter()
        .map(|field| field.name.to_owned())
        .collect();
    let mut words = vec!["Returns".to_owned(), format!("Result<{}>", action.reply)];
    if calls.is_empty() {
        words[1].push('.');
        return wrap(words);
    }
    words[1].push_str(", fields:");
    let last = calls.len() - 1;
    words.extend(calls.into_iter().enumerate().map(|(index, call)| {
        if index == last {
            format!("{call}.")
        } else {
            format!("{call},")
        }
    }));
    wrap(words)
}

/// `text` as `//` comment lines wrapped at [`WIDTH`].
fn comment_lines(text: &str) -> String {
    let mut out = String::new();
    let mut line = String::from("//");
    for word in text.split(' ') {
        if line.len() + 1 + word.len() > WIDTH && line.len() > 2 {
            out.push_str(&line);
            out.push('\n');
            line = String::from("//");
        }
        line.push(' ');
        line.push_str(word);
    }
    out.push_str(&line);
    out.push('\n');
    out
}

/// `words` as the tail of a method's comment, wrapped at [`WIDTH`].
fn wrap(words: Vec<String>) -> String {
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
