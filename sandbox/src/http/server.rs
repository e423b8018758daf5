//! The HTTP side: accept loop, one hyper HTTP/1 connection per TCP connection (kept alive),
//! routing, body cap, faults on the way out, and graceful stop.

use std::net::SocketAddr;
use std::sync::Arc;
use std::time::Duration;

use bytes::Bytes;
use http_body_util::channel::Channel;
use http_body_util::{BodyExt, Either, Full, Limited};
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

use crate::http::door::{Arrival, Door, Pass, Refusal};
use crate::inspect::diagnose;
use crate::inspect::{Connection, Meta};
use crate::service::{self, Fate, Reply, Route};
use crate::store::Shared;
use crate::time;

/// A reply body: whole, or the stream of the console's server-sent events.
type Out = Either<Full<Bytes>, Channel<Bytes>>;

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
    door: Arc<Door>,
    mut stop: watch::Receiver<bool>,
) {
    loop {
        tokio::select! {
            accepted = listener.accept() => match accepted {
                Ok((stream, peer)) => {
                    let shared = Arc::clone(&shared);
                    let door = Arc::clone(&door);
                    let stop = stop.clone();
                    let tls = tls.clone();
                    tokio::spawn(async move {
                        let open = shared.open.fetch_add(1, Ordering::SeqCst) + 1;
                        let _guard = Open(&shared);
                        let refuse = open > shared.limits.max_connections;
                        let _ = stream.set_nodelay(true);
                        let Ok(local) = stream.local_addr() else { return };
                        let at = Arrival { local, tls: tls.is_some() };
                        match tls {
                            None => connection(stream, peer, at, &shared, &door, stop, refuse).await,
                            Some(acceptor) => {
                                let handshake = tokio::time::timeout(
                                    shared.limits.header_timeout,
                                    acceptor.accept(stream),
                                );
                                if let Ok(Ok(s)) = handshake.await {
                                    connection(s, peer, at, &shared, &door, stop, refuse).await;
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
    at: Arrival,
    shared: &Arc<Shared>,
    door: &Arc<Door>,
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
    let conn = Connection {
        id: shared.accept_connection(),
        peer,
        local: at.local,
        tls: at.tls,
        accepted: std::time::Instant::now(),
    };
    let requests = Arc::new(std::sync::atomic::AtomicU64::new(0));
    let svc_shared = Arc::clone(shared);
    let svc_door = Arc::clone(door);
    let svc = service_fn(move |req| {
        let shared = Arc::clone(&svc_shared);
        let door = Arc::clone(&svc_door);
        let conn = conn.clone();
        let nth = requests.fetch_add(1, Ordering::Relaxed) + 1;
        async move {
            route(&shared, &door, &conn, nth, at, req)
                .await
                .map(|r| r.map(Either::Left))
                .or_else(|e| match e {
                    Routed::Events(r) => Ok(r),
                    Routed::Dropped(d) => Err(d),
                })
        }
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
    body: impl Into<Bytes>,
) -> Response<Full<Bytes>> {
    let body: Bytes = body.into();
    let len = body.len();
    let mut resp = Response::new(Full::new(body));
    *resp.status_mut() = StatusCode::from_u16(status).unwrap_or(StatusCode::INTERNAL_SERVER_ERROR);
    let headers = resp.headers_mut();
    if let Ok(v) = HeaderValue::from_str(&time::http_date(shared.now())) {
        headers.insert(DATE, v);
    }
    headers.insert(CONTENT_TYPE, HeaderValue::from_static(content_type));
    headers.insert(CONTENT_LENGTH, HeaderValue::from(len));
    resp
}

enum ReadBody {
    Read(Bytes),
    TooLarge,
    Broken,
    TimedOut,
}

/// Reads a body within the body timeout.
async fn read_body(shared: &Shared, req: Request<Incoming>) -> ReadBody {
    match tokio::time::timeout(shared.limits.body_timeout, read_body_untimed(req)).await {
        Ok(b) => b,
        Err(_) => ReadBody::TimedOut,
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

async fn read_body_untimed(req: Request<Incoming>) -> ReadBody {
    let too_large = req
        .headers()
        .get(CONTENT_LENGTH)
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.trim().parse::<u64>().ok())
        .is_some_and(|n| n > BODY_LIMIT as u64);
    if too_large {
        return ReadBody::TooLarge;
    }
    match Limited::new(req.into_body(), BODY_LIMIT).collect().await {
        Ok(collected) => ReadBody::Read(collected.to_bytes()),
        Err(e) if e.is::<http_body_util::LengthLimitError>() => ReadBody::TooLarge,
        Err(_) => ReadBody::Broken,
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

/// What a request turned into besides a whole reply.
enum Routed {
    /// The console's stream of server-sent events.
    Events(Response<Out>),
    /// Close without a reply.
    Dropped(Dropped),
}

impl From<Dropped> for Routed {
    fn from(d: Dropped) -> Routed {
        Routed::Dropped(d)
    }
}

/// A request the door turned away: JSON for programs, a page for the console's own paths.
fn refused(shared: &Shared, path: &str, r: Refusal) -> Response<Full<Bytes>> {
    let page = crate::http::console::asset(path).is_some();
    let mut resp = if page {
        let body = crate::http::console::refusal_page(r.status, &r.error);
        response(shared, r.status, HTML, body.into_bytes())
    } else {
        let body = serde_json::json!({"ok": false, "error": r.error});
        response(shared, r.status, JSON, body.to_string().into_bytes())
    };
    if r.status == 401 {
        resp.headers_mut().insert(
            hyper::header::WWW_AUTHENTICATE,
            HeaderValue::from_static("Bearer realm=\"verify-sandbox\""),
        );
    }
    resp
}

/// `GET /_sandbox/events`: an event `change` (data: a version number) at start and after
/// every change of the state, at most five a second, and a comment every 15 s.
fn events(shared: &Arc<Shared>) -> Response<Out> {
    let (mut tx, body) = Channel::<Bytes>::new(4);
    let mut changes = shared.events.subscribe();
    let shared = Arc::clone(shared);
    tokio::spawn(async move {
        struct Streaming<'a>(&'a Shared);
        impl Drop for Streaming<'_> {
            fn drop(&mut self) {
                self.0.event_streams.fetch_sub(1, Ordering::SeqCst);
            }
        }
        shared.event_streams.fetch_add(1, Ordering::SeqCst);
        let _streaming = Streaming(&shared);
        let mut first = "retry: 1000\n";
        loop {
            let version = *changes.borrow_and_update();
            let event = format!("{first}event: change\ndata: {version}\n\n");
            first = "";
            if tx.send_data(Bytes::from(event)).await.is_err() {
                return;
            }
            tokio::time::sleep(Duration::from_millis(200)).await;
            loop {
                tokio::select! {
                    changed = changes.changed() => {
                        if changed.is_err() {
                            return;
                        }
                        break;
                    }
                    _ = tokio::time::sleep(Duration::from_secs(15)) => {
                        if tx.send_data(Bytes::from_static(b": still here\n\n")).await.is_err() {
                            return;
                        }
                    }
                }
            }
        }
    });
    let mut resp = Response::new(Either::Right(body));
    let headers = resp.headers_mut();
    headers.insert(
        CONTENT_TYPE,
        HeaderValue::from_static("text/event-stream; charset=utf-8"),
    );
    headers.insert(
        hyper::header::CACHE_CONTROL,
        HeaderValue::from_static("no-store"),
    );
    resp
}

/// The back office: the door, then the console, the event stream and the control API.
async fn back_office(
    shared: &Arc<Shared>,
    door: &Door,
    at: Arrival,
    path: String,
    req: Request<Incoming>,
) -> Result<Response<Full<Bytes>>, Routed> {
    if !shared.control {
        let r = Reply::http_error(404, "未找到");
        return Ok(response(shared, r.status, JSON, r.body));
    }
    let pass = match door.check(req.method(), req.uri(), req.headers(), at) {
        Ok(p) => p,
        Err(r) => return Ok(refused(shared, &path, r)),
    };
    shared.control_requests.fetch_add(1, Ordering::Relaxed);
    if let Pass::SetCookie { cookie, location } = pass {
        let mut resp = response(shared, 303, HTML, Vec::new());
        let headers = resp.headers_mut();
        if let (Ok(c), Ok(l)) = (
            HeaderValue::from_str(&cookie),
            HeaderValue::from_str(&location),
        ) {
            headers.insert(hyper::header::SET_COOKIE, c);
            headers.insert(hyper::header::LOCATION, l);
        }
        headers.insert(
            hyper::header::CACHE_CONTROL,
            HeaderValue::from_static("no-store"),
        );
        return Ok(resp);
    }
    let query = req.uri().query().map(str::to_string);
    let method = req.method().as_str().to_string();
    if method == "GET" {
        if path == "/_sandbox/events" {
            return Err(Routed::Events(events(shared)));
        }
        if let Some((content_type, page)) = crate::http::console::asset(&path) {
            return Ok(response(
                shared,
                200,
                content_type,
                page.as_bytes().to_vec(),
            ));
        }
    }
    let body = match read_body(shared, req).await {
        ReadBody::Read(b) => b,
        ReadBody::TooLarge => {
            let body = serde_json::json!({"ok": false, "error": "body over 1 MiB"});
            return Ok(response(shared, 413, JSON, body.to_string().into_bytes()));
        }
        ReadBody::Broken => return Err(Dropped.into()),
        ReadBody::TimedOut => return Ok(timed_out(shared)),
    };
    let (status, value) =
        crate::http::control::handle(shared, &method, &path, query.as_deref(), &body);
    if method == "POST" {
        shared.changed();
    }
    Ok(response(
        shared,
        status,
        JSON,
        value.to_string().into_bytes(),
    ))
}

async fn route(
    shared: &Arc<Shared>,
    door: &Door,
    conn: &Connection,
    nth: u64,
    at: Arrival,
    req: Request<Incoming>,
) -> Result<Response<Full<Bytes>>, Routed> {
    let started = std::time::Instant::now();
    let path = req.uri().path().to_string();
    if path == "/_sandbox" || path.starts_with("/_sandbox/") {
        return back_office(shared, door, at, path, req).await;
    }

    let mut meta = Meta {
        conn: conn.clone(),
        nth,
        method: req.method().clone(),
        version: req.version(),
        headers: if shared.inspect {
            Meta::headers_of(req.headers())
        } else {
            String::new()
        },
        content_type: req
            .headers()
            .get(CONTENT_TYPE)
            .map(|v| String::from_utf8_lossy(v.as_bytes()).into_owned()),
        started,
        read_ms: 0.0,
    };
    // A request the HTTP side answers itself: logged with its status, and inspected.
    let answer = |status: u16, message: &str| {
        let mut st = shared.lock();
        let detail = shared.inspect.then(|| {
            let now = st.now();
            diagnose::http_detail(&meta, &path, now, status, message)
        });
        st.record(conn.id, &path, None, None, i64::from(status), detail);
        drop(st);
        shared.changed();
    };
    let Some(service_route) = service_route(&path) else {
        let r = Reply::http_error(404, "未找到");
        answer(404, "未找到");
        return Ok(response(shared, r.status, JSON, r.body));
    };
    if req.method() != Method::POST {
        let r = Reply::http_error(405, "仅支持POST请求");
        answer(405, "仅支持POST请求");
        return Ok(response(shared, r.status, JSON, r.body));
    }
    let header_password = req
        .headers()
        .get("X-Api-Password")
        .and_then(|v| v.to_str().ok())
        .map(|s| s.trim().to_string());
    let body = match read_body(shared, req).await {
        ReadBody::Read(b) => b,
        ReadBody::TooLarge => {
            let r = Reply::http_error(413, "请求体过大（上限1 MiB）");
            answer(413, "请求体过大（上限1 MiB）");
            return Ok(response(shared, r.status, JSON, r.body));
        }
        ReadBody::Broken => return Err(Dropped.into()),
        ReadBody::TimedOut => {
            answer(408, "请求体读取超时");
            return Ok(timed_out(shared));
        }
    };
    meta.read_ms = started.elapsed().as_secs_f64() * 1000.0;
    let reply = service::serve(
        shared,
        &meta,
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
        Fate::Drop => Err(Dropped.into()),
        Fate::Truncate => {
            let half = reply.body.len() / 2;
            Ok(response(
                shared,
                reply.status,
                content_type,
                reply.body.slice(..half),
            ))
        }
    }
}
