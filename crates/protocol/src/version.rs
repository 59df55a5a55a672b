//! Protocol versions (`narratoria/1`, `narratoria/1.1`) and the rule that
//! decides whether two sides can talk.

use std::borrow::Cow;
use std::fmt;
use std::str::FromStr;

use schemars::JsonSchema;
use serde::{Deserialize, Deserializer, Serialize, Serializer};

/// The protocol identifier of version 1, as carried in a `narratoria/1` envelope.
pub const PROTOCOL: &str = "narratoria/1";
/// The value of the `NARRATORIA_PROTOCOL` variable given to every script: the
/// major version. Minor versions do not change it.
pub const PROTOCOL_VERSION: &str = "1";

/// A protocol version, written `narratoria/<major>` or `narratoria/<major>.<minor>`
/// (the minor part is left out when it is 0).
///
/// Compatibility rule: a minor version only adds (new optional fields, new
/// events a script must opt into), so a side speaking `1.1` also speaks `1`;
/// a new major version may change anything. See
/// [`ProtocolVersion::is_compatible_with`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct ProtocolVersion {
    pub major: u32,
    pub minor: u32,
}

/// Why a text is not a protocol version.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{text:?} is not a protocol version: write \"narratoria/<major>\" or \"narratoria/<major>.<minor>\", e.g. \"narratoria/1\" or \"narratoria/1.1\"")]
pub struct VersionError {
    pub text: String,
}

impl ProtocolVersion {
    /// `narratoria/1`: envelope, events, failure codes.
    pub const V1: ProtocolVersion = ProtocolVersion { major: 1, minor: 0 };
    /// `narratoria/1.1`: version 1 plus host generation.
    pub const V1_1: ProtocolVersion = ProtocolVersion { major: 1, minor: 1 };
    /// The newest version this crate describes.
    pub const LATEST: ProtocolVersion = ProtocolVersion::V1_1;

    /// Whether a side speaking `self` can serve a peer that asks for `other`:
    /// the same major version, and `other`'s minor version no newer than
    /// `self`'s. So `1.1` is compatible with `1` and `1.1`, `1` is not
    /// compatible with `1.1`, and nothing of major 1 is compatible with `2`.
    pub fn is_compatible_with(&self, other: &ProtocolVersion) -> bool {
        self.major == other.major && other.minor <= self.minor
    }

    /// Parses `narratoria/1` or `narratoria/1.1`. Only the canonical spelling
    /// is accepted (no leading zeros, no `.0`), so the text always reads back
    /// as it was written.
    pub fn parse(text: &str) -> Result<ProtocolVersion, VersionError> {
        let bad = || VersionError { text: text.into() };
        let numbers = text.strip_prefix("narratoria/").ok_or_else(bad)?;
        let (major, minor) = match numbers.split_once('.') {
            Some((major, minor)) => (major, Some(minor)),
            None => (numbers, None),
        };
        let major = number(major).ok_or_else(bad)?;
        let minor = match minor {
            None => 0,
            Some(m) => number(m).filter(|&m| m > 0).ok_or_else(bad)?,
        };
        Ok(ProtocolVersion { major, minor })
    }
}

/// A decimal number without sign or leading zeros.
fn number(text: &str) -> Option<u32> {
    let canonical = !text.is_empty()
        && text.bytes().all(|b| b.is_ascii_digit())
        && (text == "0" || !text.starts_with('0'));
    canonical.then(|| text.parse().ok()).flatten()
}

impl fmt::Display for ProtocolVersion {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.minor == 0 {
            write!(f, "narratoria/{}", self.major)
        } else {
            write!(f, "narratoria/{}.{}", self.major, self.minor)
        }
    }
}

impl FromStr for ProtocolVersion {
    type Err = VersionError;

    fn from_str(text: &str) -> Result<Self, Self::Err> {
        ProtocolVersion::parse(text)
    }
}

impl Serialize for ProtocolVersion {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.collect_str(self)
    }
}

impl<'de> Deserialize<'de> for ProtocolVersion {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let text = Cow::<str>::deserialize(deserializer)?;
        ProtocolVersion::parse(&text).map_err(serde::de::Error::custom)
    }
}

impl JsonSchema for ProtocolVersion {
    fn schema_name() -> Cow<'static, str> {
        "ProtocolVersion".into()
    }

    fn json_schema(_: &mut schemars::SchemaGenerator) -> schemars::Schema {
        schemars::json_schema!({
            "description": "A protocol version: \"narratoria/<major>\" or \"narratoria/<major>.<minor>\", e.g. \"narratoria/1\" or \"narratoria/1.1\".",
            "type": "string",
            "pattern": "^narratoria/(0|[1-9][0-9]*)(\\.[1-9][0-9]*)?$"
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_and_prints_the_same_text() {
        for text in [
            "narratoria/1",
            "narratoria/1.1",
            "narratoria/2",
            "narratoria/10.12",
        ] {
            assert_eq!(ProtocolVersion::parse(text).unwrap().to_string(), text);
        }
        assert_eq!(ProtocolVersion::parse(PROTOCOL), Ok(ProtocolVersion::V1));
        assert_eq!(
            ProtocolVersion::parse("narratoria/1.1"),
            Ok(ProtocolVersion::V1_1)
        );
        assert_eq!(ProtocolVersion::V1.to_string(), PROTOCOL);
        assert_eq!(ProtocolVersion::V1.major.to_string(), PROTOCOL_VERSION);
    }

    #[test]
    fn rejects_other_spellings() {
        for text in [
            "",
            "1",
            "narratoria/",
            "narratoria/1.0",
            "narratoria/01",
            "narratoria/1.01",
            "narratoria/1.",
            "narratoria/1.1.1",
            "narratoria/+1",
            "narratoria/v1",
            "Narratoria/1",
            " narratoria/1",
            "narratoria/99999999999",
        ] {
            assert!(ProtocolVersion::parse(text).is_err(), "{text:?}");
        }
    }

    #[test]
    fn newer_minor_serves_older_within_one_major() {
        let (v1, v1_1) = (ProtocolVersion::V1, ProtocolVersion::V1_1);
        let v1_2 = ProtocolVersion::parse("narratoria/1.2").unwrap();
        let v2 = ProtocolVersion::parse("narratoria/2").unwrap();
        assert!(v1.is_compatible_with(&v1));
        assert!(v1_1.is_compatible_with(&v1));
        assert!(v1_1.is_compatible_with(&v1_1));
        assert!(!v1.is_compatible_with(&v1_1));
        assert!(!v1_1.is_compatible_with(&v1_2));
        assert!(!v1_1.is_compatible_with(&v2));
        assert!(!v2.is_compatible_with(&v1));
    }

    #[test]
    fn serde_uses_the_text() {
        let v: ProtocolVersion = serde_json::from_str(r#""narratoria/1.1""#).unwrap();
        assert_eq!(v, ProtocolVersion::V1_1);
        assert_eq!(serde_json::to_string(&v).unwrap(), r#""narratoria/1.1""#);
        assert!(serde_json::from_str::<ProtocolVersion>(r#""narratoria/x""#).is_err());
    }
}
