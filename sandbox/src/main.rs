//! `verify-sandbox [--host ADDR] [--port PORT] [--fixtures FILE] [--no-control]`

use std::io::Write;
use std::path::PathBuf;
use std::process::ExitCode;

use verify_sandbox::{Config, Fixtures, Sandbox};

const USAGE: &str =
    "usage: verify-sandbox [--host ADDR] [--port PORT] [--fixtures FILE] [--no-control]";

struct Args {
    host: String,
    port: u16,
    fixtures: Option<PathBuf>,
    control: bool,
}

fn parse_args(mut args: impl Iterator<Item = String>) -> Result<Option<Args>, String> {
    let mut parsed = Args {
        host: "127.0.0.1".to_string(),
        port: 0,
        fixtures: None,
        control: true,
    };
    while let Some(arg) = args.next() {
        let (flag, inline) = match arg.split_once('=') {
            Some((f, v)) if f.starts_with("--") => (f.to_string(), Some(v.to_string())),
            _ => (arg.clone(), None),
        };
        let mut value = |name: &str| {
            inline
                .clone()
                .or_else(|| args.next())
                .ok_or_else(|| format!("{name} needs a value"))
        };
        match flag.as_str() {
            "--host" => parsed.host = value("--host")?,
            "--port" => {
                let v = value("--port")?;
                parsed.port = v.parse().map_err(|_| format!("invalid port {v:?}"))?;
            }
            "--fixtures" => parsed.fixtures = Some(PathBuf::from(value("--fixtures")?)),
            "--no-control" => parsed.control = false,
            "-h" | "--help" => return Ok(None),
            other => return Err(format!("unknown argument {other:?}")),
        }
    }
    Ok(Some(parsed))
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

fn main() -> ExitCode {
    let args = match parse_args(std::env::args().skip(1)) {
        Ok(Some(a)) => a,
        Ok(None) => {
            println!("{USAGE}");
            return ExitCode::SUCCESS;
        }
        Err(e) => {
            eprintln!("verify-sandbox: {e}\n{USAGE}");
            return ExitCode::from(2);
        }
    };
    let fixtures = match args
        .fixtures
        .as_deref()
        .map(Fixtures::from_file)
        .transpose()
    {
        Ok(f) => f,
        Err(e) => {
            eprintln!("verify-sandbox: {e}");
            return ExitCode::from(2);
        }
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
        control: args.control,
        fixtures,
    };
    let sandbox = match Sandbox::start(config) {
        Ok(s) => s,
        Err(e) if e.kind() == std::io::ErrorKind::InvalidInput => {
            eprintln!("verify-sandbox: {e}");
            return ExitCode::from(2);
        }
        Err(e) => {
            eprintln!("verify-sandbox: cannot listen: {e}");
            return ExitCode::from(1);
        }
    };
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
        let _ = out.flush();
        drop(out);
        signal.await;
    });
    sandbox.stop();
    ExitCode::SUCCESS
}
