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
    /// Show a skill's settings (secrets redacted), or change them with --set.
    Config {
        /// The skill's name.
        name: String,
        #[command(flatten)]
        roots: SkillRoots,
        /// key=value (dotted keys reach nested settings); may be repeated.
        #[arg(long = "set", value_name = "KEY=VALUE")]
        set: Vec<String>,
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
}

#[derive(Debug, Args)]
pub struct BenchArgs {
    /// What to measure.
    #[arg(value_parser = ["executor", "watch"])]
    pub what: String,
    /// Repetitions of each measurement (the median is reported).
    #[arg(long, default_value_t = 5)]
    pub runs: usize,
}
