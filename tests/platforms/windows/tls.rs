//! https on a Windows whose root store lacks today's roots, as on a Windows 7 that never
//! updated them: `tests/platforms/windows/win_tls.c` logs in over https with the default
//! trust (Mozilla's roots, built into the DLL) while the system's root store holds no root of
//! the host's, x64 and x86; only a client told to use the system store fails. And both DLLs
//! carry roots Windows 7 SP1 never shipped with (Let's Encrypt's ISRG Root X1 and X2, from
//! 2015 and 2020), so that a service whose certificate chains to one of today's public roots
//! is reached there.
//!
//! x64 runs in a Wine prefix of its own, made and used only in a mount namespace of the
//! test's where the host's certificate folders are empty (Wine fills a prefix's root store from
//! them); x86 runs in the i386 chroot, which has no certificate folder at all.

use super::*;

use common::tls::certs;

/// The card of the test's program.
const CARD: &str = "WTLS-ROOT-0000-0001";

/// The host's certificate folders Wine reads (its crypt32's known locations), hidden in the
/// namespace by an empty tmpfs each.
const HIDE_CERTIFICATES: &str = "for dir in /etc/ssl/certs /etc/pki /usr/share/ca-certificates \
/usr/local/share/certs /etc/security/cacerts; do
    if [ -d \"$dir\" ]; then mount -t tmpfs verify-no-roots \"$dir\"; fi
done";

/// A command that runs `program` (a Windows program or one of Wine's, and its arguments) with
/// Wine's 64-bit loader in `prefix`, in a new mount namespace of its own where the
/// certificate folders are empty.
fn without_host_roots<S: AsRef<std::ffi::OsStr>>(prefix: &Path, program: &[S]) -> Command {
    let mut command = Command::new("unshare");
    command
        .args(["--mount", "--", "sh", "-c"])
        .arg(format!("set -e\n{HIDE_CERTIFICATES}\nexec \"$@\""))
        .arg("sh")
        .arg(&windows().wine64)
        .args(program)
        .env_remove("SSL_CERT_FILE")
        .env_remove("SSL_CERT_DIR");
    wine_env(&mut command, prefix);
    command
}

/// The 64-bit prefix without the host's roots, `target/windows/wine/prefix-no-roots`: made
/// once, in the namespace, in Windows 7 mode, then reused.
fn prefix_without_roots() -> &'static Path {
    static PREFIX: OnceLock<PathBuf> = OnceLock::new();
    PREFIX.get_or_init(|| {
        let win = windows();
        let wine = |prefix: &Path, args: &[&str]| without_host_roots(prefix, args);
        make_prefix(&win.out.join("wine"), "prefix-no-roots", &win.wine64, &wine)
    })
}

fn https_without_system_roots(arch: Arch) {
    let certs = certs(&["127.0.0.1"], (2020, 2090), false);
    let app_id = common::unique("wtls");
    let sandbox = common::host::https_sandbox(&certs, &app_id, CARD);
    let ca_pem = certs.ca_pem;
    let exe = compile_linked(
        arch,
        &root().join("tests/platforms/windows/win_tls.c"),
        "win_tls",
        &[],
        &["-lcrypt32"],
    );
    fs::write(program_dir(arch).join("win_tls-ca.pem"), ca_pem).expect("write the CA file");
    let url = sandbox.https_base_url().expect("an https listener");
    let args = [
        url.as_str(),
        app_id.as_str(),
        common::APP_KEY,
        CARD,
        "win_tls-ca.pem",
    ];
    let output = match arch {
        Arch::X64 => {
            let mut program: Vec<&std::ffi::OsStr> = vec![exe.as_os_str()];
            program.extend(args.iter().map(std::ffi::OsStr::new));
            without_host_roots(prefix_without_roots(), &program)
                .current_dir(program_dir(arch))
                .output()
                .expect("run unshare")
        }
        Arch::X86 => run(&loader(arch), &exe, &args),
    };
    let stdout = assert_host_passes(&output, &format!("{arch:?} win_tls.exe"));
    let store = stdout
        .lines()
        .map(str::trim_end)
        .find(|l| l.starts_with("system root store: "))
        .unwrap_or_else(|| panic!("{arch:?}: no store line\n{stdout}"));
    let count: usize = store
        .trim_start_matches("system root store: ")
        .split(' ')
        .next()
        .and_then(|n| n.parse().ok())
        .unwrap_or(usize::MAX);
    // Wine puts a handful of its own in every store (old Microsoft roots), never the host's
    // hundred or more.
    assert!(
        count < 20 && store.ends_with("test CA: no"),
        "{arch:?}: the system root store is not bare: {store}"
    );
    for (case, code) in [
        ("default_and_ca", 200),
        ("default", ERR_TLS),
        ("system", ERR_TLS),
    ] {
        let line = format!("case {case} {code}");
        assert!(
            stdout.lines().any(|l| l.trim_end() == line),
            "{arch:?}: case {case} should give {code}\n{stdout}"
        );
    }
    notice(&format!(
        "{arch:?}: https login with {store} (the default trust)"
    ));
}

/// `VERIFY_ERR_TLS` of verify.h.
const ERR_TLS: i32 = -5;

#[test]
pub(crate) fn https_logs_in_without_the_system_roots_x64() {
    https_without_system_roots(Arch::X64);
}

#[test]
pub(crate) fn https_logs_in_without_the_system_roots_x86() {
    https_without_system_roots(Arch::X86);
}

#[test]
pub(crate) fn the_dlls_carry_roots_newer_than_windows_7() {
    for arch in [Arch::X64, Arch::X86] {
        let bytes = fs::read(windows().out.join(arch.name()).join("verify.dll")).expect("read");
        for root_name in ["ISRG Root X1", "ISRG Root X2", "DigiCert Global Root G2"] {
            assert!(
                bytes
                    .windows(root_name.len())
                    .any(|w| w == root_name.as_bytes()),
                "{arch:?}: verify.dll does not carry {root_name} (webpki-roots)"
            );
        }
    }
}
