//! `narratoria skills stats [--skill NAME] [--since DATE] [--json]`: how the
//! skills' script runs fared in every story of the sessions database, from
//! their invocation records (docs/observability.md, "Invocation records
//! and `skills stats`").

use std::path::Path;
use std::process::ExitCode;

use chrono::format::ParseErrorKind;
use chrono::{DateTime, NaiveDate, NaiveTime, SecondsFormat};
use narratoria_core::narration::clip_to;
use narratoria_core::store::bounds::CODE_CHARS;
use narratoria_core::store::{RunStats, SkillStats, StatsQuery};

use super::common::open_store;
use super::common::{print_json, CliError};

/// `--since DATE` as ms since the Unix epoch: a day, `YYYY-MM-DD` (from
/// midnight UTC), or an RFC 3339 time (`2026-03-02T09:00:00+01:00`). A
/// time before 1970 counts every run. Anything else is refused with why.
pub(crate) fn parse_since(text: &str) -> Result<u64, String> {
    let text = text.trim();
    // A time has a clock in it; anything else is read as a day.
    let ms = if text.contains(':') {
        DateTime::parse_from_rfc3339(text)
            .map(|at| at.timestamp_millis())
            .map_err(|e| refused(text, &e.to_string()))?
    } else {
        NaiveDate::parse_from_str(text, "%Y-%m-%d")
            .map(|day| day.and_time(NaiveTime::MIN).and_utc().timestamp_millis())
            .map_err(|e| match e.kind() {
                ParseErrorKind::OutOfRange => refused(text, "the calendar has no such day"),
                _ => refused(text, &e.to_string()),
            })?
    };
    Ok(u64::try_from(ms).unwrap_or(0))
}

/// Why `--since` refused `text`: what it expects, and `why` not.
fn refused(text: &str, why: &str) -> String {
    format!(
        "{text:?} is neither a day (YYYY-MM-DD, from midnight UTC) nor an RFC 3339 time \
         such as 2026-03-02T09:00:00Z ({why})"
    )
}

/// Prints the stats `query` selects from the database at `db` (the
/// user's when `None`): a table per script, or the SkillStats JSON; a
/// sentence when no run was recorded.
pub fn run(query: &StatsQuery, db: Option<&Path>, as_json: bool) -> Result<ExitCode, CliError> {
    let store = open_store(db)?;
    let stats = store
        .skill_stats(query)
        .map_err(|e| CliError::usage(e.code(), e.to_string()))?;
    if as_json {
        print_json(&stats);
    } else if stats.totals.runs == 0 {
        say!(
            "No script runs recorded in {}{}.",
            store.path().display(),
            selection(query)
        );
    } else {
        say!(
            "Script runs recorded in {}{}:\n",
            store.path().display(),
            selection(query)
        );
        for line in aligned(&table(&stats)) {
            say!("{line}");
        }
    }
    Ok(ExitCode::SUCCESS)
}

/// What the query narrows the runs to, in words (` for skill x since …`).
fn selection(query: &StatsQuery) -> String {
    let mut words = String::new();
    if let Some(skill) = &query.skill {
        words.push_str(&format!(" for skill {skill:?}"));
    }
    if let Some(since) = query.since_unix_ms {
        let at = i64::try_from(since)
            .ok()
            .and_then(DateTime::from_timestamp_millis)
            .map(|t| t.to_rfc3339_opts(SecondsFormat::Secs, true))
            .unwrap_or_else(|| format!("{since} ms"));
        words.push_str(&format!(" since {at}"));
    }
    words
}

/// The table's lines: a header, one row per script, and the totals.
fn table(stats: &SkillStats) -> Vec<[String; 7]> {
    let mut rows = vec![[
        "skill/script".to_string(),
        "runs".into(),
        "failed".into(),
        "by code".into(),
        "p50".into(),
        "p95".into(),
        "mean".into(),
    ]];
    for skill in &stats.skills {
        for script in &skill.scripts {
            rows.push(row(
                format!("{}/{}", skill.skill, script.script),
                &script.stats,
            ));
        }
    }
    rows.push(row("all".into(), &stats.totals));
    rows
}

/// The most characters a cell of the table shows; a longer one (a name, a
/// list of codes) is clipped with an ellipsis. `--json` shows it whole.
const CELL_CHARS: usize = 200;

/// One row of the table: each failure code within [`CODE_CHARS`] (one
/// recorded before records were bounded may be longer), each cell within
/// [`CELL_CHARS`].
fn row(name: String, stats: &RunStats) -> [String; 7] {
    let codes: Vec<String> = stats
        .failures_by_code
        .iter()
        .map(|(code, n)| format!("{} {n}", clip_to(code, CODE_CHARS)))
        .collect();
    [
        clip_to(&name, CELL_CHARS),
        stats.runs.to_string(),
        stats.failures.to_string(),
        if codes.is_empty() {
            "-".into()
        } else {
            clip_to(&codes.join(", "), CELL_CHARS)
        },
        format!("{} ms", stats.p50_ms),
        format!("{} ms", stats.p95_ms),
        format!("{:.0} ms", stats.mean_ms),
    ]
}

/// `rows` as aligned lines: names and codes to the left, numbers to the
/// right. Promises any cells: each column is as wide as its widest cell,
/// at most [`CELL_CHARS`] (a wider cell overflows its column, never
/// panics: padding is written out, not asked of a format width).
fn aligned(rows: &[[String; 7]]) -> Vec<String> {
    let mut widths = [0usize; 7];
    for row in rows {
        for (w, cell) in widths.iter_mut().zip(row) {
            *w = (*w).max(cell.chars().count()).min(CELL_CHARS);
        }
    }
    rows.iter()
        .map(|row| {
            let cells: Vec<String> = row
                .iter()
                .zip(widths)
                .enumerate()
                .map(|(i, (cell, w))| padded(cell, w, matches!(i, 0 | 3)))
                .collect();
            cells.join("  ").trim_end().to_string()
        })
        .collect()
}

/// `cell` padded with spaces to `width` characters, on its right when it
/// is `left`-aligned, else on its left.
fn padded(cell: &str, width: usize, left: bool) -> String {
    let pad = " ".repeat(width.saturating_sub(cell.chars().count()));
    if left {
        format!("{cell}{pad}")
    } else {
        format!("{pad}{cell}")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_day_is_its_midnight_utc_and_a_time_keeps_its_offset() {
        assert_eq!(parse_since("2026-03-02"), Ok(1_772_409_600_000));
        assert_eq!(parse_since("2026-03-02T00:00:00Z"), Ok(1_772_409_600_000));
        assert_eq!(
            parse_since("2026-03-02T09:00:00.250+01:00"),
            Ok(1_772_409_600_000 + 8 * 3_600_000 + 250)
        );
        assert_eq!(parse_since("1960-01-01"), Ok(0));
    }

    /// A failure code of 70,000 characters (kept before records were
    /// bounded) is printed clipped, every line within bounds; the
    /// format width the longest code asked for panicked past 65,535.
    #[test]
    fn a_table_with_a_huge_code_prints_clip_to() {
        let mut stats = RunStats {
            runs: 2,
            failures: 2,
            ..RunStats::default()
        };
        let huge = "E".repeat(70_000);
        stats.failures_by_code.insert(huge.clone(), 1);
        stats.failures_by_code.insert("TIMEOUT".into(), 1);
        let rows = vec![
            row("dice-roller/roll-dice".into(), &stats),
            row("n".repeat(70_000), &stats),
        ];
        let lines = aligned(&rows);
        assert_eq!(lines.len(), 2);
        for line in &lines {
            assert!(
                line.chars().count() < 7 * (CELL_CHARS + 2),
                "{}",
                line.len()
            );
            assert!(line.contains("…"), "{line}");
        }
        let codes = &rows[0][3];
        assert!(
            codes.starts_with(&format!("{}…", "E".repeat(CODE_CHARS - 1))),
            "{codes}"
        );
        assert!(codes.ends_with(", TIMEOUT 1"), "{codes}");
    }

    #[test]
    fn cells_line_up_names_left_and_numbers_right() {
        let rows = [
            [
                "a".to_string(),
                "1".into(),
                "0".into(),
                "-".into(),
                "1 ms".into(),
                "1 ms".into(),
                "1 ms".into(),
            ],
            [
                "abc".to_string(),
                "10".into(),
                "2".into(),
                "X 2".into(),
                "10 ms".into(),
                "10 ms".into(),
                "10 ms".into(),
            ],
        ];
        assert_eq!(
            aligned(&rows),
            [
                "a     1  0  -     1 ms   1 ms   1 ms",
                "abc  10  2  X 2  10 ms  10 ms  10 ms"
            ]
        );
    }

    #[test]
    fn anything_else_is_refused_with_why() {
        for bad in [
            "last week",
            "2026-02-30",
            "2026-03-02T25:00:00Z",
            "2026-03-02T09:00",
        ] {
            let err = parse_since(bad).expect_err(bad);
            assert!(err.contains(&format!("{bad:?}")), "{err}");
            assert!(
                err.contains("YYYY-MM-DD") && err.contains("RFC 3339"),
                "{err}"
            );
        }
    }
}
