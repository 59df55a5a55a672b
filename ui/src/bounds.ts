// How long what the player types may be: the storyteller's own input
// bounds (skills/storyteller/skill.json), as the engine holds them in
// crates/core/src/narration/bounds.rs, whose test keeps these equal.

/** The most characters an action holds (the storyteller's `playerInput`). */
export const ACTION_CHARS = 2000;

/** The most characters an author's note holds (the storyteller's `authorNote`). */
export const NOTE_CHARS = 2000;
