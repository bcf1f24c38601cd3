//! The loopback HTTP/1.1 fault server of one client copy: it answers each attempt
//! from the scenario's script at an exact protocol point (a status with Retry-After,
//! a reset after the whole body was read, a hang, a slow body, a refused connection)
//! and records the journal.
//!
//! Plain `std` threads and `httparse`, not an async runtime or an HTTP framework: a
//! probe serves a handful of connections, and each fault needs the raw socket (a reset
//! is `SO_LINGER` 0 through `socket2`, a refused connection is a bound port not yet
//! listening), which frameworks hide.

use super::journal::{Attempt, EffectRecord};
use super::scenario::{Answer, RetryAfterForm};
use socket2::{Domain, Protocol, SockRef, Socket, Type};
use std::collections::HashSet;
use std::hash::{Hash, Hasher};
use std::io::{Read, Write};
use std::net::{SocketAddr, TcpListener, TcpStream};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::thread::JoinHandle;
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

/// The largest request head or body read (bytes); more is cut off.
const MAX_REQUEST: usize = 1 << 20;

/// How often blocked reads and the accept loop look at the stop flag.
const POLL: Duration = Duration::from_millis(10);

/// The body of the slow-body answer, sent one byte per [`SLOW_BYTE`].
const SLOW_BODY: &[u8] = b"{\"status\":\"slow\",\"pad\":\"......\"}";
const SLOW_BYTE: Duration = Duration::from_millis(250);

/// What one server needs to answer and record.
#[derive(Debug, Clone)]
pub struct ServerSpec {
    /// The answers, per attempt (the last repeats).
    pub script: Vec<Answer>,
    /// Which client copy it serves.
    pub client: usize,
    /// The header names read as the idempotency key, lower case (the declared one
    /// first, then the well-known ones).
    pub key_headers: Vec<String>,
    /// Refuse connections for this long before listening.
    pub refuse_ms: Option<u64>,
    /// The address to bind (port 0 for any); loopback unless `--bind` said otherwise.
    pub bind: SocketAddr,
}

#[derive(Default)]
struct State {
    attempts: Vec<Attempt>,
    keys_seen: HashSet<String>,
}

/// A running fault server.
pub struct FaultServer {
    addr: SocketAddr,
    state: Arc<Mutex<State>>,
    stop: Arc<AtomicBool>,
    accept: Option<JoinHandle<()>>,
}

fn lock(state: &Mutex<State>) -> std::sync::MutexGuard<'_, State> {
    state.lock().unwrap_or_else(|e| e.into_inner())
}

impl FaultServer {
    /// Binds and starts serving. `origin` is the scenario's clock. Errors are
    /// sentences (the bind failed).
    pub fn start(spec: ServerSpec, origin: Instant) -> Result<FaultServer, String> {
        let socket = Socket::new(
            Domain::for_address(spec.bind),
            Type::STREAM,
            Some(Protocol::TCP),
        )
        .map_err(|e| format!("cannot open a socket: {e}"))?;
        socket
            .bind(&spec.bind.into())
            .map_err(|e| format!("cannot bind {}: {e}", spec.bind))?;
        let addr = socket
            .local_addr()
            .ok()
            .and_then(|a| a.as_socket())
            .ok_or("the bound address is not an IP address")?;
        if spec.refuse_ms.is_none() {
            socket
                .listen(128)
                .map_err(|e| format!("cannot listen on {addr}: {e}"))?;
        }
        let state = Arc::new(Mutex::new(State::default()));
        let stop = Arc::new(AtomicBool::new(false));
        let accept = {
            let (state, stop) = (state.clone(), stop.clone());
            std::thread::spawn(move || accept_loop(socket, spec, origin, state, stop))
        };
        Ok(FaultServer {
            addr,
            state,
            stop,
            accept: Some(accept),
        })
    }

    /// The address clients connect to.
    pub fn addr(&self) -> SocketAddr {
        self.addr
    }

    /// The attempts recorded so far (for the runner's idle watch).
    pub fn snapshot(&self) -> Vec<Attempt> {
        lock(&self.state).attempts.clone()
    }

    /// Stops serving (open connections end within a poll interval) and returns the
    /// attempts recorded, in arrival order.
    pub fn finish(mut self) -> Vec<Attempt> {
        self.stop.store(true, Ordering::SeqCst);
        if let Some(h) = self.accept.take() {
            let _ = h.join();
        }
        std::mem::take(&mut lock(&self.state).attempts)
    }
}

impl Drop for FaultServer {
    fn drop(&mut self) {
        self.stop.store(true, Ordering::SeqCst);
    }
}

fn accept_loop(
    socket: Socket,
    spec: ServerSpec,
    origin: Instant,
    state: Arc<Mutex<State>>,
    stop: Arc<AtomicBool>,
) {
    if let Some(ms) = spec.refuse_ms {
        let until = Instant::now() + Duration::from_millis(ms);
        while Instant::now() < until {
            if stop.load(Ordering::SeqCst) {
                return;
            }
            std::thread::sleep(POLL);
        }
        if socket.listen(128).is_err() {
            return;
        }
    }
    let listener: TcpListener = socket.into();
    if listener.set_nonblocking(true).is_err() {
        return;
    }
    let spec = Arc::new(spec);
    let mut workers = Vec::new();
    while !stop.load(Ordering::SeqCst) {
        match listener.accept() {
            Ok((stream, _)) => {
                let (spec, state, stop) = (spec.clone(), state.clone(), stop.clone());
                workers.push(std::thread::spawn(move || {
                    serve(stream, &spec, origin, &state, &stop)
                }));
            }
            Err(e) if e.kind() == std::io::ErrorKind::WouldBlock => std::thread::sleep(POLL),
            Err(_) => std::thread::sleep(POLL),
        }
    }
    for w in workers {
        let _ = w.join();
    }
}

/// A request as read: head fields of interest and the body.
struct Request {
    method: String,
    path: String,
    headers: Vec<(String, String)>,
    body: Vec<u8>,
}

fn ms_since(origin: Instant) -> f64 {
    origin.elapsed().as_secs_f64() * 1000.0
}

fn epoch_ms() -> f64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map(|d| d.as_secs_f64() * 1000.0)
        .unwrap_or(0.0)
}

/// Serves one connection: one request, one answer, then the connection ends (every
/// answer says `Connection: close`, so each attempt is its own connection).
fn serve(
    mut stream: TcpStream,
    spec: &ServerSpec,
    origin: Instant,
    state: &Mutex<State>,
    stop: &AtomicBool,
) {
    let _ = stream.set_nonblocking(false);
    let _ = stream.set_read_timeout(Some(POLL));
    let Some((request, t_ms, wall_ms)) = read_request(&mut stream, origin, stop) else {
        return;
    };
    let key = spec.key_headers.iter().find_map(|name| {
        request
            .headers
            .iter()
            .find(|(n, _)| n.eq_ignore_ascii_case(name))
            .cloned()
    });
    let mut hasher = std::collections::hash_map::DefaultHasher::new();
    request.body.hash(&mut hasher);
    let (slot, answer) = {
        let mut st = lock(state);
        let index = st
            .attempts
            .iter()
            .filter(|a| a.client == spec.client)
            .count();
        let answer = spec.script[index.min(spec.script.len().saturating_sub(1))].clone();
        let effect = if !answer.processes() {
            EffectRecord::None
        } else {
            match &key {
                Some((_, v)) if !st.keys_seen.insert(v.clone()) => EffectRecord::Replayed,
                _ => EffectRecord::Recorded,
            }
        };
        st.attempts.push(Attempt {
            client: spec.client,
            index,
            t_ms,
            wall_ms,
            method: request.method.clone(),
            path: request.path.clone(),
            key,
            body_hash: hasher.finish(),
            body_len: request.body.len(),
            answer: answer.clone(),
            retry_after: None,
            date: None,
            answered_ms: None,
            closed_ms: None,
            effect,
        });
        (st.attempts.len() - 1, answer)
    };
    let update = |f: &mut dyn FnMut(&mut Attempt)| {
        let mut st = lock(state);
        if let Some(a) = st.attempts.get_mut(slot) {
            f(a);
        }
    };
    match answer {
        Answer::Status {
            status,
            retry_after,
        } => {
            let now = SystemTime::now();
            let (date, ra) = render_retry_after(now, retry_after.as_ref());
            let head = response_head(status, &date, ra.as_deref(), 2);
            let _ = stream.write_all(head.as_bytes());
            let _ = stream.write_all(b"{}");
            let _ = stream.flush();
            let _ = stream.shutdown(std::net::Shutdown::Write);
            let done = ms_since(origin);
            update(&mut |a| {
                a.answered_ms = Some(done);
                a.date = Some(date.clone());
                a.retry_after = ra.clone();
            });
            // Let the client read the answer before the socket closes.
            drain_until_closed(&mut stream, stop, Duration::from_millis(500));
        }
        Answer::Reset => {
            let _ = SockRef::from(&stream).set_linger(Some(Duration::ZERO));
            drop(stream);
            let done = ms_since(origin);
            update(&mut |a| a.answered_ms = Some(done));
        }
        Answer::Hang => {
            let closed = drain_until_closed(&mut stream, stop, Duration::MAX);
            if closed {
                let done = ms_since(origin);
                update(&mut |a| a.closed_ms = Some(done));
            }
        }
        Answer::SlowBody => {
            let date = httpdate::fmt_http_date(SystemTime::now());
            let head = response_head(200, &date, None, SLOW_BODY.len());
            let mut ok = stream.write_all(head.as_bytes()).is_ok();
            for byte in SLOW_BODY {
                if !ok || stop.load(Ordering::SeqCst) {
                    break;
                }
                std::thread::sleep(SLOW_BYTE);
                ok = stream.write_all(std::slice::from_ref(byte)).is_ok();
            }
            let done = ms_since(origin);
            if ok {
                update(&mut |a| a.answered_ms = Some(done));
            } else {
                update(&mut |a| a.closed_ms = Some(done));
            }
        }
    }
}

/// Reads until the peer closes (true), the stop flag (false) or `limit` passes.
fn drain_until_closed(stream: &mut TcpStream, stop: &AtomicBool, limit: Duration) -> bool {
    let start = Instant::now();
    let mut buf = [0u8; 4096];
    loop {
        if stop.load(Ordering::SeqCst) || start.elapsed() >= limit {
            return false;
        }
        match stream.read(&mut buf) {
            Ok(0) => return true,
            Ok(_) => {}
            Err(e)
                if matches!(
                    e.kind(),
                    std::io::ErrorKind::WouldBlock | std::io::ErrorKind::TimedOut
                ) => {}
            Err(_) => return true,
        }
    }
}

/// `Date` and the Retry-After value for `form`, both from the same whole second
/// (an IMF-fixdate has second resolution, so the date form is exact).
fn render_retry_after(now: SystemTime, form: Option<&RetryAfterForm>) -> (String, Option<String>) {
    let secs = now
        .duration_since(UNIX_EPOCH)
        .map(|d| d.as_secs())
        .unwrap_or(0);
    let base = UNIX_EPOCH + Duration::from_secs(secs);
    let date = httpdate::fmt_http_date(base);
    let ra = form.map(|f| match f {
        RetryAfterForm::Seconds(s) => s.to_string(),
        RetryAfterForm::DateIn(s) => httpdate::fmt_http_date(base + Duration::from_secs(*s)),
        RetryAfterForm::PastDate => {
            httpdate::fmt_http_date(base.checked_sub(Duration::from_secs(3600)).unwrap_or(base))
        }
        RetryAfterForm::Raw(v) => v.clone(),
    });
    (date, ra)
}

fn reason(status: u16) -> &'static str {
    match status {
        200 => "OK",
        201 => "Created",
        400 => "Bad Request",
        401 => "Unauthorized",
        403 => "Forbidden",
        409 => "Conflict",
        422 => "Unprocessable Content",
        429 => "Too Many Requests",
        500 => "Internal Server Error",
        502 => "Bad Gateway",
        503 => "Service Unavailable",
        504 => "Gateway Timeout",
        _ => "Status",
    }
}

fn response_head(status: u16, date: &str, retry_after: Option<&str>, len: usize) -> String {
    let mut head = format!(
        "HTTP/1.1 {status} {}\r\nDate: {date}\r\nContent-Type: application/json\r\nContent-Length: {len}\r\nConnection: close\r\n",
        reason(status)
    );
    if let Some(ra) = retry_after {
        head.push_str(&format!("Retry-After: {ra}\r\n"));
    }
    head.push_str("\r\n");
    head
}

/// Reads one request: the head (answering `Expect: 100-continue`), then a body by
/// `Content-Length` or chunked. `None` when the peer closed or the server stops
/// before a complete head. Returns the request and the time its head completed.
fn read_request(
    stream: &mut TcpStream,
    origin: Instant,
    stop: &AtomicBool,
) -> Option<(Request, f64, f64)> {
    let mut buf: Vec<u8> = Vec::new();
    let mut chunk = [0u8; 8192];
    let (request, head_len, t_ms, wall_ms) = loop {
        let mut headers = [httparse::EMPTY_HEADER; 96];
        let mut req = httparse::Request::new(&mut headers);
        match req.parse(&buf) {
            Ok(httparse::Status::Complete(n)) => {
                let request = Request {
                    method: req.method.unwrap_or("").to_string(),
                    path: req.path.unwrap_or("").to_string(),
                    headers: req
                        .headers
                        .iter()
                        .map(|h| {
                            (
                                h.name.to_string(),
                                String::from_utf8_lossy(h.value).into_owned(),
                            )
                        })
                        .collect(),
                    body: Vec::new(),
                };
                break (request, n, ms_since(origin), epoch_ms());
            }
            Ok(httparse::Status::Partial) if buf.len() < MAX_REQUEST => {}
            _ => return None,
        }
        if !read_more(stream, &mut buf, &mut chunk, stop)? {
            return None;
        }
    };
    let mut request = request;
    let header = |name: &str| {
        request
            .headers
            .iter()
            .find(|(n, _)| n.eq_ignore_ascii_case(name))
            .map(|(_, v)| v.trim().to_ascii_lowercase())
    };
    if header("expect").as_deref() == Some("100-continue") {
        let _ = stream.write_all(b"HTTP/1.1 100 Continue\r\n\r\n");
    }
    let chunked = header("transfer-encoding").is_some_and(|v| v.contains("chunked"));
    let length: usize = header("content-length")
        .and_then(|v| v.parse().ok())
        .unwrap_or(0)
        .min(MAX_REQUEST);
    let mut body = buf.split_off(head_len);
    if chunked {
        while !body.ends_with(b"0\r\n\r\n") && body.len() < MAX_REQUEST {
            if !read_more(stream, &mut body, &mut chunk, stop)? {
                break;
            }
        }
    } else {
        while body.len() < length {
            if !read_more(stream, &mut body, &mut chunk, stop)? {
                break;
            }
        }
        body.truncate(length);
    }
    request.body = body;
    Some((request, t_ms, wall_ms))
}

/// One read into `buf`: `Some(true)` when bytes came, `Some(false)` at the peer's
/// close, `None` when the server stops.
fn read_more(
    stream: &mut TcpStream,
    buf: &mut Vec<u8>,
    chunk: &mut [u8],
    stop: &AtomicBool,
) -> Option<bool> {
    loop {
        if stop.load(Ordering::SeqCst) {
            return None;
        }
        match stream.read(chunk) {
            Ok(0) => return Some(false),
            Ok(n) => {
                buf.extend_from_slice(&chunk[..n]);
                return Some(true);
            }
            Err(e)
                if matches!(
                    e.kind(),
                    std::io::ErrorKind::WouldBlock | std::io::ErrorKind::TimedOut
                ) => {}
            Err(_) => return Some(false),
        }
    }
}
