//! The session database's schema, oldest step first. A released step is
//! never edited; a change is a new step. Steps run with foreign keys off
//! (the store turns them on after migrating), so a table can be rebuilt.

use rusqlite_migration::{Migrations, M};

/// 1: a story is a line of numbered turns.
const LINEAR: &str = "CREATE TABLE sessions (
    id TEXT PRIMARY KEY,
    title TEXT NOT NULL,
    created_at TEXT NOT NULL,
    updated_at TEXT NOT NULL,
    initial_state TEXT NOT NULL DEFAULT '{}'
);
CREATE TABLE turns (
    id INTEGER PRIMARY KEY,
    session_id TEXT NOT NULL REFERENCES sessions(id) ON DELETE CASCADE,
    number INTEGER NOT NULL,
    input TEXT NOT NULL,
    narrative TEXT NOT NULL,
    fallback INTEGER NOT NULL DEFAULT 0,
    state_after TEXT NOT NULL,
    created_at TEXT NOT NULL,
    duration_ms INTEGER NOT NULL DEFAULT 0,
    UNIQUE (session_id, number)
);
CREATE TABLE plan_attempts (
    id INTEGER PRIMARY KEY,
    turn_id INTEGER NOT NULL REFERENCES turns(id) ON DELETE CASCADE,
    attempt INTEGER NOT NULL,
    plan TEXT,
    result TEXT,
    error TEXT
);
CREATE TABLE transcripts (
    id INTEGER PRIMARY KEY,
    turn_id INTEGER NOT NULL REFERENCES turns(id) ON DELETE CASCADE,
    attempt INTEGER NOT NULL,
    planner TEXT NOT NULL,
    prompt_hash TEXT NOT NULL,
    prompt TEXT NOT NULL,
    response TEXT NOT NULL,
    prompt_tokens INTEGER NOT NULL,
    cached_tokens INTEGER NOT NULL,
    completion_tokens INTEGER NOT NULL,
    ttft_ms INTEGER NOT NULL,
    total_ms INTEGER NOT NULL
);
CREATE INDEX turns_by_session ON turns(session_id, number);";

/// 2: a story is a tree of turns. Each turn follows its parent (none for a
/// first turn) and has a stable key scripts see; branches are named pointers
/// to a head turn, and a session has a current one; a turn keeps every
/// narration it was given (swipes), one of them active. A linear story
/// becomes one branch, "main", whose head is its last turn.
const TREE: &str = "CREATE TABLE turns_tree (
    id INTEGER PRIMARY KEY,
    session_id TEXT NOT NULL REFERENCES sessions(id) ON DELETE CASCADE,
    parent_id INTEGER REFERENCES turns_tree(id) ON DELETE CASCADE,
    key TEXT NOT NULL UNIQUE,
    number INTEGER NOT NULL,
    input TEXT NOT NULL,
    narrative TEXT NOT NULL,
    fallback INTEGER NOT NULL DEFAULT 0,
    state_after TEXT NOT NULL,
    created_at TEXT NOT NULL,
    duration_ms INTEGER NOT NULL DEFAULT 0,
    active_swipe INTEGER
);
INSERT INTO turns_tree (id, session_id, parent_id, key, number, input, narrative, fallback,
                        state_after, created_at, duration_ms)
    SELECT t.id, t.session_id,
           (SELECT p.id FROM turns p WHERE p.session_id = t.session_id AND p.number = t.number - 1),
           lower(hex(randomblob(16))), t.number, t.input, t.narrative, t.fallback,
           t.state_after, t.created_at, t.duration_ms
    FROM turns t ORDER BY t.id;
DROP TABLE turns;
ALTER TABLE turns_tree RENAME TO turns;
CREATE INDEX turns_by_parent ON turns(session_id, parent_id);
CREATE TABLE branches (
    id INTEGER PRIMARY KEY,
    session_id TEXT NOT NULL REFERENCES sessions(id) ON DELETE CASCADE,
    name TEXT NOT NULL,
    head_id INTEGER REFERENCES turns(id) ON DELETE SET NULL,
    redo_id INTEGER REFERENCES turns(id) ON DELETE SET NULL,
    created_at TEXT NOT NULL,
    UNIQUE (session_id, name)
);
INSERT INTO branches (session_id, name, head_id, created_at)
    SELECT s.id, 'main',
           (SELECT t.id FROM turns t WHERE t.session_id = s.id ORDER BY t.number DESC LIMIT 1),
           s.created_at
    FROM sessions s;
ALTER TABLE sessions ADD COLUMN current_branch INTEGER REFERENCES branches(id) ON DELETE SET NULL;
UPDATE sessions SET current_branch = (SELECT b.id FROM branches b WHERE b.session_id = sessions.id);
CREATE TABLE swipes (
    id INTEGER PRIMARY KEY,
    turn_id INTEGER NOT NULL REFERENCES turns(id) ON DELETE CASCADE,
    narrative TEXT NOT NULL,
    created_at TEXT NOT NULL
);
CREATE INDEX swipes_by_turn ON swipes(turn_id, id);
INSERT INTO swipes (turn_id, narrative, created_at)
    SELECT id, narrative, created_at FROM turns ORDER BY id;
UPDATE turns SET active_swipe = (SELECT s.id FROM swipes s WHERE s.turn_id = turns.id);";

/// Third step: a turn's attempts and transcripts are found by the turn, not
/// by reading every row saved so far (a long story stays as quick as a short one).
const BY_TURN: &str = "CREATE INDEX plan_attempts_by_turn ON plan_attempts(turn_id, id);
CREATE INDEX transcripts_by_turn ON transcripts(turn_id, id);";

/// Fourth step: which lore entries each attempt's narration was told, and
/// why (a JSON array; NULL for attempts saved before).
const LORE_TOLD: &str = "ALTER TABLE plan_attempts ADD COLUMN lore TEXT;";

/// Fifth step: why each attempt's plan uses the skills it uses (a JSON
/// object; NULL for attempts saved before or planned without a router).
const ROUTING_WHY: &str = "ALTER TABLE plan_attempts ADD COLUMN routing TEXT;";

/// Sixth step: whether each attempt's turn only noted something (its plan's
/// one mechanics tool was a memory write the host folded into the turn's
/// account, docs/stories.md); 0 for attempts saved before.
const NOTED: &str = "ALTER TABLE plan_attempts ADD COLUMN noted INTEGER NOT NULL DEFAULT 0;";

/// Seventh step: each story keeps the player's steer for its writer — an
/// author's note (empty: none) and the language it is told in (an ISO 639
/// code; NULL until the scenario or the player's words tell one).
const STEER: &str = "ALTER TABLE sessions ADD COLUMN author_note TEXT NOT NULL DEFAULT '';
ALTER TABLE sessions ADD COLUMN language TEXT;";

/// Eighth step: each turn keeps its whole trace (a JSON TraceRecord; NULL
/// for turns saved before), and every script run of it — one process, one
/// attempt — is a row of its own, its invocation record: which skill,
/// script and tool, the tool's input (secrets scrubbed), how it ended and
/// why (`failure_code`: the script's own code, else the host's error type
/// in upper snake case; NULL when it completed), how long it took and when
/// it started (ms since the Unix epoch). Found by skill and time, by trace
/// and by time alone (`skills stats`, docs/observability.md); by turn, so
/// that a turn deleted takes its rows with it without a scan.
const INVOCATIONS: &str = "ALTER TABLE turns ADD COLUMN trace TEXT;
CREATE TABLE invocations (
    id TEXT PRIMARY KEY,
    trace_id TEXT NOT NULL,
    session_id TEXT NOT NULL REFERENCES sessions(id) ON DELETE CASCADE,
    turn_id INTEGER REFERENCES turns(id) ON DELETE CASCADE,
    skill TEXT NOT NULL,
    script TEXT NOT NULL,
    tool_id TEXT NOT NULL,
    attempt INTEGER NOT NULL,
    input TEXT NOT NULL,
    status TEXT NOT NULL,
    failure_code TEXT,
    message TEXT,
    duration_ms INTEGER NOT NULL,
    started_at INTEGER NOT NULL
);
CREATE INDEX invocations_by_skill ON invocations(skill, started_at);
CREATE INDEX invocations_by_trace ON invocations(trace_id);
CREATE INDEX invocations_by_time ON invocations(started_at);
CREATE INDEX invocations_by_turn ON invocations(turn_id);";

/// Ninth step: the player's corrections of turns' mechanics, kept with the
/// story as examples for its routing (docs/narrator.md, "The player
/// corrects"): the input, the scripts it needed and the skills it got
/// without needing them (JSON arrays of strings).
const CORRECTIONS: &str = "CREATE TABLE routing_corrections (
    id INTEGER PRIMARY KEY,
    session_id TEXT NOT NULL REFERENCES sessions(id) ON DELETE CASCADE,
    input TEXT NOT NULL,
    needed TEXT NOT NULL,
    unneeded TEXT NOT NULL,
    created_at TEXT NOT NULL
);
CREATE INDEX routing_corrections_by_session ON routing_corrections(session_id, id);";

/// Every step of the schema, oldest first.
const STEPS: [&str; 9] = [
    LINEAR,
    TREE,
    BY_TURN,
    LORE_TOLD,
    ROUTING_WHY,
    NOTED,
    STEER,
    INVOCATIONS,
    CORRECTIONS,
];

/// The schema version this release writes: the number of steps, which is
/// what a database's `PRAGMA user_version` holds once they are applied. A
/// database with a higher one was written by a newer release.
pub(super) const VERSION: i64 = STEPS.len() as i64;

/// Every step of the schema.
pub(super) fn migrations() -> Migrations<'static> {
    Migrations::new(STEPS.iter().map(|step| M::up(step)).collect())
}

/// The first step alone: the schema stories were saved with before they
/// were trees, for tests of the migration.
#[cfg(test)]
pub(super) fn linear_only() -> Migrations<'static> {
    Migrations::new(vec![M::up(LINEAR)])
}

/// The first `n` steps: the schema an earlier release saved stories with,
/// for tests of the migration.
#[cfg(test)]
pub(super) fn first_steps(n: usize) -> Migrations<'static> {
    Migrations::new(STEPS[..n].iter().map(|step| M::up(step)).collect())
}

#[cfg(test)]
mod tests {
    #[test]
    fn migrations_are_valid() {
        super::migrations().validate().unwrap();
    }

    #[test]
    fn the_version_is_what_the_steps_leave_in_user_version() {
        let mut conn = rusqlite::Connection::open_in_memory().unwrap();
        super::migrations().to_latest(&mut conn).unwrap();
        let found: i64 = conn
            .pragma_query_value(None, "user_version", |r| r.get(0))
            .unwrap();
        assert_eq!(found, super::VERSION);
    }
}
