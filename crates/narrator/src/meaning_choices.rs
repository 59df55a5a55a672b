//! Inputs whose value the player's words decide by meaning: a property's
//! `x-choicesByMeaning` maps each value to phrases of the deeds that call for
//! it (docs/skills.md, "Choices by meaning"). The value whose phrases are
//! most like the input is the only one the model may write, so a small model
//! cannot raise a faction's standing for an insult.

use narratoria_core::likeness::Likeness;
use serde_json::{Map, Value};

use crate::catalog::{each_input_property, fits, ToolCard};

/// The keyword a property's value-to-phrases map is named by.
pub const KEYWORD: &str = "x-choicesByMeaning";

/// How many of the phrases nearest the input vote for their value.
const NEAREST: usize = 5;
/// At most this many phrases of one property are compared (the first ones).
const MOST_PHRASES: usize = 256;

/// Limits each `x-choicesByMeaning` property of `tools` (the tools a plan
/// may use) to the value whose phrases are most like `input` (an `enum` of
/// one). Without `likeness`, or when the map is malformed or its best value
/// does not fit the property's own schema, the property is left as the
/// author wrote it. The keyword itself is always taken out: it is not for
/// the grammar. A retry of a plan passes no `likeness`, so the model chooses
/// again instead of repeating a value the script refused.
pub fn choose_by_meaning<'a>(
    tools: impl IntoIterator<Item = &'a mut ToolCard>,
    input: &str,
    likeness: Option<&dyn Likeness>,
) {
    each_input_property(tools, |o| {
        let by_value = o.remove(KEYWORD);
        if let (Some(Value::Object(by_value)), Some(likeness)) = (by_value, likeness) {
            decide(o, &by_value, input, likeness);
        }
    });
}

/// Limits `property` to the value of `by_value` most like `input`.
fn decide(
    property: &mut Map<String, Value>,
    by_value: &Map<String, Value>,
    input: &str,
    likeness: &dyn Likeness,
) {
    let mut phrases: Vec<String> = Vec::new();
    let mut owners: Vec<&str> = Vec::new();
    for (value, list) in by_value {
        for phrase in list
            .as_array()
            .into_iter()
            .flatten()
            .filter_map(Value::as_str)
        {
            if phrases.len() < MOST_PHRASES {
                phrases.push(phrase.to_string());
                owners.push(value);
            }
        }
    }
    if phrases.is_empty() {
        return;
    }
    let Ok(similarities) = likeness.similarities(input, &phrases) else {
        return;
    };
    let Some(best) = best_value(&owners, &similarities) else {
        return;
    };
    // "15" is the number 15; a word stays a string.
    let chosen = serde_json::from_str::<Value>(best).unwrap_or_else(|_| Value::String(best.into()));
    if !fits(property, &chosen) {
        return;
    }
    for k in ["minimum", "maximum", "examples"] {
        property.remove(k);
    }
    property.insert("enum".into(), Value::Array(vec![chosen]));
}

/// The value the phrases nearest the input vote for: each of the
/// [`NEAREST`] nearest phrases gives its value its similarity.
fn best_value<'a>(owners: &[&'a str], similarities: &[f32]) -> Option<&'a str> {
    let mut order: Vec<usize> = (0..similarities.len().min(owners.len()))
        .filter(|i| similarities[*i].is_finite())
        .collect();
    order.sort_by(|a, b| similarities[*b].total_cmp(&similarities[*a]));
    let mut votes: Vec<(&str, f32)> = Vec::new();
    for &i in order.iter().take(NEAREST) {
        match votes.iter_mut().find(|(v, _)| *v == owners[i]) {
            Some((_, weight)) => *weight += similarities[i],
            None => votes.push((owners[i], similarities[i])),
        }
    }
    votes
        .into_iter()
        .max_by(|a, b| a.1.total_cmp(&b.1))
        .map(|(v, _)| v)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::catalog::SkillCard;
    use serde_json::json;

    fn with_meaning_choices(
        mut cards: Vec<SkillCard>,
        input: &str,
        likeness: Option<&dyn Likeness>,
    ) -> Vec<SkillCard> {
        choose_by_meaning(
            cards.iter_mut().flat_map(|c| c.tools.iter_mut()),
            input,
            likeness,
        );
        cards
    }

    /// Likeness by shared words: enough to tell an insult from a gift.
    struct SharedWords;
    impl Likeness for SharedWords {
        fn similarities(&self, query: &str, texts: &[String]) -> Result<Vec<f32>, String> {
            let q: Vec<String> = query.split_whitespace().map(str::to_lowercase).collect();
            Ok(texts
                .iter()
                .map(|t| {
                    t.split_whitespace()
                        .filter(|w| q.contains(&w.to_lowercase()))
                        .count() as f32
                })
                .collect())
        }
    }

    fn card(delta: Value) -> Vec<SkillCard> {
        let schema = json!({"type": "object", "properties": {"delta": delta}});
        vec![crate::test_cards::card(
            "reputation",
            "update-reputation",
            "",
            schema,
        )]
    }

    fn delta(cards: &[SkillCard]) -> &Value {
        &cards[0].tools[0].input_schema.as_ref().unwrap()["properties"]["delta"]
    }

    fn schema() -> Value {
        json!({"type": "integer", "minimum": -25, "maximum": 25, "examples": [-15, 15],
               KEYWORD: {"-15": ["insult the captain", "rob the temple"],
                         "15": ["save the caravan", "give gold to the temple"]}})
    }

    #[test]
    fn the_value_whose_phrases_are_most_like_the_input_is_the_only_choice() {
        let cards = with_meaning_choices(card(schema()), "I insult them", Some(&SharedWords));
        assert_eq!(delta(&cards), &json!({"type": "integer", "enum": [-15]}));
        let cards = with_meaning_choices(card(schema()), "I give gold", Some(&SharedWords));
        assert_eq!(delta(&cards), &json!({"type": "integer", "enum": [15]}));
    }

    #[test]
    fn without_likeness_or_with_a_value_the_schema_refuses_the_author_s_schema_stays() {
        let mut plain = schema();
        plain.as_object_mut().unwrap().remove(KEYWORD);
        let cards = with_meaning_choices(card(schema()), "I insult them", None);
        assert_eq!(delta(&cards), &plain);
        let mut out_of_range = schema();
        out_of_range[KEYWORD] = json!({"-99": ["insult the captain"], "15": ["save the caravan"]});
        let cards = with_meaning_choices(card(out_of_range), "I insult them", Some(&SharedWords));
        assert_eq!(delta(&cards), &plain);
        let mut malformed = schema();
        malformed[KEYWORD] = json!(["insult"]);
        let cards = with_meaning_choices(card(malformed), "I insult them", Some(&SharedWords));
        assert_eq!(delta(&cards), &plain);
    }

    /// Likeness that cannot tell: every similarity is NaN but one.
    struct Broken;
    impl Likeness for Broken {
        fn similarities(&self, _: &str, texts: &[String]) -> Result<Vec<f32>, String> {
            Ok(texts
                .iter()
                .map(|t| {
                    if t == "save the caravan" {
                        0.1
                    } else {
                        f32::NAN
                    }
                })
                .collect())
        }
    }

    #[test]
    fn a_similarity_that_is_not_a_number_gets_no_vote() {
        let cards = with_meaning_choices(card(schema()), "I insult them", Some(&Broken));
        assert_eq!(delta(&cards), &json!({"type": "integer", "enum": [15]}));
    }
}
