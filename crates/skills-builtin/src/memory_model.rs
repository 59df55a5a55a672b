//! Loading the memory skill's embedding model inside a script run, with the
//! fallback to keyword search announced in a `log` event.

use crate::memory::{Embedder, MemoryConfig};
use crate::protocol::LogLevel;
use crate::script::Context;

/// The embedding model for this run, or `None` — after a `warn` log saying
/// that recall falls back to keyword search (FTS5) and why.
pub fn load(ctx: &mut Context, cfg: &MemoryConfig) -> Option<Embedder> {
    let models_env = narratoria_embed::locate::models_env();
    let dir = cfg.model_dir(&ctx.skill_dir, models_env.as_deref());
    match Embedder::load(&dir) {
        Ok(e) => Some(e),
        Err(err) => {
            ctx.log(
                LogLevel::Warn,
                format!("{err}; memory falls back to keyword search (FTS5) without embeddings"),
            );
            None
        }
    }
}
