//! A small HTTP server on 127.0.0.1 for tests of programs that download
//! models (nothing in a test may reach the network): serves one file with
//! Range support, and can break its first answer half-way.

use std::io::{BufRead, BufReader, Write};
use std::net::TcpListener;
use std::sync::{Arc, Mutex};

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
            let mut reader = BufReader::new(stream.try_clone().unwrap());
            let mut start = None;
            loop {
                let mut line = String::new();
                if reader.read_line(&mut line).unwrap_or(0) == 0 || line == "\r\n" {
                    break;
                }
                let lower = line.to_ascii_lowercase();
                if let Some(spec) = lower.strip_prefix("range: bytes=") {
                    start = spec.trim().trim_end_matches('-').parse::<u64>().ok();
                }
            }
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
