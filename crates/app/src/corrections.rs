//! The player corrects a turn's mechanics (docs/narrator.md, "The player
//! corrects"): the last turn is played again with the skills it needed,
//! and the correction is kept with the story as an example for its routing,
//! which the player can read and remove.

use narratoria_core::error::ErrorCode;
use narratoria_core::skills::corrections::Correction;
use narratoria_core::skills::Catalog;
use narratoria_core::store::TurnRecord;
use narratoria_core::sync;
use narratoria_core::turn::narration_step::is_host_tool;
use narratoria_core::turn::TurnEvent;
use serde::Deserialize;
use tokio::sync::mpsc::UnboundedSender;

use crate::play::Placing;
use crate::{App, AppError, TurnView};

/// The skill a roll is: what `/roll` and `/noroll` name.
pub const ROLL_SKILL: &str = "dice-roller";

/// What the player says of the last turn's mechanics.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
#[serde(tag = "kind", content = "skill", rename_all = "camelCase")]
pub enum MechanicsChange {
    /// The turn needed this skill and did not get it.
    Needed(String),
    /// The turn got this skill and did not need it.
    Needless(String),
}

impl App {
    /// Plays the current branch's last turn again with its mechanics
    /// corrected by `change` (a turn beside it, which becomes the active
    /// one; the old one stays an alternative), and keeps the correction as
    /// an example for the story's routing. `skill_not_found` for a skill
    /// the catalog has not, or cannot use now; `correction_needless` when
    /// the turn already has what `change` asks.
    pub async fn correct_turn(
        &self,
        session: &str,
        change: &MechanicsChange,
        events: Option<UnboundedSender<TurnEvent>>,
    ) -> Result<TurnView, AppError> {
        let last = {
            let store = sync::lock(&self.store);
            store.head_turn(session)?.ok_or_else(|| {
                AppError::new(ErrorCode::SessionNotFound, "the story has no turn yet")
            })?
        };
        let catalog = self.registry.snapshot();
        let had = skills_used(&last, &catalog);
        let needed = corrected(&had, change, &catalog)?;
        let view = self
            .play_placed(
                session,
                &last.input,
                Placing::BesideHead,
                Some(needed.clone()),
                events,
            )
            .await?;
        // The scripts the corrected turn ran for the skills it needed.
        let used = tools_used(&view.turn, &catalog);
        let scripts: Vec<String> = needed
            .iter()
            .map(|skill| {
                used.iter()
                    .find(|path| path.split_once('/').is_some_and(|(s, _)| s == skill))
                    .cloned()
                    .unwrap_or_else(|| first_script(&catalog, skill))
            })
            .collect();
        let unneeded = match change {
            MechanicsChange::Needless(skill) => vec![skill.clone()],
            MechanicsChange::Needed(_) => Vec::new(),
        };
        sync::lock(&self.store).add_correction(session, &last.input, &scripts, &unneeded)?;
        Ok(view)
    }

    /// The story's corrections, oldest first.
    pub fn corrections(&self, session: &str) -> Result<Vec<Correction>, AppError> {
        Ok(sync::lock(&self.store).corrections(session)?)
    }

    /// Removes the story's correction `id`; the story's corrections after.
    /// `session_not_found` when the story has no correction by that id.
    pub fn remove_correction(&self, session: &str, id: i64) -> Result<Vec<Correction>, AppError> {
        let store = sync::lock(&self.store);
        if !store.remove_correction(session, id)? {
            return Err(AppError::new(
                ErrorCode::SessionNotFound,
                format!("the story has no correction {id}"),
            ));
        }
        Ok(store.corrections(session)?)
    }

    /// The catalog a turn of `session` is routed over: the registry's, with
    /// the story's corrections among its examples.
    pub(crate) fn catalog_for(&self, session: &str) -> Result<std::sync::Arc<Catalog>, AppError> {
        let catalog = self.registry.snapshot();
        let corrections = self.corrections(session)?;
        if corrections.is_empty() {
            return Ok(catalog);
        }
        Ok(std::sync::Arc::new(catalog.with_corrections(&corrections)))
    }
}

/// The skills `turn` needed by `change`, from the skills it used (`had`).
fn corrected(
    had: &[String],
    change: &MechanicsChange,
    catalog: &Catalog,
) -> Result<Vec<String>, AppError> {
    match change {
        MechanicsChange::Needed(skill) => {
            let usable = catalog.usable(&[]).any(|s| &s.name == skill);
            if !usable {
                return Err(AppError::new(
                    ErrorCode::SkillNotFound,
                    format!("no skill {skill:?} can be used now (see the skills list)"),
                ));
            }
            if had.contains(skill) {
                return Err(AppError::new(
                    ErrorCode::CorrectionNeedless,
                    format!("the turn already used {skill}"),
                ));
            }
            Ok(had.iter().cloned().chain([skill.clone()]).collect())
        }
        MechanicsChange::Needless(skill) => {
            if !had.contains(skill) {
                return Err(AppError::new(
                    ErrorCode::CorrectionNeedless,
                    format!("the turn did not use {skill}"),
                ));
            }
            Ok(had.iter().filter(|s| *s != skill).cloned().collect())
        }
    }
}

/// The toolPaths of the mechanics (not the host's steps) that told `turn`.
fn tools_used(turn: &TurnRecord, catalog: &Catalog) -> Vec<String> {
    crate::regen::told_plan(turn, catalog)
        .map(|(plan, _)| {
            plan.tools
                .iter()
                .filter(|t| !is_host_tool(catalog, t))
                .map(|t| t.tool_path.clone())
                .collect()
        })
        .unwrap_or_default()
}

/// The skills of the mechanics that told `turn`, each once, in plan order.
fn skills_used(turn: &TurnRecord, catalog: &Catalog) -> Vec<String> {
    let mut skills: Vec<String> = Vec::new();
    for path in tools_used(turn, catalog) {
        let skill = catalog
            .resolve(&path, &[])
            .map(|(skill, _)| skill.name.clone())
            .unwrap_or_else(|_| {
                path.split_once('/')
                    .map_or(path.clone(), |(s, _)| s.to_string())
            });
        if !skills.contains(&skill) {
            skills.push(skill);
        }
    }
    skills
}

/// `<skill>/<first script>`: the script kept for a needed skill the
/// corrected turn did not run (it failed, and its replan left it out).
fn first_script(catalog: &Catalog, skill: &str) -> String {
    let script = catalog
        .get(skill)
        .and_then(|s| {
            s.scripts.iter().find(|sc| {
                sc.is_executable && !narratoria_core::turn::narration_step::is_host_step(s, sc)
            })
        })
        .map_or("", |s| s.name.as_str());
    format!("{skill}/{script}")
}
