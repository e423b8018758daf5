//! The generated files of the Python package, `bindings/python/src/verify/_generated/`, whole
//! files: `codes.py` (the `Code` enum and the code classes, from the code table), `errors.py`
//! (an exception class per family of codes: [`errors`]), `enums.py` and `native.py` (the
//! enums and every ctypes declaration: [`native`]), `results.py` (one frozen dataclass per
//! reply view: [`results`]) and `actions.py` (the methods of `Client` and of `AsyncClient`:
//! [`actions`]).
//!
//! Python names drop the C prefixes (`Code.TIMEOUT` for `VERIFY_ERR_TIMEOUT`; the previous
//! release's `Code.ERR_TIMEOUT` stays an alias) and call a machine code `machine_code`.

pub mod actions;
pub mod errors;
pub mod native;
pub mod results;

use verify_core::codes::CodeClass;

use super::banner;
use crate::schema::Schema;
use crate::Output;

/// The folder of the generated files, from the repository root.
pub const DIR: &str = "bindings/python/src/verify/_generated";

/// Every generated file: (path from the repository root, content).
pub fn files(schema: &Schema) -> Result<Vec<Output>, String> {
    Ok(vec![
        Output::file(format!("{DIR}/__init__.py"), init()),
        Output::file(format!("{DIR}/codes.py"), codes(schema)),
        Output::file(
            format!("{DIR}/errors.py"),
            errors::errors(
                schema,
                &header("the error families (codegen/src/schema/errors.rs) and the code table"),
            ),
        ),
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
        Output::file(
            format!("{DIR}/results.py"),
            results::results(
                schema,
                &header("the action table (core/src/actions/table.rs)"),
            ),
        ),
        Output::file(
            format!("{DIR}/actions.py"),
            actions::methods(
                schema,
                &header("the action table (core/src/actions/table.rs)"),
            ),
        ),
        Output::Folder {
            path: DIR.to_owned(),
        },
    ])
}

/// The generated file's first lines.
fn header(from: &str) -> String {
    crate::text::wrapped(&banner(from), "#", 100).join("\n") + "\n"
}

/// Text for a docstring: backslashes and triple quotes cannot end it early; `code` in double
/// backticks (reStructuredText's literal).
pub fn doc(text: &str) -> String {
    text.replace('\\', "\\\\")
        .replace("\"\"\"", "\\\"\\\"\\\"")
        .replace('`', "``")
        .replace("````", "``")
}

/// A docstring of `text` at `indent`, wrapped at 100 columns.
pub fn docstring(text: &str, indent: &str) -> String {
    let lines = crate::text::wrapped(&doc(text), indent, 96);
    let body: Vec<&str> = lines
        .iter()
        .map(|l| l[indent.len()..].trim_start())
        .collect();
    format!(
        "{indent}\"\"\"{}\"\"\"\n",
        body.join(&format!("\n{indent}"))
    )
}

/// The Python name of a code of the table: its C name without `VERIFY_` and without `ERR_`.
pub fn code_name(name: &str) -> &str {
    name.strip_prefix("ERR_").unwrap_or(name)
}

fn init() -> String {
    let head = header("the schema");
    format!("{head}\"\"\"The parts of the package generated from the tables.\"\"\"\n")
}

fn codes(schema: &Schema) -> String {
    let head = header("the code table (core/src/codes.rs)");
    let mut out = format!(
        "{head}\"\"\"The result codes: one code space, the server's own (200, 201, 202, \
         1001..1024) and\nnegative codes for local failures.\"\"\"\n\nfrom .._enum_base import \
         NumberEnum\n\n\nclass Code(NumberEnum):\n{}\n",
        docstring(
            "Every result code of the library (`VERIFY_*` in verify.h), named without the C \
             prefixes (`TIMEOUT` for `VERIFY_ERR_TIMEOUT`). A code this version does not name \
             (a later server's) is a `Code` too, `UNKNOWN_<number>`. `str()` and `format()` \
             give the number; `verify.describe()` and `verify.user_message()` its words.",
            "    "
        )
    );
    for row in schema.codes {
        out.push_str(&format!(
            "    {} = {}\n{}\n",
            code_name(row.name),
            row.code,
            docstring(&format!("{} (`VERIFY_{}`).", row.text, row.name), "    ")
        ));
    }
    out.push_str(
        "    # The names of the previous release, with the C prefix: aliases of the members above\n    \
         # (``Code.ERR_TIMEOUT is Code.TIMEOUT``), deprecated, removed in the next release.\n\n",
    );
    for row in schema
        .codes
        .iter()
        .filter(|row| code_name(row.name) != row.name)
    {
        out.push_str(&format!(
            "    {} = {}\n    \"\"\"Deprecated: :attr:`{}`.\"\"\"\n\n",
            row.name,
            row.code,
            code_name(row.name)
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
pub fn class_name(class: CodeClass) -> &'static str {
    match class {
        CodeClass::Success => "SUCCESSES",
        CodeClass::ConfigurationRefusal => "CONFIGURATION_REFUSALS",
        CodeClass::KeepsOfflineVerdict => "KEEPS_OFFLINE_VERDICT",
    }
}
