//! The generated headers of the C++ binding, whole files under `include/verify/`:
//! `codes.hpp` (the `codes` constants, the `Code` enum and its names), `results.hpp` (one
//! struct per reply view of the action table, with the code that reads it from a `Reply`) and
//! `actions.hpp` (the base `detail::Actions<Client>` that `Client` inherits: one method per
//! action of the table, each returning `Result<TheReplyView>`).

use verify_core::actions::{ActionSpec, FieldSpec, FieldType, ParamKind, ReplySpec};
use verify_core::codes::CodeClass;

use super::banner;
use crate::schema::{is_time, trailing_optional, EnumSpec, IntType, Schema};
use crate::text::{doc_lines, pascal, wrapped};
use crate::Output;

/// Every generated C++ header.
pub fn files(schema: &Schema) -> Vec<Output> {
    vec![
        Output::file("include/verify/codes.hpp", codes_hpp(schema)),
        Output::file("include/verify/enums.hpp", enums_hpp(schema)),
        Output::file("include/verify/results.hpp", results_hpp(schema)),
        Output::file("include/verify/actions.hpp", actions_hpp(schema)),
    ]
}

/// A whole header: its top comment (`what`, then the generated-file notice naming `from`),
/// its include guard, `includes` and `body` inside `namespace verify`.
fn header(name: &str, what: &str, from: &str, includes: &[&str], body: &str) -> String {
    let guard = format!("VERIFY_{}_HPP", name.to_ascii_uppercase());
    let mut out = format!("/*\n * verify/{name}.hpp: ");
    for (index, line) in what.lines().enumerate() {
        if index > 0 {
            out.push_str("\n *");
            if !line.is_empty() {
                out.push(' ');
            }
        }
        out.push_str(line);
    }
    out.push_str("\n *\n");
    for line in wrapped(&banner(from), " *", WIDTH) {
        out.push_str(&line);
        out.push('\n');
    }
    out.push_str(" */\n\n");
    out.push_str(&format!("#ifndef {guard}\n#define {guard}\n\n"));
    for include in includes {
        out.push_str(&format!("#include {include}\n"));
    }
    out.push_str("\nnamespace verify {\n\n");
    out.push_str(body.trim_end());
    out.push_str(&format!(
        "\n\n}}  // namespace verify\n\n#endif /* {guard} */\n"
    ));
    crate::text::doxygen(&out)
}

/// `text` as a C comment at `indent`, wrapped at [`WIDTH`].
fn block_comment(text: &str, indent: &str) -> String {
    let lines = wrapped(&comment(text), &format!("{indent} *"), WIDTH - 3);
    let mut out = String::new();
    for (index, line) in lines.iter().enumerate() {
        if index == 0 {
            out.push_str(&format!("{indent}/*{}", &line[indent.len() + 2..]));
        } else {
            out.push('\n');
            out.push_str(line);
        }
    }
    out.push_str(" */\n");
    out
}

/// The classification helpers of the code table's classes.
fn classes(schema: &Schema) -> String {
    let mut out = String::new();
    for class in schema.classes {
        let name = class_function(*class);
        out.push_str(&block_comment(
            &format!("Whether `code` is {}.", class.doc()),
            "",
        ));
        let tests: Vec<String> = class
            .codes()
            .iter()
            .filter_map(|code| schema.codes.iter().find(|row| row.code == *code))
            .map(|row| format!("code == VERIFY_{}", row.name))
            .collect();
        out.push_str(&format!(
            "[[nodiscard]] inline constexpr bool {name}(std::int32_t code) noexcept {{\n    return {};\n}}\n\n",
            tests.join(" ||\n           ")
        ));
    }
    out
}

/// The C++ name of a class's helper.
fn class_function(class: CodeClass) -> &'static str {
    match class {
        CodeClass::Success => "is_success",
        CodeClass::ConfigurationRefusal => "is_configuration_refusal",
        CodeClass::KeepsOfflineVerdict => "keeps_offline_verdict",
    }
}

fn enums_hpp(schema: &Schema) -> String {
    let mut body = String::new();
    for spec in schema.enums {
        body.push_str(&enum_class(spec));
    }
    header(
        "enums",
        "the enums of verify.h as enum classes holding the C integers (EventKind,\n\
         KeeperState, LogLevel, ...), each with its names (to_string). An enum that later\n\
         versions of the library may extend holds any value: one not named here is kept as it is.",
        "the enums (codegen/src/schema/enums.rs)",
        &["<cstdint>", "<string_view>", "\"../verify.h\""],
        &body,
    )
}

fn enum_class(spec: &EnumSpec) -> String {
    let ty = match spec.ty {
        IntType::I32 => "std::int32_t",
        IntType::U32 => "std::uint32_t",
    };
    let mut doc = spec.doc.to_owned();
    if spec.open {
        doc.push_str(" Later versions may add values: one not named here is kept as it is.");
    }
    let mut out = block_comment(&doc, "");
    out.push_str(&format!("enum class {} : {ty} {{\n", spec.name));
    if spec.flags {
        out.push_str("    /* None of the flags. */\n    None = 0,\n");
    }
    for member in spec.members {
        out.push_str(&block_comment(member.doc, "    "));
        out.push_str(&format!(
            "    {} = {},\n",
            pascal(member.name),
            spec.c_name(member)
        ));
    }
    out.push_str("};\n\n");
    if spec.flags {
        out.push_str(&format!(
            "/* The flags of both. */\ninline constexpr {0} operator|({0} a, {0} b) noexcept {{\n    \
             return static_cast<{0}>(static_cast<{ty}>(a) | static_cast<{ty}>(b));\n}}\n\n",
            spec.name
        ));
        return out;
    }
    let first = spec
        .members
        .first()
        .map(|m| pascal(m.name))
        .unwrap_or_default();
    out.push_str(&block_comment(
        &format!(
            "The name of `value` as written in {} (\"{first}\"), or \"unknown\" for a value this \
             header does not name.",
            spec.name
        ),
        "",
    ));
    out.push_str(&format!(
        "[[nodiscard]] constexpr std::string_view to_string({} value) noexcept {{\n    switch (value) {{\n",
        spec.name
    ));
    for member in spec.members {
        let name = pascal(member.name);
        out.push_str(&format!(
            "    case {}::{name}: return \"{name}\";\n",
            spec.name
        ));
    }
    out.push_str("    }\n    return \"unknown\";\n}\n\n");
    out
}

fn codes_hpp(schema: &Schema) -> String {
    let mut body = String::from(
        "/* The result codes of verify.h as integers (the same as verify::Code's): for code that\n \
         * calls the C API; Reply::code() and Error::code() are a Code and compare with them too. */\nnamespace codes {\n",
    );
    body.push_str(&codes(schema));
    body.push_str("}  // namespace codes\n\n");
    body.push_str(&classes(schema));
    body.push_str(
        "/* The same codes as an enum class, each the integer of its codes:: constant: for\n \
         * std::error_code (verify::category(), verify/error.hpp), switch statements and to_string().\n \
         * A Code compares with an integer code (reply.code() == verify::Code::card_invalid).\n \
         * Later versions of the library may give codes not named here: a Code holds any int32_t. */\n\
         enum class Code : std::int32_t {\n",
    );
    for row in schema.codes {
        body.push_str(&format!(
            "    {} = VERIFY_{},\n",
            row.name.to_ascii_lowercase(),
            row.name
        ));
    }
    body.push_str("};\n\n");
    body.push_str(
        "/* The name of `code` as written in Code and codes:: (\"card_invalid\"), or \"unknown\" for a\n \
         * code this header does not name. */\n\
         [[nodiscard]] constexpr std::string_view to_string(Code code) noexcept {\n    switch (code) {\n",
    );
    for row in schema.codes {
        let name = row.name.to_ascii_lowercase();
        body.push_str(&format!("    case Code::{name}: return \"{name}\";\n"));
    }
    body.push_str("    }\n    return \"unknown\";\n}\n\n");
    body.push_str(
        "/* The integer of `code` (the C API's; codes:: holds the same). */\n\
         [[nodiscard]] constexpr std::int32_t to_int(Code code) noexcept { return static_cast<std::int32_t>(code); }\n\n",
    );
    for class in schema.classes {
        let name = class_function(*class);
        body.push_str(&format!(
            "/* {name}(to_int(code)). */\n\
             [[nodiscard]] inline constexpr bool {name}(Code code) noexcept {{ return {name}(to_int(code)); }}\n\n"
        ));
    }
    header(
        "codes",
        "the result codes of verify.h: the int constants of verify::codes and the\n\
         enum class verify::Code, with their names (to_string) and integers (to_int), and the\n\
         code table's classes (is_success, is_configuration_refusal, keeps_offline_verdict).",
        "the code table (core/src/codes.rs)",
        &["<cstdint>", "<string_view>", "\"../verify.h\""],
        &body,
    )
}

fn results_hpp(schema: &Schema) -> String {
    let body = format!(
        "/*\n \
         * The typed results of the action table (core/src/actions/table.rs), one per reply view: each\n \
         * is an Answer (code, message, offline_info) with the action table's fields, each\n \
         * std::nullopt when the server left it out or sent another type. Strings are std::string,\n \
         * integers std::int64_t, booleans bool, the service's times (\"*_at\" fields) verify::Time\n \
         * (converted from UTC+08:00), objects std::map<std::string, std::string>. Plain copyable\n \
         * values: they stay valid after the Result they came from is gone.\n \
         */\n\n{}",
        results(schema)
    );
    header(
        "results",
        "the structs of verify::Result<T>, one per reply view of the action\n\
         table (CardLogin, UserSession, Heartbeat, ...).",
        "the action table (core/src/actions/table.rs)",
        &[
            "<cstdint>",
            "<map>",
            "<optional>",
            "<string>",
            "\"reply.hpp\"",
            "\"result.hpp\"",
            "\"time.hpp\"",
        ],
        &body,
    )
}

fn actions_hpp(schema: &Schema) -> String {
    let body = format!(
        "namespace detail {{\n\n\
         /*\n \
         * The action methods of verify::Client, one per action of the table, each returning a\n \
         * Result<T> (see verify/client.hpp for what they throw and when they block). Client inherits\n \
         * them: `Derived` is the class deriving from Actions, whose get() gives its verify_client.\n \
         */\n\
         template <typename Derived>\nclass Actions {{\npublic:\n{}\
         private:\n    \
         /* The client's handle (NULL when moved from: the library then refuses the call). */\n    \
         verify_client *handle() const noexcept {{ return static_cast<const Derived *>(this)->get(); }}\n\
         }};\n\n}}  // namespace detail\n",
        methods(schema)
    );
    header(
        "actions",
        "the action methods of verify::Client (single_login, user_login,\n\
         heartbeat, ...), in the base class detail::Actions<Client>.",
        "the action table (core/src/actions/table.rs)",
        &[
            "<cstdint>",
            "<optional>",
            "<string>",
            "<string_view>",
            "\"../verify.h\"",
            "\"cancel.hpp\"",
            "\"detail/call.hpp\"",
            "\"keeper.hpp\"",
            "\"reply.hpp\"",
            "\"result.hpp\"",
            "\"results.hpp\"",
        ],
        &body,
    )
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

fn results(schema: &Schema) -> String {
    let mut out = String::new();
    for reply in schema.replies {
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

fn codes(schema: &Schema) -> String {
    schema
        .codes
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

fn methods(schema: &Schema) -> String {
    let mut out = String::new();
    for action in schema.actions {
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
            "    [[nodiscard]] Result<{}> {}({}) const {{\n",
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
             std::int32_t code = verify_{}(handle(), {});\n        \
             return Result<{}>(detail::finish(code, out));\n    }}\n\n",
            action.method,
            args.join(", "),
            action.reply
        ));
        out.push_str(&cancellable(action, &params));
    }
    out
}

/// The overloads of an action that take a cancellation token first (verify/cancel.hpp): the
/// library's `CancelToken`, and a C++20 `std::stop_token`, each watching the call through a
/// `CancelScope`.
fn cancellable(action: &ActionSpec, params: &[String]) -> String {
    let names: Vec<&str> = action.params.iter().map(|param| param.name).collect();
    let call = format!("{}({})", action.method, names.join(", "));
    let overload = |token: &str| {
        let mut all = vec![token.to_owned()];
        all.extend(params.iter().cloned());
        format!(
            "    [[nodiscard]] Result<{}> {}({}) const {{\n        \
             CancelScope scope(cancel);\n        \
             return {call};\n    }}\n",
            action.reply,
            action.method,
            all.join(", ")
        )
    };
    format!(
        "    /* {method}() cancellable in flight by `cancel` (verify/cancel.hpp): throws\n     \
         * verify::Error codes::err_cancelled within milliseconds of its cancel. */\n{}\
         #if VERIFY_HAS_STOP_TOKEN\n{}#endif\n\n",
        overload("const CancelToken &cancel"),
        overload("std::stop_token cancel"),
        method = action.method,
    )
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
