//! The command line's shape (contracts.md, "The `narratoria` command").

use std::path::PathBuf;

use clap::{Args, Parser, Subcommand};

#[derive(Debug, Parser)]
#[command(
    name = "narratoria",
    version,
    about = "Narratoria: a local-first storytelling runtime",
    propagate_version = true
)]
pub struct Cli {
    /// How much goes to the log file: error, warn, info (default), debug,
    /// trace or off, or a filter such as narratoria_app=debug,info
    /// (default: $NARRATORIA_LOG). Warnings also show on stderr.
    #[arg(long, global = true, value_name = "LEVEL")]
    pub log_level: Option<String>,
    #[command(subcommand)]
    pub command: Command,
}

#[derive(Debug, Subcommand)]
pub enum Command {
    /// Execute a plan and print its ExecutionResult as JSON.
    RunPlan(RunPlanArgs),
    /// Discover, check and configure skills.
    #[command(subcommand)]
    Skills(SkillsCommand),
    /// Ask the narrator for a plan (Plan JSON on stdout).
    Narrate(NarrateArgs),
    /// Play one full turn: narrate, execute, replan, fall back; prints the ExecutionResult.
    Turn(TurnArgs),
    /// Play a story at the terminal.
    Play(PlayArgs),
    /// List, export and rewind saved sessions.
    #[command(subcommand)]
    Sessions(SessionsCommand),
    /// The scenarios a story starts from: list, new.
    #[command(subcommand)]
    Scenarios(ScenariosCommand),
    /// Character cards: import as the player or someone in the story.
    #[command(subcommand)]
    Cards(CardsCommand),
    /// Lorebooks (world info): import into a story or a scenario.
    #[command(subcommand)]
    Lore(LoreCommand),
    /// The narrator's models: list, add, download, remove, choose.
    #[command(subcommand)]
    Models(ModelsCommand),
    /// Where the log files are.
    #[command(subcommand)]
    Logs(LogsCommand),
    /// Print performance figures (not a test).
    #[command(hide = true)]
    Bench(BenchArgs),
}

/// Where skills come from: built-in, user and campaign folders, later ones
/// overriding earlier ones by name.
#[derive(Debug, Args, Clone)]
pub struct SkillRoots {
    /// A skills folder; may be given several times. Default: the built-in skills.
    #[arg(long = "skills", value_name = "DIR")]
    pub skills: Vec<PathBuf>,
}

#[derive(Debug, Args)]
pub struct RunPlanArgs {
    /// The Plan JSON file (`-` for stdin).
    pub plan: PathBuf,
    #[command(flatten)]
    pub roots: SkillRoots,
    /// Initial session state (a JSON object).
    #[arg(long, value_name = "STATE.json")]
    pub state: Option<PathBuf>,
    /// Most tools running at once in a parallel plan (default: CPU cores).
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u32).range(1..=1024))]
    pub max_concurrency: Option<u32>,
    /// Limit for the whole plan in milliseconds (default 60000).
    #[arg(long, value_name = "MS", value_parser = clap::value_parser!(u64).range(1..))]
    pub plan_timeout_ms: Option<u64>,
    /// Where skills keep their data (`DIR/<skill>`); default `<skill>/data`.
    #[arg(long, value_name = "DIR")]
    pub data_dir: Option<PathBuf>,
    /// Print live execution events as JSON lines on stderr.
    #[arg(long)]
    pub events: bool,
}

#[derive(Debug, Subcommand)]
pub enum SkillsCommand {
    /// List discovered skills and the folders that were passed over.
    List {
        #[command(flatten)]
        roots: SkillRoots,
        /// Print JSON instead of a table.
        #[arg(long)]
        json: bool,
    },
    /// Validate one skill folder: manifest, config against its schema, scripts.
    Check {
        /// The skill folder.
        dir: PathBuf,
    },
    /// Print one JSON line per change to the skill folders, until interrupted.
    Watch {
        #[command(flatten)]
        roots: SkillRoots,
    },
    /// Show a skill's settings (secrets redacted), or change the player's
    /// own settings of it with --set, --allow-env and --revoke-env.
    Config {
        /// The skill's name.
        name: String,
        #[command(flatten)]
        roots: SkillRoots,
        /// key=value (dotted keys reach nested settings); may be repeated.
        #[arg(long = "set", value_name = "KEY=VALUE")]
        set: Vec<String>,
        /// Let `${VAR}` in this skill's settings read environment variable VAR; may be repeated.
        #[arg(long = "allow-env", value_name = "VAR")]
        allow_env: Vec<String>,
        /// Take back --allow-env VAR; may be repeated.
        #[arg(long = "revoke-env", value_name = "VAR")]
        revoke_env: Vec<String>,
        /// Print JSON.
        #[arg(long)]
        json: bool,
    },
    /// Turn a skill on (remembered across sessions).
    Enable {
        name: String,
        #[command(flatten)]
        roots: SkillRoots,
    },
    /// Turn a skill off (remembered across sessions).
    Disable {
        name: String,
        #[command(flatten)]
        roots: SkillRoots,
    },
    /// How the skills' script runs fared in every saved story: runs,
    /// failures by code, p50/p95 and mean duration per script.
    Stats {
        /// Only this skill's runs.
        #[arg(long, value_name = "NAME")]
        skill: Option<String>,
        /// Only runs since DATE: a day, YYYY-MM-DD (from midnight UTC), or
        /// an RFC 3339 time such as 2026-03-02T09:00:00+01:00.
        #[arg(long, value_name = "DATE", value_parser = crate::commands::skill_stats::parse_since)]
        since: Option<u64>,
        #[arg(long, value_name = "DB")]
        session: Option<PathBuf>,
        /// Print the stats as JSON.
        #[arg(long)]
        json: bool,
    },
}

#[derive(Debug, Args)]
pub struct BenchArgs {
    /// What to measure.
    #[arg(value_parser = ["executor", "watch", "load", "turn"])]
    pub what: String,
    /// Repetitions of each measurement (the median is reported).
    #[arg(long, default_value_t = 5)]
    pub runs: usize,
    /// `turn`: turns played in each story (default 40).
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u32).range(1..=10_000))]
    pub turns: Option<u32>,
    /// `turn`: stories played, each from its first turn (default 1).
    #[arg(long, value_name = "N", default_value_t = 1, value_parser = clap::value_parser!(u32).range(1..=100))]
    pub stories: u32,
    /// `turn`: the model that plans (default: the player's planner, else the default model).
    #[arg(long, value_name = "GGUF")]
    pub model: Option<PathBuf>,
    /// `turn`: the model that writes (default: the player's writer, else the planner's model).
    #[arg(long, value_name = "GGUF")]
    pub writer: Option<PathBuf>,
    /// `turn`: the most tokens the writer's context holds (default 8192, within memory).
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u32).range(512..))]
    pub writer_context: Option<u32>,
    /// `turn`: print the figures as JSON.
    #[arg(long)]
    pub json: bool,
}

#[derive(Debug, Args)]
#[command(group(clap::ArgGroup::new("source").required(true).args(["input", "batch"])))]
pub struct NarrateArgs {
    /// What the player's character does.
    pub input: Option<String>,
    /// Read one player input per line from FILE (`-` for stdin); print one Plan JSON per line.
    #[arg(long, value_name = "FILE", conflicts_with = "input")]
    pub batch: Option<PathBuf>,
    #[command(flatten)]
    pub roots: SkillRoots,
    /// A GGUF model (default: the bundled default model).
    #[arg(long, value_name = "GGUF")]
    pub model: Option<PathBuf>,
    /// Print JSON (the default for this command; kept for symmetry).
    #[arg(long)]
    pub json: bool,
    /// Add why the plan uses its skills: a `routing` object with each
    /// skill's scores (meaning, keywords, model) and the thresholds; null
    /// when no router chose them.
    #[arg(long)]
    pub explain: bool,
}

#[derive(Debug, Args)]
pub struct TurnArgs {
    /// What the player's character does.
    pub input: String,
    #[command(flatten)]
    pub roots: SkillRoots,
    /// The session database; the turn is saved to its latest session.
    #[arg(long, value_name = "DB")]
    pub session: Option<PathBuf>,
    /// The model that plans (and writes, unless --writer is given).
    #[arg(long, value_name = "GGUF")]
    pub model: Option<PathBuf>,
    #[command(flatten)]
    pub writer: WriterArgs,
    /// Print the ExecutionResult as JSON (otherwise the narrative).
    #[arg(long)]
    pub json: bool,
}

/// The model that writes the story's prose, for one run (docs/models.md, "Roles").
#[derive(Debug, Args, Clone, Default)]
pub struct WriterArgs {
    /// The model that writes the prose (default: the one chosen with
    /// `models use NAME`, else the planner's model).
    #[arg(long, value_name = "GGUF")]
    pub writer: Option<PathBuf>,
    /// The most tokens the writer's context holds (default 8192, within
    /// the model's trained context and the memory available).
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u32).range(512..))]
    pub writer_context: Option<u32>,
}

#[derive(Debug, Args)]
pub struct PlayArgs {
    /// The session database (default: the user's sessions.db).
    #[arg(long, value_name = "DB")]
    pub session: Option<PathBuf>,
    #[command(flatten)]
    pub roots: SkillRoots,
    /// The model that plans (and writes, unless --writer is given).
    #[arg(long, value_name = "GGUF")]
    pub model: Option<PathBuf>,
    #[command(flatten)]
    pub writer: WriterArgs,
    /// Start a new story instead of continuing the latest one.
    #[arg(long)]
    pub new: bool,
    /// The scenario a new story starts from (see `scenarios list`).
    #[arg(long, value_name = "NAME", requires = "new")]
    pub scenario: Option<String>,
    /// For programs: read one player input per line on stdin and print each
    /// turn's ExecutionResult as one JSON line (lines starting with `/` are skipped).
    #[arg(long)]
    pub jsonl: bool,
}

#[derive(Debug, Subcommand)]
pub enum SessionsCommand {
    /// Start a story from a scenario (default: the first built-in one);
    /// prints its id.
    New {
        /// The scenario (see `scenarios list`).
        #[arg(long, value_name = "NAME")]
        scenario: Option<String>,
        #[arg(long, value_name = "DB")]
        session: Option<PathBuf>,
        /// Print the new story's id, scenario and state as JSON.
        #[arg(long)]
        json: bool,
    },
    /// Every saved session, most recent first.
    List {
        #[arg(long, value_name = "DB")]
        session: Option<PathBuf>,
        #[arg(long)]
        json: bool,
    },
    /// A session as Markdown or JSON on stdout; with `--turn N --run DIR`,
    /// turn N's run folder for a bug report (docs/observability.md).
    Export {
        /// The session's id.
        id: String,
        #[arg(long, value_name = "DB")]
        session: Option<PathBuf>,
        /// `md` and `json`: the current branch; `tree`: every branch and turn (JSON).
        #[arg(long, value_parser = ["md", "json", "tree"], default_value = "md")]
        format: String,
        /// The turn to write out: its number on the current branch (1 = the first).
        #[arg(long, value_name = "N", requires = "run", value_parser = clap::value_parser!(u32).range(1..))]
        turn: Option<u32>,
        /// Write turn N's run folder here: a new or empty folder. Every
        /// skill's secret settings are scrubbed out of it.
        #[arg(long, value_name = "DIR", requires = "turn", conflicts_with = "format")]
        run: Option<PathBuf>,
        /// With --run: a skills folder whose secret settings are scrubbed
        /// out; may be given several times. Default: the built-in skills and
        /// the user's own.
        #[arg(long = "skills", value_name = "DIR", requires = "run")]
        skills: Vec<PathBuf>,
    },
    /// Go back to just after turn N (0 = the start) on the current branch;
    /// later turns stay in the story (redo brings them back).
    Rewind {
        id: String,
        turn: u32,
        #[arg(long, value_name = "DB")]
        session: Option<PathBuf>,
    },
    /// The story's tree: its branches and every turn.
    Tree {
        id: String,
        #[arg(long, value_name = "DB")]
        session: Option<PathBuf>,
        /// Print it as JSON.
        #[arg(long)]
        json: bool,
    },
    /// Start a branch at turn TURN of the current branch (0 = the start)
    /// and play on it from now on.
    Branch {
        id: String,
        turn: u32,
        /// Its name (default: the next free "branch N").
        #[arg(long)]
        name: Option<String>,
        #[arg(long, value_name = "DB")]
        session: Option<PathBuf>,
    },
    /// Play on branch BRANCH from now on.
    Switch {
        id: String,
        branch: String,
        #[arg(long, value_name = "DB")]
        session: Option<PathBuf>,
    },
    /// Give a story another title.
    Rename {
        id: String,
        title: String,
        #[arg(long, value_name = "DB")]
        session: Option<PathBuf>,
    },
    /// Delete a story with all its turns and branches.
    Delete {
        id: String,
        #[arg(long, value_name = "DB")]
        session: Option<PathBuf>,
    },
    /// Take the current branch's last turn back (redo brings it back).
    Undo {
        id: String,
        #[arg(long, value_name = "DB")]
        session: Option<PathBuf>,
    },
    /// Bring back the turn undone last on the current branch.
    Redo {
        id: String,
        #[arg(long, value_name = "DB")]
        session: Option<PathBuf>,
    },
}

#[derive(Debug, Subcommand)]
pub enum ModelsCommand {
    /// Installed models (size, quantization, context length, parameters,
    /// writer profile, which plans and which writes) and the catalog's
    /// models that are not installed.
    List {
        /// Print JSON.
        #[arg(long)]
        json: bool,
    },
    /// Copy a GGUF model with a chat template into the user's models
    /// folder, or download one from a Hugging Face link (a repository's or
    /// one .gguf file's), checked against the Hub's SHA-256.
    Add {
        /// The GGUF file, or a https://huggingface.co/… link.
        file: PathBuf,
        /// Link to the file instead of copying it.
        #[arg(long)]
        link: bool,
        /// With a repository link: which of its GGUF files (see the list
        /// printed without it).
        #[arg(long, value_name = "NAME")]
        pick: Option<String>,
    },
    /// Download a model of the catalog (resumed if interrupted, checksum verified).
    Download {
        /// The catalog name (see `models list`).
        name: String,
    },
    /// Delete a model from the user's models folder.
    Remove { name: String },
    /// Plan or write on an external OpenAI-compatible server (Ollama, LM
    /// Studio, llama-server, KoboldCpp) instead of a model in the process.
    #[command(subcommand)]
    Server(ServerCommand),
    /// Use this model from now on in play, turn, narrate and the window:
    /// to write the prose (the default), to plan the mechanics, or both
    /// (`default` forgets the role's choice: the default model plans, the
    /// planner's model writes).
    Use {
        name: String,
        /// What it does: writer, planner or both.
        #[arg(long, default_value = "writer", value_parser = ["writer", "planner", "both"])]
        role: String,
        /// Also remember the most tokens the writer's context holds
        /// (`0` forgets it: 8192, within the model and the memory).
        #[arg(long, value_name = "N")]
        writer_context: Option<u32>,
    },
}

#[derive(Debug, Subcommand)]
pub enum ServerCommand {
    /// The servers chosen for each role.
    Show {
        /// Print JSON.
        #[arg(long)]
        json: bool,
    },
    /// The models a server lists (GET /models), to pick one from.
    Models {
        /// Its OpenAI-compatible address, e.g. http://127.0.0.1:11434/v1.
        endpoint: String,
        /// The environment variable holding its API key, if it needs one.
        #[arg(long, value_name = "VAR")]
        api_key_env: Option<String>,
    },
    /// Give a role to a server from now on, after checking that it answers
    /// and serves the model.
    Set {
        /// writer, planner or both.
        #[arg(long, default_value = "writer", value_parser = ["writer", "planner", "both"])]
        role: String,
        /// Its OpenAI-compatible address, e.g. http://127.0.0.1:11434/v1.
        #[arg(long)]
        endpoint: String,
        /// The model, as the server lists it.
        #[arg(long)]
        model: String,
        /// The environment variable holding its API key, if it needs one
        /// (the key itself is never written to the settings).
        #[arg(long, value_name = "VAR")]
        api_key_env: Option<String>,
    },
    /// Check that the chosen servers answer and serve their models.
    Check,
    /// Give a role back to the models in the process.
    Clear {
        /// writer, planner or both.
        #[arg(long, default_value = "both", value_parser = ["writer", "planner", "both"])]
        role: String,
    },
}

#[derive(Debug, Subcommand)]
pub enum LogsCommand {
    /// Print the folder that holds the log files.
    Path,
}

#[derive(Debug, Subcommand)]
pub enum ScenariosCommand {
    /// The scenarios a story can start from: built-in and saved ones.
    List {
        /// Print JSON.
        #[arg(long)]
        json: bool,
    },
    /// Save a new scenario in the user's scenarios folder: a starter to fill
    /// in, or read from a scenario file or a character card (--from).
    New {
        /// Its name: lower-case letters, digits and '-'.
        name: String,
        /// A scenario JSON file, or a character card (PNG or JSON).
        #[arg(long, value_name = "FILE")]
        from: Option<PathBuf>,
        /// Print JSON.
        #[arg(long)]
        json: bool,
    },
}

#[derive(Debug, Subcommand)]
pub enum CardsCommand {
    /// Check a character card (SillyTavern/TavernAI V1, V2 or V3; PNG or
    /// JSON) and, with --session, add it to a story.
    Import {
        /// The card file.
        file: PathBuf,
        /// Whom the character becomes: the player's own character or
        /// someone in the story.
        #[arg(long = "as", value_name = "ROLE", default_value = "npc", value_parser = ["player", "npc"])]
        role: String,
        /// The story (session id) to add it to.
        #[arg(long, value_name = "ID")]
        session: Option<String>,
        /// The session database (default: the user's sessions.db).
        #[arg(long, value_name = "DB")]
        db: Option<PathBuf>,
        /// Print the card as JSON.
        #[arg(long)]
        json: bool,
    },
}

#[derive(Debug, Subcommand)]
pub enum LoreCommand {
    /// Check a lorebook (SillyTavern world info, a character book, or
    /// Narratoria lore) and add it to a story or a scenario.
    Import {
        /// The lorebook file (JSON).
        file: PathBuf,
        /// The story (session id) to add it to.
        #[arg(long, value_name = "ID", conflicts_with = "scenario")]
        session: Option<String>,
        /// The scenario to add it to (a built-in one is copied to the
        /// user's scenarios folder first).
        #[arg(long, value_name = "NAME")]
        scenario: Option<String>,
        /// The session database (default: the user's sessions.db).
        #[arg(long, value_name = "DB")]
        db: Option<PathBuf>,
        /// Print the entries as JSON.
        #[arg(long)]
        json: bool,
    },
}
