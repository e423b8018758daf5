//! `exceptions.py`: an exception class per family of codes ([`crate::schema::errors::FAMILIES`]),
//! under the hand-written root `verify.VerifyError`, with the built-in exception a Python
//! developer catches for it as a second base (`NetworkError` is a `ConnectionError`); the
//! class of every code of the table, and `error_class(code)` for any code.

use crate::schema::errors::{family_of, Codes, Family};
use crate::schema::Schema;

use super::{code_name, docstring};

/// The built-in exception each family also is, by the family's name: what `except` a Python
/// program already has for such a failure.
const BUILTIN_BASES: &[(&str, &str)] = &[
    ("NetworkError", "ConnectionError"),
    ("Timeout", "TimeoutError"),
    ("InvalidArgument", "ValueError"),
];

/// The Python class of the family named `name`.
fn python_name(name: &str) -> &'static str {
    crate::schema::errors::FAMILIES
        .iter()
        .find(|family| family.name == name)
        .map_or("VerifyError", Family::python_name)
}

/// The codes a family lists, in words for its docstring.
fn codes_doc(schema: &Schema, family: &Family) -> String {
    match family.codes {
        Codes::Refusals => "Codes: every refusal of the server (a positive code that is not a \
                            success) that no narrower class has, those this version does not \
                            name too."
            .to_owned(),
        _ => {
            let named: Vec<String> = schema
                .codes
                .iter()
                .filter(|row| family.has(row.code))
                .map(|row| format!("`Code.{}` ({})", code_name(row.name), row.code))
                .collect();
            format!("Codes: {}.", named.join(", "))
        }
    }
}

/// `exceptions.py`.
pub fn exceptions(schema: &Schema, head: &str) -> String {
    let mut out = format!(
        "{head}\"\"\"The exception classes: one per family of result codes (what the program \
         or its user does about\na failure), under :class:`verify.VerifyError`; \
         :func:`error_class` gives a code's.\"\"\"\n\nfrom __future__ import annotations\n\n\
         from typing import Dict, Type\n\nfrom .._errors import VerifyError\nfrom .codes \
         import SUCCESSES\n"
    );
    for family in schema.families {
        let parent = family.parent.map_or("VerifyError", python_name);
        let builtin = BUILTIN_BASES
            .iter()
            .find(|(name, _)| *name == family.name)
            .map(|(_, base)| format!(", {base}"))
            .unwrap_or_default();
        let doc = docstring(
            &format!("{} {}", family.doc, codes_doc(schema, family)),
            "    ",
        );
        out.push_str(&format!(
            "\n\nclass {}({parent}{builtin}):\n{doc}",
            family.python_name()
        ));
    }
    out.push_str(
        "\n\n#: The class of each code of the table that a narrower class than \
         :class:`verify.VerifyError` has.\nCLASSES: Dict[int, Type[VerifyError]] = {\n",
    );
    for row in schema.codes {
        if let Some(family) = family_of(row.code) {
            out.push_str(&format!(
                "    {}: {},  # {}\n",
                row.code,
                family.python_name(),
                code_name(row.name)
            ));
        }
    }
    let refusals = schema
        .families
        .iter()
        .find(|family| family.codes == Codes::Refusals)
        .map_or("VerifyError", Family::python_name);
    out.push_str(&format!(
        "}}\n\n\ndef error_class(code: int) -> Type[VerifyError]:\n    \"\"\"The exception \
         class of a failure with ``code``: its family's, :class:`{refusals}` for a\n    \
         refusal of the server this version does not name, else \
         :class:`verify.VerifyError`.\"\"\"\n    found = CLASSES.get(code)\n    if found is not \
         None:\n        return found\n    if code > 0 and code not in SUCCESSES:\n        \
         return {refusals}\n    return VerifyError\n"
    ));
    out
}
