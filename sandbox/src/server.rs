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
use hyper_util::rt::{TokioIo, TokioTimer};
use std::sync::atomic::Ordering;
use tokio::io::{AsyncRead, AsyncReadExt, AsyncWrite, AsyncWriteExt};
use tokio::net::TcpListener;
use tokio::sync::watch;
use tokio_rustls::TlsAcceptor;

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

/// Decrements the count of open connections when the connection ends.
struct Open<'a>(&'a Shared);

impl Drop for Open<'_> {
    fn drop(&mut self) {
        self.0.open.fetch_sub(1, Ordering::SeqCst);
    }
}

/// Accepts connections until `stop` turns true, then closes every connection. With `tls`,
/// every connection is TLS.
pub async fn serve(
    listener: TcpListener,
    tls: Option<TlsAcceptor>,
    shared: Arc<Shared>,
    mut stop: watch::Receiver<bool>,
) {
    loop {
        tokio::select! {
            accepted = listener.accept() => match accepted {
                Ok((stream, peer)) => {
                    let shared = Arc::clone(&shared);
                    let stop = stop.clone();
                    let tls = tls.clone();
                    tokio::spawn(async move {
                        let open = shared.open.fetch_add(1, Ordering::SeqCst) + 1;
                        let _guard = Open(&shared);
                        let refuse = open > shared.limits.max_connections;
                        let _ = stream.set_nodelay(true);
                        match tls {
                            None => connection(stream, peer, &shared, stop, refuse).await,
                            Some(acceptor) => {
                                let handshake = tokio::time::timeout(
                                    shared.limits.header_timeout,
                                    acceptor.accept(stream),
                                );
                                if let Ok(Ok(s)) = handshake.await {
                                    connection(s, peer, &shared, stop, refuse).await;
                                }
                            }
                        }
                    });
                }
                Err(_) => tokio::time::sleep(Duration::from_millis(10)).await,
            },
            _ = stop.changed() => break,
        }
    }
}

/// The refusal sent when the connection limit is reached.
const REFUSAL: &str = "{\"code\":503,\"message\":\"连接过多，请稍后重试\",\"data\":null}";

async fn connection<I>(
    mut io: I,
    peer: SocketAddr,
    shared: &Arc<Shared>,
    mut stop: watch::Receiver<bool>,
    refuse: bool,
) where
    I: AsyncRead + AsyncWrite + Unpin + Send + 'static,
{
    if refuse {
        let reply = format!(
            "HTTP/1.1 503 Service Unavailable\r\ncontent-type: {JSON}\r\ncontent-length: {}\r\nconnection: close\r\n\r\n{REFUSAL}",
            REFUSAL.len()
        );
        // The request is read first (up to the end of its head, for at most 500 ms): a client
        // that is still writing when the connection closes would see a reset instead of the
        // refusal.
        let mut chunk = [0u8; 1024];
        let _ = tokio::time::timeout(Duration::from_millis(500), async {
            let mut head = Vec::with_capacity(1024);
            while !head.windows(4).any(|w| w == b"\r\n\r\n") && head.len() < 64 * 1024 {
                match io.read(&mut chunk).await {
                    Ok(0) | Err(_) => break,
                    Ok(n) => head.extend_from_slice(&chunk[..n]),
                }
            }
        })
        .await;
        let _ = tokio::time::timeout(Duration::from_secs(2), async {
            let _ = io.write_all(reply.as_bytes()).await;
            let _ = io.shutdown().await;
            // Drain what the client still sends (its body), so the close is not a reset.
            while let Ok(Ok(n)) =
                tokio::time::timeout(Duration::from_millis(200), io.read(&mut chunk)).await
            {
                if n == 0 {
                    break;
                }
            }
        })
        .await;
        return;
    }
    let conn = shared.accept_connection();
    let svc_shared = Arc::clone(shared);
    let svc = service_fn(move |req| {
        let shared = Arc::clone(&svc_shared);
        async move { route(&shared, conn, peer, req).await }
    });
    let serving = http1::Builder::new()
        .keep_alive(true)
        .auto_date_header(false)
        .timer(TokioTimer::new())
        .header_read_timeout(shared.limits.header_timeout)
        .serve_connection(TokioIo::new(io), svc);
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
    TimedOut,
}

/// Reads a body within the body timeout.
async fn read_body(shared: &Shared, req: Request<Incoming>) -> Body {
    match tokio::time::timeout(shared.limits.body_timeout, read_body_untimed(req)).await {
        Ok(b) => b,
        Err(_) => Body::TimedOut,
    }
}

/// 408, and the connection is closed.
fn timed_out(shared: &Shared) -> Response<Full<Bytes>> {
    let r = Reply::http_error(408, "请求体读取超时");
    let mut resp = response(shared, r.status, JSON, r.body);
    resp.headers_mut()
        .insert(hyper::header::CONNECTION, HeaderValue::from_static("close"));
    resp
}

async fn read_body_untimed(req: Request<Incoming>) -> Body {
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
        if method == "GET" {
            if let Some((content_type, page)) = crate::console::asset(&path) {
                return Ok(response(
                    shared,
                    200,
                    content_type,
                    page.as_bytes().to_vec(),
                ));
            }
        }
        let body = match read_body(shared, req).await {
            Body::Read(b) => b,
            Body::TooLarge => {
                let body = serde_json::json!({"ok": false, "error": "body over 1 MiB"});
                return Ok(response(shared, 413, JSON, body.to_string().into_bytes()));
            }
            Body::Broken => return Err(Dropped),
            Body::TimedOut => return Ok(timed_out(shared)),
        };
        let (status, value) =
            crate::control::handle(shared, &method, &path, query.as_deref(), &body);
        if method == "POST" {
            shared.changed();
        }
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
    let body = match read_body(shared, req).await {
        Body::Read(b) => b,
        Body::TooLarge => {
            shared.lock().record(conn, &path, None, None, 413);
            let r = Reply::http_error(413, "请求体过大（上限1 MiB）");
            return Ok(response(shared, r.status, JSON, r.body));
        }
        Body::Broken => return Err(Dropped),
        Body::TimedOut => {
            shared.lock().record(conn, &path, None, None, 408);
            return Ok(timed_out(shared));
        }
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
    shared.changed();
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
