//! The generated files of the Python package, `bindings/python/src/verify/_generated/`, whole
//! files: `codes.py` (the `Code` enum and the code classes, from the code table), `enums.py`
//! and `native.py` (the enums and every ctypes declaration: [`native`]), `results.py` (one
//! frozen dataclass per reply view) and `actions.py` (the `Client` methods, each blocking and
//! as a coroutine `..._async`, returning their typed result).

pub mod native;

use verify_core::actions::{ActionSpec, FieldSpec, FieldType, ParamKind, ReplySpec};
use verify_core::codes::CodeClass;

use super::banner;
use crate::schema::{trailing_optional, Schema};
use crate::text::doc_lines;
use crate::Output;

/// The folder of the generated files, from the repository root.
pub const DIR: &str = "bindings/python/src/verify/_generated";

/// Every generated file: (path from the repository root, content).
pub fn files(schema: &Schema) -> Result<Vec<Output>, String> {
    Ok(vec![
        Output::file(format!("{DIR}/__init__.py"), init()),
        Output::file(format!("{DIR}/codes.py"), codes(schema)),
        Output::file(
            format!("{DIR}/native.py"),
            native::native(
                schema,
                &header("the C ABI's declarations (src/, read by cbindgen)"),
            )?,
        ),
        Output::file(
            format!("{DIR}/enums.py"),
            native::enums(schema, &header("the enums (codegen/src/schema/enums.rs)")),
        ),
        Output::file(format!("{DIR}/results.py"), results(schema)),
        Output::file(format!("{DIR}/actions.py"), methods(schema)),
        Output::Folder {
            path: DIR.to_owned(),
        },
    ])
}

/// The generated file's first lines.
fn header(from: &str) -> String {
    crate::text::wrapped(&banner(from), "#", 100).join("\n") + "\n"
}

/// Fields of the base `Result` (and its properties): a table field of the same name is not
/// repeated in a result.
const BASE_MEMBERS: &[&str] = &["code", "message", "offline", "reply", "ok", "pending"];

/// Fields that hold a secret (a session token, a card key, a machine code): left out of the
/// dataclass's `repr`, so that printing a result never shows them.
const SECRET_FIELDS: &[&str] = &["token", "card", "device_id"];

/// Text for a docstring: backslashes and triple quotes cannot end it early.
fn doc_text(text: &str) -> String {
    text.replace('\\', "\\\\").replace("\"\"\"", "\\\"\\\"\\\"")
}

fn init() -> String {
    let head = header("the schema");
    format!("{head}\"\"\"The parts of the package generated from the tables.\"\"\"\n")
}

fn codes(schema: &Schema) -> String {
    let head = header("the code table (core/src/codes.rs)");
    let mut out = format!(
        "{head}\"\"\"The result codes: one code space, the server's own (200, 201, 202, \
         1001..1024) and\nnegative codes for local failures.\"\"\"\n\nimport enum\n\n\n\
         class Code(enum.IntEnum):\n    \"\"\"Every result code of the library (`VERIFY_*` in \
         verify.h). A code not listed here\n    (a later server's) still arrives as an `int`.\
         \"\"\"\n\n"
    );
    for row in schema.codes {
        out.push_str(&format!(
            "    {} = {}\n    \"\"\"{} (`VERIFY_{}`).\"\"\"\n\n",
            row.name,
            row.code,
            doc_text(row.text),
            row.name
        ));
    }
    out.truncate(out.trim_end().len());
    out.push('\n');
    for class in schema.classes {
        let codes: Vec<String> = class.codes().iter().map(i32::to_string).collect();
        let comment = crate::text::wrapped(
            &format!("The codes of the code table's class: {}.", class.doc()),
            "#:",
            100,
        );
        out.push_str(&format!(
            "\n{}\n{} = frozenset({{{}}})\n",
            comment.join("\n"),
            class_name(*class),
            codes.join(", ")
        ));
    }
    out
}

/// The Python name of a class's set of codes.
fn class_name(class: CodeClass) -> &'static str {
    match class {
        CodeClass::Success => "SUCCESSES",
        CodeClass::ConfigurationRefusal => "CONFIGURATION_REFUSALS",
        CodeClass::KeepsOfflineVerdict => "KEEPS_OFFLINE_VERDICT",
    }
}

/// The Python type of a typed field, and the `Reply` reader that reads it (its pointer as
/// bytes: the private readers skip the checks of the public `get_*`).
fn field_type(field: &FieldSpec) -> (&'static str, &'static str) {
    match field.ty {
        FieldType::Time => ("Optional[datetime]", "_time"),
        FieldType::Str => ("Optional[str]", "_str"),
        FieldType::Int => ("Optional[int]", "_int"),
        FieldType::Bool => ("Optional[bool]", "_bool"),
        FieldType::Map => ("Optional[Dict[str, str]]", "_map"),
    }
}

fn own_fields(reply: &ReplySpec) -> impl Iterator<Item = &'static FieldSpec> {
    reply
        .fields
        .iter()
        .filter(|field| !BASE_MEMBERS.contains(&field.name))
}

fn results(schema: &Schema) -> String {
    let head = header("the action table (core/src/actions/table.rs)");
    let mut out = format!(
        "{head}\"\"\"The typed results: one frozen dataclass per reply view of the action \
         table.\"\"\"\n\nfrom __future__ import annotations\n\nfrom dataclasses import \
         dataclass, field\nfrom datetime import datetime\nfrom typing import Dict, Optional\n\n\
         from .._reply import Reply\nfrom .._result import Result\n"
    );
    for reply in schema.replies {
        out.push_str(&format!(
            "\n\n@dataclass(frozen=True)\nclass {}(Result):\n    \"\"\"",
            reply.name
        ));
        let lines: Vec<&str> = doc_lines(reply.doc)
            .into_iter()
            .filter(|l| !l.is_empty())
            .collect();
        out.push_str(&doc_text(&lines.join("\n    ")));
        out.push_str(
            "\n\n    Each field is None when the server left it out or sent another type; \
             times are in\n    UTC+08:00. Every field, those the action table does not name too, stays \
             readable by JSON\n    Pointer through ``reply``.\n    \"\"\"\n\n",
        );
        for field in own_fields(reply) {
            let (ty, _) = field_type(field);
            let secret = SECRET_FIELDS.contains(&field.name);
            let default = if secret {
                "field(default=None, repr=False)"
            } else {
                "None"
            };
            out.push_str(&format!("    {}: {ty} = {default}\n", field.name));
            let unit = if field.ty == FieldType::Time {
                " The service's time, in UTC+08:00."
            } else {
                ""
            };
            let hidden = if secret { " Not in ``repr``." } else { "" };
            out.push_str(&format!(
                "    \"\"\"``{}``: {}.{unit}{hidden}\"\"\"\n\n",
                field.name,
                doc_text(field.doc).replace('`', "``").replace("````", "``")
            ));
        }
        out.push_str(&format!(
            "    @classmethod\n    def from_reply(cls, reply: Reply) -> {}:\n        \"\"\"The \
             typed result of a native reply (its fields are read now).\"\"\"\n        return \
             cls(\n",
            reply.name
        ));
        for field in own_fields(reply) {
            out.push_str(&format!(
                "            {}=reply.{}(b\"/data/{}\"),\n",
                field.name,
                field_type(field).1,
                field.name
            ));
        }
        out.push_str("            **Result._common(reply),\n        )\n");
    }
    out
}

/// The Python parameters of an action, and the arguments of its native call.
fn params(action: &ActionSpec) -> (Vec<String>, Vec<String>) {
    let mut signature = Vec::new();
    let mut native = Vec::new();
    for (index, param) in action.params.iter().enumerate() {
        let name = param.name;
        match param.kind {
            ParamKind::Required => {
                signature.push(format!("{name}: str"));
                native.push(format!("_native.arg({name}, \"{name}\")"));
            }
            ParamKind::Session => {
                signature.push(format!("{name}: SessionKind"));
                native.push(format!("int({name})"));
            }
            ParamKind::Optional => {
                if trailing_optional(action, index) {
                    signature.push(format!("{name}: Optional[str] = None"));
                } else {
                    signature.push(format!("{name}: Optional[str]"));
                }
                native.push(format!("_native.optional_arg({name}, \"{name}\")"));
            }
        }
    }
    (signature, native)
}

fn methods(schema: &Schema) -> String {
    let head = header("the action table (core/src/actions/table.rs)");
    let imports: Vec<&str> = schema.replies.iter().map(|reply| reply.name).collect();
    let mut out = format!(
        "{head}\"\"\"The actions of the service as methods of `verify.Client`: each \
         blocking, and as a coroutine\n(`..._async`), returning its typed result.\"\"\"\n\n\
         from __future__ import annotations\n\nfrom typing import Optional\n\nfrom .. import \
         _native\nfrom .._base import ClientBase\nfrom .._enums import SessionKind\nfrom \
         .results import (\n"
    );
    for name in &imports {
        out.push_str(&format!("    {name},\n"));
    }
    out.push_str(
        ")\n\n\nclass Actions(ClientBase):\n    \"\"\"The actions of the action table: each \
         raises `verify.VerifyError` when the server\n    refuses (its code, message, remark \
         and reply) or the call fails locally (a negative code).\n    \"\"\"\n",
    );
    for action in schema.actions {
        let (signature, native) = params(action);
        let mut sig = vec!["self".to_owned()];
        sig.extend(signature);
        let names: Vec<&str> = action.params.iter().map(|p| p.name).collect();
        let lines: Vec<&str> = doc_lines(action.doc)
            .into_iter()
            .filter(|l| !l.is_empty())
            .collect();
        let fields: Vec<String> = action
            .reply_spec()
            .map(|reply| reply.fields.iter().map(|f| f.name.to_owned()).collect())
            .unwrap_or_default();
        out.push_str(&format!(
            "\n    def {}({}) -> {}:\n        \"\"\"{}\n\n        Returns a :class:`{}` ({}).\n        \
             \"\"\"\n        reply = self._invoke(\n            _native.lib.verify_{},\n",
            action.method,
            sig.join(", "),
            action.reply,
            doc_text(&lines.join("\n        ")),
            action.reply,
            fields.join(", "),
            action.method
        ));
        for arg in native {
            out.push_str(&format!("            {arg},\n"));
        }
        out.push_str(&format!(
            "        )\n        return {}.from_reply(reply)\n",
            action.reply
        ));
        out.push_str(&format!(
            "\n    async def {}_async({}) -> {}:\n        \"\"\":meth:`{}` on the event loop's \
             executor.\"\"\"\n        return await self._run(self.{}{})\n",
            action.method,
            sig.join(", "),
            action.reply,
            action.method,
            action.method,
            names.iter().map(|n| format!(", {n}")).collect::<String>()
        ));
    }
    out
}
