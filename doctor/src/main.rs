//! `verify-doctor`: the doctor of `verify-core` on the command line (`verify-doctor --help`
//! lists every flag). It prints the report (text in the user's language or `--lang`, its
//! first line naming the cause, or JSON with `--json`), saves the support file with
//! `--support-file`, and exits 0 when the report passed, 3 when it warned, 1 when it failed,
//! 2 when the arguments are refused.

#![forbid(unsafe_code)]

use std::path::PathBuf;
use std::process::ExitCode;
use std::time::Duration;

use clap::Parser;
use verify_core::diagnose::Verdict;
use verify_core::{
    diagnose_with, DiagnoseOptions, Language, Options, ProxyChoice, StateFolder, Trust,
};

/// Why can't a program log in? Runs every step a login depends on, with the program's URL,
/// AppId, AppKey and client options: the options, each line's name lookup, TCP connect,
/// proxy and TLS, Init and the clock, the offline store and machine code v2. It never logs
/// in and changes nothing on the server (Init is its only request). The report holds no
/// AppKey, password, card or token: paste it into a support chat. Its first line names the
/// cause, what to do and who acts. Exit status: 0 pass, 3 warn, 1 fail, 2 bad arguments.
#[derive(Parser, Debug)]
#[command(name = "verify-doctor", version, about, long_about = None)]
struct Args {
    /// The service's base URL (http:// or https://, without /api/verify).
    url: String,

    /// The program's AppId.
    app_id: String,

    /// The program's AppKey; better given in VERIFY_APP_KEY, which keeps it out of the
    /// process list.
    #[arg(env = "VERIFY_APP_KEY", hide_env_values = true)]
    app_key: String,

    /// A mirror: another base URL of the same service (repeatable).
    #[arg(long = "mirror", value_name = "URL")]
    mirrors: Vec<String>,

    /// The proxy: a URL (http://, https://, socks5://, socks5h://, with user:password@),
    /// `none`, or `system` [default: system].
    #[arg(long, value_name = "URL")]
    proxy: Option<String>,

    /// A PEM file of root certificates to trust besides the stores (repeatable).
    #[arg(long = "ca", value_name = "FILE")]
    cas: Vec<PathBuf>,

    /// A pinned key: base64 SHA-256 of a SubjectPublicKeyInfo, `sha256/` prefix accepted
    /// (repeatable).
    #[arg(long = "pin", value_name = "PIN")]
    pins: Vec<String>,

    /// Trust the operating system's store too.
    #[arg(long)]
    system_roots: bool,

    /// Do not trust Mozilla's roots (then only --ca, --pin and --system-roots are trusted).
    #[arg(long)]
    no_mozilla: bool,

    /// A fixed address for a host name, like curl's --resolve: HOST=IP (repeatable).
    #[arg(long = "address", value_name = "HOST=IP")]
    addresses: Vec<String>,

    /// Allow plain http:// to a host that is not loopback.
    #[arg(long)]
    allow_insecure_http: bool,

    /// The program's state folder (the offline store, machine code v2's store).
    #[arg(long, value_name = "DIR")]
    state_folder: Option<PathBuf>,

    /// The program's offline grace period in seconds (offline verdicts on).
    #[arg(long, value_name = "SECONDS")]
    offline_grace: Option<u64>,

    /// The salt of the program's machine code [default: the AppId].
    #[arg(long, value_name = "SALT")]
    machine_salt: Option<String>,

    /// Connect timeout in milliseconds.
    #[arg(long, value_name = "MS", default_value_t = 5000)]
    connect_timeout: u64,

    /// The doctor's deadline in seconds: it finishes within it whatever the network does.
    #[arg(long, value_name = "SECONDS", default_value_t = 10)]
    deadline: u64,

    /// Print the report as JSON (docs/doctor.md, English and step keys) instead of text.
    #[arg(long)]
    json: bool,

    /// Also save the support file (the text in the report's language and in English, and the
    /// JSON; redacted as the report is) at FILE: the file to send to the software's vendor.
    #[arg(long, value_name = "FILE")]
    support_file: Option<PathBuf>,

    /// The language of the text report: zh-CN, zh-TW or en (any language tag or POSIX
    /// locale maps to one) [default: the environment's, from LC_ALL, LC_MESSAGES or LANG;
    /// on macOS, when none is set, the first preferred language].
    #[arg(long, value_name = "LANG", value_parser = language)]
    lang: Option<Language>,
}

/// A `--lang` value.
fn language(tag: &str) -> Result<Language, String> {
    Language::from_tag(tag).ok_or_else(|| {
        format!("{tag:?} is not a language tag such as zh-CN, zh-TW or en, nor a POSIX locale")
    })
}

/// The client options of the arguments, or why they are refused.
fn options(args: &Args) -> Result<Options, String> {
    let mut trust = Trust::default();
    trust.mozilla = !args.no_mozilla;
    trust.system = args.system_roots;
    for ca in &args.cas {
        trust
            .add_roots_file(ca)
            .map_err(|err| format!("--ca {}: {}", ca.display(), err.message()))?;
    }
    for pin in &args.pins {
        trust
            .add_pin(pin)
            .map_err(|err| format!("--pin {pin}: {}", err.message()))?;
    }
    let mut options = Options {
        mirrors: args.mirrors.clone(),
        trust,
        proxy: match args.proxy.as_deref() {
            None | Some("system") => ProxyChoice::System,
            Some("none") => ProxyChoice::None,
            Some(url) => ProxyChoice::Url(url.to_owned()),
        },
        allow_insecure_http: args.allow_insecure_http,
        connect_timeout: Duration::from_millis(args.connect_timeout.max(1)),
        state_folder: args.state_folder.clone().map(StateFolder::Path),
        offline_grace: args.offline_grace.map(Duration::from_secs),
        ..Options::default()
    };
    for address in &args.addresses {
        let (host, ip) = address
            .split_once('=')
            .ok_or_else(|| format!("--address {address}: expected HOST=IP"))?;
        options
            .add_address(host, ip)
            .map_err(|err| format!("--address {address}: {}", err.message()))?;
    }
    Ok(options)
}

fn main() -> ExitCode {
    let args = Args::parse();
    let options = match options(&args) {
        Ok(options) => options,
        Err(why) => {
            eprintln!("verify-doctor: {why}");
            return ExitCode::from(2);
        }
    };
    let settings = DiagnoseOptions {
        deadline: Duration::from_secs(args.deadline.clamp(1, 600)),
        machine_salt: args.machine_salt.clone(),
        cancel: None,
    };
    let report = diagnose_with(&args.url, &args.app_id, &args.app_key, &options, &settings);
    let language = args.lang.unwrap_or_else(Language::from_environment);
    if args.json {
        let json = report.to_json();
        let text = serde_json::to_string_pretty(&json).unwrap_or_else(|_| json.to_string());
        println!("{text}");
    } else {
        print!("{}", report.text_in(language));
    }
    if let Some(path) = &args.support_file {
        if let Err(err) = std::fs::write(path, report.support_file(language)) {
            eprintln!(
                "verify-doctor: cannot write the support file {}: {err}",
                path.display()
            );
            return ExitCode::from(2);
        }
    }
    match report.verdict() {
        Verdict::Fail => ExitCode::from(1),
        Verdict::Warn => ExitCode::from(3),
        Verdict::Pass | Verdict::Skip => ExitCode::SUCCESS,
    }
}
