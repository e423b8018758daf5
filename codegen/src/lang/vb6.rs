//! VB6: `bindings/vb6/verify.bas`, a module to add to a project: one `Declare` per export of
//! the schema, a `Public Enum` per enum, a `Public Const` per code and constant, and
//! `VerifyText`, which copies a string the library lends.
//!
//! VB6 programs are 32-bit and `Declare` is stdcall, which verify.dll's x86 exports are
//! (docs/windows.md, "Calling convention and names"). The types:
//!
//! | C | VB6 |
//! |---|---|
//! | `int32_t`, `uint32_t`, `size_t` | `ByVal ... As Long` |
//! | `const char *` (a string in) | `ByVal ... As String` (a NUL-terminated copy in the system code page) |
//! | `char *` (a buffer the call fills) | `ByVal ... As String`, given `String$(n, vbNullChar)` |
//! | a handle, `void *user_data`, `const char *const *`, a struct | `ByVal ... As Long` (an address) |
//! | a callback | `ByVal ... As Long` (`AddressOf`) |
//! | `int32_t *`, `size_t *` out, `const char **`, `verify_x **` | `ByRef ... As Long` |
//! | `int64_t *`, `uint64_t *` out | `ByRef ... As Currency` (the integer is the value × 10000) |
//! | returned `int32_t`, `uint32_t`, `size_t` | `As Long` |
//! | returned `const char *` | `As Long`: the library's pointer, copied with `VerifyText` |
//! | nothing returned | `Declare Sub` |
//!
//! A returned `const char *` is never declared `As String`: VB6 would take it for a BSTR and
//! free it. The file is ASCII with CRLF line ends, as the VB6 IDE reads a module.

use crate::schema::{CParamKind, CType, Param, Returns, Schema};
use crate::Output;

/// Where the module is written.
pub const PATH: &str = "bindings/vb6/verify.bas";

/// Names VB6 reserves that the C ABI uses for parameters: they get a `_` at the end.
const RESERVED: &[&str] = &[
    "name", "step", "event", "len", "open", "close", "input", "line", "lock", "get", "put", "seek",
    "error", "date", "string", "type", "end", "mod", "option", "print", "stop", "to", "is", "in",
    "on", "me", "not", "let", "set", "call", "case", "then",
];

/// The files of VB6.
pub fn files(schema: &Schema) -> Vec<Output> {
    vec![Output::file(PATH, module(schema).replace('\n', "\r\n"))]
}

/// A parameter's name in VB6.
pub fn name(param: &Param) -> String {
    if RESERVED.contains(&param.name.as_str()) {
        format!("{}_", param.name)
    } else {
        param.name.clone()
    }
}

/// The VB6 type of an integer behind a pointer.
fn out_int(ty: &CType) -> &'static str {
    match ty {
        CType::Int { bits: 64, .. } => "Currency",
        _ => "Long",
    }
}

/// A parameter's passing (`ByVal`/`ByRef`) and type.
pub fn param_type(param: &Param) -> (&'static str, &'static str) {
    match &param.kind {
        CParamKind::Int => ("ByVal", "Long"),
        CParamKind::Str | CParamKind::OutBuffer => ("ByVal", "String"),
        CParamKind::Callback(_)
        | CParamKind::StrArray
        | CParamKind::Handle(_)
        | CParamKind::UserData
        | CParamKind::Struct(_) => ("ByVal", "Long"),
        CParamKind::OutInt => ("ByRef", out_int(param.int())),
        CParamKind::OutStr | CParamKind::OutHandle(_) => ("ByRef", "Long"),
    }
}

/// The module's text, with LF line ends.
pub fn module(schema: &Schema) -> String {
    let mut out = String::from("Attribute VB_Name = \"Verify\"\n");
    for line in crate::text::wrapped(
        &super::banner("the C ABI (src/, include/verify.h)"),
        "'",
        100,
    ) {
        out.push_str(&line);
        out.push('\n');
    }
    for line in [
        "' verify.dll for VB6: use the x86 DLL (VB6 programs are 32-bit); every export is stdcall.",
        "' Strings: call verify_set_code_page VERIFY_CODE_PAGE_SYSTEM once, before any other call:",
        "' VB6 passes a String ByVal as a NUL-terminated copy in the system code page.",
        "' Returned strings (As Long) and ByRef ... As Long text pointers are the library's:",
        "' copy them with VerifyText before freeing their reply or status, never free them.",
        "' Handles are Long; free each with its _free function. vbNullString passes NULL.",
        "' 64-bit integers are ByRef Currency: it holds n / 10000, so n is the Currency * 10000.",
        "' Callbacks: verify_client_diagnose calls back on the calling thread (AddressOf is",
        "' safe); keeper events and logs come on other threads: pass 0 and poll",
        "' verify_keeper_get_status from a Timer instead.",
        "' VB6 names ignore case: a Const spelled as an export gets _H (VERIFY_ABI_VERSION_H).",
    ] {
        out.push_str(line);
        out.push('\n');
    }
    out.push_str("Option Explicit\n\n");
    for row in schema.codes {
        out.push_str(&format!(
            "Public Const VERIFY_{} As Long = {}\n",
            row.name, row.code
        ));
    }
    out.push('\n');
    for constant in &schema.constants {
        out.push_str(&format!(
            "Public Const {} As Long = {}\n",
            super::case_free_constant(schema, &constant.name),
            constant.value
        ));
    }
    for spec in schema.enums {
        out.push_str(&format!("\nPublic Enum Verify{}\n", spec.name));
        for member in spec.members {
            out.push_str(&format!("    {} = {}\n", spec.c_name(member), member.value));
        }
        out.push_str("End Enum\n");
    }
    out.push('\n');
    for export in &schema.exports {
        let (keyword, ret) = match &export.returns {
            Returns::Void => ("Sub", String::new()),
            Returns::Int(CType::Int { bits: 64, .. }) => ("Function", " As Currency".to_owned()),
            Returns::Int(_) | Returns::Str => ("Function", " As Long".to_owned()),
        };
        let params: Vec<String> = export
            .params
            .iter()
            .map(|param| {
                let (pass, ty) = param_type(param);
                format!("{pass} {} As {ty}", name(param))
            })
            .collect();
        let head = format!(
            "Public Declare {keyword} {} Lib \"verify.dll\" (",
            export.name
        );
        out.push_str(&head);
        let mut column = head.len();
        for (i, param) in params.iter().enumerate() {
            let last = i + 1 == params.len();
            let piece = if last {
                param.clone()
            } else {
                format!("{param}, ")
            };
            if column + piece.len() > 96 && column > head.len() {
                out.push_str("_\n    ");
                column = 4;
            }
            out.push_str(&piece);
            column += piece.len();
        }
        out.push_str(&format!("){ret}\n"));
    }
    out.push_str(
        "
Private Declare Function verify_lstrlenA Lib \"kernel32\" Alias \"lstrlenA\" (ByVal p As Long) As Long
Private Declare Sub verify_copy Lib \"kernel32\" Alias \"RtlMoveMemory\" (ByRef dst As Any, _
    ByVal src As Long, ByVal n As Long)

' Copies a string the library lends (a returned pointer, or a ByRef text pointer) into a VB6
' String, from the code page set with verify_set_code_page. 0 gives \"\".
Public Function VerifyText(ByVal p As Long) As String
    Dim n As Long, b() As Byte
    If p = 0 Then Exit Function
    n = verify_lstrlenA(p)
    If n = 0 Then Exit Function
    ReDim b(0 To n - 1)
    verify_copy b(0), p, n
    VerifyText = StrConv(b, vbUnicode)
End Function
",
    );
    out
}
