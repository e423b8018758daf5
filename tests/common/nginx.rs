//! nginx (Debian's nginx-light) as the tests run it: in the foreground, one process, every
//! file it writes in a folder of the test's own.

use std::path::Path;

/// The nginx binary: `/usr/sbin/nginx` (not on a user's PATH), else `nginx`.
pub fn binary() -> &'static str {
    if Path::new("/usr/sbin/nginx").exists() {
        "/usr/sbin/nginx"
    } else {
        "nginx"
    }
}

/// Fails the test, saying what to install, when nginx does not run.
pub fn require() {
    let runs = std::process::Command::new(binary())
        .arg("-v")
        .output()
        .is_ok_and(|output| output.status.success());
    assert!(
        runs,
        "nginx is not installed: run `scripts/install-deps.sh nginx`"
    );
}

/// An nginx.conf of one https server listening on `listen` (`127.0.0.1:8443`) with the
/// certificate chain and key in `certs` (`cert.pem`, `key.pem`), serving `location` (the
/// body of `location / { ... }`); its pid, logs and temporary files in `dir`.
pub fn https_conf(dir: &Path, listen: &str, certs: &Path, location: &str) -> String {
    let d = dir.display();
    let c = certs.display();
    format!(
        "daemon off;\nmaster_process off;\npid {d}/nginx.pid;\nerror_log {d}/error.log;\n\
         events {{ worker_connections 64; }}\n\
         http {{\n  access_log {d}/access.log;\n  client_body_temp_path {d}/tmp;\n\
           proxy_temp_path {d}/tmp;\n  fastcgi_temp_path {d}/tmp;\n  uwsgi_temp_path {d}/tmp;\n\
           scgi_temp_path {d}/tmp;\n\
           server {{\n    listen {listen} ssl;\n    ssl_certificate {c}/cert.pem;\n\
             ssl_certificate_key {c}/key.pem;\n\
             location / {{ {location} }}\n  }}\n}}\n"
    )
}
