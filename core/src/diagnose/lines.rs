//! The doctor's network steps, per line (base URL) and per address: the name lookup and the
//! TCP connect (`reach.rs`), with the TLS step (`handshake.rs`) or through the proxy
//! (`proxy.rs`).
//! Blocking sockets with timeouts cut to the doctor's deadline; nothing is written to a
//! connection but a proxy's `CONNECT` (or a SOCKS greeting) and the TLS handshake, and every
//! connection is closed at the end.

use std::net::SocketAddr;

use super::handshake::{handshake, Path};
use super::proxy::{through_proxy, ProxyPlan};
use super::reach::{connect, look_up, Line};
use super::report::{Step, Verdict};
use super::stop::Stop;
use super::table::StepKind;
use crate::options::Options;

/// The steps of every line, the lines probed at once (each bounded by `stop`).
pub(crate) fn probe(
    lines: &[Line],
    options: &Options,
    proxy: Option<&ProxyPlan>,
    stop: &Stop,
) -> Vec<Step> {
    let trust = &options.trust;
    let tls = trust.config_seen(true, None).ok();
    std::thread::scope(|scope| {
        let probes: Vec<_> = lines
            .iter()
            .map(|line| {
                let tls = tls.clone();
                scope.spawn(move || match proxy.filter(|p| p.takes(line)) {
                    Some(proxy) => through_proxy(line, proxy, options, stop),
                    None => direct(line, options, tls.is_some(), stop),
                })
            })
            .collect();
        probes
            .into_iter()
            .zip(lines)
            .flat_map(|(probe, line)| {
                probe.join().unwrap_or_else(|_| {
                    vec![Step::new(
                        StepKind::Tcp,
                        Verdict::Fail,
                        "internal",
                        "the probe of this line stopped on an internal error",
                    )
                    .line(&line.label)]
                })
            })
            .collect()
    })
}

/// A line without a proxy: the lookup, then each address's TCP connect and TLS handshake.
fn direct(line: &Line, options: &Options, tls_usable: bool, stop: &Stop) -> Vec<Step> {
    let (lookup, addrs) = look_up(line, options, stop);
    let mut steps = vec![lookup];
    let Some(addrs) = addrs else {
        return steps;
    };
    let probes: Vec<Vec<Step>> = std::thread::scope(|scope| {
        let running: Vec<_> = addrs
            .iter()
            .map(|addr| scope.spawn(move || one_address(line, *addr, options, stop)))
            .collect();
        running
            .into_iter()
            .map(|probe| probe.join().unwrap_or_default())
            .collect()
    });
    // An address that failed while another one of the line connected is a warning: the
    // client's racing takes the one that works.
    let good = probes
        .iter()
        .any(|steps| steps.iter().all(|s| s.verdict != Verdict::Fail));
    for mut address in probes {
        if good {
            for step in &mut address {
                if step.verdict == Verdict::Fail {
                    step.verdict = Verdict::Warn;
                    step.message
                        .push_str(" (another address of this line works)");
                }
            }
        }
        steps.extend(address);
    }
    if line.https && !tls_usable {
        steps.push(
            Step::new(
                StepKind::Tls,
                Verdict::Fail,
                "tls.no_trust",
                "no TLS configuration can be made from the trust options",
            )
            .line(&line.label),
        );
    }
    steps
}

/// The TCP connect and, for https, the TLS handshake with one address.
fn one_address(line: &Line, addr: SocketAddr, options: &Options, stop: &Stop) -> Vec<Step> {
    let (tcp, stream) = connect(addr, options.connect_timeout, stop);
    let mut steps = vec![tcp.line(&line.label).address(addr)];
    if let (Some(stream), true) = (stream, line.https) {
        steps.push(
            handshake(line, stream, &options.trust, Path::Direct, stop)
                .line(&line.label)
                .address(addr),
        );
    }
    steps
}
