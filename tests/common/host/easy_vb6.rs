//! The generated 易语言 and VB6 declarations as the tests read them
//! (`bindings/easy/verify.e.txt`, `bindings/vb6/verify.bas`): each command with its return
//! type and parameters, parsed from the text a host pastes or adds, never from the schema
//! that wrote it; the calls an example makes; and the C declarations a Windows program under
//! Wine calls the DLL through, made from those files (`tests/platforms/windows/easy_vb6.rs`).

use super::root;

/// The 易语言 declarations.
pub const EASY_DECLARATIONS: &str = "bindings/easy/verify.e.txt";
/// The VB6 module.
pub const VB6_MODULE: &str = "bindings/vb6/verify.bas";
/// The C replay of both example programs (`bindings/easy/例子.e.txt`,
/// `bindings/vb6/Example.bas`) under Wine, built once for each host.
pub const EXAMPLE_REPLAY: &str = "tests/platforms/windows/example_replay.c";

/// One declared command of a host language.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Declared {
    /// The name the host calls it by.
    pub name: String,
    /// The export it calls (易语言's「在DLL库中对应命令名」, VB6's name or `Alias`).
    pub export: String,
    /// The library file it names.
    pub library: String,
    /// The return type as written (`整数型`, `Long`; empty for none, VB6's `Sub`).
    pub returns: String,
    /// The parameters: name, type as written, and whether passed by address (易语言 传址,
    /// VB6 `ByRef`).
    pub params: Vec<(String, String, bool)>,
}

/// The `.DLL命令` blocks of 易语言 `.版本 2` text.
pub fn easy_commands(text: &str) -> Vec<Declared> {
    let mut out: Vec<Declared> = Vec::new();
    for line in text.lines() {
        let line = line.trim_end();
        if let Some(rest) = line.strip_prefix(".DLL命令 ") {
            let fields: Vec<&str> = rest.split(", ").collect();
            let unquote = |s: &str| s.trim_matches('"').to_owned();
            out.push(Declared {
                name: fields[0].trim().to_owned(),
                returns: fields.get(1).map_or("", |s| s.trim()).to_owned(),
                library: fields.get(2).map(|s| unquote(s)).unwrap_or_default(),
                export: fields.get(3).map(|s| unquote(s)).unwrap_or_default(),
                params: Vec::new(),
            });
        } else if let Some(rest) = line.trim_start().strip_prefix(".参数 ") {
            let fields: Vec<&str> = rest.split(',').map(str::trim).collect();
            let Some(command) = out.last_mut() else {
                continue; // a 子程序's parameter: not a DLL command's
            };
            if fields.len() < 2 {
                continue;
            }
            let by_address = fields
                .get(2)
                .is_some_and(|flags| flags.split_whitespace().any(|f| f == "传址"));
            command
                .params
                .push((fields[0].to_owned(), fields[1].to_owned(), by_address));
        }
    }
    out
}

/// The `Declare` statements of VB6 text (line continuations joined).
pub fn vb6_declares(text: &str) -> Vec<Declared> {
    let joined = text.replace(" _\r\n", " ").replace(" _\n", " ");
    let mut out = Vec::new();
    for line in joined.lines() {
        let line = line.trim();
        let line = line
            .strip_prefix("Public ")
            .or_else(|| line.strip_prefix("Private "))
            .unwrap_or(line);
        let Some(rest) = line.strip_prefix("Declare ") else {
            continue;
        };
        let (is_sub, rest) = match (rest.strip_prefix("Sub "), rest.strip_prefix("Function ")) {
            (Some(rest), _) => (true, rest),
            (None, Some(rest)) => (false, rest),
            (None, None) => continue,
        };
        let Some((head, tail)) = rest.split_once('(') else {
            continue;
        };
        let words: Vec<&str> = head.split_whitespace().collect();
        let name = words[0].to_owned();
        let library = words
            .iter()
            .position(|w| *w == "Lib")
            .map(|i| words[i + 1].trim_matches('"').to_owned())
            .unwrap_or_default();
        let export = words
            .iter()
            .position(|w| *w == "Alias")
            .map(|i| words[i + 1].trim_matches('"').to_owned())
            .unwrap_or_else(|| name.clone());
        let Some((params, after)) = tail.rsplit_once(')') else {
            continue;
        };
        let returns = if is_sub {
            String::new()
        } else {
            after.trim().trim_start_matches("As ").trim().to_owned()
        };
        let params = params
            .split(',')
            .map(str::trim)
            .filter(|p| !p.is_empty())
            .map(|p| {
                let words: Vec<&str> = p.split_whitespace().collect();
                let (by_ref, words) = match words[0] {
                    "ByRef" => (true, &words[1..]),
                    "ByVal" => (false, &words[1..]),
                    _ => (true, &words[..]), // VB6's default is ByRef
                };
                let name = words.first().copied().unwrap_or_default();
                let ty = match words.get(1) {
                    Some(&"As") => words.get(2).copied().unwrap_or_default(),
                    _ => "Variant",
                };
                (name.to_owned(), ty.to_owned(), by_ref)
            })
            .collect();
        out.push(Declared {
            name,
            export,
            library,
            returns,
            params,
        });
    }
    out
}

/// The `.常量` lines of 易语言 text: name and value (the number in the quotes).
pub fn easy_constants(text: &str) -> Vec<(String, String)> {
    text.lines()
        .filter_map(|line| {
            let rest = line.strip_prefix(".常量 ")?;
            let (name, rest) = rest.split_once(", ")?;
            let value = rest.split(", ").next()?.trim_matches('"');
            Some((name.to_owned(), value.to_owned()))
        })
        .collect()
}

/// The commands of verify.dll an example calls, in the order of its text (comments left
/// out): 易语言 (`.版本 2` text) or VB6, as the name and the number of arguments of each call.
pub fn example_calls(text: &str, vb6: bool) -> Vec<(String, usize)> {
    let joined = text.replace(" _\r\n", " ").replace(" _\n", " ");
    let mut calls = Vec::new();
    for line in joined.lines() {
        let code = line.trim_start();
        if code.starts_with('\'') || code.starts_with(".DLL命令") || code.starts_with(".参数") {
            continue;
        }
        let mut rest = code;
        while let Some(at) = rest.find("verify_") {
            let tail = &rest[at..];
            let name_len = tail
                .find(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
                .unwrap_or(tail.len());
            let name = &tail[..name_len];
            let after = &tail[name_len..];
            let before = &rest[..at];
            // a string in quotes (“verify.dll 版本”, "verify.dll") is not a call
            let in_quotes = before.matches('"').count() % 2 == 1
                || before.matches('“').count() > before.matches('”').count();
            let args = if in_quotes {
                None
            } else if let Some(inner) = after.trim_start_matches(' ').strip_prefix('(') {
                Some(arguments(inner))
            } else if vb6 && before.trim().is_empty() {
                // a VB6 statement call: `verify_reply_free reply`
                Some(arguments(&format!("{after})")))
            } else {
                None
            };
            if let Some(count) = args {
                calls.push((name.to_owned(), count));
            }
            rest = &tail[name_len..];
        }
    }
    calls
}

/// The number of arguments before the `)` that closes `text`'s list.
fn arguments(text: &str) -> usize {
    let mut depth = 0;
    let mut commas = 0;
    let mut quoted = false;
    let mut any = false;
    for c in text.chars() {
        match c {
            '"' => quoted = !quoted,
            '“' => quoted = true,
            '”' => quoted = false,
            '(' if !quoted => depth += 1,
            ')' if !quoted && depth == 0 => break,
            ')' if !quoted => depth -= 1,
            ',' if !quoted && depth == 0 => commas += 1,
            c if !c.is_whitespace() => any = true,
            _ => {}
        }
        if c == '"' || c == '“' {
            any = true;
        }
    }
    if any {
        commas + 1
    } else {
        0
    }
}

/// The constants of a VB6 module: `Public Const NAME As Long = value` and the members of its
/// `Enum`s (`    NAME = value`).
pub fn vb6_constants(text: &str) -> Vec<(String, String)> {
    let mut out = Vec::new();
    let mut in_enum = false;
    for line in text.lines() {
        let line = line.trim_end();
        if line.starts_with("Public Enum ") {
            in_enum = true;
        } else if line == "End Enum" {
            in_enum = false;
        } else if let Some(rest) = line.strip_prefix("Public Const ") {
            if let Some((name, value)) = rest.split_once(" As Long = ") {
                out.push((name.to_owned(), value.to_owned()));
            }
        } else if in_enum {
            if let Some((name, value)) = line.trim().split_once(" = ") {
                out.push((name.to_owned(), value.to_owned()));
            }
        }
    }
    out
}

/// The generated 易语言 declarations of verify.dll.
pub fn easy_declared() -> Vec<Declared> {
    let text = std::fs::read_to_string(root().join(EASY_DECLARATIONS)).expect("verify.e.txt");
    easy_commands(&text)
}

/// The generated VB6 declarations of verify.dll.
pub fn vb6_declared() -> Vec<Declared> {
    let text = std::fs::read_to_string(root().join(VB6_MODULE)).expect("verify.bas");
    vb6_declares(&text)
        .into_iter()
        .filter(|d| d.library == "verify.dll")
        .collect()
}

/// The C type of a 易语言 type: what the IDE passes on the stack for it (传址: a pointer to
/// it; 文本型: a pointer to the text; 子程序指针: the 子程序's address).
pub fn easy_c_type(ty: &str, by_address: bool) -> String {
    let base = match ty {
        "整数型" | "逻辑型" => "int32_t",
        "长整数型" => "int64_t",
        "文本型" => "char *",
        "子程序指针" => "void *",
        "" => "void",
        other => panic!("a 易语言 type this test does not know: {other}"),
    };
    if by_address {
        format!("{base} *")
    } else {
        base.to_owned()
    }
}

/// The C type of a VB6 type (`ByRef`: a pointer to it): `Long` `int32_t`, `Currency` the
/// 64-bit integer it is, a `ByVal String` the `char *` of its ANSI copy.
pub fn vb6_c_type(ty: &str, by_ref: bool) -> String {
    let base = match ty {
        "Long" => "int32_t",
        "Currency" => "int64_t",
        "String" if !by_ref => return "char *".to_owned(),
        "" => "void",
        other => panic!("a VB6 type this test does not know: {other}"),
    };
    if by_ref {
        format!("{base} *")
    } else {
        base.to_owned()
    }
}

/// A C header that declares every 易语言 DLL command of `declared` exactly as the IDE calls it:
/// a `__stdcall` function-pointer type of the declared types, a variable of that type named as
/// the command, and `easy_load`, which fills every variable with `GetProcAddress` (0 and the
/// missing name when one is not exported). With `constants`, a `#define` of each (the
/// `.常量` of the file, `#VERIFY_OK` in 易语言).
pub fn easy_c_declarations(declared: &[Declared], constants: &[(String, String)]) -> String {
    host_c_declarations("易语言", declared, constants, easy_c_type)
}

/// [`easy_c_declarations`] for VB6's `Declare`s (`vb6_c_type`); `easy_load` has the same name.
pub fn vb6_c_declarations(declared: &[Declared], constants: &[(String, String)]) -> String {
    host_c_declarations("VB6", declared, constants, vb6_c_type)
}

fn host_c_declarations(
    language: &str,
    declared: &[Declared],
    constants: &[(String, String)],
    c_type: fn(&str, bool) -> String,
) -> String {
    let mut out = format!(
        "/* The {language} declarations of verify.dll with the types the host passes (made by\n \
         * the test from the generated file). */\n\
         #include <stdint.h>\n#include <windows.h>\n\n",
    );
    for (name, value) in constants {
        out.push_str(&format!("#define {name} ({value})\n"));
    }
    for command in declared {
        let params: Vec<String> = command
            .params
            .iter()
            .map(|(_, ty, by_address)| c_type(ty, *by_address))
            .collect();
        let params = if params.is_empty() {
            "void".to_owned()
        } else {
            params.join(", ")
        };
        out.push_str(&format!(
            "typedef {} (__stdcall *easy_{}_t)({params});\nstatic easy_{}_t {};\n",
            c_type(&command.returns, false),
            command.name,
            command.name,
            command.name
        ));
    }
    out.push_str("\nstatic int easy_load(HMODULE dll, const char **missing)\n{\n");
    for command in declared {
        out.push_str(&format!(
            "    {name} = (easy_{name}_t)(void (*)(void))GetProcAddress(dll, \"{export}\");\n    \
             if ({name} == NULL) {{\n        *missing = \"{export}\";\n        return 0;\n    }}\n",
            name = command.name,
            export = command.export
        ));
    }
    out.push_str("    return 1;\n}\n");
    out
}

/// The C program that calls every command of `declared` once with harmless arguments and
/// checks that the stack pointer is the same after each call (x86 only: it reads `esp`).
pub fn easy_calls_program(declared: &[Declared]) -> String {
    let mut out = easy_c_declarations(declared, &[]);
    out.push_str(
        "\n#include <stdio.h>\n\n\
         #define READ_SP(var) __asm__ volatile(\"movl %%esp, %0\" : \"=r\"(var) : : \"memory\")\n\n\
         static long checks, failed;\n\n\
         static void balanced(const char *name, uintptr_t before, uintptr_t after)\n{\n    \
         checks++;\n    \
         if (before != after) {\n        \
         failed++;\n        \
         printf(\"FAIL %s: the stack pointer moved by %ld bytes\\n\", name, (long)(after - before));\n    \
         } else {\n        \
         printf(\"called %s\\n\", name);\n    \
         }\n}\n\n",
    );
    for (index, command) in declared.iter().enumerate() {
        out.push_str(&format!("static void call_{index}(void)\n{{\n"));
        let mut args = Vec::new();
        for (slot, (_, ty, by_address)) in command.params.iter().enumerate() {
            if *by_address {
                let c = easy_c_type(ty, false);
                out.push_str(&format!("    {c} out_{slot} = 0;\n"));
                args.push(format!("&out_{slot}"));
            } else if ty == "文本型" {
                out.push_str(&format!("    char text_{slot}[64] = \"\";\n"));
                args.push(format!("text_{slot}"));
            } else if ty == "子程序指针" {
                args.push("NULL".to_owned());
            } else {
                args.push("0".to_owned());
            }
        }
        out.push_str("    uintptr_t before, after;\n    READ_SP(before);\n");
        let call = format!("{}({})", command.name, args.join(", "));
        if command.returns.is_empty() {
            out.push_str(&format!("    {call};\n"));
        } else {
            out.push_str(&format!("    (void){call};\n"));
        }
        out.push_str(&format!(
            "    READ_SP(after);\n    balanced(\"{}\", before, after);\n}}\n\n",
            command.name
        ));
    }
    // The control: a declaration one parameter short of its function moves the stack
    // pointer by 4 bytes, so a wrong declaration cannot go unseen.
    out.push_str(
        "static int32_t __stdcall control_two(int32_t a, int32_t b)\n{\n    return a + b;\n}\n\n\
         typedef int32_t(__stdcall *control_one_t)(int32_t);\n\n\
         static void control(void)\n{\n    \
         control_one_t one = (control_one_t)(void (*)(void))control_two;\n    \
         uintptr_t before, after;\n    \
         READ_SP(before);\n    \
         (void)one(1);\n    \
         READ_SP(after);\n    \
         printf(\"control moved %ld\\n\", (long)(after - before));\n}\n\n",
    );
    out.push_str(
        "int main(void)\n{\n    \
         const char *missing = \"\";\n    \
         HMODULE dll = LoadLibraryA(\"verify.dll\");\n    \
         if (dll == NULL) {\n        printf(\"FAIL LoadLibrary verify.dll\\n\");\n        return 1;\n    }\n    \
         if (!easy_load(dll, &missing)) {\n        printf(\"FAIL not exported: %s\\n\", missing);\n        return 1;\n    }\n",
    );
    out.push_str("    control();\n");
    for index in 0..declared.len() {
        out.push_str(&format!("    call_{index}();\n"));
    }
    out.push_str(
        "    printf(\"RESULT: %ld checks, %ld failed\\n\", checks, failed);\n    \
         return failed == 0 ? 0 : 1;\n}\n",
    );
    out
}
