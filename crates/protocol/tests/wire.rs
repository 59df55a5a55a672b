//! Pinned wire forms: every envelope and event kind serialised exactly as a
//! peer sees it, compared with `tests/snapshots/*.json`, then read back by the
//! parser of the side that receives it. A change here changes the protocol
//! for every script ever written against it.
//!
//! After an intended change, rewrite the snapshots with
//! `NARRATORIA_UPDATE_SNAPSHOTS=1 cargo test -p narratoria-protocol --test wire`
//! and review the diff.

use std::path::PathBuf;

use narratoria_protocol::{
    parse_line, Asset, AssetKind, Completion, Envelope, Event, FailureCode, FinishReason,
    GenerateRequest, Generated, GenerationError, HostCapabilities, HostMessage, HostModel, Line,
    LogLevel, Message, ProtocolVersion, Reply, Role, ScriptError, StoryPlace, Usage,
};
use serde::Serialize;
use serde_json::{json, Map, Value};

/// Compares `value`'s wire line (plus a newline) with the snapshot `name`.
fn pinned<T: Serialize>(name: &str, value: &T) -> String {
    let line = serde_json::to_string(value).unwrap();
    let text = format!("{line}\n");
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("tests/snapshots")
        .join(format!("{name}.json"));
    if std::env::var_os("NARRATORIA_UPDATE_SNAPSHOTS").is_some() {
        std::fs::write(&path, &text).unwrap();
    }
    let have = std::fs::read_to_string(&path).unwrap_or_default();
    assert_eq!(
        have,
        text,
        "the wire form of {name} changed (left: {}, right: now). If the change is intended, \
         rewrite the snapshots with NARRATORIA_UPDATE_SNAPSHOTS=1 cargo test -p narratoria-protocol --test wire",
        path.display()
    );
    line
}

fn object(v: Value) -> Map<String, Value> {
    match v {
        Value::Object(m) => m,
        _ => panic!("not an object"),
    }
}

fn envelope(protocol: ProtocolVersion, host: Option<HostCapabilities>) -> Envelope {
    Envelope {
        protocol: protocol.to_string(),
        request_id: "2f1c1c56-7d3c-4a8e-9a43-6f1d1e0b9a10".into(),
        tool_id: "roll".into(),
        input: json!({"formula": "2d6+1"}),
        deps: object(json!({"lookup": {"dc": 12}, "optional": null})),
        config: json!({"maxDice": 100}),
        state: json!({"player": {"hp": 7}}),
        host,
        story: None,
    }
}

#[test]
fn envelopes() {
    let cases = [
        ("envelope-v1", envelope(ProtocolVersion::V1, None)),
        (
            "envelope-v1.1",
            envelope(
                ProtocolVersion::V1_1,
                Some(HostCapabilities {
                    generate: Some(HostModel {
                        model: "qwen2.5-1.5b-instruct-q4_k_m.gguf".into(),
                        context_tokens: 4096,
                        max_tokens: 512,
                        parameters: None,
                    }),
                }),
            ),
        ),
        (
            "envelope-v1.1-no-model",
            envelope(ProtocolVersion::V1_1, Some(HostCapabilities::default())),
        ),
        (
            "envelope-v1-story",
            Envelope {
                story: Some(StoryPlace {
                    id: "0b6f3f7e-5d1a-4f7e-9c7a-2d4b8e1f6a90".into(),
                    branch: "main".into(),
                    turn: 3,
                    turn_id: "7c1e9a52-2b4d-4c8f-a1e6-93d0f5b27c14".into(),
                    path: vec![
                        "5a0d2c8e-1f3b-4e6a-9d7c-0b2e4f6a8c1d".into(),
                        "e3b1c5d7-9f2a-4b6c-8d0e-1a3c5e7f9b2d".into(),
                    ],
                }),
                ..envelope(ProtocolVersion::V1, None)
            },
        ),
    ];
    for (name, env) in cases {
        let line = pinned(name, &env);
        assert_eq!(Envelope::parse(&line).unwrap(), env, "{name}");
    }
}

fn events() -> Vec<(&'static str, Event)> {
    vec![
        (
            "event-log",
            Event::Log {
                level: LogLevel::Warn,
                message: "dice cap reached".into(),
            },
        ),
        (
            "event-state_patch",
            Event::StatePatch {
                patch: object(json!({"player": {"hp": 5, "poisoned": null}})),
            },
        ),
        (
            "event-asset",
            Event::Asset(Asset {
                asset_id: "map-1".into(),
                kind: AssetKind::Image,
                path: Some("data/map.png".into()),
                url: None,
                mime_type: Some("image/png".into()),
                metadata: Some(json!({"width": 512})),
            }),
        ),
        (
            "event-ui_event",
            Event::UiEvent {
                event: "dice_roll".into(),
                payload: object(json!({"rolls": [3, 5], "total": 9})),
            },
        ),
        (
            "event-error",
            Event::Error(ScriptError {
                code: FailureCode::ValidationError.into(),
                message: "formula: unexpected 'x'".into(),
                recoverable: false,
                details: Some(json!({"at": 2})),
            }),
        ),
        (
            "event-done",
            Event::Done {
                ok: true,
                output: Some(json!({"total": 9})),
                summary: Some("rolled 9".into()),
            },
        ),
        (
            "event-generate",
            Event::Generate(GenerateRequest {
                id: "g1".into(),
                messages: vec![
                    Message {
                        role: Role::System,
                        content: "You narrate tersely.".into(),
                    },
                    Message {
                        role: Role::User,
                        content: "The door creaks.".into(),
                    },
                ],
                max_tokens: 200,
                temperature: Some(0.8),
                stop: vec!["\n\n".into()],
                json_schema: Some(json!({"type": "object"})),
                avoid: Vec::new(),
                stream: true,
            }),
        ),
        (
            // A narration that is not to say the player's words back.
            "event-generate-avoid",
            Event::Generate(GenerateRequest {
                id: "narrate".into(),
                messages: vec![Message {
                    role: Role::User,
                    content: "Action: I pick the lock on the back door.".into(),
                }],
                max_tokens: 120,
                temperature: None,
                stop: Vec::new(),
                json_schema: None,
                avoid: vec!["I pick the lock on the back door.".into()],
                stream: false,
            }),
        ),
        (
            // The script has what it needs: the rest is not written.
            "event-cancel",
            Event::Cancel {
                id: "narrate".into(),
            },
        ),
    ]
}

#[test]
fn events_a_script_writes() {
    for (name, event) in events() {
        let line = pinned(name, &event);
        let Line::Event(parsed, _) = parse_line(line.as_bytes()).unwrap() else {
            panic!("{name}: empty line")
        };
        assert_eq!(parsed, event, "{name}");
    }
}

#[test]
fn replies_the_host_writes() {
    let generated = |reply| {
        HostMessage::Generated(Generated {
            id: "g1".into(),
            reply,
        })
    };
    let cases = [
        (
            "generated-delta",
            generated(Reply::Delta {
                delta: "The door".into(),
            }),
        ),
        (
            "generated-done",
            generated(Reply::Done(Completion {
                done: Default::default(),
                text: "The door swings open.".into(),
                finish_reason: FinishReason::Stop,
                usage: Usage {
                    prompt_tokens: 42,
                    cached_tokens: 30,
                    completion_tokens: 6,
                    ms: 380,
                },
            })),
        ),
        (
            "generated-error",
            generated(Reply::Failed {
                error: GenerationError {
                    code: FailureCode::Timeout.into(),
                    message: "the tool's time ran out".into(),
                },
            }),
        ),
    ];
    for (name, message) in cases {
        let line = pinned(name, &message);
        assert_eq!(HostMessage::parse(&line).unwrap(), message, "{name}");
    }
}

/// The game master's table in a story's state (`state.gm`): written by the
/// game master's script, started by a scenario, read by the window and the
/// terminal, and exported with every turn.
#[test]
fn the_game_masters_table() {
    use narratoria_protocol::table::{
        Attitude, Complications, KeptFact, Scene, Someone, Table, Tables, Thread,
    };
    let table = Table {
        tension: 6,
        scene: Scene {
            number: 2,
            turns: 1,
            place: "Docking ring C".into(),
            present: vec!["Dee Marchetti".into()],
            goal: "The countdown".into(),
        },
        threads: vec![Thread {
            title: "The countdown".into(),
            progress: 1,
            steps: 4,
            closed: false,
        }],
        people: vec![Someone {
            name: "Dee Marchetti".into(),
            keys: vec!["pilot".into()],
            wants: "to take the claim and leave".into(),
            attitude: Attitude::Friendly,
            met: true,
        }],
        facts: vec![KeptFact {
            text: "Whether the hatch is sealed: no.".into(),
            question: Some("Is the hatch sealed?".into()),
            answer: Some("no".into()),
            pinned: false,
        }],
        genre: Some("science-fiction".into()),
        tables: Some(Tables {
            complications: Complications {
                minor: vec!["A system logs what you did.".into()],
                serious: Vec::new(),
            },
            events: vec!["The lights flicker and die".into()],
            ..Tables::default()
        }),
    };
    let line = pinned("state-gm", &table);
    let back: Table = serde_json::from_str(&line).unwrap();
    assert_eq!(back, table);
    // A table a scenario wrote in part reads, the rest from the defaults.
    let partial: Table = serde_json::from_value(json!({"tension": 7})).unwrap();
    assert_eq!(partial.scene, Scene::default());
}
