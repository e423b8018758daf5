//! The generated sections of `bindings/csharp/Verify.cs`: the `ResultCode` members, the
//! native declarations of the action table's functions, and the `Client` methods (each
//! action blocking, and as a `Task` with an `...Async` name).

use verify_core::actions::{ActionSpec, FieldType, ParamKind};
use verify_core::codes::TABLE;

use super::{actions, camel, doc_lines, pascal, trailing_optional};

pub fn sections() -> Vec<(&'static str, String)> {
    vec![
        ("codes", codes()),
        ("native", native()),
        ("actions", methods()),
    ]
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
                "        /// <summary>{} (<c>VERIFY_{}</c>).</summary>\n        {} = {},\n",
                xml(row.text),
                row.name,
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
        out.push_str(
            "        /// <remarks>Reply fields on 200 (each may be absent: the getters return \
             null):\n",
        );
        for field in reply.fields {
            let getter = match field.ty {
                FieldType::Str => "GetString",
                FieldType::Int => "GetInt64",
                FieldType::Bool => "GetBool",
                FieldType::Map => "GetJson",
            };
            out.push_str(&format!(
                "        /// <c>{getter}(\"/data/{}\")</c>: {}.\n",
                field.name,
                xml(field.doc)
            ));
        }
        out.push_str("        /// </remarks>\n");
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
                ParamKind::Session => String::new(),
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

        doc(action, &mut out, &[]);
        out.push_str(&format!(
            "        public Reply {name}({})\n        {{\n{checks}            ReplyHandle \
             reply;\n            int code = NativeMethods.verify_{}({});\n            return \
             Finish(code, reply);\n        }}\n\n",
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
            "        public Task<Reply> {name}Async({})\n        {{\n{checks}            return \
             Run(() => {name}({}), cancellationToken);\n        }}\n\n",
            async_params.join(", "),
            args.join(", "),
        ));
    }
    out
}
