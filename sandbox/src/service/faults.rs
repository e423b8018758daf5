//! What an injected fault does to a service request (the faults themselves are set through
//! the control API and kept in the store, `store/faults.rs`): the page or body that stands in
//! for the service's reply, and what happens to a reply on its way out.

use bytes::Bytes;

use super::reply::{Fate, Reply};
use crate::store::faults::{Fault, FaultKind};

/// What happens on the way out to the reply of a request that met `fault`.
pub fn fate(fault: Option<&Fault>) -> Fate {
    match fault.map(|f| f.kind) {
        Some(FaultKind::Delay) => Fate::Delay(fault.map_or(0, |f| f.delay_ms)),
        Some(FaultKind::Drop) => Fate::Drop,
        Some(FaultKind::TruncatedJson) => Fate::Truncate,
        _ => Fate::Normal,
    }
}

const BAD_GATEWAY_PAGE: &str = "<html>\r\n<head><title>502 Bad Gateway</title></head>\r\n<body>\r\n<center><h1>502 Bad Gateway</h1></center>\r\n<hr><center>nginx</center>\r\n</body>\r\n</html>\r\n";

const UNAVAILABLE_PAGE: &str = "<html>\r\n<head><title>503 Service Temporarily Unavailable</title></head>\r\n<body>\r\n<center><h1>503 Service Temporarily Unavailable</h1></center>\r\n<hr><center>nginx</center>\r\n</body>\r\n</html>\r\n";

const ORIGIN_TIMEOUT_PAGE: &str = "<!DOCTYPE html>\n<html lang=\"en-US\"><head><title>verify.example | 522: Connection timed out</title></head><body><h1>Connection timed out</h1><span>Error code 522</span><p>The initial connection between the CDN's network and the origin web server timed out.</p></body></html>\n";

const CAPTIVE_PORTAL_PAGE: &str = "<!DOCTYPE html>\n<html><head><title>Hotel Wi-Fi</title></head><body><h1>Welcome to the hotel's Wi-Fi</h1><form method=\"post\" action=\"/login\"><label>Room number <input name=\"room\"></label><label>Last name <input name=\"name\"></label><button>Connect</button></form></body></html>\n";

/// The reply of a fault that stands in for the service's: (the code logged, the reply).
pub fn stand_in(kind: FaultKind) -> Option<(i64, Reply)> {
    let (status, html, body): (u16, bool, &'static [u8]) = match kind {
        FaultKind::NonJson => (200, false, b"this is not json"),
        FaultKind::Http502 => (502, true, BAD_GATEWAY_PAGE.as_bytes()),
        FaultKind::Http503 => (503, true, UNAVAILABLE_PAGE.as_bytes()),
        FaultKind::Http504 => (504, false, b""),
        FaultKind::Http522 => (522, true, ORIGIN_TIMEOUT_PAGE.as_bytes()),
        FaultKind::CaptivePortal => (200, true, CAPTIVE_PORTAL_PAGE.as_bytes()),
        FaultKind::Delay | FaultKind::Drop | FaultKind::TruncatedJson => return None,
    };
    let logged = if status == 200 { 0 } else { i64::from(status) };
    Some((
        logged,
        Reply {
            status,
            html,
            body: Bytes::from_static(body),
            fate: Fate::Normal,
        },
    ))
}
