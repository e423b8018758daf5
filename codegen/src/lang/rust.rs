//! The Rust sources of the C ABI generated from the schema, under `src/generated/`:
//! `codes.rs` (the `VERIFY_*` code constants), `enums.rs` (the constants of every enum),
//! `actions.rs` (one `extern "system"` function per action) and `mod.rs`. cbindgen reads
//! them with the rest of `src/` for `verify.h`.

use verify_core::actions::{FieldType, ParamKind};

use super::banner;
use crate::schema::enums::Home;
use crate::schema::{IntType, Schema};
use crate::text::{capitalized, doc_lines, pascal, rustfmt, wrapped};

/// Every generated Rust source: its path from the repository's root and its text.
pub fn files(schema: &Schema) -> Result<Vec<(String, String)>, String> {
    Ok(vec![
        ("src/generated/mod.rs".to_owned(), module()?),
        ("src/generated/codes.rs".to_owned(), codes(schema)?),
        ("src/generated/enums.rs".to_owned(), enums(schema)?),
        ("src/generated/actions.rs".to_owned(), actions(schema)?),
    ])
}

/// The generated file's first lines.
fn head(from: &str) -> String {
    wrapped(&banner(from), "//", 100).join("\n") + "\n"
}

fn module() -> Result<String, String> {
    rustfmt(&format!(
        "{}\n//! The files of the C ABI generated from the schema (codegen/): the code and enum\n\
         //! constants of `verify.h` and the functions of the action table.\n\n\
         mod actions;\n\
         // The code constants are for the header; the library reads verify-core's table.\n\
         #[allow(dead_code)]\nmod codes;\npub(crate) mod enums;\n",
        head("the code table, the enums and the action table")
    ))
}

/// The code constants, one per row of the code table.
fn codes(schema: &Schema) -> Result<String, String> {
    let mut out = head("the code table (core/src/codes.rs)");
    out.push_str("\n//! The result codes of the C ABI (verify-core's code table).\n\n");
    for row in schema.codes {
        // The header and verify.hpp stay ASCII (MSVC on Chinese Windows reads a source
        // without a byte-order mark in code page 936 and warns, C4819, at every other
        // character): the Chinese messages are in README.zh-CN.md and the bindings.
        out.push_str(&format!(
            "/// {}.\n///\n{}pub const VERIFY_{}: i32 = {};\n",
            capitalized(row.text),
            doc_wrapped(&format!(
                "End user (`verify_code_user_message`, en): \"{}\"",
                row.user.en
            )),
            row.name,
            row.code
        ));
    }
    rustfmt(&out)
}

/// The doc of an enum member's C constant: what the enum is, then the member's doc (its
/// first word in small letters unless it is a name: `CPUID's`, `Mozilla's`).
pub fn member_doc(what: &str, doc: &str) -> String {
    let first = doc.split(' ').next().unwrap_or_default();
    let capitals = first.chars().filter(char::is_ascii_uppercase).count();
    let named = capitals != 1 || first.starts_with("Mozilla");
    let mut chars = doc.chars();
    let doc = match chars.next() {
        Some(initial) if !named => initial.to_ascii_lowercase().to_string() + chars.as_str(),
        _ => doc.to_owned(),
    };
    format!("{what}: {doc}")
}

/// The constants of every enum whose home is the generated file, with a compile-time check
/// against the core's own numbers where it has them; a compile-time check of those written
/// by hand elsewhere in `src/`.
fn enums(schema: &Schema) -> Result<String, String> {
    let mut out = head("the enums (codegen/src/schema/enums.rs)");
    out.push_str(
        "\n//! The constants of the C ABI's enums (`verify.h`). Hosts must accept values \
         added in later\n//! versions where an enum says so.\n\n",
    );
    for spec in schema.enums {
        let ty = match spec.ty {
            IntType::I32 => "i32",
            IntType::U32 => "u32",
        };
        match spec.home {
            Home::Generated => {
                out.push_str(&format!("// {}: {}\n\n", spec.name, spec.doc));
                for member in spec.members {
                    out.push_str(&doc_wrapped(&member_doc(spec.c_what, member.doc)));
                    out.push_str(&format!(
                        "pub const {}: {ty} = {};\n",
                        spec.c_name(member),
                        member.value
                    ));
                }
                out.push('\n');
                if let Some(core) = spec.core {
                    out.push_str(&format!(
                        "// The core numbers {} too: the same numbers, or no build.\n",
                        spec.name
                    ));
                    for member in spec.members {
                        out.push_str(&format!(
                            "const _: () = assert!({} == {});\n",
                            core.replace("{}", &pascal(member.name)),
                            spec.c_name(member)
                        ));
                    }
                    out.push('\n');
                }
            }
            Home::HandWritten(file) => {
                let module = file
                    .strip_prefix("src/")
                    .and_then(|f| f.strip_suffix(".rs"))
                    .ok_or_else(|| {
                        format!("{}: its home {file} is not a file of src/", spec.name)
                    })?;
                out.push_str(&format!(
                    "// {}: written in {file}; these are the schema's numbers.\n",
                    spec.name
                ));
                for member in spec.members {
                    out.push_str(&format!(
                        "const _: () = assert!(crate::{module}::{} == {});\n",
                        spec.c_name(member),
                        member.value
                    ));
                }
                out.push('\n');
            }
        }
    }
    rustfmt(&out)
}

/// `text` as `///` lines of at most 96 columns (the header's lines, indented by ` * `, stay
/// within 100).
fn doc_wrapped(text: &str) -> String {
    wrapped(text, "///", 96).join("\n") + "\n"
}

/// The C type name of a field type, for docs.
pub fn field_type_name(ty: FieldType) -> &'static str {
    match ty {
        FieldType::Str => "string",
        FieldType::Time => "time (UTC+08:00)",
        FieldType::Int => "integer",
        FieldType::Bool => "boolean",
        FieldType::Map => "object of strings",
    }
}

/// One `extern "system"` function per action of the table.
fn actions(schema: &Schema) -> Result<String, String> {
    let mut out = head("the action table (core/src/actions/table.rs)");
    out.push_str(
        "\n//! The calls of the action table (verify-core's `actions/table.rs`), one per entry.\n\n\
         use std::ffi::c_char;\n\n\
         use verify_core::actions::request;\n\n\
         use crate::client::{answer, session_kind, verify_client};\n\
         use crate::guard::{optional_str, required_str};\n\
         use crate::reply::verify_reply;\n\n",
    );
    for action in schema.actions {
        for line in doc_lines(action.doc) {
            out.push_str(&format!("/// {line}\n"));
        }
        if let Some(reply) = action.reply_spec() {
            out.push_str("///\n");
            for line in doc_lines(reply.doc).into_iter().filter(|l| !l.is_empty()) {
                out.push_str(&format!("/// {line}\n"));
            }
        }
        out.push_str("///\n/// Parameters:");
        if action.params.is_empty() {
            out.push_str(" none.");
        }
        out.push('\n');
        for param in action.params {
            let how = match param.kind {
                ParamKind::Required => "required, not empty",
                ParamKind::Optional => "optional: NULL or empty is not sent",
                ParamKind::Session => "`VERIFY_SESSION_CARD` or `VERIFY_SESSION_USER`",
            };
            out.push_str(&format!(
                "/// - `{}` (`{}`): {how}.\n",
                param.name, param.wire
            ));
        }
        if let Some(reply) = action.reply_spec() {
            out.push_str(
                "///\n/// Reply fields (read with the `verify_reply_*` accessors; each may be \
                 absent):\n",
            );
            for field in reply.fields {
                out.push_str(&format!(
                    "/// - `/data/{}` ({}): {}.\n",
                    field.name,
                    field_type_name(field.ty),
                    field.doc
                ));
            }
        }
        out.push_str(
            "///\n/// Returns 200 (201 pending), the server's refusal code, or a negative local \
             code. Ownership: `*out` is set to NULL first, then to a new reply whenever the \
             server answered (refusals included), which the caller frees with \
             `verify_reply_free`. Thread-safety: any thread.\n",
        );
        // The parameters that may be NULL, for the schema (cbindgen keeps the line out of
        // the header).
        let optional: Vec<&str> = action
            .params
            .iter()
            .filter(|param| param.kind == ParamKind::Optional)
            .map(|param| param.name)
            .collect();
        if !optional.is_empty() {
            out.push_str(&format!(
                "/// cbindgen:optional=[{}]\n",
                optional.join(", ")
            ));
        }
        out.push_str(&format!(
            "#[no_mangle]\npub extern \"system\" fn verify_{}(\nclient: *const verify_client,\n",
            action.method
        ));
        for param in action.params {
            let ty = match param.kind {
                ParamKind::Session => "i32",
                _ => "*const c_char",
            };
            out.push_str(&format!("{}: {ty},\n", param.name));
        }
        out.push_str("out: *mut *mut verify_reply,\n) -> i32 {\n");
        let args: Vec<String> = action
            .params
            .iter()
            .map(|param| match param.kind {
                ParamKind::Required => format!("&required_str({0}, \"{0}\")?", param.name),
                ParamKind::Optional => {
                    format!("optional_str({0}, \"{0}\")?.as_deref()", param.name)
                }
                ParamKind::Session => format!("session_kind({})?", param.name),
            })
            .collect();
        let build = if args.is_empty() {
            format!("request::{}", action.method)
        } else {
            format!("|| request::{}({})", action.method, args.join(", "))
        };
        out.push_str(&format!(
            "// SAFETY: the caller's contract on every pointer.\n\
             unsafe {{ answer(client, out, {build}) }}\n}}\n\n"
        ));
    }
    rustfmt(&out)
}
