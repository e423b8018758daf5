//! # verify-codegen: every fact that more than one language knows, written once
//!
//! The generator of the repository, a tool of its own: `cargo run -p verify-codegen` writes
//! every generated file, `cargo run -p verify-codegen -- --check` (and the test command's
//! `cargo test --test generated`) fails on a stale one, naming it.
//!
//! ## The schema ([`schema::Schema`])
//!
//! | part | written in | what it holds |
//! |---|---|---|
//! | codes | `core/src/codes.rs` | every result code: number, C name, developer text, end-user message per language, and its classes (success, configuration refusal, keeps the offline verdict) |
//! | actions | `core/src/actions/table.rs` | every action: wire name, parameters, whether it changes state, its typed reply fields |
//! | faq | `codegen/src/schema/faq.rs` | each code's cause and what the developer does, in English and Simplified Chinese, keyed by the code's name |
//! | enums | `codegen/src/schema/enums.rs`, and `core/src/diagnose/table.rs` for the doctor's step kinds | every enum and flag set of the C ABI: C name, number, docs, its name in each binding |
//! | error families | `codegen/src/schema/errors.rs` | the families of codes a binding raises as errors of their own (wrong credentials, banned, network, timeout ...), over the code table's numbers |
//! | exports | `src/` (read by cbindgen) | every exported function (parameters with C types and direction, return type, docs), the callback types and `struct verify_event`: taken from the Rust source, never written again |
//!
//! ## What is generated from it ([`lang`])
//!
//! | files | by |
//! |---|---|
//! | `src/generated/codes.rs`, `actions.rs`, `enums.rs`: the C ABI's code and enum constants and one `extern` function per action | [`lang::rust`] |
//! | `include/verify.h` | cbindgen over `src/`, `VERIFY_CALL` added ([`lang::header`]) |
//! | `include/verify/codes.hpp`, `enums.hpp`, `results.hpp`, `actions.hpp` | [`lang::cpp`] |
//! | `bindings/csharp/src/Generated/*.g.cs`: `ResultCode`, the enums, every native declaration, the handles, the typed replies, the `Client` actions | [`lang::csharp`] |
//! | `bindings/python/src/verify/_generated/*.py`: the `Code` enum, the exception classes, the enums, every ctypes declaration, typed results, the `Client` and `AsyncClient` methods | [`lang::python`] |
//! | `bindings/easy/verify.e.txt`: a 易语言 `.DLL命令` per export, a `.常量` per code, enum member and constant | [`lang::easy`] |
//! | `bindings/vb6/verify.bas`: a VB6 `Declare` per export, the `Enum`s and `Const`s, `VerifyText` | [`lang::vb6`] |
//! | `README.md` (code and retry tables), `README.zh-CN.md` (code table) | [`lang::docs`] |
//! | `docs/faq.md`, `docs/zh-CN/faq.md` (the 常见错误码 tables) | [`lang::faq`] |
//!
//! A new host language is one more module under `lang/` that turns a [`schema::Schema`] into
//! files, and one line in [`lang::all`] (CONTRIBUTING.md, "Adding a host language").

pub mod lang;
pub mod schema;
pub mod text;

use std::path::{Path, PathBuf};

/// The command that regenerates every generated file, as the files and messages name it.
pub const COMMAND: &str = "cargo run -p verify-codegen";

/// What [`run`] does with the generated text.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Mode {
    /// Writes every file that differs (and removes a file of a generated folder that nothing
    /// makes any more).
    Write,
    /// Writes nothing; reports the files that differ.
    Check,
}

/// One generated file, whole, or the generated sections of a hand-written one.
#[derive(Debug, Clone)]
pub enum Output {
    /// A whole file: its path from the repository's root and its text.
    File { path: String, text: String },
    /// Sections of a hand-written file (a README), each between the lines `BEGIN GENERATED:
    /// name` and `END GENERATED: name`.
    Sections {
        path: String,
        sections: Vec<(&'static str, String)>,
    },
    /// A folder every file of which is generated: a file in it that no [`Output::File`]
    /// makes is stale.
    Folder { path: String },
}

impl Output {
    /// A whole file.
    pub fn file(path: impl Into<String>, text: impl Into<String>) -> Output {
        Output::File {
            path: path.into(),
            text: text.into(),
        }
    }
}

/// The repository's root: the folder above this crate's.
pub fn root() -> PathBuf {
    let crate_dir = PathBuf::from(env!("CARGO_MANIFEST_DIR"));
    crate_dir
        .parent()
        .map(Path::to_path_buf)
        .unwrap_or(crate_dir)
}

/// Generates every file under `root` and writes or checks them (`mode`). Returns the paths
/// (from `root`) that were written, or that are stale.
pub fn run(root: &Path, mode: Mode) -> Result<Vec<String>, String> {
    let outputs = lang::all(root)?;
    let mut changed = Vec::new();
    let mut made: Vec<&str> = Vec::new();
    for output in &outputs {
        if let Output::File { path, .. } = output {
            made.push(path);
        }
    }
    for output in &outputs {
        match output {
            Output::File { path, text } => {
                if settle(root, path, text, mode)? {
                    changed.push(path.clone());
                }
            }
            Output::Sections { path, sections } => {
                let file = root.join(path);
                let mut text = std::fs::read_to_string(&file)
                    .map_err(|e| format!("cannot read {path}: {e}"))?;
                for (name, body) in sections {
                    text = text::replace_section(&text, name, body)
                        .map_err(|why| format!("{path}: {why}"))?;
                }
                if settle(root, path, &text, mode)? {
                    changed.push(path.clone());
                }
            }
            Output::Folder { path } => {
                let folder = root.join(path);
                let Ok(entries) = std::fs::read_dir(&folder) else {
                    continue;
                };
                for entry in entries.flatten() {
                    let name = format!("{path}/{}", entry.file_name().to_string_lossy());
                    if entry.path().is_file() && !made.contains(&name.as_str()) {
                        if mode == Mode::Write {
                            std::fs::remove_file(entry.path())
                                .map_err(|e| format!("cannot remove {name}: {e}"))?;
                        }
                        changed.push(name);
                    }
                }
            }
        }
    }
    Ok(changed)
}

/// Whether `path` differs from `text`; in [`Mode::Write`], writes it when it does.
fn settle(root: &Path, path: &str, text: &str, mode: Mode) -> Result<bool, String> {
    let file = root.join(path);
    if std::fs::read_to_string(&file).is_ok_and(|committed| committed == text) {
        return Ok(false);
    }
    if mode == Mode::Write {
        if let Some(folder) = file.parent() {
            std::fs::create_dir_all(folder)
                .map_err(|e| format!("cannot create {}: {e}", folder.display()))?;
        }
        std::fs::write(&file, text).map_err(|e| format!("cannot write {path}: {e}"))?;
    }
    Ok(true)
}

/// The message for stale files: which, and the command that regenerates them.
pub fn stale_message(stale: &[String]) -> String {
    format!(
        "stale generated files: {}: run `{COMMAND}` and commit them",
        stale.join(", ")
    )
}
