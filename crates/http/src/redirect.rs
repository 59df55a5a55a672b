//! Redirects followed by the product's own rule, never by the HTTP client:
//! only to `http:` or `https:` addresses that name a host, a bounded number
//! of times, to another host only where the caller allows it, and never for
//! a request that carries a body (docs/security.md, "Redirects").
//!
//! Every agent that calls [`call`] is built by [`agent_builder`], which turns
//! the client's own redirect handling off: ureq 2 follows a `Location`
//! without a host into a panic.

use narratoria_lexicon::clip_to;
use url::Url;

/// The longest part of a refused address quoted in an error.
const QUOTED_URL_CHARS: usize = 120;

/// What a redirect may do for one kind of request.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Redirects {
    /// The most redirects followed; one more is refused.
    pub max: u8,
    /// Whether every address must have the first one's host and port.
    pub same_host: bool,
}

impl Redirects {
    /// No redirect is followed: a 3xx answer is refused.
    pub const NONE: Redirects = Redirects {
        max: 0,
        same_host: true,
    };
    /// Up to five redirects on the first address's host and port (listings,
    /// a model server's API: a key is never sent to another host).
    pub const SAME_HOST: Redirects = Redirects {
        max: 5,
        same_host: true,
    };
    /// Up to five redirects to any http(s) host (a file download handed to
    /// a content network).
    pub const ANY_HOST: Redirects = Redirects {
        max: 5,
        same_host: false,
    };
}

/// Why a call did not bring an answer.
#[derive(Debug)]
pub enum CallError {
    /// The client's own failure: an error status or a transport failure.
    Http(Box<ureq::Error>),
    /// A redirect the rule refuses; `reason` says which part of the rule.
    Redirect { reason: String },
    /// The first address itself cannot be asked (not an address, not
    /// http(s), no host): the caller's setting, not a server, is at fault.
    Address { reason: String },
}

impl std::fmt::Display for CallError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            CallError::Http(e) => e.fmt(f),
            CallError::Redirect { reason } => write!(f, "a redirect was refused: {reason}"),
            CallError::Address { reason } => write!(f, "the address cannot be asked: {reason}"),
        }
    }
}

impl std::error::Error for CallError {}

impl From<ureq::Error> for CallError {
    fn from(e: ureq::Error) -> CallError {
        CallError::Http(Box::new(e))
    }
}

/// An agent builder whose agents never follow a redirect on their own.
pub fn agent_builder() -> ureq::AgentBuilder {
    ureq::AgentBuilder::new().redirects(0)
}

/// One request of a [`call`].
pub struct Request<'a> {
    pub method: &'a str,
    pub url: &'a str,
    /// The body sent with the first request; a redirected request with a
    /// body is refused, never sent again.
    pub body: Option<&'a [u8]>,
    pub rule: Redirects,
}

/// The answer of a [`call`], with the address that gave it.
pub struct Answer {
    pub response: ureq::Response,
    pub url: String,
}

/// Sends `request` with `agent` (built by [`agent_builder`]) and follows
/// its 3xx answers by `request.rule`. `prepare` sets each hop's headers; it
/// is told whether the hop is on the first address's host, so it can leave
/// credentials off elsewhere. Promises: the answer is not a redirect; a
/// refused redirect is [`CallError::Redirect`] naming the cause (a scheme
/// other than http(s), no host, another host, too many, a missing or
/// unreadable `Location`, a body to send again); a first address that
/// cannot be asked is [`CallError::Address`]; never a panic.
pub fn call(
    agent: &ureq::Agent,
    request: Request<'_>,
    prepare: &dyn Fn(ureq::Request, bool) -> ureq::Request,
) -> Result<Answer, CallError> {
    let unusable = |reason: String| CallError::Address { reason };
    let first =
        Url::parse(request.url).map_err(|e| unusable(format!("{e}: {}", quote(request.url))))?;
    check_target(&first, &first, Redirects::ANY_HOST).map_err(|e| match e {
        CallError::Redirect { reason } => unusable(reason),
        other => other,
    })?;
    let mut current = first.clone();
    let mut hops = 0u8;
    loop {
        let on_first_host = same_origin(&first, &current);
        let req = prepare(
            agent.request(request.method, current.as_str()),
            on_first_host,
        );
        let response = match (hops, request.body) {
            (0, Some(body)) => req.send_bytes(body)?,
            _ => req.call()?,
        };
        if !(300..400).contains(&response.status()) {
            return Ok(Answer {
                response,
                url: current.to_string(),
            });
        }
        let status = response.status();
        let location = response
            .header("location")
            .map(str::to_string)
            .ok_or_else(|| refused(format!("HTTP {status} without a Location")))?;
        if request.body.is_some() {
            return Err(refused(format!(
                "HTTP {status} to {}: a request with a body is not sent again to another address; use that address instead",
                quote(&location)
            )));
        }
        if hops >= request.rule.max {
            return Err(refused(if request.rule.max == 0 {
                format!(
                    "HTTP {status} to {}: this request follows no redirect",
                    quote(&location)
                )
            } else {
                format!("more than {} redirects", request.rule.max)
            }));
        }
        let next = current.join(&location).map_err(|e| {
            refused(format!(
                "the Location {} is not an address ({e})",
                quote(&location)
            ))
        })?;
        check_target(&first, &next, request.rule)?;
        current = next;
        hops += 1;
    }
}

/// Whether `next` may be asked after a redirect from a call that began at
/// `first`.
fn check_target(first: &Url, next: &Url, rule: Redirects) -> Result<(), CallError> {
    if !matches!(next.scheme(), "http" | "https") {
        return Err(refused(format!(
            "{}: only http:// and https:// addresses are followed",
            quote(next.as_str())
        )));
    }
    if next.host_str().is_none_or(str::is_empty) {
        return Err(refused(format!(
            "{}: the address names no host",
            quote(next.as_str())
        )));
    }
    if rule.same_host && !same_origin(first, next) {
        return Err(refused(format!(
            "{}: it leaves {} for another host",
            quote(next.as_str()),
            origin(first)
        )));
    }
    Ok(())
}

/// Whether `a` and `b` share scheme, host and port: where a key may go
/// and a listing may stay (never https to http on the same port).
pub fn same_origin(a: &Url, b: &Url) -> bool {
    a.scheme() == b.scheme()
        && a.host_str() == b.host_str()
        && a.port_or_known_default() == b.port_or_known_default()
}

fn origin(u: &Url) -> String {
    match u.port() {
        Some(p) => format!("{}:{p}", u.host_str().unwrap_or("")),
        None => u.host_str().unwrap_or("").to_string(),
    }
}

/// An address as an error quotes it: without user or password, clipped.
fn quote(url: &str) -> String {
    let shown = match Url::parse(url) {
        Ok(mut u) => {
            let _ = u.set_username("");
            let _ = u.set_password(None);
            u.to_string()
        }
        Err(_) => url.to_string(),
    };
    format!("{:?}", clip_to(&shown, QUOTED_URL_CHARS))
}

fn refused(reason: String) -> CallError {
    CallError::Redirect { reason }
}

#[cfg(test)]
mod tests;
