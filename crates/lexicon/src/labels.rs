//! The labels the scene's lines start with in a writer's prompt: "Now at:
//! the bridge." and "Lore: …". The host writes them; a writer that copies
//! one into its prose is writing the prompt on, not the story (the
//! storyteller's `labels` guard).

/// The label of where the player is now.
pub const NOW_AT_LABEL: &str = "Now at:";
/// The label of the lore a turn calls for.
pub const LORE_LABEL: &str = "Lore:";
/// Every label of the scene's lines.
pub const SCENE_LABELS: [&str; 2] = [NOW_AT_LABEL, LORE_LABEL];
