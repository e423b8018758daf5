//! The C# binding's view of the C ABI, from the schema's declarations: `NativeMethods.g.cs`
//! (a `DllImport` for every export and a delegate for every callback type), `NativeEvent.g.cs`
//! (`struct verify_event`) and one `SafeHandle` class per opaque handle (`ClientHandle.g.cs`,
//! ...), each a `partial` class whose other part (when it has one) adds what is particular
//! to it (`Create`, a callback it roots).
//!
//! The interop rules the declarations keep:
//! - Every `DllImport` and delegate uses `CallingConvention.Winapi`: stdcall on 32-bit
//!   Windows, the platform's C convention elsewhere, which is the header's `VERIFY_CALL`.
//! - A handle crosses as its `SafeHandle` class, so the marshaller holds a reference for the
//!   call; a new handle comes back through `out`; only a free function takes the raw
//!   pointer (`ReleaseHandle` calls it when no reference is left).
//! - Strings go in as NUL-terminated UTF-8 (`UnmanagedType.LPUTF8Str`, copied by the
//!   library); strings the library owns come back as `IntPtr` and are copied out with a UTF-8
//!   decode while their owner is held (`With`), never declared as `string` returns (the
//!   marshaller would free library memory).
//! - Booleans cross as `int`; `size_t` as `UIntPtr`.

use super::{file, xml};
use crate::schema::{CParamKind, CType, Export, Handle, Param, Returns, Schema};
use crate::text::{camel, pascal};

/// The exports that also get a declaration on the raw pointer (`..._raw`), for a
/// `ReleaseHandle` that must call them after the handle stopped counting references.
const RAW: &[&str] = &["verify_keeper_stop"];

/// The handle classes that are public (a host may hold them); the others are internal.
const PUBLIC_HANDLES: &[&str] = &[
    "verify_client",
    "verify_client_options",
    "verify_reply",
    "verify_keeper",
    "verify_keeper_options",
    "verify_keeper_status",
    "verify_cancel",
];

/// The handle classes whose hand-written part releases them (`Release`): the others call
/// their free function.
const RELEASED_BY_HAND: &[&str] = &["verify_client", "verify_keeper"];

/// The generated files: (file name in `Generated/`, text).
pub fn files(schema: &Schema) -> Vec<(String, String)> {
    let mut files = vec![
        (
            "NativeMethods.g.cs".to_owned(),
            file(
                "the C ABI's declarations (src/, read by cbindgen)",
                &["System", "System.Runtime.InteropServices"],
                &native_methods(schema),
            ),
        ),
        (
            "NativeEvent.g.cs".to_owned(),
            file(
                "the C ABI's declarations (src/, read by cbindgen)",
                &["System", "System.Runtime.InteropServices"],
                &native_event(schema),
            ),
        ),
    ];
    for handle in &schema.handles {
        files.push((
            format!("{}.g.cs", class(&handle.name)),
            file(
                "the C ABI's declarations (src/, read by cbindgen)",
                &[
                    "System",
                    "System.Runtime.CompilerServices",
                    "System.Runtime.InteropServices",
                ],
                &handle_class(handle),
            ),
        ));
    }
    files
}

/// The C# class of a handle type: `verify_keeper_status` → `KeeperStatusHandle`.
pub fn class(handle: &str) -> String {
    format!(
        "{}Handle",
        pascal(handle.strip_prefix("verify_").unwrap_or(handle))
    )
}

/// The C# delegate of a callback type: `verify_event_callback` → `EventCallback`.
fn delegate(callback: &str) -> String {
    let stem = callback.strip_prefix("verify_").unwrap_or(callback);
    let stem = stem.strip_suffix("_callback").unwrap_or(stem);
    format!("{}Callback", pascal(stem))
}

/// A parameter's name in C#, escaped where it is a keyword (`out` → `@out`).
fn name(param: &str) -> String {
    let name = camel(param);
    match name.as_str() {
        "out" | "event" | "string" | "object" | "params" | "base" | "lock" | "default"
        | "checked" | "fixed" | "operator" | "ref" => format!("@{name}"),
        _ => name,
    }
}

/// The C# type of an integer.
fn int(ty: &CType) -> &'static str {
    match ty {
        CType::Int {
            bits: 32,
            signed: true,
        } => "int",
        CType::Int {
            bits: 32,
            signed: false,
        } => "uint",
        CType::Int {
            bits: 64,
            signed: true,
        } => "long",
        CType::Int {
            bits: 64,
            signed: false,
        } => "ulong",
        CType::SizeT => "UIntPtr",
        _ => "int",
    }
}

/// A parameter as C# declares it; `raw` for a free function (the handle as `IntPtr`).
fn param(param: &Param, raw: bool) -> String {
    let name = name(&param.name);
    match &param.kind {
        CParamKind::Int => format!("{} {name}", int(&param.ty)),
        CParamKind::Str => format!("[MarshalAs(UnmanagedType.LPUTF8Str)] string {name}"),
        CParamKind::StrArray => format!(
            "[MarshalAs(UnmanagedType.LPArray, ArraySubType = UnmanagedType.LPUTF8Str)] string[] {name}"
        ),
        CParamKind::Handle(_) if raw => format!("IntPtr {name}"),
        CParamKind::Handle(handle) => format!("{} {name}", class(handle)),
        CParamKind::Callback(callback) => format!("{} {name}", delegate(callback)),
        CParamKind::UserData | CParamKind::Struct(_) => format!("IntPtr {name}"),
        CParamKind::OutStr => format!("out IntPtr {name}"),
        CParamKind::OutInt => format!("out {} {name}", int(param.int())),
        CParamKind::OutHandle(handle) => format!("out {} {name}", class(handle)),
        CParamKind::OutBuffer => format!("[Out] byte[] {name}"),
    }
}

fn returns(returns: &Returns) -> &'static str {
    match returns {
        Returns::Void => "void",
        Returns::Int(ty) => int(ty),
        Returns::Str => "IntPtr",
    }
}

/// The `///` summary of an export: the first sentence of its doc, and its name.
fn summary(export: &Export) -> String {
    let first = export
        .doc
        .iter()
        .map(|line| line.trim())
        .take_while(|line| !line.is_empty())
        .collect::<Vec<_>>()
        .join(" ");
    let sentence = match first.find(". ") {
        Some(at) => &first[..=at],
        None => first.as_str(),
    };
    format!("<c>{}</c>: {}", export.name, xml(sentence))
}

fn declaration(out: &mut String, export: &Export, raw: bool) {
    let entry = if raw {
        format!(", EntryPoint = \"{}\"", export.name)
    } else {
        String::new()
    };
    let free = export.frees().is_some();
    let params: Vec<String> = export
        .params
        .iter()
        .map(|p| param(p, raw || free))
        .collect();
    out.push_str(&format!(
        "        /// <summary>{}</summary>\n        \
         [DllImport(Library, CallingConvention = CallingConvention.Winapi{entry})]\n        \
         internal static extern {} {}{}(",
        summary(export),
        returns(&export.returns),
        export.name,
        if raw { "_raw" } else { "" },
    ));
    if params.is_empty() {
        out.push_str(");\n\n");
    } else {
        out.push('\n');
        out.push_str(
            &params
                .iter()
                .map(|p| format!("            {p}"))
                .collect::<Vec<_>>()
                .join(",\n"),
        );
        out.push_str(");\n\n");
    }
}

fn native_methods(schema: &Schema) -> String {
    let mut out = String::from(
        "    /// <summary>\n    /// The C functions of verify.h, one to one (see it for the C contract: \
         ownership, threads); every\n    /// one <c>VERIFY_CALL</c> (Winapi). Handles cross as \
         their SafeHandle classes, strings the library\n    /// owns as <c>IntPtr</c>.\n    \
         /// </summary>\n    internal static partial class NativeMethods\n    {\n        \
         private const string Library = \"verify\";\n\n",
    );
    for constant in &schema.constants {
        let ty = match &constant.ty {
            CType::SizeT => "int",
            ty => int(ty),
        };
        out.push_str(&format!(
            "        /// <summary><c>{}</c>.</summary>\n        internal const {ty} {} = {};\n\n",
            constant.name, constant.name, constant.value
        ));
    }
    for callback in &schema.callbacks {
        // What the library lends a callback crosses as `IntPtr`, copied out during the call.
        let params: Vec<String> = callback
            .params
            .iter()
            .map(|p| match p.kind {
                CParamKind::Str => format!("IntPtr {}", name(&p.name)),
                _ => param(p, false),
            })
            .collect();
        out.push_str(&format!(
            "        /// <summary><c>{}</c>.</summary>\n        \
             [UnmanagedFunctionPointer(CallingConvention.Winapi)]\n        \
             internal delegate {} {}({});\n\n",
            callback.name,
            returns(&callback.returns),
            delegate(&callback.name),
            params.join(", ")
        ));
    }
    for export in &schema.exports {
        declaration(&mut out, export, false);
        if RAW.contains(&export.name.as_str()) {
            declaration(&mut out, export, true);
        }
    }
    out.truncate(out.trim_end().len());
    out.push_str("\n    }\n");
    out
}

fn native_event(schema: &Schema) -> String {
    let mut out = String::new();
    for item in &schema.structs {
        let layout: Vec<String> = item.fields.iter().map(|f| f.ty.c()).collect();
        out.push_str(&format!(
            "    /// <summary>A <c>{}</c> as C lays it out ({}).</summary>\n    \
             [StructLayout(LayoutKind.Sequential)]\n    internal struct Native{}\n    {{\n",
            item.name,
            xml(&layout.join(", ")),
            pascal(item.name.strip_prefix("verify_").unwrap_or(&item.name)),
        ));
        for field in &item.fields {
            let ty = match &field.ty {
                CType::Ptr { .. } => "IntPtr",
                ty => int(ty),
            };
            out.push_str(&format!(
                "        /// <summary><c>{}</c>.</summary>\n        public {ty} {};\n",
                field.name,
                pascal(&field.name)
            ));
        }
        out.push_str("    }\n");
    }
    out
}

fn handle_class(handle: &Handle) -> String {
    let class = class(&handle.name);
    let access = if PUBLIC_HANDLES.contains(&handle.name.as_str()) {
        "public"
    } else {
        "internal"
    };
    let release = if RELEASED_BY_HAND.contains(&handle.name.as_str()) {
        "            return Release();\n".to_owned()
    } else {
        format!(
            "            NativeMethods.{}(handle);\n            return true;\n",
            handle.free
        )
    };
    format!(
        "    /// <summary>Owns a <c>{name} *</c>; released with <c>{free}</c>.</summary>\n    \
         [NullableContext(1)]\n    {access} sealed partial class {class} : SafeHandle\n    {{\n        \
         /// <summary>An empty handle (NULL); the marshaller fills it from a call's <c>out</c>.</summary>\n        \
         public {class}()\n            : base(IntPtr.Zero, true)\n        {{\n        }}\n\n        \
         /// <summary>True for NULL.</summary>\n        \
         public override bool IsInvalid\n        {{\n            get {{ return handle == IntPtr.Zero; }}\n        }}\n\n        \
         /// <summary>Calls <paramref name=\"use\"/> with this handle while a reference is held, so \
         that what it\n        /// borrows from the native object (a string) stays valid until it returns.</summary>\n        \
         internal T With<T>(Func<{class}, T> use)\n        {{\n            \
         return Hold.With(this, use);\n        }}\n\n        \
         /// <summary>Frees the native object; runs once, after every call using the handle returned.</summary>\n        \
         protected override bool ReleaseHandle()\n        {{\n{release}        }}\n    }}\n",
        name = handle.name,
        free = handle.free,
    )
}
