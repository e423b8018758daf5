//! The keeper, the cancel token, the social wait and the machine code through the C ABI, as
//! a C host calls them: `tests/c/c_keeper.c` (C99 with POSIX threads), compiled with
//! warnings as errors against the library of this build and run against the sandbox. The
//! scenarios whose point is a time limit (a free within 100 ms, a cancel within 100 ms) run
//! natively; the others under valgrind.
//!
//! The host asks for what only the sandbox can do (a back-office message, a ban, a social
//! authorization) with `@@` lines; see the comment at the top of c_keeper.c.
//!
//! Needs `cc` and `valgrind` on PATH: `scripts/install-deps.sh gcc valgrind` installs them.

#[path = "../common/mod.rs"]
mod common;

use std::time::Duration;

use common::host::{build_host, require_tool, run_host, HostOutput, Run, Scratch, C_POSIX_FLAGS};
use common::{eventually, unique, Program, APP_KEY};
use verify_sandbox::{Fault, FaultKind};

const PATIENCE: Duration = Duration::from_secs(20);
const PASSWORD: &str = "pw-of-the-c-host";

/// Builds the host, runs `args` (`run`), answers its requests with `on_request` (given the
/// words after `@@ `), and checks that every check passed.
fn run(args: &[String], run: Run, mut on_request: impl FnMut(&str)) -> HostOutput {
    if run == Run::Valgrind {
        require_tool("valgrind", "valgrind");
    }
    let scratch = Scratch::new();
    let program = build_host("c_keeper", &scratch, C_POSIX_FLAGS);
    let output = run_host(&program, args, run, |line| {
        let request = line.strip_prefix("@@ ")?;
        on_request(request);
        Some("go".to_owned())
    });
    output.assert_passed(run);
    output
}

/// A program with an account; returns it with the host's arguments for it.
fn program_with_account(scenario: &str) -> (Program<'static>, String, Vec<String>) {
    let program = Program::fresh();
    let user = unique("ck");
    program.account(&user, PASSWORD);
    let args = vec![
        scenario.to_owned(),
        program.sandbox.base_url(),
        program.app_id.clone(),
        APP_KEY.to_owned(),
        user.clone(),
        PASSWORD.to_owned(),
    ];
    (program, user, args)
}

/// The back-office requests of the callback and status scenarios.
fn back_office<'a>(program: &'a Program<'_>, user: &'a str) -> impl FnMut(&str) + 'a {
    move |request| {
        if let Some(text) = request.strip_prefix("message ") {
            program
                .sandbox
                .leave_account_message(&program.app_id, user, text)
                .expect("leave a message");
        } else if let Some(reason) = request.strip_prefix("ban ") {
            program
                .sandbox
                .update_account(&program.app_id, user, "ban", Some(reason))
                .expect("ban");
        } else {
            panic!("unexpected request `{request}`");
        }
    }
}

#[test]
fn keeper_events_reach_a_c_callback() {
    // A message once (code 200, its text), then the ban ends the session (1006 with the
    // reason as remark); events never run on the starting thread; options freed at once.
    let (program, user, args) = program_with_account("callback");
    run(&args, Run::Valgrind, back_office(&program, &user));
}

#[test]
fn the_typed_status_snapshot() {
    // State, last code and message, remark, expiry, last success, counts, and messages
    // taken by exactly one snapshot; absent values are VERIFY_ERR_NO_SUCH_FIELD without
    // touching the last error; a snapshot outlives its keeper.
    let (program, user, args) = program_with_account("status");
    run(&args, Run::Valgrind, back_office(&program, &user));
}

#[test]
fn an_outage_gives_the_grace_state_then_alive_again() {
    // Heartbeats answered with HTTP 502: TROUBLE events, state GRACE in the keeper and its
    // snapshot (negative last code, a message, failures counted, the last success kept),
    // never ENDED; once the server answers again, ALIVE with more successes.
    let (program, _, args) = program_with_account("grace");
    run(&args, Run::Valgrind, |request| match request {
        "outage" => program.sandbox.set_fault(Fault {
            kind: FaultKind::Http502,
            app_id: Some(program.app_id.clone()),
            action: Some("UserHeartbeat".into()),
            count: None,
            delay_ms: 0,
        }),
        "recover" => program.sandbox.clear_faults(Some(&program.app_id)),
        other => panic!("unexpected request `{other}`"),
    });
}

#[test]
fn freeing_the_client_stops_its_keeper_mid_request_within_100_ms() {
    let (program, _, args) = program_with_account("free");
    program.sandbox.set_fault(Fault {
        kind: FaultKind::Delay,
        app_id: Some(program.app_id.clone()),
        action: Some("UserHeartbeat".into()),
        count: None,
        delay_ms: 10_000,
    });
    run(&args, Run::Native, |request| {
        assert_eq!(request, "heartbeat-in-flight");
        assert!(
            eventually(PATIENCE, || program
                .sandbox
                .request_log(Some(&program.app_id))
                .iter()
                .any(|e| e.action.as_deref() == Some("UserHeartbeat"))),
            "no heartbeat reached the sandbox"
        );
    });
}

#[test]
fn social_wait_through_the_c_abi_is_cancellable() {
    let program = Program::fresh();
    let user = unique("cksw");
    let args = vec![
        "social".to_owned(),
        program.sandbox.base_url(),
        program.app_id.clone(),
        APP_KEY.to_owned(),
        user,
    ];
    let pending = || {
        program
            .sandbox
            .request_log(Some(&program.app_id))
            .iter()
            .filter(|e| e.code == 201)
            .count()
    };
    run(&args, Run::Native, |request| {
        if request == "polling" {
            // The wait is in its interval once the sandbox answered a poll with 201.
            assert!(
                eventually(PATIENCE, || pending() >= 1),
                "no poll answered 201"
            );
        } else if let Some(state) = request.strip_prefix("authorize-now ") {
            program
                .sandbox
                .authorize_social(state, "openid-c", "C")
                .expect("authorize the registration");
        } else if let Some(state) = request.strip_prefix("authorize ") {
            // Completed by the back office while the wait polls: two more polls first.
            let before = pending();
            assert!(
                eventually(PATIENCE, || pending() >= before + 2),
                "the wait does not poll"
            );
            program
                .sandbox
                .authorize_social(state, "openid-c", "C")
                .expect("authorize the login");
        } else {
            panic!("unexpected request `{request}`");
        }
    });
}

#[test]
fn machine_code_through_the_c_abi() {
    let output = run(
        &["machine".to_owned(), "app-1".to_owned()],
        Run::Valgrind,
        |r| panic!("unexpected request `{r}`"),
    );
    let printed = output
        .stdout
        .lines()
        .find_map(|line| line.strip_prefix("machine-code "))
        .unwrap_or_else(|| panic!("no machine code printed\n{}", output.report()));
    assert_eq!(
        printed,
        verify_core::machine_code("app-1").expect("the core's machine code"),
        "the C ABI and the core agree"
    );
}

#[test]
fn keeper_options_cancel_and_status_bad_arguments() {
    // verify_keeper_start, every options setter (bad values refused with a message, the
    // largest values accepted), every status accessor, the cancel token, the wait's numbers.
    let program = Program::fresh();
    let args = vec![
        "misuse".to_owned(),
        program.sandbox.base_url(),
        program.app_id.clone(),
        APP_KEY.to_owned(),
    ];
    run(&args, Run::Valgrind, |r| panic!("unexpected request `{r}`"));
}

// --- machine code v2 -------------------------------------------------------------------------

/// One run of the `machine-v2` scenario, parsed.
struct V2Run {
    code: String,
    outcome: String,
    /// (component, state) in the host's order.
    components: Vec<(String, String)>,
    looks_virtual: bool,
    output: HostOutput,
}

impl V2Run {
    fn parse(output: HostOutput) -> V2Run {
        let field = |label: &str| {
            output
                .stdout
                .lines()
                .find_map(|line| line.strip_prefix(label))
                .map(str::to_owned)
                .unwrap_or_else(|| panic!("no `{label}` line\n{}", output.report()))
        };
        let code = field("v2-code ");
        let outcome = field("v2-outcome ");
        let looks_virtual = field("virtual ") == "1";
        let components = output
            .stdout
            .lines()
            .filter_map(|line| line.strip_prefix("component "))
            .map(|rest| {
                let parts: Vec<&str> = rest.split(' ').collect();
                (parts[0].to_owned(), parts[1].to_owned())
            })
            .collect();
        V2Run {
            code,
            outcome,
            components,
            looks_virtual,
            output,
        }
    }

    fn state(&self, component: &str) -> &str {
        self.components
            .iter()
            .find(|(name, _)| name == component)
            .map(|(_, state)| state.as_str())
            .unwrap_or_else(|| panic!("no {component}\n{}", self.output.report()))
    }

    fn expect(&self, outcome: &str, what: &str) {
        assert_eq!(self.outcome, outcome, "{what}\n{}", self.output.report());
    }
}

/// The C host built once per test.
struct V2Host {
    _scratch: Scratch,
    program: std::path::PathBuf,
}

impl V2Host {
    fn build() -> V2Host {
        let scratch = Scratch::new();
        let program = build_host("c_keeper", &scratch, C_POSIX_FLAGS);
        V2Host {
            _scratch: scratch,
            program,
        }
    }

    fn args(salt: &str, folder: &std::path::Path) -> Vec<String> {
        vec![
            "machine-v2".to_owned(),
            salt.to_owned(),
            folder.display().to_string(),
        ]
    }

    fn run(&self, salt: &str, folder: &std::path::Path, run: Run) -> V2Run {
        let output = run_host(&self.program, &Self::args(salt, folder), run, |_| None);
        output.assert_passed(run);
        V2Run::parse(output)
    }

    /// Runs the host in new mount and network namespaces after `setup` (shell commands run
    /// as root there: bind mounts over the machine's sources, network adapters); the
    /// machine itself is never changed.
    fn run_changed(
        &self,
        salt: &str,
        folder: &std::path::Path,
        setup: &str,
        env: &[(&str, &str)],
    ) -> V2Run {
        let mut command = common::host::host_command("unshare");
        command
            .args(["--mount", "--net", "--", "sh", "-c"])
            .arg(format!("set -e\n{setup}\nexec \"$@\""))
            .arg("sh")
            .arg(&self.program)
            .args(Self::args(salt, folder));
        for (key, value) in env {
            command.env(key, value);
        }
        let output = command.output().expect("run unshare");
        let (stdout, stderr) = common::host::text(&output);
        let output = HostOutput {
            status: output.status,
            stdout,
            stderr,
        };
        assert!(
            output.status.success() && output.stdout.contains(" checks, 0 failed"),
            "the host failed in its namespaces (root and unshare are needed: the test \
             changes the machine's sources only there)\n{}",
            output.report()
        );
        V2Run::parse(output)
    }
}

/// Shell lines that give the namespace a made-up DMI folder (`/sys/class` on a tmpfs) from
/// the variables DMI_UUID, DMI_SERIAL (as root: both readable).
const FAKE_DMI: &str = "mount -t tmpfs verify-dmi /sys/class
mkdir -p /sys/class/dmi/id
printf '%s\\n' \"$DMI_UUID\" > /sys/class/dmi/id/product_uuid
printf '%s\\n' \"$DMI_SERIAL\" > /sys/class/dmi/id/board_serial
printf 'QEMU\\n' > /sys/class/dmi/id/sys_vendor
printf 'Standard PC (Q35 + ICH9, 2009)\\n' > /sys/class/dmi/id/product_name";

/// Shell lines that put the file $FAKE_ID over the machine-id files.
const FAKE_MACHINE_ID: &str = "mount --bind \"$FAKE_ID\" /etc/machine-id
if [ -f /var/lib/dbus/machine-id ] && [ ! -L /var/lib/dbus/machine-id ]; then
  mount --bind \"$FAKE_ID\" /var/lib/dbus/machine-id
fi";

#[test]
fn machine_code_v2_through_the_c_abi() {
    let host = V2Host::build();
    // Under valgrind (no leak, no error): issued, then kept. Valgrind shows the program a
    // processor of its own (CPUID), so its store is keyed apart from a native run's.
    let checked = Scratch::new();
    let under_valgrind = host.run("app-1", &checked.0, Run::Valgrind);
    under_valgrind.expect("issued", "a fresh state folder");
    host.run("app-1", &checked.0, Run::Valgrind)
        .expect("kept", "the same machine under valgrind");
    let folder = Scratch::new();
    let first = host.run("app-1", &folder.0, Run::Native);
    first.expect("issued", "a fresh state folder");
    // The processor keys the store but is no part of the code.
    assert_eq!(first.code, under_valgrind.code);
    let second = host.run("app-1", &folder.0, Run::Native);
    second.expect("kept", "the same machine");
    assert_eq!(second.code, first.code);
    // The real sources of this machine: what can be read matches, nothing differs.
    for (name, state) in &second.components {
        assert!(
            ["matches", "unreadable", "placeholder"].contains(&state.as_str()),
            "{name} {state}\n{}",
            second.output.report()
        );
    }
    for (component, readable) in [
        (
            "os_install",
            std::path::Path::new("/etc/machine-id").exists(),
        ),
        ("cpu", true),
        (
            "board_uuid",
            std::fs::read_to_string("/sys/class/dmi/id/product_uuid").is_ok(),
        ),
    ] {
        if readable {
            assert_eq!(second.state(component), "matches", "{component}");
        } else {
            assert_eq!(second.state(component), "unreadable", "{component}");
        }
    }
    // The core, in this process, keeps the same code; another salt has another code.
    let check =
        verify_core::machine_check("app-1", &verify_core::StateFolder::Path(folder.0.clone()))
            .expect("the core's check");
    assert_eq!(check.code, first.code);
    assert_eq!(check.outcome, verify_core::Outcome::Kept);
    assert_ne!(host.run("app-2", &folder.0, Run::Native).code, first.code);
    // The same indication as the core's.
    assert_eq!(
        second.looks_virtual,
        verify_core::machine_virtualization().looks_virtual()
    );
    // v1 is untouched by v2 and its store.
    assert!(!first
        .output
        .stdout
        .contains(&verify_core::machine_code("app-1").expect("v1")));
}

#[test]
fn machine_code_v2_spawns_no_process() {
    require_tool("strace", "strace");
    let host = V2Host::build();
    let folder = Scratch::new();
    let trace = folder.0.join("trace");
    let mut command = common::host::host_command("strace");
    command
        .args([
            "-f",
            "-qq",
            "-e",
            "trace=execve,execveat,fork,vfork,clone,clone3",
            "-o",
        ])
        .arg(&trace)
        .arg(&host.program)
        .args(V2Host::args("app-1", &folder.0.join("state")));
    let output = command.output().expect("run strace");
    let (stdout, stderr) = common::host::text(&output);
    assert!(
        output.status.success() && stdout.contains(" checks, 0 failed"),
        "{stdout}\n{stderr}"
    );
    let calls = std::fs::read_to_string(&trace).expect("the trace");
    let execs = calls.lines().filter(|l| l.contains("execve")).count();
    let forks: Vec<&str> = calls
        .lines()
        .filter(|l| ["fork(", "clone(", "clone3("].iter().any(|c| l.contains(c)))
        .collect();
    assert_eq!(execs, 1, "only the host itself is executed\n{calls}");
    assert!(forks.is_empty(), "no process or thread started\n{calls}");
}

/// docs/machine-code.md's rows on this Linux machine, with its real sources changed only inside the
/// test's own mount and network namespaces.
#[test]
fn machine_code_v2_rows_on_a_changed_linux() {
    let host = V2Host::build();
    let scratch = Scratch::new();
    let fake_id = scratch.0.join("machine-id");
    let empty = scratch.0.join("empty");
    std::fs::write(&fake_id, "0123456789abcdef0123456789abcdef\n").expect("write");
    std::fs::write(&empty, "").expect("write");
    let folder = scratch.0.join("state");
    let first = host.run("rows", &folder, Run::Native);
    first.expect("issued", "first run");

    // VPN (tun) and virtual (veth) adapters added: the same code.
    let adapters = host.run_changed(
        "rows",
        &folder,
        "ip tuntap add verify-vpn0 mode tun\nip link add verify-v0 type veth peer name verify-v1",
        &[],
    );
    adapters.expect("kept", "network adapters added");
    assert_eq!(adapters.code, first.code);

    // machine-id edited: the same code (the root file system and processor still match).
    let fake = fake_id.display().to_string();
    let edited = host.run_changed("rows", &folder, FAKE_MACHINE_ID, &[("FAKE_ID", &fake)]);
    assert_eq!(edited.code, first.code, "{}", edited.output.report());
    if edited.state("system_volume") == "matches" {
        edited.expect("kept", "machine-id edited");
        assert_eq!(edited.state("os_install"), "differs");
    }

    // machine-id unreadable (empty): the same code.
    let empty_path = empty.display().to_string();
    let missing = host.run_changed(
        "rows",
        &folder,
        FAKE_MACHINE_ID,
        &[("FAKE_ID", &empty_path)],
    );
    assert_eq!(missing.code, first.code, "{}", missing.output.report());
    assert_eq!(missing.state("os_install"), "unreadable");

    // As root with a board (a made-up DMI folder): a VM clone (new SMBIOS UUID, the same
    // machine-id, volume and board serial) gets another code; the original keeps its own.
    let original = scratch.0.join("vm");
    let dmi = |uuid: &str, serial: &str| {
        [
            ("DMI_UUID", uuid.to_owned()),
            ("DMI_SERIAL", serial.to_owned()),
        ]
    };
    let env = |pairs: &[(&'static str, String)]| -> Vec<(&'static str, String)> { pairs.to_vec() };
    let run_dmi = |folder: &std::path::Path, vars: Vec<(&'static str, String)>, setup: &str| {
        let vars: Vec<(&str, &str)> = vars.iter().map(|(k, v)| (*k, v.as_str())).collect();
        host.run_changed("rows", folder, setup, &vars)
    };
    let vm = run_dmi(
        &original,
        env(&dmi(
            "564d1c42-7d2a-9e3b-1f44-0a8b2c3d4e5f",
            "VMware-56 4d 1c 42",
        )),
        FAKE_DMI,
    );
    vm.expect("issued", "the VM's first run");
    assert_eq!(vm.state("board_uuid"), "not_stored");
    let clone_disk = scratch.0.join("vm-clone");
    copy_folder(&original, &clone_disk);
    let clone = run_dmi(
        &clone_disk,
        env(&dmi(
            "564d9a17-0b3c-5d2e-8f61-7c4b3a2d1e0f",
            "VMware-56 4d 1c 42",
        )),
        FAKE_DMI,
    );
    clone.expect("reissued", "a VM clone");
    assert_ne!(clone.code, vm.code);
    assert_eq!(clone.state("board_uuid"), "differs");
    assert_eq!(clone.state("board_serial"), "matches");
    // The original, its machine-id edited too: still its code.
    let mut vars = env(&dmi(
        "564d1c42-7d2a-9e3b-1f44-0a8b2c3d4e5f",
        "VMware-56 4d 1c 42",
    ));
    vars.push(("FAKE_ID", fake.clone()));
    let again = run_dmi(&original, vars, &format!("{FAKE_DMI}\n{FAKE_MACHINE_ID}"));
    again.expect("kept", "the original VM, machine-id edited");
    assert_eq!(again.code, vm.code);

    // Two boards with the same placeholder UUID and different serials and installations:
    // different codes.
    let board_a = scratch.0.join("placeholder-a");
    let a = run_dmi(
        &board_a,
        env(&dmi("03000200-0400-0500-0006-000700080009", "BSN-A-0001")),
        FAKE_DMI,
    );
    assert_eq!(a.state("board_uuid"), "placeholder");
    let board_b = scratch.0.join("placeholder-b");
    copy_folder(&board_a, &board_b);
    let mut vars = env(&dmi("03000200-0400-0500-0006-000700080009", "BSN-B-0002"));
    vars.push(("FAKE_ID", fake.clone()));
    let b = run_dmi(&board_b, vars, &format!("{FAKE_DMI}\n{FAKE_MACHINE_ID}"));
    b.expect("reissued", "another board with the same placeholder UUID");
    assert_ne!(b.code, a.code);
}

fn copy_folder(from: &std::path::Path, to: &std::path::Path) {
    std::fs::create_dir_all(to).expect("create");
    for entry in std::fs::read_dir(from).expect("list").flatten() {
        std::fs::copy(entry.path(), to.join(entry.file_name())).expect("copy");
    }
}
