//! `storyteller/narrate`: the turn's narrative from a language model, with a
//! fallback chain down to a template.

use std::process::ExitCode;

fn main() -> ExitCode {
    narratoria_skills_builtin::run(
        narratoria_storyteller::SPEC,
        narratoria_storyteller::narrate,
    )
}
