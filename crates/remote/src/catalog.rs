//! The tools a remote plan may use: the cards core shows every planner
//! (`narratoria_core::skills::cards`), as the prompt and the checks see them.

pub(crate) use narratoria_core::skills::cards::{cards, tools, SkillCard};
