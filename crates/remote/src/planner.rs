//! `RemotePlanner`: the engine's [`Planner`] on a remote OpenAI-compatible
//! server. The model is asked for one Plan JSON object, with the plan's
//! schema sent where the server enforces one, and whatever it writes is
//! checked as strictly as any plan ([`crate::answer`]).

use std::sync::Arc;
use std::time::{Duration, Instant};

use narratoria_core::host::Generator;
use narratoria_core::planner::{PlanOutcome, PlanRequest, Planner, PlannerError, Transcript};
use narratoria_core::skills::Catalog;
use narratoria_core::turn::narration_step::is_host_step;
use serde_json::{json, Value};
use sha2::{Digest, Sha256};

use crate::answer;
use crate::budget::{Budget, Outcome};
use crate::catalog;
use crate::chat::{self, Ask, Ending, Reply};
use crate::error::RemoteError;
use crate::http::MAX_COMPLETION_BYTES;
use crate::prompt;
use crate::schema::{plan_schema_for, schema_fields};
use crate::server::Server;
use crate::wait::OnWait;
use crate::writer::RemoteWriter;

/// How long a turn's planning is given once the remote model is loaded: its
/// plans and replans together (docs/models.md, "External servers").
pub const REMOTE_PLAN_TIME: Duration = Duration::from_secs(30);

/// How much longer a turn's planning is given while the server has not
/// answered yet (a cold model load): given once per server, its warm-ups
/// included, and again only after the server has answered.
pub const COLD_LOAD_ALLOWANCE: Duration = Duration::from_secs(120);

/// How a remote plan is asked for.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct PlannerOptions {
    /// How long a turn's plans and replans are given together once the
    /// model answers.
    pub plan_time: Duration,
    /// How much longer a turn's planning (warm-ups included) is given while
    /// the server may be loading the model: once, and again only after the
    /// server has answered ([`crate::budget`]).
    pub cold_load: Duration,
    /// The most tokens the model may write for one plan.
    pub max_tokens: u32,
    pub temperature: f64,
}

impl Default for PlannerOptions {
    fn default() -> Self {
        PlannerOptions {
            plan_time: REMOTE_PLAN_TIME,
            cold_load: COLD_LOAD_ALLOWANCE,
            max_tokens: 1024,
            temperature: 0.2,
        }
    }
}

/// The planner on a remote server. Cheap to share across threads: each
/// plan is one request, and nothing is held between them but the time
/// budget (whether the server has answered, what is left of the turn's
/// time and of the cold-load allowance).
pub struct RemotePlanner {
    server: Server,
    options: PlannerOptions,
    on_wait: Option<OnWait>,
    budget: Budget,
}

impl std::fmt::Debug for RemotePlanner {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("RemotePlanner")
            .field("server", &self.server)
            .field("options", &self.options)
            .field("warm", &self.is_warm())
            .finish()
    }
}

impl RemotePlanner {
    /// A planner on `server` with the default options and no wait notices.
    pub fn new(server: Server) -> RemotePlanner {
        let options = PlannerOptions::default();
        RemotePlanner {
            server,
            budget: Budget::new(options.plan_time, options.cold_load),
            options,
            on_wait: None,
        }
    }

    /// The same planner with `options`, its budget whole.
    pub fn with_options(mut self, options: PlannerOptions) -> RemotePlanner {
        self.options = options;
        self.budget = Budget::new(options.plan_time, options.cold_load);
        self
    }

    /// The same planner, calling `on_wait` when a request has waited past
    /// [`crate::WAIT_NOTICE_AFTER`] for the server's first byte (and again
    /// when it comes); `None`, never.
    pub fn with_on_wait(mut self, on_wait: Option<OnWait>) -> RemotePlanner {
        self.on_wait = on_wait;
        self
    }

    pub fn server(&self) -> &Server {
        &self.server
    }

    pub fn options(&self) -> PlannerOptions {
        self.options
    }

    /// Whether the server has answered (so the model is thought loaded).
    pub fn is_warm(&self) -> bool {
        self.budget.is_warm()
    }

    fn body(&self, system: &str, user: &str, paths: &[String]) -> Value {
        let mut body = json!({
            "model": self.server.model,
            "messages": [
                {"role": "system", "content": system},
                {"role": "user", "content": user}
            ],
            "temperature": self.options.temperature,
            "max_tokens": self.options.max_tokens.max(1),
            "stream": true,
            "stream_options": {"include_usage": true}
        });
        let schema = plan_schema_for(paths);
        for (field, value) in schema_fields(self.server.kind, "plan", &schema) {
            body[field] = value;
        }
        body
    }

    fn failed(&self, e: RemoteError) -> PlannerError {
        match e {
            RemoteError::Timeout { .. } => PlannerError::Deadline,
            e => PlannerError::Model(e.to_string()),
        }
    }

    /// Asks for the plan of `attempt` with `body`, by `deadline` and within
    /// the turn's budget, and counts the time it took there. Returns the
    /// whole answer and whether it stopped at `max_tokens`.
    fn ask_plan(
        &self,
        body: Value,
        attempt: u32,
        deadline: Instant,
    ) -> Result<(Reply, bool), PlannerError> {
        let Some(grant) = self.budget.plan(attempt) else {
            return Err(PlannerError::Deadline);
        };
        let started = Instant::now();
        let reply = chat::ask(
            Ask {
                server: &self.server,
                body,
                deadline: deadline.min(started + grant.limit),
                cancel: None,
                max_text: MAX_COMPLETION_BYTES,
                on_wait: self.on_wait.as_ref(),
                cold: grant.cold,
            },
            &mut |_| {},
        );
        let outcome = match &reply {
            Ok(Reply {
                ending: Ending::Finished { .. },
                ..
            }) => Outcome::Answered,
            // It may be loading the model.
            Ok(Reply {
                ending: Ending::Deadline | Ending::Cancelled,
                ..
            }) => Outcome::TimedOut,
            Ok(_) | Err(_) => Outcome::Failed,
        };
        self.budget.spend(grant.cold, started.elapsed(), outcome);
        let reply = reply.map_err(|e| self.failed(e))?;
        match reply.ending {
            Ending::Finished { length } => Ok((reply, length)),
            Ending::Deadline | Ending::Cancelled => Err(PlannerError::Deadline),
            Ending::TextLimit => Err(self.failed(RemoteError::TooLarge {
                server: self.server.label(),
                what: "a plan",
                limit: MAX_COMPLETION_BYTES,
            })),
        }
    }
}

/// The skills a plan may use: the enabled ones the turn has not left out,
/// and of those only the ones a player's correction names (and narration).
fn usable_cards(request: &PlanRequest<'_>) -> Vec<catalog::SkillCard> {
    let mut usable = catalog::cards(request.catalog, request.disabled_skills);
    if let Some(needed) = request.skills_needed {
        usable.retain(|c| {
            needed.contains(&c.name)
                || request
                    .catalog
                    .get(&c.name)
                    .is_some_and(|skill| skill.scripts.iter().all(|s| is_host_step(skill, s)))
        });
    }
    usable
}

impl Planner for RemotePlanner {
    /// `openai:<model>@<host:port>`.
    fn name(&self) -> String {
        format!("openai:{}@{}", self.server.model, self.server.host())
    }

    /// Asks the server for one token when it has not answered yet, so that
    /// a cold server loads the model now rather than in the first plan's
    /// time. Begins a turn's budget; waits no longer than `deadline` and
    /// what is left of the cold-load allowance, and sends nothing once the
    /// allowance is spent. A failure is left for the plan to meet.
    fn warm_up(&self, _catalog: &Catalog, deadline: Instant) {
        let Some(allowed) = self.budget.warm_up() else {
            return;
        };
        let started = Instant::now();
        let body = json!({
            "model": self.server.model,
            "messages": [{"role": "user", "content": "Say OK."}],
            "temperature": 0,
            "max_tokens": 1,
            "stream": true
        });
        let reply = chat::ask(
            Ask {
                server: &self.server,
                body,
                deadline: deadline.min(started + allowed),
                cancel: None,
                max_text: 1024,
                on_wait: self.on_wait.as_ref(),
                cold: true,
            },
            &mut |_| {},
        );
        let outcome = match &reply {
            Ok(Reply {
                ending: Ending::Finished { .. } | Ending::TextLimit,
                ..
            }) => Outcome::Answered,
            Ok(_) => Outcome::TimedOut,
            Err(_) => Outcome::Failed,
        };
        self.budget.spend(true, started.elapsed(), outcome);
    }

    /// Writes one plan; returns by `request.deadline` whatever the server
    /// does, and within what is left of the turn's budget
    /// ([`crate::budget`]): a plan with none left is
    /// [`PlannerError::Deadline`] at once, nothing sent. A server that fails
    /// is [`PlannerError::Model`] naming it; an answer that is not a usable
    /// plan is [`PlannerError::InvalidOutput`] with the reason. `on_narrative`
    /// gets the plan's narrative once the plan is checked.
    fn plan(
        &self,
        request: &PlanRequest<'_>,
        on_narrative: &mut dyn FnMut(&str),
    ) -> Result<PlanOutcome, PlannerError> {
        if Instant::now() >= request.deadline {
            return Err(PlannerError::Deadline);
        }
        let usable = usable_cards(request);
        let paths: Vec<String> = catalog::tools(&usable).map(|t| t.path.clone()).collect();
        let system = prompt::system(&catalog::cards(request.catalog, &[]));
        let user = prompt::user(request);
        let (reply, length) = self.ask_plan(
            self.body(&system, &user, &paths),
            request.attempt,
            request.deadline,
        )?;
        let plan = answer::plan_from_answer(&reply.text, request, &usable).map_err(|reason| {
            let reason = if length {
                format!(
                    "the answer stopped at its {} tokens before the plan was complete: {reason}",
                    self.options.max_tokens
                )
            } else {
                reason
            };
            PlannerError::InvalidOutput(self.server.scrub(&reason))
        })?;
        if let Some(n) = &plan.narrative {
            on_narrative(n);
        }
        Ok(PlanOutcome {
            plan,
            transcript: transcript(self.name(), &system, &user, &reply),
            routing: None,
        })
    }

    /// The most the next turn's first plan is given:
    /// [`PlannerOptions::plan_time`], and what is left of
    /// [`PlannerOptions::cold_load`] while the server may be loading the
    /// model. Each plan is held to the turn's budget besides.
    fn plan_time(&self) -> Duration {
        self.budget.next_plan_time()
    }

    /// A writer on the same server and model.
    fn generator(self: Arc<Self>) -> Option<Arc<dyn Generator>> {
        Some(Arc::new(
            RemoteWriter::new(self.server.clone()).with_on_wait(self.on_wait.clone()),
        ))
    }
}

fn transcript(planner: String, system: &str, user: &str, reply: &Reply) -> Transcript {
    let prompt = format!("[system]\n{system}\n\n[user]\n{user}");
    let hash = Sha256::digest(prompt.as_bytes());
    let usage = reply.usage.unwrap_or_default();
    Transcript {
        planner,
        prompt_hash: hash.iter().map(|b| format!("{b:02x}")).collect(),
        prompt,
        response: reply.text.clone(),
        prompt_tokens: usage.prompt_tokens,
        cached_tokens: usage.cached_tokens,
        completion_tokens: usage.completion_tokens,
        time_to_first_token_ms: reply.first_byte.unwrap_or(reply.total).as_millis() as u64,
        total_ms: reply.total.as_millis() as u64,
    }
}
