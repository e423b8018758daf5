//! The HTTP side: accept loop, one hyper HTTP/1 connection per TCP connection (kept alive),
//! routing, body cap, faults on the way out, and graceful stop.

use std::net::SocketAddr;
use std::sync::Arc;
use std::time::Duration;

use bytes::Bytes;
use http_body_util::{BodyExt, Full, Limited};
use hyper::body::Incoming;
use hyper::header::{HeaderValue, CONTENT_LENGTH, CONTENT_TYPE, DATE};
use hyper::server::conn::http1;
use hyper::service::service_fn;
use hyper::{Method, Request, Response, StatusCode};
use hyper_util::rt::TokioIo;
use tokio::net::TcpListener;
use tokio::sync::watch;

use crate::service::{self, Fate, Reply, Route};
use crate::state::Shared;
use crate::time;

/// Request bodies above this are refused with 413.
pub const BODY_LIMIT: usize = 1 << 20;

const JSON: &str = "application/json; charset=utf-8";
const HTML: &str = "text/html; charset=utf-8";

/// Returned by the service to make hyper close the connection without a reply.
#[derive(Debug)]
pub struct Dropped;

impl std::fmt::Display for Dropped {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("connection dropped by fault injection")
    }
}

impl std::error::Error for Dropped {}

/// Accepts connections until `stop` turns true, then closes every connection.
pub async fn serve(listener: TcpListener, shared: Arc<Shared>, mut stop: watch::Receiver<bool>) {
    loop {
        tokio::select! {
            accepted = listener.accept() => match accepted {
                Ok((stream, peer)) => {
                    let conn = shared.accept_connection();
                    let shared = Arc::clone(&shared);
                    let stop = stop.clone();
                    tokio::spawn(connection(stream, peer, conn, shared, stop));
                }
                Err(_) => tokio::time::sleep(Duration::from_millis(10)).await,
            },
            _ = stop.changed() => break,
        }
    }
}

async fn connection(
    stream: tokio::net::TcpStream,
    peer: SocketAddr,
    conn: u64,
    shared: Arc<Shared>,
    mut stop: watch::Receiver<bool>,
) {
    let _ = stream.set_nodelay(true);
    let svc = service_fn(move |req| {
        let shared = Arc::clone(&shared);
        async move { route(&shared, conn, peer, req).await }
    });
    let serving = http1::Builder::new()
        .keep_alive(true)
        .auto_date_header(false)
        .header_read_timeout(None)
        .serve_connection(TokioIo::new(stream), svc);
    tokio::select! {
        _ = serving => {}
        _ = stop.changed() => {}
    }
}

fn response(
    shared: &Shared,
    status: u16,
    content_type: &'static str,
    body: Vec<u8>,
) -> Response<Full<Bytes>> {
    let len = body.len();
    let mut resp = Response::new(Full::new(Bytes::from(body)));
    *resp.status_mut() = StatusCode::from_u16(status).unwrap_or(StatusCode::INTERNAL_SERVER_ERROR);
    let headers = resp.headers_mut();
    if let Ok(v) = HeaderValue::from_str(&time::http_date(shared.now())) {
        headers.insert(DATE, v);
    }
    headers.insert(CONTENT_TYPE, HeaderValue::from_static(content_type));
    headers.insert(CONTENT_LENGTH, HeaderValue::from(len));
    resp
}

enum Body {
    Read(Bytes),
    TooLarge,
    Broken,
}

async fn read_body(req: Request<Incoming>) -> Body {
    let too_large = req
        .headers()
        .get(CONTENT_LENGTH)
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.trim().parse::<u64>().ok())
        .is_some_and(|n| n > BODY_LIMIT as u64);
    if too_large {
        return Body::TooLarge;
    }
    match Limited::new(req.into_body(), BODY_LIMIT).collect().await {
        Ok(collected) => Body::Read(collected.to_bytes()),
        Err(e) if e.is::<http_body_util::LengthLimitError>() => Body::TooLarge,
        Err(_) => Body::Broken,
    }
}

fn service_route(path: &str) -> Option<Route> {
    if path == "/api/verify" {
        return Some(Route::Verify);
    }
    let segment = path.strip_prefix("/api/verify/")?;
    if segment.contains('/') {
        None
    } else {
        Some(Route::Handle(segment.to_string()))
    }
}

async fn route(
    shared: &Shared,
    conn: u64,
    peer: SocketAddr,
    req: Request<Incoming>,
) -> Result<Response<Full<Bytes>>, Dropped> {
    let path = req.uri().path().to_string();
    let query = req.uri().query().map(str::to_string);

    if path == "/_sandbox" || path.starts_with("/_sandbox/") {
        if !shared.control {
            let r = Reply::http_error(404, "未找到");
            return Ok(response(shared, r.status, JSON, r.body));
        }
        let method = req.method().as_str().to_string();
        let body = match read_body(req).await {
            Body::Read(b) => b,
            Body::TooLarge => {
                let body = serde_json::json!({"ok": false, "error": "body over 1 MiB"});
                return Ok(response(shared, 413, JSON, body.to_string().into_bytes()));
            }
            Body::Broken => return Err(Dropped),
        };
        let (status, value) =
            crate::control::handle(shared, &method, &path, query.as_deref(), &body);
        return Ok(response(
            shared,
            status,
            JSON,
            value.to_string().into_bytes(),
        ));
    }

    let Some(service_route) = service_route(&path) else {
        shared.lock().record(conn, &path, None, None, 404);
        let r = Reply::http_error(404, "未找到");
        return Ok(response(shared, r.status, JSON, r.body));
    };
    if req.method() != Method::POST {
        shared.lock().record(conn, &path, None, None, 405);
        let r = Reply::http_error(405, "仅支持POST请求");
        return Ok(response(shared, r.status, JSON, r.body));
    }
    let header_password = req
        .headers()
        .get("X-Api-Password")
        .and_then(|v| v.to_str().ok())
        .map(|s| s.trim().to_string());
    let body = match read_body(req).await {
        Body::Read(b) => b,
        Body::TooLarge => {
            shared.lock().record(conn, &path, None, None, 413);
            let r = Reply::http_error(413, "请求体过大（上限1 MiB）");
            return Ok(response(shared, r.status, JSON, r.body));
        }
        Body::Broken => return Err(Dropped),
    };
    let ip = peer.ip().to_string();
    let reply = service::serve(
        shared,
        conn,
        &ip,
        &path,
        &service_route,
        header_password.as_deref(),
        &body,
    );
    let content_type = if reply.html { HTML } else { JSON };
    match reply.fate {
        Fate::Normal => Ok(response(shared, reply.status, content_type, reply.body)),
        Fate::Delay(ms) => {
            tokio::time::sleep(Duration::from_millis(ms)).await;
            Ok(response(shared, reply.status, content_type, reply.body))
        }
        Fate::Drop => Err(Dropped),
        Fate::Truncate => {
            let mut body = reply.body;
            body.truncate(body.len() / 2);
            Ok(response(shared, reply.status, content_type, body))
        }
    }
}
