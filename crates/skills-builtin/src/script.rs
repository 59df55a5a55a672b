//! The life of one script run: envelope in, events out, an exit status.

use std::io::{BufRead, Write};
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::path::PathBuf;
use std::process::ExitCode;

use serde::de::DeserializeOwned;
use serde_json::{Map, Value};

use crate::error::SkillError;
use crate::input;
use crate::protocol::{parse_envelope, Envelope, Events, LogLevel};

/// What a script is: its name in its skill's `skill.json`, that manifest's
/// text and the skill's `config-schema.json` text (both compiled in, so a
/// script always validates against the schemas it was built with).
#[derive(Debug, Clone, Copy)]
pub struct ScriptSpec {
    pub script: &'static str,
    pub manifest: &'static str,
    pub config_schema: &'static str,
}

impl ScriptSpec {
    /// The script's `inputSchema` from the manifest, if it declares one.
    pub fn input_schema(&self) -> Result<Option<Value>, SkillError> {
        let manifest: Value = serde_json::from_str(self.manifest)
            .map_err(|e| SkillError::internal(format!("skill.json is not JSON: {e}")))?;
        Ok(manifest
            .pointer(&format!("/scripts/{}/inputSchema", self.script))
            .cloned())
    }

    fn config_schema(&self) -> Result<Value, SkillError> {
        serde_json::from_str(self.config_schema)
            .map_err(|e| SkillError::internal(format!("config-schema.json is not JSON: {e}")))
    }
}

/// A successful result: `done.output` and an optional one-line summary.
#[derive(Debug, Clone)]
pub struct Outcome {
    pub output: Value,
    pub summary: Option<String>,
}

/// What a handler sees: the envelope, an event sink and the skill's folders.
pub struct Context<'a> {
    pub envelope: Envelope,
    pub events: &'a mut Events<Box<dyn Write>>,
    pub skill_dir: PathBuf,
    data_dir: PathBuf,
}

impl<'a> Context<'a> {
    /// A context over an envelope, for tests and for [`run`].
    pub fn new(
        envelope: Envelope,
        events: &'a mut Events<Box<dyn Write>>,
        skill_dir: PathBuf,
        data_dir: PathBuf,
    ) -> Context<'a> {
        Context {
            envelope,
            events,
            skill_dir,
            data_dir,
        }
    }

    /// The input decoded into the script's input type (already schema-checked).
    pub fn input<T: DeserializeOwned>(&self) -> Result<T, SkillError> {
        let v = match &self.envelope.input {
            Value::Null => Value::Object(Map::new()),
            v => v.clone(),
        };
        serde_json::from_value(v).map_err(|e| SkillError::validation(format!("input: {e}")))
    }

    /// The config decoded into the skill's config type; absent fields take
    /// their defaults (the same as `config-schema.json` declares).
    pub fn config<T: DeserializeOwned>(&self) -> Result<T, SkillError> {
        let v = match &self.envelope.config {
            Value::Null => Value::Object(Map::new()),
            v => v.clone(),
        };
        serde_json::from_value(v).map_err(|e| SkillError::validation(format!("config: {e}")))
    }

    /// The skill's writable data folder, created if missing.
    pub fn data_dir(&self) -> Result<PathBuf, SkillError> {
        std::fs::create_dir_all(&self.data_dir).map_err(|e| {
            SkillError::persistence(format!(
                "cannot create data folder {}: {e}",
                self.data_dir.display()
            ))
        })?;
        Ok(self.data_dir.clone())
    }

    pub fn log(&mut self, level: LogLevel, message: impl Into<String>) {
        self.events.log(level, message);
    }
}

/// The skill folder: `NARRATORIA_SKILL_DIR`, else the folder above the
/// executable's `scripts/` folder, else the working directory.
fn skill_dir() -> PathBuf {
    if let Some(d) = std::env::var_os("NARRATORIA_SKILL_DIR").filter(|d| !d.is_empty()) {
        return PathBuf::from(d);
    }
    std::env::current_exe()
        .ok()
        .and_then(|exe| {
            let scripts = exe.parent()?;
            (scripts.file_name()? == "scripts").then(|| scripts.parent().map(PathBuf::from))?
        })
        .or_else(|| std::env::current_dir().ok())
        .unwrap_or_else(|| PathBuf::from("."))
}

/// The data folder: `NARRATORIA_DATA_DIR`, else `<skill folder>/data`.
fn data_dir(skill_dir: &std::path::Path) -> PathBuf {
    std::env::var_os("NARRATORIA_DATA_DIR")
        .filter(|d| !d.is_empty())
        .map(PathBuf::from)
        .unwrap_or_else(|| skill_dir.join("data"))
}

/// Runs one script: reads the envelope from stdin, checks config and input
/// against their schemas, calls `handler`, and reports the outcome. Never
/// panics: any failure — a bad envelope, invalid input, a handler error or a
/// handler panic — becomes an `error` event, `done ok:false` and exit status 1.
pub fn run(spec: ScriptSpec, handler: fn(&mut Context) -> Result<Outcome, SkillError>) -> ExitCode {
    let mut events: Events<Box<dyn Write>> = Events::new(Box::new(std::io::stdout()));
    let mut line = String::new();
    let read = std::io::stdin().lock().read_line(&mut line);
    let result = match read {
        Err(e) => Err(SkillError::validation(format!("cannot read stdin: {e}"))),
        Ok(0) => Err(SkillError::validation(
            "stdin is empty; expected one JSON envelope line",
        )),
        Ok(_) => parse_envelope(&line),
    }
    .and_then(|envelope| {
        let skill_dir = skill_dir();
        let data_dir = data_dir(&skill_dir);
        let mut ctx = Context::new(envelope, &mut events, skill_dir, data_dir);
        catch_unwind(AssertUnwindSafe(|| execute(spec, handler, &mut ctx))).unwrap_or_else(
            |panic| {
                let what = panic
                    .downcast_ref::<String>()
                    .cloned()
                    .or_else(|| panic.downcast_ref::<&str>().map(|s| s.to_string()))
                    .unwrap_or_else(|| "unknown panic".into());
                Err(SkillError::internal(format!(
                    "the script failed unexpectedly: {what}"
                )))
            },
        )
    });
    report(&mut events, result)
}

/// Schema checks, then the handler.
pub fn execute(
    spec: ScriptSpec,
    handler: fn(&mut Context) -> Result<Outcome, SkillError>,
    ctx: &mut Context,
) -> Result<Outcome, SkillError> {
    let config = match &ctx.envelope.config {
        Value::Null => Value::Object(Map::new()),
        v => v.clone(),
    };
    input::validate(&spec.config_schema()?, &config, "config")?;
    if let Some(schema) = spec.input_schema()? {
        let input = match &ctx.envelope.input {
            Value::Null => Value::Object(Map::new()),
            v => v.clone(),
        };
        input::validate(&schema, &input, "input")?;
    }
    handler(ctx)
}

/// Writes the final events and picks the exit status.
fn report<W: Write>(events: &mut Events<W>, result: Result<Outcome, SkillError>) -> ExitCode {
    match result {
        Ok(outcome) => {
            events.done(true, Some(outcome.output), outcome.summary);
            ExitCode::SUCCESS
        }
        Err(err) => {
            events.error(&err);
            events.done(false, None, Some(err.message.clone()));
            ExitCode::FAILURE
        }
    }
}
