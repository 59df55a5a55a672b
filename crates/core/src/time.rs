//! Wall-clock times as the product writes them: RFC 3339 in UTC with
//! milliseconds (`2026-03-02T09:00:00.123Z`), through `chrono`.

use chrono::{DateTime, SecondsFormat, Utc};

/// `unix_ms` (ms since the Unix epoch) as `YYYY-MM-DDTHH:MM:SS.mmmZ`.
pub fn rfc3339(unix_ms: u64) -> String {
    let ms = i64::try_from(unix_ms).unwrap_or(i64::MAX);
    DateTime::<Utc>::from_timestamp_millis(ms)
        .unwrap_or(DateTime::<Utc>::MAX_UTC)
        .to_rfc3339_opts(SecondsFormat::Millis, true)
}

/// Now, as [`rfc3339`] writes it.
pub fn now_rfc3339() -> String {
    Utc::now().to_rfc3339_opts(SecondsFormat::Millis, true)
}

/// The ms since the Unix epoch of an RFC 3339 UTC time as the store writes
/// it (`YYYY-MM-DDTHH:MM:SS[.fff]Z`); `None` for anything else, and for
/// times before the epoch.
pub fn parse_rfc3339(text: &str) -> Option<u64> {
    if !text.ends_with('Z') {
        return None;
    }
    let at = DateTime::parse_from_rfc3339(text).ok()?;
    u64::try_from(at.timestamp_millis()).ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn times_are_written_and_read_back() {
        assert_eq!(rfc3339(0), "1970-01-01T00:00:00.000Z");
        assert_eq!(rfc3339(951_782_400_123), "2000-02-29T00:00:00.123Z");
        for ms in [0, 951_782_400_123, 1_700_000_000_999, 4_102_444_800_000] {
            assert_eq!(parse_rfc3339(&rfc3339(ms)), Some(ms));
        }
        assert_eq!(
            parse_rfc3339("2024-01-02T03:04:05Z"),
            Some(1_704_164_645_000)
        );
        assert_eq!(parse_rfc3339("2024-13-02T03:04:05Z"), None);
        assert_eq!(parse_rfc3339("yesterday"), None);
        assert_eq!(parse_rfc3339("1969-12-31T23:59:59Z"), None);
    }

    #[test]
    fn now_is_written_like_any_time() {
        let now = now_rfc3339();
        assert!(parse_rfc3339(&now).is_some(), "{now}");
        assert_eq!(now.len(), "2026-03-02T09:00:00.123Z".len());
    }
}
