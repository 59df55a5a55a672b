//! JSON files written by other programs: some start with a UTF-8
//! byte-order mark (Windows editors write one), which JSON does not allow
//! and serde refuses. Cards, lorebooks and scenario files pass it over.

const BOM: &str = "\u{feff}";

/// `bytes` without a leading UTF-8 byte-order mark.
pub fn without_bom(bytes: &[u8]) -> &[u8] {
    bytes.strip_prefix(BOM.as_bytes()).unwrap_or(bytes)
}

/// `text` without a leading byte-order mark.
pub(crate) fn without_bom_str(text: &str) -> &str {
    text.strip_prefix(BOM).unwrap_or(text)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_a_leading_mark_is_passed_over() {
        assert_eq!(without_bom("\u{feff}{}".as_bytes()), b"{}");
        assert_eq!(without_bom(b"{}"), b"{}");
        assert_eq!(without_bom_str("\u{feff}\u{feff}{}"), "\u{feff}{}");
        assert_eq!(without_bom_str("{\u{feff}}"), "{\u{feff}}");
    }
}
