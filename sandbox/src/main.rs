//! `verify-sandbox`: the command line (`verify-sandbox --help` lists every flag).

#![forbid(unsafe_code)]

use std::io::Write;
use std::path::PathBuf;
use std::process::ExitCode;
use std::time::Duration;

use clap::Parser;
use verify_sandbox::{Config, Fixtures, Limits, Sandbox, Tls};

/// A local server of the whole licensing verification service, for offline development and
/// tests. Prints `listening on http://HOST:PORT` as its first stdout line, then (with https)
/// `listening on https://HOST:PORT` and `ca: PATH`, then `token: TOKEN` when the console
/// and the control API need one, and `console: URL`; serves until SIGINT or SIGTERM.
#[derive(Parser, Debug)]
#[command(name = "verify-sandbox", version, about, long_about = None)]
struct Args {
    /// Address to bind (http and https).
    #[arg(long, value_name = "ADDR", default_value = "127.0.0.1")]
    host: String,

    /// http port; 0 picks a free one (printed).
    #[arg(long, value_name = "PORT", default_value_t = 0)]
    port: u16,

    /// Fixtures (JSON) loaded at start; ignored when --state names an existing file
    /// [default: none].
    #[arg(long, value_name = "FILE")]
    fixtures: Option<PathBuf>,

    /// Serve no back-office control API and no console (`/_sandbox/...` answers 404).
    #[arg(long)]
    no_control: bool,

    /// State file: loaded at start when it exists, saved atomically after every change
    /// [default: none: state kept in memory only].
    #[arg(long, value_name = "FILE")]
    state: Option<PathBuf>,

    /// Entries kept in the request log (a ring).
    #[arg(long, value_name = "N", default_value_t = verify_sandbox::DEFAULT_LOG_SIZE)]
    log_size: usize,

    /// Serve https too on this port (0 picks a free one), with a CA and a certificate for
    /// 127.0.0.1, ::1 and localhost generated at start unless --tls-cert is given
    /// [default: none: http only].
    #[arg(long, value_name = "PORT")]
    https_port: Option<u16>,

    /// Server certificate chain (PEM) for https instead of a generated one; needs --tls-key;
    /// turns https on [default: none: generated].
    #[arg(long, value_name = "FILE", requires = "tls_key")]
    tls_cert: Option<PathBuf>,

    /// Private key (PEM) of --tls-cert [default: none].
    #[arg(long, value_name = "FILE", requires = "tls_cert")]
    tls_key: Option<PathBuf>,

    /// Where to write the generated CA (PEM) [default: verify-sandbox-ca-PORT.pem in the
    /// OS temporary folder, PORT the https port].
    #[arg(long, value_name = "FILE")]
    ca_out: Option<PathBuf>,

    /// Seconds a connection may take to send a request head (idle kept-alive connections
    /// included) before it is closed.
    #[arg(long, value_name = "SECS", default_value_t = 60)]
    header_timeout: u64,

    /// Seconds a request body may take before 408 and the connection is closed.
    #[arg(long, value_name = "SECS", default_value_t = 60)]
    body_timeout: u64,

    /// Open connections above this are refused with 503.
    #[arg(long, value_name = "N", default_value_t = 1024)]
    max_connections: usize,

    /// Session secrets (api_password) kept per program; older ones expire (1001).
    #[arg(long, value_name = "N", default_value_t = 1000)]
    max_api_passwords: usize,

    /// The token the console and the control API need (A-Z a-z 0-9 - . _ ~), required on
    /// any address [default: a random one when --host is not loopback, none on loopback].
    #[arg(
        long,
        value_name = "TOKEN",
        env = "VERIFY_SANDBOX_TOKEN",
        hide_env_values = true
    )]
    token: Option<String>,

    /// A name (or an address) the console and the control API answer as Host, beside the
    /// bound address, loopback and localhost (repeatable; `.example.test` allows a domain and
    /// its subdomains) [default: none].
    #[arg(long = "allowed-host", value_name = "NAME")]
    allowed_hosts: Vec<String>,
}

async fn wait_for_signal() {
    #[cfg(unix)]
    {
        use tokio::signal::unix::{signal, SignalKind};
        match signal(SignalKind::terminate()) {
            Ok(mut term) => {
                tokio::select! {
                    _ = tokio::signal::ctrl_c() => {}
                    _ = term.recv() => {}
                }
            }
            Err(_) => {
                let _ = tokio::signal::ctrl_c().await;
            }
        }
    }
    #[cfg(not(unix))]
    {
        let _ = tokio::signal::ctrl_c().await;
    }
}

fn read(path: &PathBuf, what: &str) -> Result<String, String> {
    std::fs::read_to_string(path)
        .map_err(|e| format!("{what}: cannot read {}: {e}", path.display()))
}

fn main() -> ExitCode {
    let args = Args::parse();
    let fixtures = match args
        .fixtures
        .as_deref()
        .map(Fixtures::from_file)
        .transpose()
    {
        Ok(f) => f,
        Err(e) => {
            eprintln!("verify-sandbox: --fixtures: {e}");
            return ExitCode::from(2);
        }
    };
    let tls = match (&args.tls_cert, &args.tls_key) {
        (Some(c), Some(k)) => match (read(c, "--tls-cert"), read(k, "--tls-key")) {
            (Ok(cert_chain), Ok(key)) => Some(Tls::Pem { cert_chain, key }),
            (Err(e), _) | (_, Err(e)) => {
                eprintln!("verify-sandbox: {e}");
                return ExitCode::from(2);
            }
        },
        _ if args.https_port.is_some() => Some(Tls::Generated),
        _ => None,
    };
    // Signal handlers first, so that a signal right after the "listening" line is not lost.
    let rt = match tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
    {
        Ok(rt) => rt,
        Err(e) => {
            eprintln!("verify-sandbox: cannot start a runtime: {e}");
            return ExitCode::from(1);
        }
    };
    let config = Config {
        host: args.host,
        port: args.port,
        control: !args.no_control,
        fixtures,
        tls,
        https_port: args.https_port.unwrap_or(0),
        log_size: args.log_size,
        state_file: args.state,
        limits: Limits {
            header_timeout: Duration::from_secs(args.header_timeout.max(1)),
            body_timeout: Duration::from_secs(args.body_timeout.max(1)),
            max_connections: args.max_connections.max(1),
            api_passwords_per_program: args.max_api_passwords.max(1),
        },
        token: args.token,
        allowed_hosts: args.allowed_hosts,
    };
    let sandbox = match Sandbox::start(config) {
        Ok(s) => s,
        Err(e) if e.kind() == std::io::ErrorKind::InvalidInput => {
            // Name the flag whose file was refused.
            let text = e.to_string();
            let flag = if text.starts_with("token:") {
                "--token"
            } else if text.starts_with("allowed host") {
                "--allowed-host"
            } else if text.contains("state file") {
                "--state"
            } else if text.contains("PEM") || text.contains("certificate") {
                "--tls-cert/--tls-key"
            } else {
                "--fixtures"
            };
            eprintln!("verify-sandbox: {flag}: {text}");
            return ExitCode::from(2);
        }
        Err(e) => {
            eprintln!("verify-sandbox: cannot listen: {e}");
            return ExitCode::from(1);
        }
    };
    let mut ca_line = None;
    if let (Some(pem), Some(url)) = (sandbox.ca_pem(), sandbox.https_base_url()) {
        let path = args.ca_out.unwrap_or_else(|| {
            let port = url.rsplit(':').next().unwrap_or("0").to_string();
            std::env::temp_dir().join(format!("verify-sandbox-ca-{port}.pem"))
        });
        if let Err(e) = std::fs::write(&path, pem) {
            eprintln!(
                "verify-sandbox: --ca-out: cannot write {}: {e}",
                path.display()
            );
            return ExitCode::from(1);
        }
        ca_line = Some(path);
    }
    rt.block_on(async {
        let signal = wait_for_signal();
        tokio::pin!(signal);
        // Poll once so the handlers are installed before announcing the address.
        tokio::select! {
            biased;
            _ = &mut signal => return,
            _ = std::future::ready(()) => {}
        }
        let mut out = std::io::stdout().lock();
        let _ = writeln!(out, "listening on {}", sandbox.base_url());
        if let Some(url) = sandbox.https_base_url() {
            let _ = writeln!(out, "listening on {url}");
        }
        if let Some(path) = &ca_line {
            let _ = writeln!(out, "ca: {}", path.display());
        }
        if !args.no_control {
            if let Some(token) = sandbox.token() {
                let _ = writeln!(out, "token: {token}");
            }
            let _ = writeln!(out, "console: {}", sandbox.console_url());
        }
        let _ = out.flush();
        drop(out);
        if sandbox.exposed() {
            eprintln!(
                "verify-sandbox: WARNING: listening on {}, reachable from the network: \
                 anyone who reaches it can use the service (/api/verify){}",
                sandbox.base_url(),
                if args.no_control {
                    "; the console and the control API are off"
                } else {
                    "; the console and the control API need the token"
                }
            );
        }
        signal.await;
    });
    sandbox.stop();
    ExitCode::SUCCESS
}
