//! The C# enums of the C ABI, one file each (`EventKind.g.cs`, ...), and `ResultCodes.g.cs`,
//! the code table's classes (`IsSuccess`, `IsConfigurationRefusal`, `KeepsOfflineVerdict`).

use verify_core::codes::CodeClass;

use super::{code_member, file, xml};
use crate::schema::{EnumSpec, IntType, Schema};
use crate::text::pascal;

/// The generated files: (file name in `Generated/`, text).
pub fn files(schema: &Schema) -> Vec<(String, String)> {
    let mut files: Vec<(String, String)> = schema
        .enums
        .iter()
        .map(|spec| {
            (
                format!("{}.g.cs", spec.csharp_name()),
                file(
                    "the enums (codegen/src/schema/enums.rs)",
                    if spec.flags { &["System"] } else { &[] },
                    &enumeration(spec),
                ),
            )
        })
        .collect();
    files.push((
        "ResultCodes.g.cs".to_owned(),
        file("the code table (core/src/codes.rs)", &[], &classes(schema)),
    ));
    files
}

fn enumeration(spec: &EnumSpec) -> String {
    let c_names: Vec<String> = spec.members.iter().map(|m| spec.c_name(m)).collect();
    let mut summary = format!("{} (<c>{}*</c>)", xml(spec.doc), spec.prefix);
    if spec.open {
        summary
            .push_str(" Later versions may add values: one not named here is kept as its number.");
    }
    let mut out = format!("    /// <summary>{summary}</summary>\n");
    let base = match spec.ty {
        IntType::I32 => "",
        IntType::U32 => " : uint",
    };
    if spec.flags {
        out.push_str("    [Flags]\n");
    }
    out.push_str(&format!(
        "    public enum {}{base}\n    {{\n",
        spec.csharp_name()
    ));
    if spec.flags {
        out.push_str("        /// <summary>None of the flags.</summary>\n        None = 0,\n\n");
    }
    for (member, c_name) in spec.members.iter().zip(&c_names) {
        out.push_str(&format!(
            "        /// <summary>{} (<c>{c_name}</c>)</summary>\n        {} = {},\n\n",
            xml(member.doc),
            pascal(member.name),
            member.value
        ));
    }
    out.truncate(out.trim_end().len());
    out.push_str("\n    }\n");
    out
}

/// The C# name of a class's test.
fn class_method(class: CodeClass) -> &'static str {
    match class {
        CodeClass::Success => "IsSuccess",
        CodeClass::ConfigurationRefusal => "IsConfigurationRefusal",
        CodeClass::KeepsOfflineVerdict => "KeepsOfflineVerdict",
    }
}

fn classes(schema: &Schema) -> String {
    let mut out = String::from(
        "    /// <summary>The classes of the code table that the binding branches on.</summary>\n    \
         internal static class ResultCodes\n    {\n",
    );
    for class in schema.classes {
        let tests: Vec<String> = class
            .codes()
            .iter()
            .filter_map(|code| schema.codes.iter().find(|row| row.code == *code))
            .map(|row| format!("code == ResultCode.{}", code_member(row.name)))
            .collect();
        out.push_str(&format!(
            "        /// <summary>Whether <paramref name=\"code\"/> is {}.</summary>\n        \
             /// <param name=\"code\">Any result code.</param>\n        \
             internal static bool {}(ResultCode code)\n        {{\n            return {};\n        }}\n\n",
            xml(class.doc()),
            class_method(*class),
            tests.join("\n                || ")
        ));
    }
    out.truncate(out.trim_end().len());
    out.push_str("\n    }\n");
    out
}
