//! Scenarios, character cards and lorebooks: what a story starts from and
//! what the storyteller is reminded of each turn (docs/scenarios.md).
//!
//! - [`Scenario`]: an authored starting point (premise, setting, player
//!   character, opening scene, factions, people, lore);
//!   [`initial_state`] turns it into a story's first state.
//! - [`CharacterCard`]: a SillyTavern/TavernAI character card (V1, V2, V3;
//!   JSON or PNG), imported as the player character or as someone in the story.
//! - [`LoreEntry`]: one lorebook (world info) entry; [`lore::select`] picks
//!   the entries the recent turns call for within a budget.
//! - [`telling`]: the text the storyteller gets about the story, built from
//!   the session state.
//! - [`limits`]: how much each of these may hold; what comes from outside
//!   and breaks a limit is refused, naming the field and the limit.

pub mod builtin;
pub mod card;
mod error;
pub mod game_master;
mod json;
mod keys;
pub mod known;
pub mod library;
pub mod limits;
pub mod lore;
mod model;
mod png_card;
pub mod start;
pub mod telling;
pub mod world_info;

pub use card::{CardRole, CharacterCard};
pub use error::{Origin, ScenarioError};
pub use json::without_bom;
pub use lore::LoreEntry;
pub use model::{Faction, Person, PlayerCharacter, Scenario};
pub use start::initial_state;
pub use telling::{opening, telling, StoryContext, TELLING_CHARS};
pub use world_info::{parse_lorebook, Lorebook};
