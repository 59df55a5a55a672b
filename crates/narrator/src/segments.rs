//! Plans written in segments: the host writes the structure of the compact
//! form and everything already decided (each tool's `use` once its script is
//! chosen, the first required input key); the model writes the narrative,
//! the choice between a skill's scripts, and the inputs, each under its own
//! grammar. Text the host writes is read like prompt text, many tokens per
//! step, instead of being decoded one token at a time.

use serde_json::Value;

use crate::catalog::ToolCard;
use crate::compact::{
    after_narrative, generation_input_schema, grammar, item_schema, narrative_grammar, tool_id,
    CompactLimits,
};
use crate::error::NarratorError;
use crate::worker::{Continuation, Next, Segment};

/// The answer's start, written by the host.
pub const ANSWER_START: &str = "{\"narrative\":\"";
/// What follows the narrative when the plan has tools.
const TOOLS_START: &str = ",\"tools\":[";

/// The first segment (the narrative) and the continuation that writes one
/// tool from each group in turn (`groups` of a skill's tools, in order).
/// Without `narrative` wanted, a plan with tools gets an empty one from the
/// host and its first segment is the first tool's.
pub fn one_tool_per_group(
    groups: Vec<Vec<ToolCard>>,
    limits: CompactLimits,
    typed: bool,
    narrative: bool,
) -> (Segment, Continuation) {
    let (then, max_chars) = if groups.is_empty() {
        ("}", limits.narrative_max_chars)
    } else {
        (TOOLS_START, limits.narrative_with_tools_max_chars)
    };
    let first = Segment {
        forced: ANSWER_START.to_string(),
        grammar: narrative_grammar(max_chars, then),
        grammar_start: "\"".to_string(),
    };
    let has_tools = !groups.is_empty();
    let mut writer = Writer {
        groups,
        limits,
        typed,
        step: Step::Narrative,
        item_at: 0,
        ids: Vec::new(),
    };
    if has_tools && !narrative {
        let opened = format!("{ANSWER_START}\"");
        if let Ok(Next::Segment(tool)) = writer.start_group(0, &opened, TOOLS_START) {
            let first = Segment {
                forced: format!("{opened}{}", tool.forced),
                ..tool
            };
            return (first, Box::new(move |text: &str| writer.next(text)));
        }
    }
    (first, Box::new(move |text: &str| writer.next(text)))
}

enum Step {
    Narrative,
    /// The model is choosing among group `g`'s scripts.
    Choice(usize),
    /// The model is writing group `g`'s tool.
    Item(usize),
}

struct Writer {
    groups: Vec<Vec<ToolCard>>,
    limits: CompactLimits,
    typed: bool,
    step: Step,
    /// Where the current tool's object starts in the answer.
    item_at: usize,
    /// Ids of the tools written so far.
    ids: Vec<String>,
}

impl Writer {
    fn next(&mut self, text: &str) -> Result<Next, NarratorError> {
        match self.step {
            Step::Narrative => {
                let then = if self.groups.is_empty() {
                    "}"
                } else {
                    TOOLS_START
                };
                // The model may have closed the string with the start of what follows.
                let written = after_narrative(text);
                if !then.starts_with(written) {
                    return Err(NarratorError::InvalidOutput(format!(
                        "unexpected text after the narrative: {written:?}"
                    )));
                }
                if self.groups.is_empty() {
                    return Ok(Next::Finish(then[written.len()..].to_string()));
                }
                self.start_group(0, text, &TOOLS_START[written.len()..])
            }
            Step::Choice(g) => {
                let path = chosen_path(&text[self.item_at..])?;
                let tool = self.groups[g]
                    .iter()
                    .find(|t| t.path == path)
                    .cloned()
                    .ok_or_else(|| {
                        NarratorError::InvalidOutput(format!("{path:?} is not an offered tool"))
                    })?;
                let opening = self.input_opening(&tool);
                let start = format!("{{\"use\":{},\"input\":{opening}", json_str(&tool.path));
                self.step = Step::Item(g);
                Ok(Next::Segment(Segment {
                    forced: format!(",\"input\":{opening}"),
                    grammar: grammar(&item_schema(
                        std::slice::from_ref(&tool),
                        self.limits,
                        self.typed,
                        &self.ids,
                    ))?,
                    grammar_start: start,
                }))
            }
            Step::Item(g) => {
                let item: Value = serde_json::from_str(&text[self.item_at..]).map_err(|e| {
                    NarratorError::InvalidOutput(format!("tool {} is not JSON: {e}", g + 1))
                })?;
                let mut id = tool_id(item["use"].as_str().unwrap_or_default());
                if self.ids.contains(&id) {
                    id = format!("{id}-{}", g + 1);
                }
                self.ids.push(id);
                if g + 1 == self.groups.len() {
                    return Ok(Next::Finish("]}".to_string()));
                }
                self.start_group(g + 1, text, ",")
            }
        }
    }

    /// The segment that begins group `g`'s tool after `lead`.
    fn start_group(&mut self, g: usize, text: &str, lead: &str) -> Result<Next, NarratorError> {
        let tools = &self.groups[g];
        self.item_at = text.len() + lead.len();
        if let [tool] = tools.as_slice() {
            let opening = self.input_opening(tool);
            let start = format!("{{\"use\":{},\"input\":{opening}", json_str(&tool.path));
            self.step = Step::Item(g);
            return Ok(Next::Segment(Segment {
                forced: format!("{lead}{start}"),
                grammar: grammar(&item_schema(tools, self.limits, self.typed, &self.ids))?,
                grammar_start: start,
            }));
        }
        // The model picks the script: `"<skill>/` then one of the script names.
        let skill = tools[0].path.split('/').next().unwrap_or_default();
        let choices: Vec<String> = tools
            .iter()
            .map(|t| {
                let script = t.path.rsplit('/').next().unwrap_or_default();
                gbnf_literal(&format!("{script}\""))
            })
            .collect();
        let open = json_str(&format!("{skill}/"));
        let open = &open[..open.len() - 1];
        self.step = Step::Choice(g);
        Ok(Next::Segment(Segment {
            forced: format!("{lead}{{\"use\":{open}"),
            grammar: format!(
                "root ::= {} ({})\n",
                gbnf_literal(open),
                choices.join(" | ")
            ),
            grammar_start: open.to_string(),
        }))
    }

    /// The start of `tool`'s input the host can write: `{"<first required key>":`
    /// (and the opening quote of a string value), when the input schema has
    /// required properties; the grammar lists required properties first, in
    /// the order of `properties`.
    fn input_opening(&self, tool: &ToolCard) -> String {
        if !self.typed {
            return String::new();
        }
        let schema = generation_input_schema(
            tool.input_schema.as_ref(),
            self.limits.input_string_max_chars,
        );
        let required: Vec<&str> = schema["required"]
            .as_array()
            .map(|r| r.iter().filter_map(Value::as_str).collect())
            .unwrap_or_default();
        let Some((key, prop)) = schema["properties"]
            .as_object()
            .and_then(|p| p.iter().find(|(k, _)| required.contains(&k.as_str())))
        else {
            return String::new();
        };
        let string = prop["type"] == "string"
            && prop.get("enum").is_none()
            && prop.get("const").is_none()
            && prop.get("pattern").is_none()
            && prop.get("format").is_none();
        format!("{{{}:{}", json_str(key), if string { "\"" } else { "" })
    }
}

/// The toolPath in a tool's start `{"use":"<path>"`.
fn chosen_path(item: &str) -> Result<String, NarratorError> {
    item.strip_prefix("{\"use\":")
        .and_then(|s| serde_json::from_str::<String>(s).ok())
        .ok_or_else(|| NarratorError::InvalidOutput(format!("no tool chosen in {item:?}")))
}

fn json_str(s: &str) -> String {
    serde_json::to_string(s).unwrap_or_else(|_| "\"\"".to_string())
}

/// `text` as a GBNF string literal.
fn gbnf_literal(text: &str) -> String {
    let mut out = String::from("\"");
    for c in text.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            c => out.push(c),
        }
    }
    out.push('"');
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn tool(path: &str, schema: Value) -> ToolCard {
        ToolCard {
            path: path.into(),
            description: None,
            input_schema: Some(schema.clone()),
            declared_schema: Some(schema),
        }
    }

    fn memory() -> Vec<ToolCard> {
        vec![
            tool(
                "memory/store-memory",
                json!({"type":"object","properties":{"importance":{"type":"integer"},"summary":{"type":"string"}},"required":["summary"]}),
            ),
            tool(
                "memory/recall-memory",
                json!({"type":"object","properties":{"query":{"type":"string"}},"required":["query"]}),
            ),
        ]
    }

    fn dice() -> Vec<ToolCard> {
        vec![tool(
            "dice-roller/roll-dice",
            json!({"type":"object","properties":{"formula":{"type":"string"},"reason":{"type":"string"}},"required":["formula"]}),
        )]
    }

    fn segment(n: Next) -> Segment {
        match n {
            Next::Segment(s) => s,
            Next::Finish(f) => panic!("finished early with {f:?}"),
        }
    }

    #[test]
    fn writes_the_structure_around_the_model() {
        let (first, mut next) =
            one_tool_per_group(vec![memory(), dice()], CompactLimits::default(), true, true);
        assert_eq!(first.forced, ANSWER_START);
        // The model closed the narrative with `",`.
        let mut text = String::from("{\"narrative\":\"You note it.\",");
        let choice = segment(next(&text).unwrap());
        assert_eq!(choice.forced, "\"tools\":[{\"use\":\"memory/");
        assert!(
            choice.grammar.contains("\"store-memory\\\"\""),
            "{}",
            choice.grammar
        );
        text.push_str(&choice.forced);
        text.push_str("store-memory\"");
        let item = segment(next(&text).unwrap());
        // The required key comes first, whatever the order of `properties`.
        assert_eq!(item.forced, ",\"input\":{\"summary\":\"");
        assert_eq!(
            item.grammar_start,
            "{\"use\":\"memory/store-memory\",\"input\":{\"summary\":\""
        );
        text.push_str(&item.forced);
        text.push_str("Mara owes ten gold.\"}}");
        let second = segment(next(&text).unwrap());
        assert_eq!(
            second.forced,
            ",{\"use\":\"dice-roller/roll-dice\",\"input\":{\"formula\":\""
        );
        assert!(
            second.grammar.contains("store-memory"),
            "after names the earlier tool"
        );
        text.push_str(&second.forced);
        text.push_str("1d20\"}}");
        match next(&text).unwrap() {
            Next::Finish(end) => text.push_str(&end),
            Next::Segment(s) => panic!("unexpected {s:?}"),
        }
        let plan: Value = serde_json::from_str(&text).unwrap();
        assert_eq!(plan["tools"][1]["input"]["formula"], "1d20");
    }

    #[test]
    fn without_a_narrative_wanted_the_host_writes_an_empty_one() {
        let (first, mut next) = one_tool_per_group(
            vec![dice(), memory()],
            CompactLimits::default(),
            true,
            false,
        );
        assert_eq!(
            first.forced,
            "{\"narrative\":\"\",\"tools\":[{\"use\":\"dice-roller/roll-dice\",\"input\":{\"formula\":\""
        );
        let mut text = first.forced.clone();
        text.push_str("1d20\"}}");
        let second = segment(next(&text).unwrap());
        assert_eq!(second.forced, ",{\"use\":\"memory/");
        text.push_str(&second.forced);
        text.push_str("store-memory\"");
        let item = segment(next(&text).unwrap());
        text.push_str(&item.forced);
        text.push_str("Mara owes ten gold.\"}}");
        match next(&text).unwrap() {
            Next::Finish(end) => text.push_str(&end),
            Next::Segment(s) => panic!("unexpected {s:?}"),
        }
        let plan: Value = serde_json::from_str(&text).unwrap();
        assert_eq!(plan["narrative"], "");
        assert_eq!(plan["tools"][1]["input"]["summary"], "Mara owes ten gold.");
    }

    #[test]
    fn narrative_only_plans_close_the_object() {
        let (first, mut next) =
            one_tool_per_group(Vec::new(), CompactLimits::default(), true, false);
        assert!(first.grammar.contains("\"}\""), "{}", first.grammar);
        match next("{\"narrative\":\"Hello.\"").unwrap() {
            Next::Finish(end) => assert_eq!(end, "}"),
            Next::Segment(s) => panic!("unexpected {s:?}"),
        }
        match next("{\"narrative\":\"Hello.\"}").unwrap() {
            Next::Finish(end) => assert_eq!(end, ""),
            Next::Segment(s) => panic!("unexpected {s:?}"),
        }
    }

    #[test]
    fn stray_text_after_the_narrative_is_an_error() {
        let (_, mut next) = one_tool_per_group(vec![dice()], CompactLimits::default(), true, true);
        assert!(next("{\"narrative\":\"a, \\\"b\\\" c\"x").is_err());
    }
}
