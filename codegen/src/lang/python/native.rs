//! The Python package's view of the C ABI, from the schema's declarations: `native.py`, the
//! ctypes prototype of every export (the doctor's too), `struct verify_event`, the callback
//! types and the constants; `declare(lib)` checks the library's ABI first, then declares
//! every function. And `enums.py`: every enum of the C ABI as an `IntEnum` (`IntFlag` for
//! flags) whose `str()` is its name; an open one (a later library may give values it does
//! not name) takes such a value as a member of its own, `UNKNOWN_<number>`.

use crate::schema::{CParamKind, CType, EnumSpec, Param, Returns, Schema};

use super::docstring;

/// The ctypes type of an integer.
fn int(ty: &CType) -> &'static str {
    match ty {
        CType::Int {
            bits: 32,
            signed: true,
        } => "c_int32",
        CType::Int {
            bits: 32,
            signed: false,
        } => "c_uint32",
        CType::Int {
            bits: 64,
            signed: true,
        } => "c_int64",
        CType::Int {
            bits: 64,
            signed: false,
        } => "c_uint64",
        CType::SizeT => "c_size_t",
        _ => "c_int32",
    }
}

/// The Python name of a callback type: `verify_event_callback` → `EVENT_CALLBACK`.
fn callback(name: &str) -> String {
    name.strip_prefix("verify_")
        .unwrap_or(name)
        .to_ascii_uppercase()
}

/// The Python name of a struct: `verify_event` → `EventStruct`.
fn structure(name: &str) -> String {
    format!(
        "{}Struct",
        crate::text::pascal(name.strip_prefix("verify_").unwrap_or(name))
    )
}

fn param(param: &Param) -> String {
    match &param.kind {
        CParamKind::Int => int(&param.ty).to_owned(),
        CParamKind::Str | CParamKind::OutBuffer => "c_char_p".to_owned(),
        CParamKind::StrArray | CParamKind::OutStr => "POINTER(c_char_p)".to_owned(),
        CParamKind::Handle(_) | CParamKind::UserData => "c_void_p".to_owned(),
        CParamKind::Callback(name) => callback(name),
        CParamKind::OutInt => format!("POINTER({})", int(param.int())),
        CParamKind::OutHandle(_) => "POINTER(c_void_p)".to_owned(),
        CParamKind::Struct(name) => format!("POINTER({})", structure(name)),
    }
}

fn returns(returns: &Returns) -> String {
    match returns {
        Returns::Void => "None".to_owned(),
        Returns::Int(ty) => int(ty).to_owned(),
        Returns::Str => "c_char_p".to_owned(),
    }
}

/// `native.py`.
pub fn native(schema: &Schema, head: &str) -> Result<String, String> {
    if !schema
        .constants
        .iter()
        .any(|c| c.name == "VERIFY_ABI_VERSION")
    {
        return Err("src/ has no VERIFY_ABI_VERSION".to_owned());
    }
    let mut out = format!(
        "{head}\"\"\"The C ABI (include/verify.h) as ctypes declarations: the prototype of every \
         exported function,\nthe struct a keeper lends its callback, the callback types and the \
         constants.\n\nctypes releases the GIL for the duration of every call into the library, \
         so calls on one\nclient from several threads (or from :mod:`asyncio`'s executor) run \
         at once.\n\"\"\"\n\nfrom ctypes import (\n    POINTER,\n    Structure,\n    c_char_p,\n    \
         c_int32,\n    c_int64,\n    c_size_t,\n    c_uint32,\n    c_uint64,\n    c_void_p,\n)\n\
         from typing import Any\n\nfrom .. import _library\n\n"
    );
    for constant in &schema.constants {
        let name = constant
            .name
            .strip_prefix("VERIFY_")
            .unwrap_or(&constant.name);
        out.push_str(&format!(
            "#: ``{}`` of verify.h.\n{name} = {}\n",
            constant.name, constant.value
        ));
    }
    for item in &schema.structs {
        out.push_str(&format!(
            "\n\nclass {}(Structure):\n    \"\"\"``struct {}``, borrowed for a callback.\"\"\"\n\n    _fields_ = [\n",
            structure(&item.name),
            item.name
        ));
        for field in &item.fields {
            let ty = match &field.ty {
                CType::Ptr { .. } => "c_char_p",
                ty => int(ty),
            };
            out.push_str(&format!("        (\"{}\", {ty}),\n", field.name));
        }
        out.push_str("    ]\n");
    }
    out.push('\n');
    for item in &schema.callbacks {
        let mut types = vec![returns(&item.returns)];
        types.extend(item.params.iter().map(|p| match p.kind {
            // What the library lends crosses as a plain pointer: copied during the call.
            CParamKind::Str => "c_char_p".to_owned(),
            _ => param(p),
        }));
        let names: Vec<&str> = item.params.iter().map(|p| p.name.as_str()).collect();
        out.push_str(&format!(
            "\n#: ``{}``: ({}).\n{}: Any = _library.functype({})\n",
            item.name,
            names.join(", "),
            callback(&item.name),
            types.join(", ")
        ));
    }
    out.push_str(
        "\n\ndef declare(lib: Any) -> None:\n    \"\"\"Declares every function of the loaded \
         library, after checking that its ABI is\n    ``ABI_VERSION``.\"\"\"\n    \
         lib.verify_abi_version.restype = c_uint32\n    lib.verify_abi_version.argtypes = []\n    \
         found = lib.verify_abi_version()\n    if found != ABI_VERSION:\n        raise OSError(\n            \
         f\"verify: the native library has ABI {found}; this package needs ABI \
         {ABI_VERSION}\"\n        )\n",
    );
    for export in &schema.exports {
        if export.name == "verify_abi_version" {
            continue;
        }
        let args: Vec<String> = export.params.iter().map(param).collect();
        out.push_str(&format!(
            "    lib.{0}.argtypes = [{1}]\n    lib.{0}.restype = {2}\n",
            export.name,
            args.join(", "),
            returns(&export.returns)
        ));
    }
    Ok(out)
}

/// `enums.py`.
pub fn enums(schema: &Schema, head: &str) -> String {
    let mut out = format!(
        "{head}\"\"\"The enums of the C ABI (verify.h), from the schema's table. Later library \
         versions may add\nvalues to an enum that says so (an open one): such a value is a \
         member too, ``UNKNOWN_<number>``.\"\"\"\n\nimport enum\nfrom typing import Any\n\n\n\
         class NamedEnum(enum.IntEnum):\n    \"\"\"An enum of the C ABI: an ``int`` (equal to its \
         number) whose ``str()`` and ``format()``\n    give ``Kind.NAME`` on every Python version \
         (an ``IntEnum`` of Python 3.11 prints ``3``).\"\"\"\n\n    def __str__(self) -> str:\n        \
         return f\"{{type(self).__name__}}.{{self._name_}}\"\n\n    def __format__(self, \
         format_spec: str) -> str:\n        return str.__format__(str(self), format_spec)\n\n\n\
         class OpenEnum(NamedEnum):\n    \"\"\"A :class:`NamedEnum` that later versions of the \
         library may give values of that this\n    version does not name: ``Kind(9)`` is then \
         ``Kind.UNKNOWN_9``, equal to 9.\"\"\"\n\n{}",
        super::OPEN_MISSING
    );
    for spec in schema.enums {
        out.push_str(&enumeration(spec));
    }
    out
}

fn enumeration(spec: &EnumSpec) -> String {
    let base = if spec.flags {
        "enum.IntFlag"
    } else if spec.open {
        "OpenEnum"
    } else {
        "NamedEnum"
    };
    let mut out = format!(
        "\n\nclass {}({base}):\n{}",
        spec.python_name(),
        docstring(
            &format!("{} (`{}*`).", spec.doc.trim_end_matches('.'), spec.prefix),
            "    "
        )
    );
    for member in spec.members {
        out.push_str(&format!(
            "\n    {} = {}\n{}",
            member.name,
            member.value,
            docstring(member.doc, "    ")
        ));
    }
    out
}
