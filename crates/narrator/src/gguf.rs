//! A GGUF sanity check that runs before llama.cpp sees the file, so a
//! missing, truncated or foreign file becomes a clear error instead of a
//! crash or an opaque "null model" from C++.

use std::fs::File;
use std::io::{BufReader, Read};
use std::path::Path;

use crate::error::NarratorError;

const MAGIC: &[u8; 4] = b"GGUF";
const MAX_STRING: u64 = 16 << 20;
const MAX_ARRAY: u64 = 1 << 26;
const MAX_COUNT: u64 = 1 << 20;
const MAX_DIMS: u32 = 4;

/// What the header says about a GGUF file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct GgufSummary {
    pub version: u32,
    pub tensor_count: u64,
    pub metadata_count: u64,
    /// `general.architecture`, when present.
    pub architecture: Option<String>,
    /// `general.name`, when present.
    pub name: Option<String>,
    /// Bytes the tensor data needs, when every tensor type is one whose size is known here.
    pub data_end: Option<u64>,
    pub file_len: u64,
}

enum Fault {
    Eof,
    Bad(String),
}

impl From<std::io::Error> for Fault {
    fn from(e: std::io::Error) -> Fault {
        if e.kind() == std::io::ErrorKind::UnexpectedEof {
            Fault::Eof
        } else {
            Fault::Bad(e.to_string())
        }
    }
}

struct Reader<R> {
    inner: R,
    pos: u64,
}

impl<R: Read> Reader<R> {
    fn bytes<const N: usize>(&mut self) -> Result<[u8; N], Fault> {
        let mut b = [0u8; N];
        self.inner.read_exact(&mut b)?;
        self.pos += N as u64;
        Ok(b)
    }
    fn u32(&mut self) -> Result<u32, Fault> {
        Ok(u32::from_le_bytes(self.bytes()?))
    }
    fn u64(&mut self) -> Result<u64, Fault> {
        Ok(u64::from_le_bytes(self.bytes()?))
    }
    fn skip(&mut self, n: u64) -> Result<(), Fault> {
        let copied = std::io::copy(&mut (&mut self.inner).take(n), &mut std::io::sink())?;
        self.pos += copied;
        if copied < n {
            return Err(Fault::Eof);
        }
        Ok(())
    }
    fn string(&mut self) -> Result<Vec<u8>, Fault> {
        let len = self.u64()?;
        if len > MAX_STRING {
            return Err(Fault::Bad(format!(
                "a string of {len} bytes at offset {}",
                self.pos
            )));
        }
        let mut v = vec![0u8; len as usize];
        self.inner.read_exact(&mut v)?;
        self.pos += len;
        Ok(v)
    }
    /// Reads one metadata value of type `ty`; returns it when it is a string or a u32.
    fn value(&mut self, ty: u32, depth: u32) -> Result<Value, Fault> {
        Ok(match ty {
            0 | 1 | 7 => {
                self.skip(1)?;
                Value::Other
            }
            2 | 3 => {
                self.skip(2)?;
                Value::Other
            }
            4 => Value::U32(self.u32()?),
            5 | 6 => {
                self.skip(4)?;
                Value::Other
            }
            10..=12 => {
                self.skip(8)?;
                Value::Other
            }
            8 => Value::Str(self.string()?),
            9 if depth == 0 => {
                let item = self.u32()?;
                let n = self.u64()?;
                if n > MAX_ARRAY {
                    return Err(Fault::Bad(format!("an array of {n} items")));
                }
                match fixed_size(item) {
                    Some(size) => self.skip(n * size)?,
                    None => {
                        for _ in 0..n {
                            self.value(item, depth + 1)?;
                        }
                    }
                }
                Value::Other
            }
            other => return Err(Fault::Bad(format!("unknown metadata value type {other}"))),
        })
    }
}

enum Value {
    U32(u32),
    Str(Vec<u8>),
    Other,
}

fn fixed_size(ty: u32) -> Option<u64> {
    match ty {
        0 | 1 | 7 => Some(1),
        2 | 3 => Some(2),
        4..=6 => Some(4),
        10..=12 => Some(8),
        _ => None,
    }
}

/// (elements per block, bytes per block) of the ggml tensor types whose layout is known here.
fn block_layout(ty: u32) -> Option<(u64, u64)> {
    Some(match ty {
        0 => (1, 4),      // F32
        1 => (1, 2),      // F16
        2 => (32, 18),    // Q4_0
        3 => (32, 20),    // Q4_1
        6 => (32, 22),    // Q5_0
        7 => (32, 24),    // Q5_1
        8 => (32, 34),    // Q8_0
        10 => (256, 84),  // Q2_K
        11 => (256, 110), // Q3_K
        12 => (256, 144), // Q4_K
        13 => (256, 176), // Q5_K
        14 => (256, 210), // Q6_K
        30 => (1, 2),     // BF16
        _ => return None,
    })
}

/// Checks that `path` is a readable GGUF file whose header, metadata and
/// tensor table are complete and whose tensor data fits in the file.
/// Promises a typed error naming the problem, never a panic.
pub fn check(path: &Path) -> Result<GgufSummary, NarratorError> {
    let meta = match std::fs::metadata(path) {
        Ok(m) => m,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
            return Err(NarratorError::ModelMissing(path.to_path_buf()))
        }
        Err(e) => {
            return Err(NarratorError::ModelUnreadable {
                path: path.to_path_buf(),
                reason: e.to_string(),
            })
        }
    };
    if !meta.is_file() {
        return Err(NarratorError::ModelUnreadable {
            path: path.to_path_buf(),
            reason: "not a regular file".into(),
        });
    }
    let file = File::open(path).map_err(|e| NarratorError::ModelUnreadable {
        path: path.to_path_buf(),
        reason: e.to_string(),
    })?;
    let file_len = meta.len();
    let mut r = Reader {
        inner: BufReader::with_capacity(1 << 16, file),
        pos: 0,
    };
    let not_gguf = |reason: String| NarratorError::NotGguf {
        path: path.to_path_buf(),
        reason,
    };
    let truncated = |at: u64, what: &str| NarratorError::ModelTruncated {
        path: path.to_path_buf(),
        reason: format!("the file ends at byte {at} inside the {what} ({file_len} bytes in all)"),
    };

    if file_len < 24 {
        let mut head = Vec::new();
        let _ = r.inner.read_to_end(&mut head);
        if head.len() >= 4 && &head[..4] == MAGIC {
            return Err(truncated(file_len, "header"));
        }
        return Err(not_gguf(format!("only {file_len} bytes, no GGUF header")));
    }
    let magic: [u8; 4] = r.bytes().map_err(|_| truncated(r.pos, "header"))?;
    if &magic != MAGIC {
        return Err(not_gguf(format!(
            "the file starts with {:02x?}, not the GGUF magic",
            magic
        )));
    }
    let map = |f: Fault, at: u64, what: &str| match f {
        Fault::Eof => truncated(at, what),
        Fault::Bad(m) => not_gguf(format!("malformed {what}: {m}")),
    };
    let version = r.u32().map_err(|f| map(f, file_len, "header"))?;
    if !(2..=3).contains(&version) {
        return Err(not_gguf(format!(
            "unsupported GGUF version {version} (2 or 3 expected)"
        )));
    }
    let tensor_count = r.u64().map_err(|f| map(f, file_len, "header"))?;
    let metadata_count = r.u64().map_err(|f| map(f, file_len, "header"))?;
    if tensor_count > MAX_COUNT || metadata_count > MAX_COUNT {
        return Err(not_gguf(format!(
            "implausible header: {tensor_count} tensors, {metadata_count} metadata entries"
        )));
    }

    let mut architecture = None;
    let mut name = None;
    let mut alignment: u64 = 32;
    for _ in 0..metadata_count {
        let key = r.string().map_err(|f| map(f, file_len, "metadata"))?;
        let ty = r.u32().map_err(|f| map(f, file_len, "metadata"))?;
        let value = r.value(ty, 0).map_err(|f| map(f, file_len, "metadata"))?;
        match (key.as_slice(), value) {
            (b"general.architecture", Value::Str(s)) => {
                architecture = Some(String::from_utf8_lossy(&s).into_owned())
            }
            (b"general.name", Value::Str(s)) => {
                name = Some(String::from_utf8_lossy(&s).into_owned())
            }
            (b"general.alignment", Value::U32(a)) if a > 0 && a.is_power_of_two() => {
                alignment = u64::from(a)
            }
            _ => {}
        }
    }

    let mut known = true;
    let mut data_len: u64 = 0;
    for _ in 0..tensor_count {
        r.string().map_err(|f| map(f, file_len, "tensor table"))?;
        let n_dims = r.u32().map_err(|f| map(f, file_len, "tensor table"))?;
        if n_dims == 0 || n_dims > MAX_DIMS {
            return Err(not_gguf(format!("a tensor with {n_dims} dimensions")));
        }
        let mut elements: u64 = 1;
        for _ in 0..n_dims {
            let d = r.u64().map_err(|f| map(f, file_len, "tensor table"))?;
            elements = elements.saturating_mul(d);
        }
        let ty = r.u32().map_err(|f| map(f, file_len, "tensor table"))?;
        let offset = r.u64().map_err(|f| map(f, file_len, "tensor table"))?;
        match block_layout(ty) {
            Some((per_block, bytes)) => {
                let end = offset.saturating_add(elements.div_ceil(per_block).saturating_mul(bytes));
                data_len = data_len.max(end);
            }
            None => known = false,
        }
    }
    let data_start = r.pos.div_ceil(alignment) * alignment;
    let data_end = known.then(|| data_start.saturating_add(data_len));
    if let Some(end) = data_end {
        if end > file_len {
            return Err(NarratorError::ModelTruncated {
                path: path.to_path_buf(),
                reason: format!("its tensors need {end} bytes but the file has {file_len}"),
            });
        }
    }
    Ok(GgufSummary {
        version,
        tensor_count,
        metadata_count,
        architecture,
        name,
        data_end,
        file_len,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::Write;

    fn header(tensors: u64, kvs: u64) -> Vec<u8> {
        let mut v = b"GGUF".to_vec();
        v.extend(3u32.to_le_bytes());
        v.extend(tensors.to_le_bytes());
        v.extend(kvs.to_le_bytes());
        v
    }

    fn string(v: &mut Vec<u8>, s: &str) {
        v.extend((s.len() as u64).to_le_bytes());
        v.extend(s.as_bytes());
    }

    fn write(bytes: &[u8]) -> tempfile::NamedTempFile {
        let mut f = tempfile::NamedTempFile::new().unwrap();
        f.write_all(bytes).unwrap();
        f
    }

    fn one_tensor_file(data: usize) -> Vec<u8> {
        let mut v = header(1, 1);
        string(&mut v, "general.architecture");
        v.extend(8u32.to_le_bytes());
        string(&mut v, "llama");
        string(&mut v, "w");
        v.extend(1u32.to_le_bytes());
        v.extend(8u64.to_le_bytes());
        v.extend(0u32.to_le_bytes()); // F32
        v.extend(0u64.to_le_bytes());
        while v.len() % 32 != 0 {
            v.push(0);
        }
        v.extend(std::iter::repeat(0u8).take(data));
        v
    }

    #[test]
    fn accepts_a_complete_file() {
        let f = write(&one_tensor_file(32));
        let s = check(f.path()).unwrap();
        assert_eq!(s.architecture.as_deref(), Some("llama"));
        assert_eq!(s.tensor_count, 1);
        assert_eq!(s.data_end, Some(s.file_len));
    }

    #[test]
    fn names_a_missing_file() {
        let err = check(Path::new("/nonexistent/model.gguf")).unwrap_err();
        assert_eq!(err.code(), "model_missing");
        assert!(err.to_string().contains("fetch-model.sh"), "{err}");
    }

    #[test]
    fn rejects_foreign_and_tiny_files() {
        let f = write(b"<html>not a model at all, just some text</html>");
        let err = check(f.path()).unwrap_err();
        assert_eq!(err.code(), "model_not_gguf", "{err}");
        let f = write(b"");
        assert_eq!(check(f.path()).unwrap_err().code(), "model_not_gguf");
        let f = write(b"GGUF\x03\0");
        assert_eq!(check(f.path()).unwrap_err().code(), "model_truncated");
    }

    #[test]
    fn rejects_truncation_in_metadata_and_data() {
        let full = one_tensor_file(32);
        let f = write(&full[..40]);
        let err = check(f.path()).unwrap_err();
        assert_eq!(err.code(), "model_truncated", "{err}");
        assert!(err.to_string().contains("metadata"), "{err}");
        let f = write(&full[..full.len() - 4]);
        let err = check(f.path()).unwrap_err();
        assert_eq!(err.code(), "model_truncated", "{err}");
        assert!(err.to_string().contains("tensors need"), "{err}");
    }

    #[test]
    fn rejects_implausible_headers() {
        let f = write(&header(u64::MAX, 1));
        assert_eq!(check(f.path()).unwrap_err().code(), "model_not_gguf");
        let mut v = b"GGUF".to_vec();
        v.extend(99u32.to_le_bytes());
        v.extend([0u8; 16]);
        let f = write(&v);
        assert!(check(f.path())
            .unwrap_err()
            .to_string()
            .contains("version 99"));
    }
}
