//! The generated files of the Python package, `bindings/python/src/verify/_generated/`, whole
//! files: `codes.py` (the `Code` enum and the code classes, from the code table),
//! `exceptions.py` (an exception class per family of codes: [`families`]), `enums.py` and
//! `native.py` (the enums and every ctypes declaration: [`native`]), `results.py` (one frozen
//! dataclass per reply view: [`dataclasses`]) and `actions.py` (the methods of `Client` and of
//! `AsyncClient`: [`methods`]). `codes.py`, `enums.py` and `native.py` import nothing of the
//! package but `_library` (the lowest floor); the others stand on the hand-written modules.
//!
//! Python names drop the C prefixes (`Code.TIMEOUT` for `VERIFY_ERR_TIMEOUT`; the previous
//! release's `Code.ERR_TIMEOUT` stays an alias) and call a machine code `machine_code`.

pub mod dataclasses;
pub mod families;
pub mod methods;
pub mod native;

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
            format!("{DIR}/exceptions.py"),
            families::exceptions(
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
            dataclasses::results(
                schema,
                &header("the action table (core/src/actions/table.rs)"),
            ),
        ),
        Output::file(
            format!("{DIR}/actions.py"),
            methods::methods(
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

/// The `_missing_` of an enum that later versions of the library may give values of that this
/// version does not name (the codes, an open enum): such a value is a member of its own,
/// `UNKNOWN_<number>`, equal to its number, made when it comes (never listed or iterated), so
/// that what the library gives is always of its enum's type. In `codes.py` and `enums.py`,
/// which import nothing of the package.
pub const OPEN_MISSING: &str = "    @classmethod
    def _missing_(cls, value: object) -> Any:
        if not isinstance(value, int) or isinstance(value, bool):
            return None
        member = int.__new__(cls, value)
        member._name_ = f\"UNKNOWN_{value}\"
        member._value_ = value
        return member
";

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
         1001..1024) and\nnegative codes for local failures.\"\"\"\n\nimport enum\nfrom typing \
         import Any\n\n\nclass Code(enum.IntEnum):\n{}\n",
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
    out.push_str(OPEN_MISSING);
    out.push_str(
        "\n    def __str__(self) -> str:\n        return int.__repr__(self)\n\n    def \
         __format__(self, format_spec: str) -> str:\n        return int.__format__(self, \
         format_spec)\n\n",
    );
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
