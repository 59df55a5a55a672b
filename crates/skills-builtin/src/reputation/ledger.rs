//! The reputation database (`data/reputation.db`): the `reputation` and
//! `reputation_log` tables (docs/skills-builtin.md), migrated with
//! `rusqlite_migration`, and the operations on them.

use std::collections::HashMap;
use std::path::Path;
use std::sync::LazyLock;

use narratoria_protocol::StoryPlace;
use rusqlite::{params, Connection, OptionalExtension, TransactionBehavior};
use rusqlite_migration::{Migrations, M};
use serde::Serialize;

use super::config::ReputationConfig;
use super::standing::{decayed, label};
use crate::error::SkillError;

/// The schema, oldest first. Never edit a released step; add one.
static MIGRATIONS: LazyLock<Migrations<'static>> = LazyLock::new(|| {
    Migrations::new(vec![
        // 1: the two original tables.
        M::up(
            "CREATE TABLE reputation (
               faction_id TEXT PRIMARY KEY,
               score INTEGER NOT NULL DEFAULT 0,
               last_modified TEXT NOT NULL
             );
             CREATE TABLE reputation_log (
               id INTEGER PRIMARY KEY,
               faction_id TEXT NOT NULL,
               delta INTEGER NOT NULL,
               reason TEXT,
               timestamp TEXT NOT NULL
             );",
        ),
        // 2: in-game days for decay, and a fuller audit trail.
        M::up(
            "ALTER TABLE reputation ADD COLUMN last_day INTEGER;
             ALTER TABLE reputation_log ADD COLUMN kind TEXT NOT NULL DEFAULT 'update';
             ALTER TABLE reputation_log ADD COLUMN requested_delta INTEGER;
             ALTER TABLE reputation_log ADD COLUMN score_after INTEGER;
             ALTER TABLE reputation_log ADD COLUMN day INTEGER;
             CREATE INDEX reputation_log_by_faction ON reputation_log(faction_id, id);",
        ),
        // 3: the story and turn a change was made in (none outside a story).
        M::up(
            "ALTER TABLE reputation_log ADD COLUMN story_id TEXT;
             ALTER TABLE reputation_log ADD COLUMN turn_id TEXT;
             CREATE INDEX reputation_log_by_story ON reputation_log(story_id, faction_id, id);",
        ),
    ])
});

/// The reputation database, as seen from one place in a story (or from
/// outside any story).
pub struct Ledger {
    conn: Connection,
    story: Option<StoryPlace>,
    /// Where a faction with no record seen from here starts, by id (0 when
    /// it is not named).
    starting: HashMap<String, i64>,
}

/// A faction's last recorded change: its score, when, and the last in-game day known.
struct Latest {
    score: i64,
    last_modified: String,
    last_day: Option<i64>,
}

/// The log rows a story's turn sees: of its story, made on its path or in it.
const VISIBLE: &str = "story_id = ?1 AND turn_id IN (SELECT value FROM json_each(?2))";

/// What one update did.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Update {
    pub faction_id: String,
    pub previous_score: i64,
    /// Points lost to decay since the last change (≤ 0 in size, signed toward zero).
    pub decay: i64,
    pub requested_delta: i64,
    /// The change actually applied after clamping.
    pub delta: i64,
    pub score: i64,
    pub clamped: bool,
    pub standing: &'static str,
    pub reason: String,
}

/// A faction's standing as seen now.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Standing {
    pub faction_id: String,
    /// The score with decay up to the current day applied.
    pub score: i64,
    /// The score as last stored.
    pub stored_score: i64,
    pub standing: &'static str,
    /// In-game days since the last change, when both days are known.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub days_since_change: Option<i64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub last_modified: Option<String>,
    /// Whether the faction has any recorded change.
    pub known: bool,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub history: Vec<LogEntry>,
}

/// One row of the audit log.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct LogEntry {
    pub id: i64,
    pub kind: String,
    pub delta: i64,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub requested_delta: Option<i64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub score_after: Option<i64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub reason: Option<String>,
    pub timestamp: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub day: Option<i64>,
}

fn now() -> String {
    chrono::Utc::now().to_rfc3339_opts(chrono::SecondsFormat::Millis, true)
}

impl Ledger {
    /// Opens (creating and migrating as needed) `reputation.db` in `data_dir`.
    pub fn open(data_dir: &Path) -> Result<Ledger, SkillError> {
        Ledger::from_connection(Connection::open(data_dir.join("reputation.db"))?)
    }

    /// Migrates an open connection to the current schema.
    pub fn from_connection(mut conn: Connection) -> Result<Ledger, SkillError> {
        crate::sqlite::prepare(&mut conn, &MIGRATIONS)?;
        Ok(Ledger {
            conn,
            story: None,
            starting: HashMap::new(),
        })
    }

    /// The ledger as seen from `story` (as it always was, for `None`).
    pub fn within(mut self, story: Option<StoryPlace>) -> Ledger {
        self.story = story;
        self
    }

    /// The ledger with these starting scores (by faction id): a faction
    /// with no record seen from here stands at its starting score, and its
    /// first change counts from there (see [`super::starting`]).
    pub fn starting_at(mut self, scores: HashMap<String, i64>) -> Ledger {
        self.starting = scores;
        self
    }

    /// Where `faction` stands before any change seen from here, on `scale`.
    fn start_of(&self, faction: &str, scale: &super::Scale) -> i64 {
        scale.clamp(self.starting.get(faction).copied().unwrap_or(0))
    }

    /// The story id and the visible turn ids (a JSON array) for [`VISIBLE`].
    fn scope(&self) -> Option<(String, String)> {
        self.story.as_ref().map(|s| {
            (
                s.id.clone(),
                serde_json::to_string(&s.visible_turns()).expect("serialises"),
            )
        })
    }

    /// A faction's last recorded change as seen from here.
    fn latest(&self, faction: &str) -> Result<Option<Latest>, SkillError> {
        latest(&self.conn, self.scope(), faction)
    }

    /// Adds `delta` to a faction's score: decay since the last change is
    /// applied first (and logged), the result is clamped to the scale, and
    /// the change is logged with its reason — all in one transaction.
    pub fn update(
        &mut self,
        cfg: &ReputationConfig,
        faction: &str,
        delta: i64,
        reason: &str,
        day: Option<i64>,
    ) -> Result<Update, SkillError> {
        let scale = cfg.reputation_scale;
        let scope = self.scope();
        let start = self.start_of(faction, &scale);
        let (story, turn) = match &self.story {
            Some(s) => (Some(s.id.clone()), Some(s.turn_id.clone())),
            None => (None, None),
        };
        let tx = self
            .conn
            .transaction_with_behavior(TransactionBehavior::Immediate)?;
        let (previous, last_day) =
            latest(&tx, scope, faction)?.map_or((start, None), |l| (l.score, l.last_day));
        let stamp = now();
        let days = match (day, last_day) {
            (Some(d), Some(l)) => d - l,
            _ => 0,
        };
        let after_decay = scale.clamp(decayed(previous, cfg.decay_rate, days));
        if after_decay != previous {
            tx.execute(
                "INSERT INTO reputation_log (faction_id, delta, reason, timestamp, kind, score_after, day)
                 VALUES (?1, ?2, ?3, ?4, 'decay', ?5, ?6)",
                params![
                    faction,
                    after_decay - previous,
                    format!("decay over {days} in-game day(s) at {} per day", cfg.decay_rate),
                    stamp,
                    after_decay,
                    day
                ],
            )?;
            tx.execute(
                "UPDATE reputation_log SET story_id = ?2, turn_id = ?3 WHERE id = ?1",
                params![tx.last_insert_rowid(), story, turn],
            )?;
        }
        let score = scale.clamp(after_decay.saturating_add(delta));
        tx.execute(
            "INSERT INTO reputation_log (faction_id, delta, reason, timestamp, kind, requested_delta, score_after, day)
             VALUES (?1, ?2, ?3, ?4, 'update', ?5, ?6, ?7)",
            params![faction, score - after_decay, reason, stamp, delta, score, day],
        )?;
        tx.execute(
            "UPDATE reputation_log SET story_id = ?2, turn_id = ?3 WHERE id = ?1",
            params![tx.last_insert_rowid(), story, turn],
        )?;
        if story.is_none() {
            tx.execute(
            "INSERT INTO reputation (faction_id, score, last_modified, last_day) VALUES (?1, ?2, ?3, ?4)
             ON CONFLICT(faction_id) DO UPDATE SET
               score = excluded.score,
               last_modified = excluded.last_modified,
               last_day = COALESCE(excluded.last_day, reputation.last_day)",
            params![faction, score, stamp, day],
            )?;
        }
        tx.commit()?;
        Ok(Update {
            faction_id: faction.to_string(),
            previous_score: previous,
            decay: after_decay - previous,
            requested_delta: delta,
            delta: score - after_decay,
            score,
            clamped: score != after_decay.saturating_add(delta),
            standing: label(score, &scale),
            reason: reason.to_string(),
        })
    }

    /// A faction's standing on `day` (decay applied, nothing written), with
    /// its last `history` audit rows, newest first.
    pub fn standing(
        &self,
        cfg: &ReputationConfig,
        faction: &str,
        day: Option<i64>,
        history: usize,
    ) -> Result<Standing, SkillError> {
        let scale = cfg.reputation_scale;
        let (stored, last_modified, last_day, known) = match self.latest(faction)? {
            Some(l) => (l.score, Some(l.last_modified), l.last_day, true),
            None => (self.start_of(faction, &scale), None, None, false),
        };
        let days = match (day, last_day) {
            (Some(d), Some(l)) => Some(d - l),
            _ => None,
        };
        let score = scale.clamp(decayed(stored, cfg.decay_rate, days.unwrap_or(0)));
        Ok(Standing {
            faction_id: faction.to_string(),
            score,
            stored_score: stored,
            standing: label(score, &scale),
            days_since_change: days,
            last_modified,
            known,
            history: self.history(faction, history)?,
        })
    }

    /// Every faction with a stored score (seen from here), sorted by id.
    pub fn factions(&self) -> Result<Vec<String>, SkillError> {
        let Some((story, turns)) = self.scope() else {
            let mut st = self
                .conn
                .prepare("SELECT faction_id FROM reputation ORDER BY faction_id")?;
            let rows = st.query_map([], |r| r.get(0))?;
            return Ok(rows.collect::<Result<_, _>>()?);
        };
        let mut st = self.conn.prepare(&format!(
            "SELECT DISTINCT faction_id FROM reputation_log WHERE {VISIBLE} ORDER BY faction_id"
        ))?;
        let rows = st.query_map(params![story, turns], |r| r.get(0))?;
        Ok(rows.collect::<Result<_, _>>()?)
    }

    /// The last `limit` audit rows of a faction, newest first.
    pub fn history(&self, faction: &str, limit: usize) -> Result<Vec<LogEntry>, SkillError> {
        if limit == 0 {
            return Ok(Vec::new());
        }
        // Outside a story: the changes made outside any story.
        let (story, turns) = self.scope().unwrap_or_default();
        let within = if self.story.is_some() {
            VISIBLE
        } else {
            "story_id IS NULL AND ?1 = '' AND ?2 = ''"
        };
        let mut st = self.conn.prepare(&format!(
            "SELECT id, kind, delta, requested_delta, score_after, reason, timestamp, day
             FROM reputation_log WHERE {within} AND faction_id = ?3 ORDER BY id DESC LIMIT ?4"
        ))?;
        let rows = st.query_map(params![story, turns, faction, limit as i64], |r| {
            Ok(LogEntry {
                id: r.get(0)?,
                kind: r.get(1)?,
                delta: r.get(2)?,
                requested_delta: r.get(3)?,
                score_after: r.get(4)?,
                reason: r.get(5)?,
                timestamp: r.get(6)?,
                day: r.get(7)?,
            })
        })?;
        Ok(rows.collect::<Result<_, _>>()?)
    }
}

/// A faction's last recorded change: in the `reputation` table outside a
/// story; the last visible logged score inside one (`scope`: see [`VISIBLE`]).
fn latest(
    conn: &Connection,
    scope: Option<(String, String)>,
    faction: &str,
) -> Result<Option<Latest>, SkillError> {
    let row = match scope {
        None => conn
            .query_row(
                "SELECT score, last_modified, last_day FROM reputation WHERE faction_id = ?1",
                [faction],
                |r| {
                    Ok(Latest {
                        score: r.get(0)?,
                        last_modified: r.get(1)?,
                        last_day: r.get(2)?,
                    })
                },
            )
            .optional()?,
        Some((story, turns)) => conn
            .query_row(
                &format!(
                    "SELECT score_after, timestamp,
                           (SELECT day FROM reputation_log WHERE {VISIBLE} AND faction_id = ?3
                              AND day IS NOT NULL ORDER BY id DESC LIMIT 1)
                         FROM reputation_log WHERE {VISIBLE} AND faction_id = ?3
                           AND score_after IS NOT NULL ORDER BY id DESC LIMIT 1"
                ),
                params![story, turns, faction],
                |r| {
                    Ok(Latest {
                        score: r.get(0)?,
                        last_modified: r.get(1)?,
                        last_day: r.get(2)?,
                    })
                },
            )
            .optional()?,
    };
    Ok(row)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ledger() -> Ledger {
        Ledger::from_connection(Connection::open_in_memory().unwrap()).unwrap()
    }

    #[test]
    fn scripts_opening_a_fresh_database_at_once_all_succeed() {
        let dir = tempfile::tempdir().unwrap();
        let handles: Vec<_> = (0..8)
            .map(|i| {
                let path = dir.path().to_path_buf();
                std::thread::spawn(move || {
                    let mut l = Ledger::open(&path).unwrap();
                    l.update(
                        &ReputationConfig::default(),
                        &format!("f{i}"),
                        1,
                        "met",
                        None,
                    )
                    .unwrap();
                })
            })
            .collect();
        for h in handles {
            h.join().unwrap();
        }
        assert_eq!(
            Ledger::open(dir.path()).unwrap().factions().unwrap().len(),
            8
        );
    }

    #[test]
    fn migrations_are_valid() {
        MIGRATIONS.validate().unwrap();
    }

    #[test]
    fn updates_clamp_and_log() {
        let cfg = ReputationConfig::default();
        let mut l = ledger();
        let u = l
            .update(&cfg, "guild", 30, "returned the ledger", None)
            .unwrap();
        assert_eq!(
            (u.previous_score, u.score, u.delta, u.clamped),
            (0, 30, 30, false)
        );
        let u = l
            .update(&cfg, "guild", 90, "saved the guildmaster", None)
            .unwrap();
        assert_eq!(
            (u.score, u.delta, u.requested_delta, u.clamped),
            (100, 70, 90, true)
        );
        let h = l.history("guild", 10).unwrap();
        assert_eq!(h.len(), 2);
        assert_eq!(h[0].reason.as_deref(), Some("saved the guildmaster"));
        assert_eq!(h[0].delta, 70);
        assert_eq!(h[0].score_after, Some(100));
        let u = l
            .update(&cfg, "guild", -500, "burned the hall", None)
            .unwrap();
        assert_eq!(u.score, -100);
        assert_eq!(u.standing, "hostile");
    }

    #[test]
    fn decay_applies_on_query_and_before_an_update() {
        let cfg = ReputationConfig {
            decay_rate: 0.1,
            ..Default::default()
        };
        let mut l = ledger();
        l.update(&cfg, "crown", 50, "knighted", Some(1)).unwrap();
        let s = l.standing(&cfg, "crown", Some(3), 0).unwrap();
        assert_eq!(
            (s.stored_score, s.score, s.days_since_change),
            (50, 41, Some(2))
        ); // 40.5
           // querying writes nothing
        assert_eq!(
            l.standing(&cfg, "crown", Some(3), 0).unwrap().stored_score,
            50
        );
        let u = l.update(&cfg, "crown", 5, "paid taxes", Some(3)).unwrap();
        assert_eq!((u.decay, u.score), (-9, 46));
        let h = l.history("crown", 10).unwrap();
        assert_eq!(h[1].kind, "decay");
        assert_eq!(h[1].delta, -9);
        assert_eq!(h[0].kind, "update");
    }

    #[test]
    fn unknown_faction_is_neutral() {
        let l = ledger();
        let s = l
            .standing(&ReputationConfig::default(), "nobody", None, 5)
            .unwrap();
        assert_eq!((s.score, s.known, s.standing), (0, false, "neutral"));
    }

    fn place(story: &str, turn: &str, path: &[&str]) -> Option<StoryPlace> {
        Some(StoryPlace {
            id: story.into(),
            branch: "main".into(),
            turn: path.len() as u32 + 1,
            turn_id: turn.into(),
            path: path.iter().map(|t| t.to_string()).collect(),
        })
    }

    #[test]
    fn a_faction_starts_at_the_story_states_score_until_the_path_has_a_record() {
        let dir = tempfile::tempdir().unwrap();
        let cfg = ReputationConfig::default();
        let state = serde_json::json!({"reputation": {
            "ashford-watch": {"score": 20, "standing": "friendly"},
            "thieves": {"score": 400}
        }});
        let at = |turn: &str, path: &[&str]| {
            Ledger::open(dir.path())
                .unwrap()
                .within(place("s", turn, path))
                .starting_at(super::super::starting::starting_scores(&state))
        };
        let before = at("t1", &[])
            .standing(&cfg, "ashford-watch", None, 5)
            .unwrap();
        assert_eq!((before.score, before.known), (20, false));
        assert_eq!(before.standing, label(20, &cfg.reputation_scale));
        // The first change counts from the starting score, not from 0.
        let u = at("t1", &[])
            .update(&cfg, "ashford-watch", 5, "helped", None)
            .unwrap();
        assert_eq!((u.previous_score, u.score), (20, 25));
        // Once the path has a record, the record wins over the state.
        let u = at("t2", &["t1"])
            .update(&cfg, "ashford-watch", -10, "lied", None)
            .unwrap();
        assert_eq!((u.previous_score, u.score), (25, 15));
        // A branch from before the first change starts from the state again.
        let u = at("b1", &[])
            .update(&cfg, "ashford-watch", -5, "fled", None)
            .unwrap();
        assert_eq!((u.previous_score, u.score), (20, 15));
        // A starting score off the scale is brought onto it.
        let s = at("t1", &[]).standing(&cfg, "thieves", None, 0).unwrap();
        assert_eq!(s.score, 100);
        // A faction the state does not name starts at 0.
        let u = at("t1", &[])
            .update(&cfg, "temple", 3, "prayed", None)
            .unwrap();
        assert_eq!(u.previous_score, 0);
    }

    #[test]
    fn inside_a_story_standings_follow_the_turns_on_the_path() {
        let dir = tempfile::tempdir().unwrap();
        let cfg = ReputationConfig::default();
        let at = |story: &str, turn: &str, path: &[&str]| {
            Ledger::open(dir.path())
                .unwrap()
                .within(place(story, turn, path))
        };
        at("s", "t1", &[])
            .update(&cfg, "guild", 10, "helped", None)
            .unwrap();
        at("s", "t2", &["t1"])
            .update(&cfg, "guild", 20, "saved", None)
            .unwrap();
        // A branch from t1: t2 never happened there.
        let u = at("s", "b2", &["t1"])
            .update(&cfg, "guild", -5, "insulted", None)
            .unwrap();
        assert_eq!((u.previous_score, u.score), (10, 5));
        let seen = |story: &str, turn: &str, path: &[&str]| {
            at(story, turn, path)
                .standing(&cfg, "guild", None, 5)
                .unwrap()
        };
        assert_eq!(seen("s", "t3", &["t1", "t2"]).score, 30);
        assert_eq!(seen("s", "b3", &["t1", "b2"]).score, 5);
        assert_eq!(seen("s", "t2", &["t1"]).history.len(), 2);
        // Another story, and the world outside any story, see none of it.
        let other = seen("other", "x1", &[]);
        assert_eq!((other.score, other.known), (0, false));
        assert!(at("other", "x1", &[]).factions().unwrap().is_empty());
        assert_eq!(at("s", "t3", &["t1"]).factions().unwrap(), vec!["guild"]);
        let outside = Ledger::open(dir.path()).unwrap();
        assert!(outside.factions().unwrap().is_empty());
        assert!(outside.history("guild", 5).unwrap().is_empty());
    }
}
