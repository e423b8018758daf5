//! The generated 易语言 and VB6 declarations (`bindings/easy/verify.e.txt`,
//! `bindings/vb6/verify.bas`) against `include/verify.h`, read from both sides as text: every
//! export of the header declared once in each, none more, each from `verify.dll` under its own
//! name, its return type and every parameter's type and direction the ones this test's table
//! gives for the header's C type. And no hand-written declaration anywhere else in the
//! repository: every `.DLL命令` of verify.dll and every `Declare ... Lib "verify.dll"` is in
//! the two generated files.

#[path = "../common/mod.rs"]
mod common;

use std::collections::BTreeMap;
use std::process::Command;

use common::host::{
    easy_commands, easy_declared, header_functions, root, vb6_declared, vb6_declares, Declared,
    EASY_DECLARATIONS, VB6_MODULE,
};

/// A C type of the header, made general: `H` for a handle or struct of the header
/// (`verify_client`, `verify_event`), `CB` for a callback type; `const` kept, `struct` and
/// spaces dropped (`const H *`, `H **`, `const char *const *`).
fn general(c_type: &str) -> String {
    let words: Vec<String> = c_type
        .replace('*', " * ")
        .split_whitespace()
        .filter(|w| *w != "struct")
        .map(|w| {
            if w.starts_with("verify_") && w.ends_with("_callback") {
                "CB".to_owned()
            } else if w.starts_with("verify_") {
                "H".to_owned()
            } else {
                w.to_owned()
            }
        })
        .collect();
    words
        .join(" ")
        .replace("* *", "**")
        .replace("* const", "*const")
}

/// A host type and whether it is passed by address (易语言 传址, VB6 `ByRef`).
type Passed = (&'static str, bool);

/// The table: a parameter's C type → its 易语言 type and 传址, its VB6 type and ByRef.
fn mapped(c_type: &str) -> Option<(Passed, Passed)> {
    Some(match c_type {
        "int32_t" | "uint32_t" | "size_t" => (("整数型", false), ("Long", false)),
        "const char *" | "char *" => (("文本型", false), ("String", false)),
        "const char **" => (("整数型", true), ("Long", true)),
        "const char *const *" => (("整数型", false), ("Long", false)),
        "int32_t *" | "uint32_t *" | "size_t *" => (("整数型", true), ("Long", true)),
        "int64_t *" | "uint64_t *" => (("长整数型", true), ("Currency", true)),
        "void *" | "const H *" | "H *" => (("整数型", false), ("Long", false)),
        "H **" => (("整数型", true), ("Long", true)),
        "CB" => (("子程序指针", false), ("Long", false)),
        _ => return None,
    })
}

/// The table of return types: C → 易语言 (empty: none), VB6 (empty: a `Sub`).
fn mapped_return(c_type: &str) -> Option<(&'static str, &'static str)> {
    Some(match c_type {
        "void" => ("", ""),
        "int32_t" | "uint32_t" => ("整数型", "Long"),
        "const char *" => ("整数型", "Long"),
        _ => return None,
    })
}

/// Every function of the header: its return type and its parameters' types (general).
fn header() -> BTreeMap<String, (String, Vec<String>)> {
    header_functions()
        .into_iter()
        .map(|(name, declaration)| {
            let (head, rest) = declaration.split_once('(').expect("a prototype");
            let returns = head
                .replace("VERIFY_CALL", " ")
                .trim_end()
                .strip_suffix(name.as_str())
                .expect("the name last")
                .trim()
                .to_owned();
            let params = rest.rsplit_once(')').expect("a closed prototype").0.trim();
            let params = if params.is_empty() || params == "void" {
                Vec::new()
            } else {
                params
                    .split(',')
                    .map(|param| {
                        let param = param.trim();
                        let cut = param
                            .rfind(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
                            .expect("a type before the name");
                        general(&param[..=cut])
                    })
                    .collect()
            };
            (name, (general(&returns), params))
        })
        .collect()
}

/// Checks one language's declarations against the header, through `pick` (the language's
/// half of the table).
fn check(
    language: &str,
    declared: &[Declared],
    pick: impl Fn((Passed, Passed)) -> Passed,
    pick_return: impl Fn((&'static str, &'static str)) -> &'static str,
) {
    let header = header();
    assert!(
        header.len() >= 100,
        "verify.h parsed: {} functions",
        header.len()
    );
    let mut seen = BTreeMap::new();
    for command in declared {
        *seen.entry(command.export.clone()).or_insert(0) += 1;
        assert_eq!(command.library, "verify.dll", "{language}: {command:?}");
        assert_eq!(
            command.name, command.export,
            "{language}: named as the export"
        );
        let Some((returns, params)) = header.get(&command.export) else {
            panic!(
                "{language} declares {}, which verify.h lacks",
                command.export
            );
        };
        let want = mapped_return(returns)
            .unwrap_or_else(|| panic!("no {language} type for the return type {returns}"));
        assert_eq!(
            command.returns,
            pick_return(want),
            "{language}: {} returns {returns}",
            command.export
        );
        assert_eq!(
            command.params.len(),
            params.len(),
            "{language}: {}'s parameters: {:?}, verify.h: {params:?}",
            command.export,
            command.params
        );
        for ((name, ty, by_address), c_type) in command.params.iter().zip(params) {
            let want =
                pick(mapped(c_type).unwrap_or_else(|| panic!("no {language} type for {c_type}")));
            assert_eq!(
                (ty.as_str(), *by_address),
                want,
                "{language}: {} parameter {name} is {c_type} in verify.h",
                command.export
            );
        }
    }
    for name in header.keys() {
        assert_eq!(
            seen.get(name),
            Some(&1),
            "{language}: {name} of verify.h is declared once"
        );
    }
}

#[test]
fn easy_declarations_match_the_header() {
    let declared = easy_declared();
    check("易语言", &declared, |(easy, _)| easy, |(easy, _)| easy);
    let text = std::fs::read_to_string(root().join(EASY_DECLARATIONS)).expect("verify.e.txt");
    assert!(text.starts_with(".版本 2\n"), "pastes as .版本 2 text");
    // a parameter type of another language would paste as an unknown type
    for command in &declared {
        for (name, ty, _) in &command.params {
            assert!(
                ["整数型", "长整数型", "文本型", "逻辑型", "子程序指针"].contains(&ty.as_str()),
                "{}: {name} is {ty}",
                command.name
            );
        }
    }
}

#[test]
fn vb6_declarations_match_the_header() {
    check("VB6", &vb6_declared(), |(_, vb6)| vb6, |(_, vb6)| vb6);
    let bytes = std::fs::read(root().join(VB6_MODULE)).expect("verify.bas");
    assert!(
        bytes.is_ascii(),
        "the VB6 IDE reads a module in the ANSI code page"
    );
    let text = String::from_utf8(bytes).expect("ASCII");
    assert!(
        text.starts_with("Attribute VB_Name = \"Verify\"\r\n"),
        "a module"
    );
    assert_eq!(
        text.matches('\n').count(),
        text.matches("\r\n").count(),
        "CRLF line ends"
    );
}

/// The files of the repository, as git lists them (tracked and new).
fn repository_files() -> Vec<String> {
    let output = Command::new("git")
        .args(["ls-files", "--cached", "--others", "--exclude-standard"])
        .current_dir(root())
        .output()
        .expect("git runs (scripts/install-deps.sh git)");
    assert!(output.status.success(), "git ls-files");
    String::from_utf8_lossy(&output.stdout)
        .lines()
        .map(str::to_owned)
        .collect()
}

#[test]
fn no_hand_written_declarations() {
    let mut found = Vec::new();
    for path in repository_files() {
        if path == EASY_DECLARATIONS || path == VB6_MODULE || path.starts_with("tests/hosts/") {
            continue;
        }
        let Ok(text) = std::fs::read_to_string(root().join(&path)) else {
            continue;
        };
        let easy = easy_commands(&text).into_iter().filter(|c| {
            c.library.eq_ignore_ascii_case("verify.dll") || c.export.starts_with("verify_")
        });
        let vb6 = vb6_declares(&text)
            .into_iter()
            .filter(|c| c.library.eq_ignore_ascii_case("verify.dll"));
        for command in easy.chain(vb6) {
            found.push(format!("{path}: {}", command.name));
        }
    }
    assert!(
        found.is_empty(),
        "declarations of verify.dll written by hand (use {EASY_DECLARATIONS} and \
         {VB6_MODULE}, generated): {found:#?}"
    );
}

/// The example programs: `bindings/easy/例子.e.txt` and `bindings/vb6/Example.bas`.
const EASY_EXAMPLE: &str = "bindings/easy/例子.e.txt";
const VB6_EXAMPLE: &str = "bindings/vb6/Example.bas";
/// The replay of both examples under Wine (`tests/platforms/windows/easy_vb6.rs`).
use common::host::EXAMPLE_REPLAY;

/// Every call of verify.dll in each example is a declared command, with as many arguments
/// as its declaration has parameters (an IDE would refuse it otherwise, or VB6 would fail
/// with error 49 at run time).
#[test]
fn examples_call_declared_commands_with_their_arity() {
    for (file, declared, vb6) in [
        (EASY_EXAMPLE, easy_declared(), false),
        (VB6_EXAMPLE, vb6_declared(), true),
    ] {
        let text = std::fs::read_to_string(root().join(file)).expect("an example");
        let calls = common::host::example_calls(&text, vb6);
        assert!(calls.len() >= 40, "{file}: calls found: {calls:?}");
        for (name, count) in &calls {
            let command = declared
                .iter()
                .find(|c| &c.name == name)
                .unwrap_or_else(|| panic!("{file} calls {name}, which is not declared"));
            assert_eq!(
                *count,
                command.params.len(),
                "{file}: {name} called with {count} arguments"
            );
        }
        // what the issue asks each example to show
        for shown in [
            "verify_single_login",
            "verify_user_login",
            "verify_change_bind",
            "verify_keeper_start_from_reply",
            "verify_keeper_get_status",
            "verify_machine_check_new",
            "verify_reply_offline",
            "verify_client_options_add_mirror",
            "verify_client_options_add_root_file",
            "verify_client_options_set_proxy",
            "verify_client_diagnose",
            "verify_code_user_message",
        ] {
            assert!(
                calls.iter().any(|(name, _)| name == shown),
                "{file} shows {shown}"
            );
        }
        assert!(text.contains("/data/remark"), "{file} reads the remark");
    }
    let bytes = std::fs::read(root().join(VB6_EXAMPLE)).expect("Example.bas");
    assert!(bytes.is_ascii(), "{VB6_EXAMPLE}: ASCII");
    let text = String::from_utf8(bytes).expect("ASCII");
    assert_eq!(
        text.matches('\n').count(),
        text.matches("\r\n").count(),
        "{VB6_EXAMPLE}: CRLF line ends"
    );
}

/// A C source without its comments.
fn without_comments(source: &str) -> String {
    let mut code = String::new();
    let mut rest = source;
    while let Some(at) = rest.find("/*") {
        code.push_str(&rest[..at]);
        rest = rest[at..].split_once("*/").map_or("", |(_, after)| after);
    }
    code.push_str(rest);
    code
}

/// The C replay of the examples (run under Wine for each by
/// `tests/platforms/windows/easy_vb6.rs`) makes each example's calls in the example's order,
/// so none of the three can drift.
#[test]
fn the_replays_make_the_example_calls() {
    let replay = EXAMPLE_REPLAY;
    for (example, vb6) in [(EASY_EXAMPLE, false), (VB6_EXAMPLE, true)] {
        let example_text = std::fs::read_to_string(root().join(example)).expect("an example");
        let replay_text = std::fs::read_to_string(root().join(replay)).expect("a replay");
        let names = |calls: Vec<(String, usize)>| -> Vec<String> {
            calls.into_iter().map(|(name, _)| name).collect()
        };
        assert_eq!(
            names(common::host::example_calls(
                &without_comments(&replay_text),
                false
            )),
            names(common::host::example_calls(&example_text, vb6)),
            "{replay} replays {example} call for call"
        );
    }
}

/// VB6 and 易语言 names ignore case: no two names of a generated file differ only in case
/// (`VERIFY_ABI_VERSION` the constant is `VERIFY_ABI_VERSION_H` beside the function).
#[test]
fn names_differ_ignoring_case() {
    let easy_text = std::fs::read_to_string(root().join(EASY_DECLARATIONS)).expect("verify.e.txt");
    let vb6_text = std::fs::read_to_string(root().join(VB6_MODULE)).expect("verify.bas");
    for (file, names) in [
        (
            EASY_DECLARATIONS,
            easy_declared()
                .into_iter()
                .map(|c| c.name)
                .chain(
                    common::host::easy_constants(&easy_text)
                        .into_iter()
                        .map(|c| c.0),
                )
                .collect::<Vec<_>>(),
        ),
        (
            VB6_MODULE,
            vb6_declared()
                .into_iter()
                .map(|c| c.name)
                .chain(
                    common::host::vb6_constants(&vb6_text)
                        .into_iter()
                        .map(|c| c.0),
                )
                .collect(),
        ),
    ] {
        let mut seen = BTreeMap::new();
        for name in names {
            if let Some(other) = seen.insert(name.to_ascii_lowercase(), name.clone()) {
                panic!("{file}: {name} and {other} differ only in case");
            }
        }
    }
}

/// Every constant an example uses is one of the generated file's (`#VERIFY_OK` in 易语言,
/// `VERIFY_OK` in VB6).
#[test]
fn examples_use_generated_constants() {
    let easy_text = std::fs::read_to_string(root().join(EASY_DECLARATIONS)).expect("verify.e.txt");
    let vb6_text = std::fs::read_to_string(root().join(VB6_MODULE)).expect("verify.bas");
    for (example, constants, marker) in [
        (
            EASY_EXAMPLE,
            common::host::easy_constants(&easy_text),
            "#VERIFY_",
        ),
        (
            VB6_EXAMPLE,
            common::host::vb6_constants(&vb6_text),
            "VERIFY_",
        ),
    ] {
        let text = std::fs::read_to_string(root().join(example)).expect("an example");
        let mut used = 0;
        for (at, _) in text.match_indices(marker) {
            let name: String = text[at..]
                .trim_start_matches('#')
                .chars()
                .take_while(|c| c.is_ascii_alphanumeric() || *c == '_')
                .collect();
            used += 1;
            assert!(
                constants.iter().any(|(known, _)| *known == name),
                "{example} uses {name}, which is not a constant of the generated file"
            );
        }
        assert!(used >= 10, "{example}: constants used: {used}");
    }
}
