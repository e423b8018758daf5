//! `cargo run -p verify-codegen`: writes every generated file of the repository from the
//! schema; `cargo run -p verify-codegen -- --check` only says which are stale (exit status 1),
//! as `cargo test --test generated` does. The crate's docs (`codegen/src/lib.rs`) list what
//! is generated, from what.

use std::process::ExitCode;

fn main() -> ExitCode {
    let mut mode = verify_codegen::Mode::Write;
    for arg in std::env::args().skip(1) {
        match arg.as_str() {
            "--check" => mode = verify_codegen::Mode::Check,
            "-h" | "--help" => {
                println!(
                    "verify-codegen: writes every generated file from the schema\n\n\
                     usage: cargo run -p verify-codegen [-- --check]\n\n  \
                     --check  write nothing; list the stale files and exit with 1 when any is"
                );
                return ExitCode::SUCCESS;
            }
            other => {
                eprintln!("verify-codegen: unknown argument {other:?} (try --help)");
                return ExitCode::from(2);
            }
        }
    }
    let root = verify_codegen::root();
    match verify_codegen::run(&root, mode) {
        Ok(changed) if changed.is_empty() => {
            println!("verify-codegen: every generated file is up to date");
            ExitCode::SUCCESS
        }
        Ok(changed) => match mode {
            verify_codegen::Mode::Write => {
                for path in &changed {
                    println!("wrote {path}");
                }
                ExitCode::SUCCESS
            }
            verify_codegen::Mode::Check => {
                eprintln!("{}", verify_codegen::stale_message(&changed));
                ExitCode::FAILURE
            }
        },
        Err(why) => {
            eprintln!("verify-codegen: {why}");
            ExitCode::FAILURE
        }
    }
}
