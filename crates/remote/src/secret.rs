//! Keeping the server's API key out of everything this crate hands back:
//! error messages, transcripts and streamed text. A hostile or careless
//! server may echo the key (in an error body, in a completion); every text
//! that came from a server passes through here before it leaves the crate.

/// What stands in for the key wherever it was.
pub(crate) const MASK: &str = "••••••••";

/// An API key: sent only in the `Authorization` header, never shown.
#[derive(Clone, PartialEq, Eq)]
pub(crate) struct ApiKey(String);

impl ApiKey {
    /// The key in `text`, trimmed; `None` when nothing is left.
    pub(crate) fn new(text: &str) -> Option<ApiKey> {
        let t = text.trim();
        (!t.is_empty()).then(|| ApiKey(t.to_string()))
    }

    /// The key itself, for the `Authorization` header only.
    pub(crate) fn expose(&self) -> &str {
        &self.0
    }

    /// `text` with every occurrence of the key replaced by [`MASK`].
    pub(crate) fn scrub(&self, text: &str) -> String {
        text.replace(&self.0, MASK)
    }
}

impl std::fmt::Debug for ApiKey {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "ApiKey({MASK})")
    }
}

/// `text` with `key` masked, or `text` as it is without a key.
pub(crate) fn scrub(key: Option<&ApiKey>, text: &str) -> String {
    match key {
        Some(k) => k.scrub(text),
        None => text.to_string(),
    }
}

/// `text` with the credentials of every URL in it masked, as an API key is
/// (docs/security.md, "Secrets"): `http://user:pass@host/v1` is shown
/// `http://user:••••••••@host/v1`, and a user without a password (often a
/// token) `http://••••••••@host/v1`. Everything else is kept as it is.
pub fn mask_url_credentials(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(at) = rest.find("://") {
        let (before, after) = rest.split_at(at + 3);
        out.push_str(before);
        let end = after
            .find(|c: char| {
                matches!(c, '/' | '?' | '#' | '"' | '\'' | '<' | '>') || c.is_whitespace()
            })
            .unwrap_or(after.len());
        let (authority, tail) = after.split_at(end);
        match authority.rsplit_once('@') {
            Some((userinfo, host)) => {
                match userinfo.split_once(':') {
                    Some((user, _)) if !user.is_empty() => out.push_str(&format!("{user}:{MASK}")),
                    _ => out.push_str(MASK),
                }
                out.push('@');
                out.push_str(host);
            }
            None => out.push_str(authority),
        }
        rest = tail;
    }
    out.push_str(rest);
    out
}

/// The secret in `url`'s credentials: the password of `user:pass@`, or a
/// user given without a password (often a token); `None` without either.
pub(crate) fn url_secret(url: &str) -> Option<&str> {
    let rest = url.trim();
    let rest = rest.split_once("://").map_or(rest, |(_, r)| r);
    let authority = rest.split(['/', '?', '#']).next().unwrap_or_default();
    let (userinfo, _) = authority.rsplit_once('@')?;
    Some(userinfo.split_once(':').map_or(userinfo, |(_, p)| p))
}

/// Masks the key in text that arrives piece by piece: a key split across
/// pieces is masked too. What [`StreamScrubber::push`] returns is final; a
/// tail that could be the start of the key is held back until the next
/// piece (or [`StreamScrubber::finish`]) says what it is.
#[derive(Debug)]
pub(crate) struct StreamScrubber {
    key: Option<ApiKey>,
    held: String,
}

impl StreamScrubber {
    pub(crate) fn new(key: Option<ApiKey>) -> StreamScrubber {
        StreamScrubber {
            key,
            held: String::new(),
        }
    }

    /// Takes the next piece; returns what of the text so far is certain.
    pub(crate) fn push(&mut self, piece: &str) -> String {
        let Some(key) = &self.key else {
            return piece.to_string();
        };
        self.held.push_str(piece);
        let masked = key.scrub(&self.held);
        // The longest tail of `masked` that is a start of the key stays held.
        let keep = longest_key_start_suffix(&masked, key.expose());
        let (out, rest) = masked.split_at(masked.len() - keep);
        let out = out.to_string();
        self.held = rest.to_string();
        out
    }

    /// Whatever is still held: the stream ended, so it is not the key.
    pub(crate) fn finish(&mut self) -> String {
        std::mem::take(&mut self.held)
    }
}

/// The length in bytes of the longest proper suffix of `text` that is a
/// prefix of `key` (always on a character boundary of `text`).
fn longest_key_start_suffix(text: &str, key: &str) -> usize {
    let most = key.len().saturating_sub(1).min(text.len());
    (1..=most)
        .rev()
        .find(|&n| {
            text.is_char_boundary(text.len() - n) && key.starts_with(&text[text.len() - n..])
        })
        .unwrap_or(0)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_key_is_masked_and_never_printed() {
        let k = ApiKey::new("  sk-secret-1  ").unwrap();
        assert_eq!(k.scrub("bad key sk-secret-1!"), format!("bad key {MASK}!"));
        assert!(!format!("{k:?}").contains("secret"));
        assert!(ApiKey::new("   ").is_none());
    }

    #[test]
    fn a_key_split_across_pieces_is_masked() {
        let key = ApiKey::new("sk-abc123").unwrap();
        let mut s = StreamScrubber::new(Some(key));
        let mut out = String::new();
        for piece in ["Once sk-", "ab", "c12", "3 upon s", "k-a time", " é"] {
            out.push_str(&s.push(piece));
        }
        out.push_str(&s.finish());
        assert_eq!(out, format!("Once {MASK} upon sk-a time é"));
    }

    #[test]
    fn the_credentials_of_every_url_are_masked() {
        assert_eq!(
            mask_url_credentials("http://me:hunter22@10.0.0.2:11434/v1"),
            format!("http://me:{MASK}@10.0.0.2:11434/v1")
        );
        assert_eq!(
            mask_url_credentials("--endpoint=https://tok3n@h/v1 and http://a:b:c@d?x=@y"),
            format!("--endpoint=https://{MASK}@h/v1 and http://a:{MASK}@d?x=@y")
        );
        assert_eq!(
            mask_url_credentials("http://u:p@ss@h/v1"),
            format!("http://u:{MASK}@h/v1"),
            "an @ in the password"
        );
        for kept in ["http://127.0.0.1:8080/v1", "no url", "mailto:me@h", ""] {
            assert_eq!(mask_url_credentials(kept), kept);
        }
        assert_eq!(url_secret("http://u:pw@h/v1"), Some("pw"));
        assert_eq!(url_secret("http://tok@h/v1"), Some("tok"));
        assert_eq!(url_secret("http://h/v1?a=b@c"), None);
    }

    #[test]
    fn without_a_key_pieces_pass_at_once() {
        let mut s = StreamScrubber::new(None);
        assert_eq!(s.push("sk-"), "sk-");
        assert_eq!(s.finish(), "");
    }
}
