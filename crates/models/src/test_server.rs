//! A small HTTP server on 127.0.0.1 for tests of programs that download
//! models (nothing in a test may reach the network): serves one file with
//! Range support, and can break its first answer half-way. It can also
//! misbehave on purpose ([`serve_misbehaving`]): a body that never ends, or
//! one that trickles in; such a server stops by itself.

use std::io::Write;
use std::net::{TcpListener, TcpStream};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

/// What the server saw: the Range start of each request (`None`: no Range).
pub type Seen = Arc<Mutex<Vec<Option<u64>>>>;

pub struct Server {
    pub url: String,
    pub seen: Seen,
}

/// Serves `body` at `/file.bin`. With `break_first`, the first answer
/// promises the whole body but sends only half before closing. With
/// `ranges` false, Range headers are ignored (a 200 with the whole body).
pub fn serve(body: Vec<u8>, break_first: bool, ranges: bool) -> Server {
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let url = format!("http://{}/file.bin", listener.local_addr().unwrap());
    let seen: Seen = Arc::default();
    let log = Arc::clone(&seen);
    std::thread::spawn(move || {
        for (i, stream) in listener.incoming().enumerate() {
            let Ok(mut stream) = stream else { return };
            let Some(start) = read_request(&stream) else {
                continue;
            };
            log.lock().unwrap().push(start);
            let len = body.len() as u64;
            let (head, slice) = match start {
                Some(s) if ranges && s < len => (
                    format!(
                        "HTTP/1.1 206 Partial Content\r\nContent-Range: bytes {s}-{}/{len}\r\nContent-Length: {}\r\nConnection: close\r\n\r\n",
                        len - 1,
                        len - s
                    ),
                    &body[s as usize..],
                ),
                Some(s) if ranges && s >= len => (
                    format!("HTTP/1.1 416 Range Not Satisfiable\r\nContent-Range: bytes */{len}\r\nContent-Length: 0\r\nConnection: close\r\n\r\n"),
                    &body[..0],
                ),
                _ => (
                    format!("HTTP/1.1 200 OK\r\nContent-Length: {len}\r\nAccept-Ranges: bytes\r\nConnection: close\r\n\r\n"),
                    &body[..],
                ),
            };
            let _ = stream.write_all(head.as_bytes());
            let sent = if break_first && i == 0 {
                &slice[..slice.len() / 2]
            } else {
                slice
            };
            let _ = stream.write_all(sent);
            let _ = stream.flush();
        }
    });
    Server { url, seen }
}

/// How a misbehaving server answers every request (Range headers are
/// logged, then ignored).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Misbehaviour {
    /// A 200 without a Content-Length whose body goes on until the client
    /// leaves (or [`ENDLESS_CAP`] bytes, or [`LIFETIME`]).
    Endless,
    /// A 200 announcing `length` bytes, then one byte every `every`, until
    /// the client leaves or [`LIFETIME`] ends.
    Trickle { length: u64, every: Duration },
    /// A 200 without a Content-Length, then one byte every `every`, until
    /// the client leaves or [`LIFETIME`] ends: a body of unknown length
    /// that never ends.
    Dribble { every: Duration },
}

/// How long a misbehaving server lives: it stops by itself then, whether or
/// not a client came or left.
pub const LIFETIME: Duration = Duration::from_secs(10);

/// The most an endless body sends to one client: far more than any test's
/// limit, little enough that a client without limits ends its test.
pub const ENDLESS_CAP: u64 = 64 << 20;

/// Serves `how` at `/file.bin` on 127.0.0.1, one client at a time, for at
/// most [`LIFETIME`].
pub fn serve_misbehaving(how: Misbehaviour) -> Server {
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let url = format!("http://{}/file.bin", listener.local_addr().unwrap());
    listener.set_nonblocking(true).unwrap();
    let seen: Seen = Arc::default();
    let log = Arc::clone(&seen);
    let end = Instant::now() + LIFETIME;
    std::thread::spawn(move || {
        while Instant::now() < end {
            let stream = match listener.accept() {
                Ok((stream, _)) => stream,
                Err(e) if e.kind() == std::io::ErrorKind::WouldBlock => {
                    std::thread::sleep(Duration::from_millis(5));
                    continue;
                }
                Err(_) => return,
            };
            if stream.set_nonblocking(false).is_err() {
                continue;
            }
            let Some(start) = read_request(&stream) else {
                continue;
            };
            log.lock().unwrap().push(start);
            misbehave(stream, how, end);
        }
    });
    Server { url, seen }
}

/// Answers one request as `how` says, until the client leaves or `end`.
fn misbehave(mut stream: TcpStream, how: Misbehaviour, end: Instant) {
    let _ = stream.set_write_timeout(Some(Duration::from_millis(200)));
    match how {
        Misbehaviour::Endless => {
            let head = "HTTP/1.1 200 OK\r\nConnection: close\r\n\r\n";
            if stream.write_all(head.as_bytes()).is_err() {
                return;
            }
            let chunk: Vec<u8> = (0..1u32 << 14).map(|i| (i % 251) as u8).collect();
            let mut sent = 0u64;
            while sent < ENDLESS_CAP && Instant::now() < end {
                match stream.write(&chunk) {
                    Ok(n) => sent += n as u64,
                    Err(e) if e.kind() == std::io::ErrorKind::WouldBlock => continue,
                    Err(e) if e.kind() == std::io::ErrorKind::TimedOut => continue,
                    Err(_) => return,
                }
            }
        }
        Misbehaviour::Trickle { length, every } => {
            let head =
                format!("HTTP/1.1 200 OK\r\nContent-Length: {length}\r\nConnection: close\r\n\r\n");
            trickle(stream, &head, length, every, end);
        }
        Misbehaviour::Dribble { every } => {
            let head = "HTTP/1.1 200 OK\r\nConnection: close\r\n\r\n";
            trickle(stream, head, u64::MAX, every, end);
        }
    }
}

/// Sends `head`, then one byte of `length` every `every`, until the client
/// leaves or `end`.
fn trickle(mut stream: TcpStream, head: &str, length: u64, every: Duration, end: Instant) {
    if stream.write_all(head.as_bytes()).is_err() {
        return;
    }
    for _ in 0..length {
        let next = Instant::now() + every;
        while Instant::now() < next {
            if Instant::now() >= end {
                return;
            }
            std::thread::sleep(Duration::from_millis(5).min(every));
        }
        if stream
            .write_all(b"x")
            .and_then(|()| stream.flush())
            .is_err()
        {
            return;
        }
    }
}

/// Reads one request's head; returns its Range start (`None`: no Range),
/// or `None` when no whole head came in time.
fn read_request(stream: &TcpStream) -> Option<Option<u64>> {
    crate::test_hub::read_head(stream).map(|(_, _, range)| range)
}
