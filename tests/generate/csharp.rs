//! The generated sections of `bindings/csharp/Verify.cs`: the `ResultCode` members, the
//! native declarations of the action table's functions, and the `Client` methods.

use verify_core::actions::ParamKind;
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

fn codes() -> String {
    TABLE
        .iter()
        .map(|row| {
            format!(
                "        /// <summary>{}.</summary>\n        {} = {},\n",
                row.text,
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
        out.push_str("            out IntPtr reply);\n\n");
    }
    out
}

fn methods() -> String {
    let mut out = String::new();
    for action in actions() {
        out.push_str("        /// <summary>\n");
        for line in doc_lines(action.doc) {
            out.push_str(&format!(
                "        /// {}\n",
                line.replace('&', "&amp;").replace('<', "&lt;")
            ));
        }
        out.push_str("        /// </summary>\n");
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
        let args: Vec<String> = action
            .params
            .iter()
            .map(|param| match param.kind {
                ParamKind::Session => format!("(int){}", camel(param.name)),
                _ => camel(param.name),
            })
            .collect();
        let mut native_args = vec!["Handle".to_owned()];
        native_args.extend(args);
        native_args.push("out reply".to_owned());
        out.push_str(&format!(
            "        public Reply {}({}) =>\n            \
             Finish((out IntPtr reply) => NativeMethods.verify_{}({}));\n\n",
            pascal(action.method),
            params.join(", "),
            action.method,
            native_args.join(", ")
        ));
    }
    out
}
