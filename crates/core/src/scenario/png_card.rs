//! The card a PNG image carries: base64 JSON in a text chunk named `ccv3`
//! (preferred) or `chara`, stored plain (tEXt), compressed (zTXt) or either
//! way (iTXt).
//!
//! A compressed chunk can inflate to a thousand times its size, so the
//! chunks are walked as they are stored, nothing is inflated but the one
//! card chunk chosen, and that one only up to [`CARD_CHUNK_BYTES`]. The
//! image itself is never decoded.

use base64::Engine;

use super::limits::{CARD_CHUNK_BYTES, MAX_FILE_BYTES};
use super::ScenarioError;

const SIGNATURE: &[u8] = b"\x89PNG\r\n\x1a\n";
/// The card chunks' keywords, the preferred first.
const KEYWORDS: [&str; 2] = ["ccv3", "chara"];

/// Whether `bytes` start as a PNG image does.
pub(super) fn is_png(bytes: &[u8]) -> bool {
    bytes.starts_with(SIGNATURE)
}

/// The card's JSON in a PNG image. Promises: never panics; a file that is
/// not a well-formed sequence of PNG chunks starting with its header, a PNG
/// without a `ccv3` or `chara` text chunk, a compressed chunk that does
/// not inflate or inflates past [`CARD_CHUNK_BYTES`], and text that is not
/// base64 of at most [`MAX_FILE_BYTES`] are refused, naming the chunk.
pub(super) fn card_json_in_png(bytes: &[u8]) -> Result<Vec<u8>, ScenarioError> {
    let chunks = text_chunks(bytes)?;
    let chunk = KEYWORDS
        .iter()
        .find_map(|k| {
            chunks
                .iter()
                .find(|c| c.keyword.eq_ignore_ascii_case(k.as_bytes()))
        })
        .ok_or_else(|| {
            bad("the PNG has no `chara` text chunk, so it is a picture but not a character card")
        })?;
    let name = String::from_utf8_lossy(chunk.keyword).into_owned();
    let text = chunk.text(&name)?;
    let compact: Vec<u8> = text
        .iter()
        .copied()
        .filter(|b| !b.is_ascii_whitespace())
        .collect();
    let engine = base64::engine::general_purpose::GeneralPurpose::new(
        &base64::alphabet::STANDARD,
        base64::engine::GeneralPurposeConfig::new()
            .with_decode_padding_mode(base64::engine::DecodePaddingMode::Indifferent),
    );
    let json = engine.decode(&compact).map_err(|e| {
        bad(format!(
            "the PNG's `{name}` chunk is not valid base64 ({e})"
        ))
    })?;
    if json.len() > MAX_FILE_BYTES {
        return Err(ScenarioError::too_large(
            super::error::Origin::Card,
            &format!("the card in the PNG's `{name}` chunk"),
            json.len(),
            MAX_FILE_BYTES,
            "bytes",
        ));
    }
    Ok(json)
}

/// One text chunk as stored.
struct TextChunk<'a> {
    keyword: &'a [u8],
    /// Whether `data` is a zlib stream.
    compressed: bool,
    data: &'a [u8],
}

impl TextChunk<'_> {
    /// The chunk's text (`name` names it in messages), inflated within
    /// [`CARD_CHUNK_BYTES`] when compressed.
    fn text(&self, name: &str) -> Result<std::borrow::Cow<'_, [u8]>, ScenarioError> {
        if !self.compressed {
            return Ok(self.data.into());
        }
        use fdeflate::BoundedDecompressionError as E;
        match fdeflate::decompress_to_vec_bounded(self.data, CARD_CHUNK_BYTES) {
            Ok(text) => Ok(text.into()),
            Err(E::OutputTooLarge { .. }) => Err(bad(format!(
                "the PNG's `{name}` chunk inflates to more than {CARD_CHUNK_BYTES} bytes (8 MiB), the most a card chunk may hold"
            ))),
            Err(E::DecompressionError { .. }) => Err(bad(format!(
                "the PNG's `{name}` chunk is not valid compressed (zlib) data"
            ))),
        }
    }
}

/// The tEXt, zTXt and iTXt chunks before the image's end, as stored;
/// refuses bytes that are not a sequence of chunks starting with `IHDR`.
fn text_chunks(bytes: &[u8]) -> Result<Vec<TextChunk<'_>>, ScenarioError> {
    let unreadable = |why: &str| bad(format!("the PNG image cannot be read ({why})"));
    let mut rest = bytes
        .strip_prefix(SIGNATURE)
        .ok_or_else(|| unreadable("no PNG signature"))?;
    let mut found = Vec::new();
    let mut first = true;
    loop {
        let (head, after) =
            split(rest, 8).ok_or_else(|| unreadable("it ends before its last chunk"))?;
        let len = u32::from_be_bytes([head[0], head[1], head[2], head[3]]) as usize;
        let kind = &head[4..8];
        let (data, after) = split(after, len)
            .and_then(|(data, after)| Some((data, split(after, 4)?.1)))
            .ok_or_else(|| unreadable("a chunk runs past the end of the file"))?;
        rest = after;
        if first && kind != b"IHDR" {
            return Err(unreadable("it does not start with its header"));
        }
        first = false;
        match kind {
            b"IEND" => return Ok(found),
            b"tEXt" | b"zTXt" | b"iTXt" => {
                if let Some(chunk) = text_chunk(kind, data) {
                    found.push(chunk);
                }
            }
            _ => {}
        }
    }
}

/// A text chunk's parts; `None` when it is malformed (passed over, as an
/// image viewer would).
fn text_chunk<'a>(kind: &[u8], data: &'a [u8]) -> Option<TextChunk<'a>> {
    let (keyword, value) = until_nul(data)?;
    match kind {
        b"tEXt" => Some(TextChunk {
            keyword,
            compressed: false,
            data: value,
        }),
        // Compression method 0 (zlib) is the only one there is.
        b"zTXt" => match value {
            [0, data @ ..] => Some(TextChunk {
                keyword,
                compressed: true,
                data,
            }),
            _ => None,
        },
        b"iTXt" => {
            let [flag, method, rest @ ..] = value else {
                return None;
            };
            let (_language, rest) = until_nul(rest)?;
            let (_translated, text) = until_nul(rest)?;
            match (flag, method) {
                (0, _) => Some(TextChunk {
                    keyword,
                    compressed: false,
                    data: text,
                }),
                (1, 0) => Some(TextChunk {
                    keyword,
                    compressed: true,
                    data: text,
                }),
                _ => None,
            }
        }
        _ => None,
    }
}

/// The bytes before the first NUL, and those after it.
fn until_nul(bytes: &[u8]) -> Option<(&[u8], &[u8])> {
    let at = bytes.iter().position(|b| *b == 0)?;
    Some((&bytes[..at], &bytes[at + 1..]))
}

/// The first `n` bytes and the rest, when there are `n`.
fn split(bytes: &[u8], n: usize) -> Option<(&[u8], &[u8])> {
    (bytes.len() >= n).then(|| bytes.split_at(n))
}

fn bad(message: impl Into<String>) -> ScenarioError {
    ScenarioError::Card(message.into())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A PNG of these raw chunks: no image, nothing checked but the layout.
    fn chunks(list: &[(&[u8; 4], &[u8])]) -> Vec<u8> {
        let mut out = SIGNATURE.to_vec();
        for (kind, data) in list {
            out.extend_from_slice(&(data.len() as u32).to_be_bytes());
            out.extend_from_slice(*kind);
            out.extend_from_slice(data);
            out.extend_from_slice(&[0; 4]);
        }
        out
    }

    #[test]
    fn only_well_formed_chunks_before_the_end_are_read() {
        let card = b"chara\0e30="; // base64 of {}
        let ok = chunks(&[(b"IHDR", &[0; 13]), (b"tEXt", card), (b"IEND", b"")]);
        assert_eq!(card_json_in_png(&ok).unwrap(), b"{}");
        let after_end = chunks(&[(b"IHDR", &[0; 13]), (b"IEND", b""), (b"tEXt", card)]);
        assert!(card_json_in_png(&after_end)
            .unwrap_err()
            .to_string()
            .contains("no `chara`"));
        let headless = chunks(&[(b"tEXt", card), (b"IEND", b"")]);
        assert!(card_json_in_png(&headless)
            .unwrap_err()
            .to_string()
            .contains("does not start"));
        let mut cut = ok.clone();
        cut.truncate(ok.len() - 14);
        assert!(card_json_in_png(&cut)
            .unwrap_err()
            .to_string()
            .contains("cannot be read"));
        let endless = chunks(&[(b"IHDR", &[0; 13])]);
        assert!(card_json_in_png(&endless)
            .unwrap_err()
            .to_string()
            .contains("cannot be read"));
        // Malformed text chunks are passed over; a broken stream is named.
        let odd = chunks(&[
            (b"IHDR", &[0; 13]),
            (b"zTXt", b"chara\0\x07xx"),
            (b"iTXt", b"chara\0\x01"),
            (b"iTXt", b"chara\0\x01\x00\0\0not zlib"),
            (b"IEND", b""),
        ]);
        let err = card_json_in_png(&odd).unwrap_err().to_string();
        assert!(
            err.contains("`chara` chunk is not valid compressed"),
            "{err}"
        );
    }

    #[test]
    fn the_decoded_card_is_held_to_the_file_limit() {
        let text = base64::engine::general_purpose::STANDARD.encode(vec![b' '; MAX_FILE_BYTES + 1]);
        let mut data = b"chara\0".to_vec();
        data.extend_from_slice(text.as_bytes());
        let png = chunks(&[(b"IHDR", &[0; 13]), (b"tEXt", &data), (b"IEND", b"")]);
        let err = card_json_in_png(&png).unwrap_err().to_string();
        assert!(
            err.contains("`chara` chunk") && err.contains("5242880"),
            "{err}"
        );
    }
}
