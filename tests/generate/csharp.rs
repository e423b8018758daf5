//! The generated sections of `bindings/csharp/Verify.cs`: the `ResultCode` members, the
//! native declarations of the action table's functions, the typed replies (one `Reply`
//! subclass per reply view, `CardLoginReply`, ...) and the `Client` methods (each action
//! blocking, and as a `Task` with an `...Async` name), returning their typed reply.

use verify_core::actions::{ActionSpec, FieldSpec, FieldType, ParamKind, ReplySpec};
use verify_core::codes::TABLE;

use super::{actions, camel, doc_lines, is_time, pascal, replies, trailing_optional};

pub fn sections() -> Vec<(&'static str, String)> {
    vec![
        ("codes", codes()),
        ("native", native()),
        ("replies", typed_replies()),
        ("actions", methods()),
    ]
}

/// The C# class of a reply view: `CardLogin` → `CardLoginReply`.
fn class(reply: &str) -> String {
    format!("{reply}Reply")
}

/// Members of `Reply` itself: a field of the same name is read by the base class.
const BASE_MEMBERS: &[&str] = &["Remark", "Message", "Code", "Json", "Handle", "Offline"];

/// The typed fields of a reply view that get a property of their own.
fn own_fields(reply: &ReplySpec) -> impl Iterator<Item = &'static FieldSpec> {
    reply
        .fields
        .iter()
        .filter(|field| !BASE_MEMBERS.contains(&pascal(field.name).as_str()))
}

/// The C# type of a typed field, and the getter that reads it.
fn property(field: &FieldSpec) -> (&'static str, &'static str) {
    match field.ty {
        FieldType::Time => ("DateTimeOffset?", "GetTime"),
        FieldType::Str => ("string", "GetString"),
        FieldType::Int => ("long?", "GetInt64"),
        FieldType::Bool => ("bool?", "GetBool"),
        FieldType::Map => ("IReadOnlyDictionary<string, string>", "GetStringMap"),
    }
}

fn typed_replies() -> String {
    let mut out = String::new();
    for reply in replies() {
        let name = class(reply.name);
        out.push_str("    /// <summary>\n");
        for line in doc_lines(reply.doc).into_iter().filter(|l| !l.is_empty()) {
            out.push_str(&format!("    /// {}\n", xml(line)));
        }
        out.push_str(
            "    /// The fields of the spec are properties, each null when the server left it out or \
             sent\n    /// another type; every field is also readable by JSON Pointer (<see \
             cref=\"Reply\"/>).\n    /// </summary>\n",
        );
        out.push_str(&format!(
            "    public sealed class {name} : Reply\n    {{\n        /// <summary>The typed reply \
             over a native reply (see <see cref=\"Reply\"/>); the fields are read \
             now.</summary>\n        public {name}(ReplyHandle handle)\n            : \
             base(handle)\n        {{\n"
        ));
        for field in own_fields(reply) {
            out.push_str(&format!(
                "            {} = {}(\"/data/{}\");\n",
                pascal(field.name),
                property(field).1,
                field.name
            ));
        }
        out.push_str("        }\n\n");
        for field in own_fields(reply) {
            let unit = if is_time(field) {
                " The service's time, with its offset (+08:00)."
            } else {
                ""
            };
            out.push_str(&format!(
                "        /// <summary><c>{}</c>: {}.{unit} Null when absent.</summary>\n        \
                 public {} {} {{ get; private set; }}\n\n",
                field.name,
                xml(field.doc),
                property(field).0,
                pascal(field.name)
            ));
        }
        out.push_str(&format!(
            "        /// <summary><see cref=\"Reply.EnsureOk\"/>, giving this reply as its own \
             type.</summary>\n        /// <exception cref=\"VerifyRefusedException\">The server \
             refused the call.</exception>\n        public new {name} EnsureOk()\n        {{\n            \
             Check();\n            return this;\n        }}\n    }}\n\n"
        ));
    }
    out
}

/// `ERR_INVALID_ARGUMENT` → `InvalidArgument`, `CARD_INVALID` → `CardInvalid`.
fn code_member(name: &str) -> String {
    pascal(&name.trim_start_matches("ERR_").to_ascii_lowercase())
}

/// Text for an XML doc comment: `&` and `<` escaped, `code` spans as `<c>code</c>`.
fn xml(text: &str) -> String {
    let escaped = text
        .replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;");
    let mut out = String::new();
    for (index, part) in escaped.split('`').enumerate() {
        if index % 2 == 1 {
            out.push_str(&format!("<c>{part}</c>"));
        } else {
            out.push_str(part);
        }
    }
    out
}

fn codes() -> String {
    TABLE
        .iter()
        .map(|row| {
            format!(
                "        /// <summary>{} (<c>VERIFY_{}</c>).</summary>\n        \
                 /// <remarks>End user (<see cref=\"Library.UserMessage(ResultCode, string)\"/>): \
                 en \"{}\"; zh-CN \"{}\"; zh-TW \"{}\"</remarks>\n        {} = {},\n",
                xml(row.text),
                row.name,
                xml(row.user.en),
                xml(row.user.zh_cn),
                xml(row.user.zh_tw),
                code_member(row.name),
                row.code
            )
        })
        .collect()
}

fn native() -> String {
    let mut out = String::new();
    for action in actions() {
        out.push_str(&format!(
            "        [DllImport(Library, CallingConvention = CallingConvention.Winapi)]\n        \
             internal static extern int verify_{}(\n            ClientHandle client,\n",
            action.method
        ));
        for param in action.params {
            match param.kind {
                ParamKind::Session => {
                    out.push_str(&format!("            int {},\n", camel(param.name)))
                }
                _ => out.push_str(&format!(
                    "            [MarshalAs(UnmanagedType.LPUTF8Str)] string {},\n",
                    camel(param.name)
                )),
            }
        }
        out.push_str("            out ReplyHandle reply);\n\n");
    }
    out
}

/// The `<summary>` and `<remarks>` (reply fields) of an action's methods.
fn doc(action: &ActionSpec, out: &mut String, extra: &[&str]) {
    out.push_str("        /// <summary>\n");
    for line in doc_lines(action.doc).into_iter().filter(|l| !l.is_empty()) {
        out.push_str(&format!("        /// {}\n", xml(line)));
    }
    for line in extra {
        out.push_str(&format!("        /// {line}\n"));
    }
    out.push_str("        /// </summary>\n");
    if let Some(reply) = action.reply_spec() {
        out.push_str("        /// <remarks>\n");
        for line in doc_lines(reply.doc).into_iter().filter(|l| !l.is_empty()) {
            out.push_str(&format!("        /// {}\n", xml(line)));
        }
        out.push_str("        /// </remarks>\n");
        let names: Vec<String> = reply
            .fields
            .iter()
            .map(|field| format!("<c>{}</c>", pascal(field.name)))
            .collect();
        out.push_str(&format!(
            "        /// <returns>A <see cref=\"{}\"/>: {}.</returns>\n",
            class(reply.name),
            names.join(", ")
        ));
    }
}

fn methods() -> String {
    let mut out = String::new();
    for action in actions() {
        let params: Vec<String> = action
            .params
            .iter()
            .enumerate()
            .map(|(index, param)| match param.kind {
                ParamKind::Required => format!("string {}", camel(param.name)),
                ParamKind::Session => format!("SessionKind {}", camel(param.name)),
                ParamKind::Optional if trailing_optional(action, index) => {
                    format!("string {} = null", camel(param.name))
                }
                ParamKind::Optional => format!("string {}", camel(param.name)),
            })
            .collect();
        let checks: String = action
            .params
            .iter()
            .map(|param| match param.kind {
                ParamKind::Required => {
                    format!("            Required({0}, \"{0}\");\n", camel(param.name))
                }
                ParamKind::Optional => {
                    format!("            Optional({0}, \"{0}\");\n", camel(param.name))
                }
                ParamKind::Session => {
                    format!(
                        "            Args.Session({0}, \"{0}\");\n",
                        camel(param.name)
                    )
                }
            })
            .collect();
        let args: Vec<String> = action.params.iter().map(|p| camel(p.name)).collect();
        let native_args: Vec<String> = action
            .params
            .iter()
            .map(|param| match param.kind {
                ParamKind::Session => format!("(int){}", camel(param.name)),
                _ => camel(param.name),
            })
            .collect();
        let mut native_call = vec!["handle".to_owned()];
        native_call.extend(native_args);
        native_call.push("out reply".to_owned());
        let name = pascal(action.method);
        let reply = class(action.reply);

        doc(action, &mut out, &[]);
        out.push_str(&format!(
            "        public {reply} {name}({})\n        {{\n{checks}            ReplyHandle \
             reply;\n            int code = NativeMethods.verify_{}({});\n            return \
             Finish(code, reply, h => new {reply}(h));\n        }}\n\n",
            params.join(", "),
            action.method,
            native_call.join(", "),
        ));

        let runs = format!("Runs <see cref=\"{name}\"/> on the thread pool; a");
        doc(
            action,
            &mut out,
            &[
                &runs,
                "cancelled <paramref name=\"cancellationToken\"/> stops it only before it starts",
                "(see <see cref=\"Client\"/>).",
            ],
        );
        let mut async_params = params.clone();
        async_params
            .push("CancellationToken cancellationToken = default(CancellationToken)".to_owned());
        out.push_str(&format!(
            "        public Task<{reply}> {name}Async({})\n        {{\n{checks}            return \
             Run(() => {name}({}), cancellationToken);\n        }}\n\n",
            async_params.join(", "),
            args.join(", "),
        ));
    }
    out
}
