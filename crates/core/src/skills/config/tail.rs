//! The end of a stream a script writes (its stderr), kept to a size, with
//! secrets replaced before anything is cut away: a cut through the middle of
//! a secret would otherwise leave its second half behind.

use super::secrets::REDACTED;

/// The last `cap` bytes of a stream, secrets scrubbed.
pub struct ScrubbedTail<'a> {
    cap: usize,
    secrets: &'a [String],
    /// The longest secret: this much more than `cap` is kept until the end,
    /// so a secret that is still arriving is never cut.
    slack: usize,
    buf: Vec<u8>,
    truncated: bool,
}

impl<'a> ScrubbedTail<'a> {
    /// An empty tail keeping `cap` bytes, scrubbing `secrets`.
    pub fn new(cap: usize, secrets: &'a [String]) -> ScrubbedTail<'a> {
        ScrubbedTail {
            cap,
            secrets,
            slack: secrets.iter().map(String::len).max().unwrap_or(0),
            buf: Vec::new(),
            truncated: false,
        }
    }

    /// Adds what the stream gave next.
    pub fn push(&mut self, bytes: &[u8]) {
        self.buf.extend_from_slice(bytes);
        if self.buf.len() > self.cap + 2 * self.slack {
            // Every secret that ends inside the buffer is replaced before
            // the cut; one still arriving starts within the kept slack.
            self.scrub();
            self.cut_to(self.cap + self.slack);
        }
    }

    /// The tail as text (invalid UTF-8 replaced), starting with `…` when
    /// the stream was longer than the cap.
    pub fn finish(mut self) -> String {
        self.scrub();
        self.cut_to(self.cap);
        let text = String::from_utf8_lossy(&self.buf).into_owned();
        if self.truncated {
            format!("…{text}")
        } else {
            text
        }
    }

    fn cut_to(&mut self, keep: usize) {
        if self.buf.len() > keep {
            let cut = self.buf.len() - keep;
            self.buf.drain(..cut);
            self.truncated = true;
        }
    }

    fn scrub(&mut self) {
        for secret in self.secrets {
            replace_all(&mut self.buf, secret.as_bytes(), REDACTED.as_bytes());
        }
    }
}

fn replace_all(buf: &mut Vec<u8>, needle: &[u8], with: &[u8]) {
    if needle.is_empty() || !buf.windows(needle.len()).any(|w| w == needle) {
        return;
    }
    let mut out = Vec::with_capacity(buf.len());
    let mut i = 0;
    while i < buf.len() {
        if buf[i..].starts_with(needle) {
            out.extend_from_slice(with);
            i += needle.len();
        } else {
            out.push(buf[i]);
            i += 1;
        }
    }
    *buf = out;
}

#[cfg(test)]
mod tests {
    use super::*;

    fn tail_of(chunks: &[&[u8]], cap: usize, secrets: &[String]) -> String {
        let mut t = ScrubbedTail::new(cap, secrets);
        chunks.iter().for_each(|c| t.push(c));
        t.finish()
    }

    /// A cut that would fall inside a secret leaves none of it behind.
    #[test]
    fn a_secret_split_by_the_cut_leaves_no_trace() {
        let secret = "SECRETVALUE123".to_string();
        let secrets = std::slice::from_ref(&secret);
        // 10 bytes of the secret fall before the last 20 bytes, 4 after.
        let stream = format!("{}{secret}{}", "a".repeat(100), "b".repeat(16));
        for chunk in [1, 3, 7, 1000] {
            let chunks: Vec<&[u8]> = stream.as_bytes().chunks(chunk).collect();
            let out = tail_of(&chunks, 20, secrets);
            assert!(!out.contains("123"), "chunk {chunk}: {out:?}");
            assert!(!out.contains("VALUE"), "chunk {chunk}: {out:?}");
            assert!(
                out.starts_with('…') && out.ends_with(&"b".repeat(16)),
                "{out:?}"
            );
        }
    }

    #[test]
    fn without_secrets_the_last_cap_bytes_are_kept() {
        assert_eq!(tail_of(&[b"hello ", b"world"], 5, &[]), "…world");
        assert_eq!(tail_of(&[b"short"], 16, &[]), "short");
        let key = "k3y-abc".to_string();
        assert_eq!(
            tail_of(&[b"using k3y", b"-abc now"], 64, std::slice::from_ref(&key)),
            format!("using {REDACTED} now")
        );
    }
}
