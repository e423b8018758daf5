//! Running a host program natively or under valgrind, feeding its requests, and what it
//! printed.

use super::*;

/// The arguments of valgrind for every C host: memcheck, full leak check, and exit code 99
/// on any error or definite or indirect leak.
pub const VALGRIND_ARGS: &[&str] = &[
    "--error-exitcode=99",
    "--leak-check=full",
    "--errors-for-leak-kinds=definite,indirect",
    "--show-leak-kinds=definite,indirect",
];

/// How much slower than native a host runs under valgrind, for its time limits
/// (`VERIFY_HOST_SLACK` of tests/c/host.h).
pub const VALGRIND_SLACK: u32 = 25;

/// Fails unless valgrind's report (its stderr) shows no error and no definite or indirect
/// leak.
pub fn assert_valgrind_clean(stderr: &str, report: &str) {
    assert!(
        stderr.contains("ERROR SUMMARY: 0 errors"),
        "valgrind reported errors\n{report}"
    );
    let no_leaks = stderr.contains("All heap blocks were freed")
        || (stderr.contains("definitely lost: 0 bytes in 0 blocks")
            && stderr.contains("indirectly lost: 0 bytes in 0 blocks"));
    assert!(
        no_leaks,
        "valgrind reported definite or indirect leaks\n{report}"
    );
}

/// How a C host runs: natively, or under valgrind (slower: its time limits are relaxed).
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum Run {
    Native,
    Valgrind,
}

/// What a host run printed, and how it ended.
pub struct HostOutput {
    pub status: std::process::ExitStatus,
    pub stdout: String,
    pub stderr: String,
}

impl HostOutput {
    /// The whole output, for assertion messages.
    pub fn report(&self) -> String {
        format!(
            "--- host stdout ---\n{}\n--- host stderr ---\n{}",
            self.stdout, self.stderr
        )
    }

    /// Fails unless the host passed every check (tests/c/host.h: exit 0 and a RESULT line
    /// with 0 failed), and, under valgrind, valgrind found nothing.
    pub fn assert_passed(&self, run: Run) {
        let report = self.report();
        assert!(
            self.stdout.contains("RESULT: ") && self.stdout.contains(" checks, 0 failed"),
            "the host did not pass every check ({})\n{report}",
            self.status
        );
        assert!(
            self.status.success(),
            "the host exited with {} (99: valgrind found errors or leaks)\n{report}",
            self.status
        );
        if run == Run::Valgrind {
            assert_valgrind_clean(&self.stderr, &report);
        }
    }
}

/// Runs the host `program` with `args` (natively or under valgrind), feeding its requests:
/// every stdout line goes to `on_line` as it comes; a line `@@ WORDS` must be answered (the
/// host waits), so `on_line` returns the answer line (`Some("go")` once the sandbox is
/// changed); other lines may be answered with `None`. Returns when the host exits.
pub fn run_host(
    program: &std::path::Path,
    args: &[String],
    run: Run,
    on_line: impl FnMut(&str) -> Option<String>,
) -> HostOutput {
    let mut command = match run {
        Run::Native => host_command(program),
        Run::Valgrind => {
            let mut command = host_command("valgrind");
            command.args(VALGRIND_ARGS).arg(program);
            command.env("VERIFY_HOST_SLACK", VALGRIND_SLACK.to_string());
            command
        }
    };
    command.args(args).current_dir(root());
    run_host_command(command, on_line)
}

/// [`run_host`] for a command made elsewhere (its program, arguments, environment and folder
/// set): a program run by Mono or Wine, or with another library path. The host's requests
/// (`@@ WORDS` lines) go to `on_line` as [`run_host`] says.
pub fn run_host_command(
    mut command: Command,
    mut on_line: impl FnMut(&str) -> Option<String>,
) -> HostOutput {
    use std::io::{BufRead, BufReader, Read, Write};
    use std::process::Stdio;

    let mut child = command
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap_or_else(|e| panic!("cannot start {:?}: {e}", command.get_program()));
    let mut stdin = child.stdin.take().expect("stdin");
    let stdout = child.stdout.take().expect("stdout");
    let mut stderr = child.stderr.take().expect("stderr");
    let stderr_reader = std::thread::spawn(move || {
        let mut text = String::new();
        let _ = stderr.read_to_string(&mut text);
        text
    });
    let mut seen = String::new();
    let mut reader = BufReader::new(stdout);
    let mut bytes = Vec::new();
    loop {
        bytes.clear();
        match reader.read_until(b'\n', &mut bytes) {
            Ok(0) | Err(_) => break,
            Ok(_) => {}
        }
        // Hosts print what they were given, invalid UTF-8 included.
        let text = String::from_utf8_lossy(&bytes);
        let line = text.trim_end_matches(['\n', '\r']);
        seen.push_str(line);
        seen.push('\n');
        let answer = on_line(line);
        if line.starts_with("@@ ") {
            let answer = answer.unwrap_or_else(|| panic!("no answer to the host's `{line}`"));
            if writeln!(stdin, "{answer}")
                .and_then(|()| stdin.flush())
                .is_err()
            {
                break;
            }
        }
    }
    drop(stdin);
    let status = child.wait().expect("wait for the host");
    HostOutput {
        status,
        stdout: seen,
        stderr: stderr_reader.join().unwrap_or_default(),
    }
}
