//! 易语言 (E language): `bindings/easy/verify.e.txt`, `.版本 2` text that pastes into the IDE:
//! one `.DLL命令` per export of the schema (the export's name in「在DLL库中对应命令名」and as
//! the command's name), and one `.常量` per code, enum member and constant.
//!
//! 易语言 programs are 32-bit and every DLL command is stdcall, which verify.dll's x86 exports
//! are (docs/windows.md, "Calling convention and names"). The types:
//!
//! | C | 易语言 |
//! |---|---|
//! | `int32_t`, `uint32_t`, `size_t` | 整数型 |
//! | `int64_t`, `uint64_t` (only behind a pointer) | 长整数型 |
//! | `const char *` (a string in) | 文本型 |
//! | `char *` (a buffer the call fills) | 文本型, given `取空白文本 (n)` |
//! | a handle, `void *user_data`, `const char *const *`, a struct | 整数型 (an address) |
//! | a callback | 子程序指针 |
//! | `T *` out, `const char **`, `verify_x **` | the type behind the pointer, 传址 (整数型 for a pointer) |
//! | returned `const char *` | 整数型: the library's pointer, copied with `指针到文本 ()` |
//!
//! A returned string is declared 整数型 rather than 文本型: the text stays the library's
//! (static, or valid until its reply or snapshot is freed), and `指针到文本 ()` copies it into
//! the program's own text at the moment the program chooses, before it frees the reply.

use crate::schema::{CParamKind, CType, Export, Param, Returns, Schema};
use crate::Output;

/// Where the declarations are written.
pub const PATH: &str = "bindings/easy/verify.e.txt";

/// The files of 易语言.
pub fn files(schema: &Schema) -> Vec<Output> {
    vec![Output::file(PATH, declarations(schema))]
}

/// The 易语言 type of an integer.
fn int(ty: &CType) -> &'static str {
    match ty {
        CType::Int { bits: 64, .. } => "长整数型",
        _ => "整数型",
    }
}

/// A parameter's type and whether it is 传址.
pub fn param_type(param: &Param) -> (&'static str, bool) {
    match &param.kind {
        CParamKind::Int => (int(&param.ty), false),
        CParamKind::Str | CParamKind::OutBuffer => ("文本型", false),
        CParamKind::Callback(_) => ("子程序指针", false),
        CParamKind::StrArray
        | CParamKind::Handle(_)
        | CParamKind::UserData
        | CParamKind::Struct(_) => ("整数型", false),
        CParamKind::OutInt => (int(param.int()), true),
        CParamKind::OutStr | CParamKind::OutHandle(_) => ("整数型", true),
    }
}

/// A return type: empty for none.
fn return_type(returns: &Returns) -> &'static str {
    match returns {
        Returns::Void => "",
        Returns::Int(ty) => int(ty),
        Returns::Str => "整数型",
    }
}

/// What a command's 备注 says: how its string comes back, where it has one.
fn command_note(export: &Export) -> String {
    if export.returns == Returns::Str {
        return "返回库里的文本指针，用 指针到文本 () 复制，不要释放".to_owned();
    }
    if export.frees().is_some() {
        return "释放句柄；传 0 什么也不做".to_owned();
    }
    String::new()
}

/// What a parameter's 备注 says.
fn param_note(schema: &Schema, param: &Param) -> String {
    let optional = match (param.optional, &param.kind) {
        (false, _) => "",
        (true, CParamKind::Str) => "可空：传 “”。",
        (true, _) => "可空：传 0。",
    };
    let what = match &param.kind {
        CParamKind::OutStr => "取回文本指针，用 指针到文本 () 复制".to_owned(),
        CParamKind::OutHandle(handle) => {
            let free = schema
                .handles
                .iter()
                .find(|h| &h.name == handle)
                .map(|h| h.free.clone())
                .unwrap_or_default();
            format!("取回句柄，用完调用 {free}")
        }
        CParamKind::OutBuffer => "先赋值 取空白文本 (长度)，库往里写".to_owned(),
        CParamKind::StrArray => "文本指针数组的地址".to_owned(),
        CParamKind::Callback(name) => callback_note(name).to_owned(),
        _ => String::new(),
    };
    format!("{optional}{what}")
}

/// Whether a callback may be a 易语言 子程序: on which thread it runs.
fn callback_note(name: &str) -> &'static str {
    match name {
        "verify_diagnosis_callback" => {
            "&子程序：在调用 verify_client_diagnose 的线程上回调，可以放心用"
        }
        "verify_event_callback" => {
            "在保活线程上回调，易语言里别用：传 0，用时钟轮询 verify_keeper_get_status"
        }
        "verify_log_callback" => "可能在别的线程上回调（心跳的线程），易语言里传 0",
        _ => "",
    }
}

/// The end of a line: `, 备注` and the line break, or the line break alone.
fn remark(note: &str) -> String {
    if note.is_empty() {
        "\n".to_owned()
    } else {
        format!(", {note}\n")
    }
}

/// `verify.e.txt`.
pub fn declarations(schema: &Schema) -> String {
    let mut out = String::from(".版本 2\n\n");
    out.push_str(&format!(
        "' {}\n",
        super::banner("the C ABI (src/, include/verify.h)")
    ));
    for line in [
        "' verify.dll 的 x86 版（易语言程序是 32 位的）。每个导出函数一条 DLL命令，stdcall。",
        "' 文本型参数按系统代码页传：第一次调用前先 verify_set_code_page (#VERIFY_CODE_PAGE_SYSTEM)。",
        "' 返回的文本是库里的指针，声明为整数型：用 指针到文本 () 复制，不要释放。",
        "' 回复、状态里的文本在 verify_reply_free、verify_keeper_status_free 之前有效，先复制再释放。",
        "' 句柄（客户端、回复、保活……）是整数型，用完调用对应的 _free。",
        "' 传址的参数：库把结果写进你的变量。",
        "' 常量和 DLL命令不分大小写会重名的，常量名后加 _H：VERIFY_ABI_VERSION_H 是头文件的 ABI 版本。",
    ] {
        out.push_str(line);
        out.push('\n');
    }
    out.push('\n');
    for export in &schema.exports {
        out.push_str(&format!(
            ".DLL命令 {name}, {ret}, \"verify.dll\", \"{name}\", 公开",
            name = export.name,
            ret = return_type(&export.returns),
        ));
        out.push_str(&remark(&command_note(export)));
        for param in &export.params {
            let (ty, by_address) = param_type(param);
            let note = param_note(schema, param);
            out.push_str(&format!("    .参数 {}, {ty}", param.name));
            if by_address || !note.is_empty() {
                out.push_str(if by_address { ", 传址" } else { ", " });
            }
            out.push_str(&remark(&note));
        }
        out.push('\n');
    }
    for row in schema.codes {
        out.push_str(&format!(
            ".常量 VERIFY_{}, \"{}\", 公开{}",
            row.name,
            row.code,
            remark(&row.user.zh_cn.replace(',', "，"))
        ));
    }
    for spec in schema.enums {
        out.push('\n');
        for member in spec.members {
            out.push_str(&format!(
                ".常量 {}, \"{}\", 公开{}",
                spec.c_name(member),
                member.value,
                remark(spec.name)
            ));
        }
    }
    out.push('\n');
    for constant in &schema.constants {
        out.push_str(&format!(
            ".常量 {}, \"{}\", 公开\n",
            super::case_free_constant(schema, &constant.name),
            constant.value
        ));
    }
    out
}
