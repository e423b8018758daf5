//! `results.py`: one frozen dataclass per reply view of the action table. A field the service
//! gives on every success (`always` in the table) is typed without `Optional`, and a success
//! without it raises `verify.ProtocolError` carrying the reply; the others are `Optional`.

use verify_core::actions::{FieldSpec, FieldType, ReplySpec};

use crate::schema::Schema;
use crate::text::doc_lines;

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

/// The Python type of a typed field's value, and the `Reply` reader that reads it (its
/// pointer as bytes: the private readers skip the checks of the public `get_*`).
fn field_type(field: &FieldSpec) -> (&'static str, &'static str) {
    match field.ty {
        FieldType::Time => ("datetime", "_time"),
        FieldType::Str => ("str", "_str"),
        FieldType::Int => ("int", "_int"),
        FieldType::Bool => ("bool", "_bool"),
        FieldType::Map => ("Dict[str, str]", "_map"),
    }
}

fn own_fields(reply: &ReplySpec) -> impl Iterator<Item = &'static FieldSpec> {
    reply
        .fields
        .iter()
        .filter(|field| !BASE_MEMBERS.contains(&field.name))
}

/// `results.py`.
pub fn results(schema: &Schema, head: &str) -> String {
    let mut out = format!(
        "{head}\"\"\"The typed results: one frozen dataclass per reply view of the action \
         table.\"\"\"\n\nfrom __future__ import annotations\n\nfrom dataclasses import \
         dataclass, field\nfrom datetime import datetime\nfrom typing import Dict, Optional\n\n\
         from .._reply import Reply\nfrom .._result import Result, present\n"
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
        let always = own_fields(reply).any(|field| field.always);
        let optional = own_fields(reply).any(|field| !field.always);
        let mut about = String::new();
        if always {
            about.push_str(
                "A field the service gives on every success is never None (a success without \
                 one raises :class:`verify.ProtocolError`, carrying the reply). ",
            );
        }
        if optional {
            about.push_str(if always {
                "An ``Optional`` field is None when the server left it out or sent another \
                 type. "
            } else {
                "Each field is None when the server left it out or sent another type. "
            });
        }
        about.push_str(
            "Times are in UTC+08:00. Every field, those the action table does not name too, \
             stays readable by JSON Pointer through ``reply``.",
        );
        out.push_str("\n\n");
        out.push_str(&crate::text::wrapped(&about, "   ", 100).join("\n"));
        out.push_str("\n    \"\"\"\n\n");
        for field in own_fields(reply) {
            let (ty, _) = field_type(field);
            let ty = if field.always {
                ty.to_owned()
            } else {
                format!("Optional[{ty}]")
            };
            let secret = SECRET_FIELDS.contains(&field.name);
            let annotation = if secret {
                format!("{ty} = field(repr=False)")
            } else {
                ty
            };
            out.push_str(&format!("    {}: {annotation}\n", field.name));
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
            let read = format!("reply.{}(b\"/data/{}\")", field_type(field).1, field.name);
            if field.always {
                out.push_str(&format!(
                    "            {0}=present(reply, {read}, \"{0}\"),\n",
                    field.name
                ));
            } else {
                out.push_str(&format!("            {}={read},\n", field.name));
            }
        }
        out.push_str("            **Result._common(reply),\n        )\n");
    }
    out
}
