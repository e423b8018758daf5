//! The network lab of this test binary: one lab (namespaces, relay, name server) and one
//! sandbox in it, shared by every test, and a slot (a client namespace with its own server
//! addresses and names) per test or per measurement, so that tests run in parallel without
//! disturbing each other. The lab itself is `tests/lab/netlab.py` (see its header, its parts
//! in `tests/lab/netlab/` and docs/network-lab.md); this module starts it, talks to its
//! control socket, starts the sandbox inside it and runs the client programs
//! (`tests/lab/lab_client.c`, and the libcurl baseline `benches/baseline/baseline.c`)
//! inside a slot.

use std::io::{BufRead, BufReader, Read, Write};
use std::os::unix::net::UnixStream;
use std::path::{Path, PathBuf};
use std::process::{Child, ChildStdin, Command, Stdio};
use std::sync::mpsc::{channel, Receiver};
use std::sync::{Arc, Mutex, OnceLock};
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

use serde_json::{json, Value};

use crate::common::host::{
    cargo_build, compile_c, header_functions, library_dir, profile_dir, require_tool, root,
    C_POSIX_FLAGS,
};
use crate::common::tls::certs;
use crate::common::{unique, APP_KEY};

/// What the lab needs, for failure messages.
const NEEDS: &str = "The network lab's tests need root (they create network namespaces and \
    veth pairs) and python3, iproute2, dnsmasq and ethtool (`scripts/install-deps.sh python3 \
    iproute2 dnsmasq ethtool`); see docs/network-lab.md.";

/// How long the lab, the sandbox or a client program may take to start.
const START_LIMIT: Duration = Duration::from_secs(60);

/// The measurements of this binary that a few milliseconds of CPU change (starts at 0 ms
/// round trip, where a start is mostly CPU) hold this for writing, while they run; the other
/// starts of the racing and figures tests hold it for reading. So none of ours runs beside
/// them, and the starts that mostly wait for the network still run in parallel.
pub fn quiet() -> std::sync::RwLockWriteGuard<'static, ()> {
    QUIET
        .write()
        .unwrap_or_else(|poisoned| poisoned.into_inner())
}

/// See [`quiet`]: held while a start that mostly waits runs.
pub fn busy() -> std::sync::RwLockReadGuard<'static, ()> {
    QUIET
        .read()
        .unwrap_or_else(|poisoned| poisoned.into_inner())
}

static QUIET: std::sync::RwLock<()> = std::sync::RwLock::new(());

/// The Python of the lab: the system's (`/usr/bin/python3`) where there is one, so that a
/// per-user installation (pyenv) does not stand in between.
pub fn python() -> &'static str {
    if Path::new("/usr/bin/python3").is_file() {
        "/usr/bin/python3"
    } else {
        "python3"
    }
}

/// The network lab: a supervising `netlab.py run` process whose standard input this process
/// holds; when this process ends, however it ends, the lab tears itself down.
pub struct Lab {
    pub dir: PathBuf,
    pub server_ns: String,
    control: PathBuf,
    sandbox_socket: PathBuf,
    _supervisor: Mutex<(Child, ChildStdin)>,
    sandbox: OnceLock<LabSandbox>,
    programs: OnceLock<Programs>,
}

/// The lab of this test binary, created on first use. Panics with the reason (not root, a
/// tool missing) when the machine cannot hold one: the lab's tests fail, never skip.
pub fn lab() -> &'static Lab {
    static LAB: OnceLock<Lab> = OnceLock::new();
    LAB.get_or_init(Lab::start)
}

impl Lab {
    fn start() -> Lab {
        let script = root().join("tests/lab/netlab.py");
        let mut child = Command::new(python())
            .arg(&script)
            .arg("run")
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap_or_else(|e| panic!("the network lab cannot start: python3: {e}\n{NEEDS}"));
        let stdin = child.stdin.take().expect("piped stdin");
        let errors = drain(child.stderr.take().expect("piped stderr"));
        let lines = lines_of(child.stdout.take().expect("piped stdout"));
        let ready = loop {
            match lines.recv_timeout(START_LIMIT) {
                Ok((_, line)) => {
                    if let Some(json) = line.strip_prefix("ready ") {
                        break serde_json::from_str::<Value>(json).expect("netlab's ready line");
                    }
                }
                Err(_) => {
                    let _ = child.kill();
                    let _ = child.wait();
                    let said = errors.all();
                    panic!("the network lab cannot start: {}\n{NEEDS}", said.trim());
                }
            }
        };
        let text = |key: &str| {
            ready[key]
                .as_str()
                .expect("a string in netlab's ready line")
                .to_owned()
        };
        Lab {
            dir: PathBuf::from(text("dir")),
            server_ns: text("server_ns"),
            control: PathBuf::from(text("control")),
            sandbox_socket: PathBuf::from(text("sandbox_socket")),
            _supervisor: Mutex::new((child, stdin)),
            sandbox: OnceLock::new(),
            programs: OnceLock::new(),
        }
    }

    /// One request to the lab's control socket; panics when it is refused.
    pub fn request(&self, request: Value) -> Value {
        let mut stream = UnixStream::connect(&self.control)
            .unwrap_or_else(|e| panic!("the lab's control socket {}: {e}", self.control.display()));
        stream
            .write_all(format!("{request}\n").as_bytes())
            .expect("write to the lab's control socket");
        let mut line = String::new();
        BufReader::new(stream)
            .read_line(&mut line)
            .expect("read the lab's answer");
        let answer: Value = serde_json::from_str(&line)
            .unwrap_or_else(|e| panic!("the lab answered {line:?} to {request}: {e}"));
        assert_eq!(
            answer["ok"],
            json!(true),
            "the lab refused {request}: {}",
            answer["error"]
        );
        answer
    }

    /// A new slot: a client namespace and its own server addresses and names.
    pub fn slot(&'static self) -> Slot {
        let answer = self.request(json!({"op": "slot"}));
        let info = &answer["slot"];
        let text = |v: &Value| v.as_str().expect("a string in the slot").to_owned();
        Slot {
            lab: self,
            k: info["slot"].as_u64().expect("slot number"),
            ns: text(&info["namespace"]),
            client_v4: text(&info["addresses"]["client_v4"]),
            client_v6: text(&info["addresses"]["client_v6"]),
            primary_v4: text(&info["addresses"]["primary_v4"]),
            mirror_v4: text(&info["addresses"]["mirror_v4"]),
            dual_v4: text(&info["addresses"]["dual_v4"]),
            dual_v6: text(&info["addresses"]["dual_v6"]),
            primary: text(&info["names"]["primary"]),
            mirror: text(&info["names"]["mirror"]),
            dual: text(&info["names"]["dual"]),
        }
    }

    /// The sandbox of the lab, started on first use.
    pub fn sandbox(&'static self) -> &'static LabSandbox {
        self.sandbox.get_or_init(|| LabSandbox::start(self))
    }

    /// The client programs, built on first use.
    pub fn programs(&self) -> &Programs {
        self.programs.get_or_init(|| Programs::build(&self.dir))
    }
}

/// A client namespace of the lab with its own server addresses and names (`sK-primary`,
/// `sK-mirror` and `sK-dual` under `lab.test`): rules set through a slot are named after
/// it and removed when it is dropped.
pub struct Slot {
    lab: &'static Lab,
    pub k: u64,
    pub ns: String,
    pub client_v4: String,
    pub client_v6: String,
    pub primary_v4: String,
    pub mirror_v4: String,
    pub dual_v4: String,
    pub dual_v6: String,
    pub primary: String,
    pub mirror: String,
    pub dual: String,
}

impl Slot {
    fn rule_name(&self, name: &str) -> String {
        format!("s{}:{name}", self.k)
    }

    /// Sets (or replaces) the rule `name` of this slot: `spec` as netlab.py takes it
    /// (`match`, `up_ms`, `down_ms`, `rate_kbps`, `stall`, `blackhole`, `reset`, `for_ms`).
    pub fn rule(&self, name: &str, mut spec: Value) {
        spec["op"] = json!("set");
        spec["name"] = json!(self.rule_name(name));
        self.lab.request(spec);
    }

    /// Removes the rule `name` (held packets go on).
    pub fn clear(&self, name: &str) {
        self.lab
            .request(json!({"op": "clear", "name": self.rule_name(name)}));
    }

    /// The round trip between this slot's client and everything it reaches (the name
    /// server included): half of it each way. 0 removes it.
    pub fn set_rtt(&self, rtt_ms: u64) {
        if rtt_ms == 0 {
            self.clear("rtt");
            return;
        }
        let half = rtt_ms as f64 / 2.0;
        self.rule(
            "rtt",
            json!({"match": {"hosts": [self.client_v4, self.client_v6]},
                   "up_ms": half, "down_ms": half}),
        );
    }

    /// Drops every packet to and from `address` (SYNs leave and vanish; ARP still answers).
    pub fn black_hole(&self, name: &str, address: &str) {
        self.rule(
            name,
            json!({"match": {"hosts": [address]}, "blackhole": true}),
        );
    }

    /// What the lab says of the rule `name` (its spec and counters), if it is set.
    fn rule_report(&self, name: &str) -> Option<Value> {
        let full = json!(self.rule_name(name));
        let stats = self.lab.request(json!({"op": "stats"}));
        stats["rules"]
            .as_array()
            .and_then(|rules| rules.iter().find(|r| r["name"] == full))
            .cloned()
    }

    /// The counters of the rule `name`.
    pub fn counts(&self, name: &str) -> Value {
        self.rule_report(name)
            .map(|r| r["counts"].clone())
            .unwrap_or_else(|| panic!("no rule {} in the lab", self.rule_name(name)))
    }

    /// Whether the rule `name` is still set (a rule with `for_ms` goes by itself).
    pub fn has_rule(&self, name: &str) -> bool {
        self.rule_report(name).is_some()
    }

    /// A probe run by the lab inside this slot's namespace (`connect`, `dns`, `open`,
    /// `send`, `recv`, `exchange`, `close`; see netlab/probes.py).
    pub fn probe(&self, op: &str, mut request: Value) -> Value {
        request["op"] = json!(op);
        request["slot"] = json!(self.k);
        self.lab.request(request)
    }

    /// A command that runs `program` inside this slot's namespace, with the library under
    /// test on its search path.
    pub fn command(&self, program: &Path) -> Command {
        let mut command = Command::new("ip");
        command
            .args(["netns", "exec", &self.ns])
            .arg(program)
            .env("LD_LIBRARY_PATH", library_dir())
            .current_dir(root());
        command
    }

    /// The https URL of one of this slot's names (`primary`, `mirror`, `dual`).
    pub fn url(&self, name: &str) -> String {
        format!("https://{name}")
    }
}

impl Drop for Slot {
    fn drop(&mut self) {
        let prefix = format!("s{}:", self.k);
        if let Ok(mut stream) = UnixStream::connect(&self.lab.control) {
            let _ = stream
                .write_all(format!("{}\n", json!({"op": "clear", "prefix": prefix})).as_bytes());
            let mut line = String::new();
            let _ = BufReader::new(stream).read_line(&mut line);
        }
    }
}

/// The sandbox in the lab's server namespace: https on port 443 (a certificate for
/// `*.lab.test` signed by a CA of the test's own) and http on port 80, bound to every address
/// of the namespace. Its control API is reached through the lab's Unix socket, by
/// [`LabSandbox::control`] alone.
pub struct LabSandbox {
    pub ca_file: PathBuf,
    /// The control API's token (bound to every address, the sandbox's door asks for one).
    token: String,
    _child: Mutex<Child>,
}

/// A program of the lab's sandbox with one 30-day card, bound at its first login to `mac`.
pub struct LabProgram {
    pub app_id: String,
    pub card: String,
    pub mac: String,
}

impl LabSandbox {
    fn start(lab: &'static Lab) -> LabSandbox {
        let binary = sandbox_binary();
        let certs = certs(&["*.lab.test"], (2020, 2090), false);
        let dir = lab.dir.join("sandbox");
        std::fs::create_dir_all(&dir).expect("the sandbox's folder in the lab");
        let (cert, key, ca_file) = (
            dir.join("cert.pem"),
            dir.join("key.pem"),
            dir.join("ca.pem"),
        );
        std::fs::write(&cert, &certs.chain_pem).expect("write the certificate");
        std::fs::write(&key, &certs.key_pem).expect("write the key");
        std::fs::write(&ca_file, &certs.ca_pem).expect("write the CA");
        // Bound to every address of its namespace, the sandbox's control API needs a token:
        // the test chooses it.
        let token = format!("lab{}", unique("token"));
        let mut child = Command::new("ip")
            .args(["netns", "exec", &lab.server_ns])
            .arg(&binary)
            .args(["--host", "::", "--port", "80", "--https-port", "443"])
            .args(["--token", &token])
            .arg("--tls-cert")
            .arg(&cert)
            .arg("--tls-key")
            .arg(&key)
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap_or_else(|e| panic!("cannot start {}: {e}", binary.display()));
        let errors = drain(child.stderr.take().expect("piped stderr"));
        let lines = lines_of(child.stdout.take().expect("piped stdout"));
        let mut https = false;
        while !https {
            match lines.recv_timeout(START_LIMIT) {
                Ok((_, line)) => https = line.starts_with("listening on https://"),
                Err(_) => {
                    let _ = child.kill();
                    let _ = child.wait();
                    panic!(
                        "the sandbox did not start in the lab: {}",
                        errors.all().trim()
                    );
                }
            }
        }
        LabSandbox {
            ca_file,
            token,
            _child: Mutex::new(child),
        }
    }

    /// A control API call (`/_sandbox/...`): `body` sent as JSON. Every control call of the
    /// lab's tests goes through here, so that what the control API asks of a client (a
    /// token, a content type) is written once.
    pub fn control(&self, method: &str, path: &str, body: Option<&Value>) -> Value {
        let body = body.map(Value::to_string).unwrap_or_default();
        let mut stream =
            UnixStream::connect(&lab().sandbox_socket).expect("the lab's way in to the sandbox");
        let request = format!(
            "{method} {path} HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n\
             Authorization: Bearer {}\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{body}",
            self.token,
            body.len()
        );
        stream
            .write_all(request.as_bytes())
            .expect("send the control request");
        let mut reply = String::new();
        stream
            .read_to_string(&mut reply)
            .expect("read the control reply");
        let (head, content) = reply.split_once("\r\n\r\n").unwrap_or((&reply, ""));
        assert!(
            head.starts_with("HTTP/1.1 200"),
            "{method} {path} {body}: {head}\n{content}"
        );
        serde_json::from_str(content).unwrap_or_else(|e| panic!("{method} {path}: {e}: {content}"))
    }

    /// A new program with one 30-day card.
    pub fn program(&self) -> LabProgram {
        let app_id = unique("lab");
        let card = unique("LABCARD");
        self.control(
            "POST",
            "/_sandbox/fixtures",
            Some(&json!({
                "programs": [{"app_id": app_id, "app_key": APP_KEY, "status": "approved"}],
                "cards": [{"app_id": app_id, "card": card, "kind": "duration",
                           "duration": 30, "duration_type": "day"}]
            })),
        );
        LabProgram {
            app_id,
            card,
            mac: "LAB-MACHINE-0001".to_owned(),
        }
    }
}

/// The sandbox binary: `$VERIFY_LAB_SANDBOX` when set (benches/lab.sh: the release build of
/// benches/run.sh), else `target/<profile>/verify-sandbox`. `cargo test --workspace`
/// (scripts/test.sh) has just built that one, with the features of the whole workspace's
/// tests: it is used as it is when it is newer than every file of `sandbox/` and
/// `Cargo.lock` (the sandbox depends on nothing else of the workspace). Otherwise `cargo
/// build -p verify-sandbox` builds it first (a rebuild, since its features differ from the
/// workspace's tests').
fn sandbox_binary() -> PathBuf {
    static BUILT: OnceLock<PathBuf> = OnceLock::new();
    BUILT
        .get_or_init(|| {
            if let Some(binary) = std::env::var_os("VERIFY_LAB_SANDBOX") {
                let binary = PathBuf::from(binary);
                assert!(
                    binary.is_file(),
                    "VERIFY_LAB_SANDBOX={} is no file",
                    binary.display()
                );
                return binary;
            }
            let binary = profile_dir().join("verify-sandbox");
            let built = std::fs::metadata(&binary).and_then(|m| m.modified()).ok();
            let newest = newest_change(&root().join("sandbox"))
                .max(newest_change(&root().join("Cargo.lock")));
            if built.is_some_and(|built| newest.is_some_and(|newest| built > newest)) {
                return binary;
            }
            cargo_build(&["-p", "verify-sandbox", "--bin", "verify-sandbox"]);
            assert!(binary.is_file(), "{} not built", binary.display());
            binary
        })
        .clone()
}

/// The latest modification time of `path` or of anything under it (`target` folders aside).
fn newest_change(path: &Path) -> Option<SystemTime> {
    let meta = std::fs::metadata(path).ok()?;
    let own = meta.modified().ok();
    if !meta.is_dir() {
        return own;
    }
    std::fs::read_dir(path)
        .ok()?
        .filter_map(Result::ok)
        .filter(|entry| entry.file_name() != "target")
        .filter_map(|entry| newest_change(&entry.path()))
        .chain(own)
        .max()
}

/// The client programs of the lab, built into the lab's folder on first use.
pub struct Programs {
    bin: PathBuf,
    /// `tests/lab/lab_client.c` against the library under test.
    pub lab_client: PathBuf,
    /// The racing settings of the library that lab_client was built with (verify.h
    /// declares them): `verify_client_options_set_attempt_delay`, `_add_address`,
    /// `_set_state_folder`.
    pub racing: [bool; 3],
    curl: OnceLock<PathBuf>,
}

/// The racing settings, as lab_client's -D flags name them.
const RACING: [(&str, &str); 3] = [
    (
        "verify_client_options_set_attempt_delay",
        "-DLAB_HAVE_SET_ATTEMPT_DELAY",
    ),
    (
        "verify_client_options_add_address",
        "-DLAB_HAVE_ADD_ADDRESS",
    ),
    (
        "verify_client_options_set_state_folder",
        "-DLAB_HAVE_SET_STATE_FOLDER",
    ),
];

impl Programs {
    fn build(dir: &Path) -> Programs {
        require_tool("cc", "gcc");
        let bin = dir.join("bin");
        std::fs::create_dir_all(&bin).expect("the lab's bin folder");
        let declared: Vec<String> = header_functions()
            .into_iter()
            .map(|(name, _)| name)
            .collect();
        let racing = RACING.map(|(name, _)| declared.iter().any(|d| d == name));
        let mut flags: Vec<&str> = C_POSIX_FLAGS.to_vec();
        flags.extend(
            RACING
                .iter()
                .zip(racing)
                .filter(|(_, on)| *on)
                .map(|((_, flag), _)| *flag),
        );
        let lab_client = bin.join("lab_client");
        compile_c(&root().join("tests/lab/lab_client.c"), &lab_client, &flags);
        Programs {
            bin,
            lab_client,
            racing,
            curl: OnceLock::new(),
        }
    }

    /// Whether lab_client has the library's state folder setting.
    pub fn has_state_folder(&self) -> bool {
        self.racing[2]
    }

    /// `benches/baseline/baseline.c`, the libcurl + OpenSSL client, built on first use.
    pub fn curl(&self) -> &Path {
        self.curl.get_or_init(|| {
            let flags = Command::new("pkg-config")
                .args(["--cflags", "--libs", "libcurl", "libcrypto"])
                .output()
                .ok()
                .filter(|o| o.status.success())
                .map(|o| String::from_utf8_lossy(&o.stdout).into_owned())
                .unwrap_or_else(|| {
                    panic!(
                        "the libcurl client of the lab needs libcurl's and OpenSSL's headers: \
                         run `scripts/install-deps.sh libcurl-dev`"
                    )
                });
            let curl = self.bin.join("baseline");
            let output = Command::new(std::env::var("CC").unwrap_or_else(|_| "cc".to_owned()))
                .args([
                    "-std=c99",
                    "-O2",
                    "-Wall",
                    "-Wextra",
                    "-Werror",
                    "-pedantic",
                ])
                .arg(root().join("benches/baseline/baseline.c"))
                .args(flags.split_whitespace())
                .arg("-o")
                .arg(&curl)
                .output()
                .expect("run the C compiler");
            assert!(
                output.status.success(),
                "compiling benches/baseline/baseline.c failed:\n{}",
                String::from_utf8_lossy(&output.stderr)
            );
            curl
        })
    }
}

/// Which client starts.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Client {
    /// `lab_client` (libverify).
    Verify,
    /// The libcurl + OpenSSL baseline.
    Curl,
}

/// How a client starts: its URL and mirror, and lab_client's extra options.
#[derive(Clone, Debug, Default)]
pub struct Launch {
    pub url: String,
    pub mirror: Option<String>,
    /// lab_client only: `--state-folder`, `--timeouts`, `--log`, ...
    pub verify_options: Vec<String>,
}

/// One start of a client: its code and how long it took.
#[derive(Clone, Debug)]
pub struct Start {
    pub code: i32,
    /// From the moment the test started the process to the SingleLogin answer.
    pub ms: f64,
    pub stdout: String,
    pub stderr: String,
}

impl Slot {
    /// Starts `client` in this slot, as a user starts a licensed program: one login of
    /// `program`, timed from the process's start to the SingleLogin answer.
    pub fn start(&self, client: Client, program: &LabProgram, launch: &Launch) -> Start {
        let lab = self.lab;
        let programs = lab.programs();
        let ca = lab.sandbox().ca_file.display().to_string();
        let mut command = match client {
            Client::Verify => {
                let mut command = self.command(&programs.lab_client);
                command
                    .args(["login", &launch.url, &program.app_id, APP_KEY])
                    .args([&program.card, &program.mac, "--ca", &ca]);
                if let Some(mirror) = &launch.mirror {
                    command.args(["--mirror", mirror]);
                }
                command.args(&launch.verify_options);
                command
            }
            Client::Curl => {
                let mut command = self.command(programs.curl());
                command.args(["--ca", &ca]);
                if let Some(mirror) = &launch.mirror {
                    command.args(["--mirror", mirror]);
                }
                command
                    .args([&launch.url, &program.app_id, APP_KEY, "login"])
                    .args([&program.card, &program.mac]);
                command
            }
        };
        let started = unix_ns();
        let output = command
            .stdin(Stdio::null())
            .output()
            .unwrap_or_else(|e| panic!("cannot start {client:?} in slot {}: {e}", self.k));
        let stdout = String::from_utf8_lossy(&output.stdout).into_owned();
        let stderr = String::from_utf8_lossy(&output.stderr).into_owned();
        let line = stdout.lines().find(|l| l.starts_with("login code="));
        let field = |key: &str| {
            line.and_then(|l| {
                l.split_whitespace()
                    .find_map(|w| w.strip_prefix(key).and_then(|v| v.parse::<i64>().ok()))
            })
        };
        match (field("code="), field("answer_unix_ns=")) {
            (Some(code), Some(answer)) => Start {
                code: code as i32,
                ms: (answer as f64 - started as f64) / 1e6,
                stdout,
                stderr,
            },
            _ => Start {
                code: i32::MIN,
                ms: f64::NAN,
                stdout,
                stderr: format!("{stderr}(exit status {})", output.status),
            },
        }
    }

    /// Starts lab_client's `keeper` mode in this slot: its output lines come through the
    /// returned [`Running`], each with the moment it was read.
    pub fn keeper(
        &self,
        program: &LabProgram,
        interval_ms: u32,
        grace_ms: u32,
        options: &[&str],
    ) -> Running {
        let lab = self.lab;
        let ca = lab.sandbox().ca_file.display().to_string();
        let mut child = self
            .command(&lab.programs().lab_client)
            .args(["keeper", &self.url(&self.primary), &program.app_id, APP_KEY])
            .args([&program.card, &program.mac])
            .args([interval_ms.to_string(), grace_ms.to_string()])
            .args(["--ca", &ca])
            .args(options)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .expect("start lab_client keeper");
        let stdin = child.stdin.take().expect("piped stdin");
        let errors = drain(child.stderr.take().expect("piped stderr"));
        let lines = lines_of(child.stdout.take().expect("piped stdout"));
        Running {
            child,
            stdin: Some(stdin),
            lines,
            seen: Vec::new(),
            errors,
        }
    }
}

/// A running lab_client whose output lines are read as they come.
pub struct Running {
    child: Child,
    stdin: Option<ChildStdin>,
    lines: Receiver<(Instant, String)>,
    /// Every line read so far, with when it was read.
    pub seen: Vec<(Instant, String)>,
    errors: Drained,
}

impl Running {
    /// Waits (at most `limit`) for a line for which `wanted` holds; returns when it came.
    /// Every line read meanwhile is kept in `seen`.
    pub fn wait_for(&mut self, limit: Duration, wanted: impl Fn(&str) -> bool) -> Option<Instant> {
        let deadline = Instant::now() + limit;
        loop {
            let left = deadline.saturating_duration_since(Instant::now());
            match self.lines.recv_timeout(left) {
                Ok((at, line)) => {
                    let hit = wanted(&line);
                    self.seen.push((at, line));
                    if hit {
                        return Some(at);
                    }
                }
                Err(_) => return None,
            }
        }
    }

    /// Adds `text` to what it printed, as a line `-- text` of this moment (what the test did,
    /// for the report).
    pub fn note(&mut self, text: &str) {
        self.seen.push((Instant::now(), format!("-- {text}")));
    }

    /// Everything it printed so far, for failure messages, with times relative to `zero`.
    pub fn report(&self, zero: Instant) -> String {
        let mut text: String = self
            .seen
            .iter()
            .map(|(at, line)| {
                format!(
                    "{:>9.3} s  {line}\n",
                    at.saturating_duration_since(zero).as_secs_f64()
                )
            })
            .collect();
        text.push_str(&self.errors.so_far());
        text
    }

    /// Asks it to stop (`stop` on stdin) and waits for it to end.
    pub fn stop(&mut self) -> String {
        if let Some(mut stdin) = self.stdin.take() {
            let _ = stdin.write_all(b"stop\n");
        }
        let _ = self.wait_for(Duration::from_secs(10), |l| l == "stopped");
        let _ = self.child.wait();
        self.seen.iter().map(|(_, l)| format!("{l}\n")).collect()
    }
}

impl Drop for Running {
    fn drop(&mut self) {
        drop(self.stdin.take());
        if matches!(self.child.try_wait(), Ok(None)) {
            let _ = self.child.kill();
        }
        let _ = self.child.wait();
    }
}

/// Now, in nanoseconds since the Unix epoch (the clock lab_client's `answer_unix_ns` uses).
fn unix_ns() -> i128 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map(|d| d.as_nanos() as i128)
        .unwrap_or(0)
}

/// The lines of `from`, each with the moment it was read, through a channel.
fn lines_of(from: impl Read + Send + 'static) -> Receiver<(Instant, String)> {
    let (send, receive) = channel();
    std::thread::spawn(move || {
        for line in BufReader::new(from).lines() {
            match line {
                Ok(line) => {
                    if send.send((Instant::now(), line)).is_err() {
                        break;
                    }
                }
                Err(_) => break,
            }
        }
    });
    receive
}

/// Everything `from` says, collected in the background.
struct Drained {
    text: Arc<Mutex<String>>,
    reader: Option<std::thread::JoinHandle<()>>,
}

impl Drained {
    /// What it said so far.
    fn so_far(&self) -> String {
        self.text.lock().map(|t| t.clone()).unwrap_or_default()
    }

    /// All it said, once the writer has ended (its pipe closed).
    fn all(mut self) -> String {
        if let Some(reader) = self.reader.take() {
            let _ = reader.join();
        }
        self.so_far()
    }
}

fn drain(mut from: impl Read + Send + 'static) -> Drained {
    let text = Arc::new(Mutex::new(String::new()));
    let sink = Arc::clone(&text);
    let reader = std::thread::spawn(move || {
        let mut buffer = [0u8; 4096];
        while let Ok(n) = from.read(&mut buffer) {
            if n == 0 {
                break;
            }
            if let Ok(mut text) = sink.lock() {
                text.push_str(&String::from_utf8_lossy(&buffer[..n]));
            }
        }
    });
    Drained {
        text,
        reader: Some(reader),
    }
}
