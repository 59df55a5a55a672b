//! The built-in "no tool" class: player inputs that need no mechanics at
//! all, only the narration the host adds to every turn. A turn whose input
//! is closer to these than to any skill's examples uses no skill.

use crate::candidates::ExampleLanguages;

/// The narration-only inputs a router reads: the English ones, and where it
/// reads every language's examples ([`ExampleLanguages::Every`]) those
/// written in French, Spanish and German (`narration-only/*.txt`, one input
/// a line).
pub fn narration_only(languages: ExampleLanguages) -> Vec<String> {
    let mut texts: Vec<String> = NARRATION_ONLY.iter().map(|s| s.to_string()).collect();
    if languages == ExampleLanguages::Every {
        texts.extend(
            IN_OTHER_LANGUAGES
                .iter()
                .flat_map(|file| file.lines())
                .map(str::trim)
                .filter(|line| !line.is_empty())
                .map(str::to_string),
        );
    }
    texts
}

/// The narration-only inputs written in other languages, one file each.
const IN_OTHER_LANGUAGES: &[&str] = &[
    include_str!("../narration-only/fr.txt"),
    include_str!("../narration-only/es.txt"),
    include_str!("../narration-only/de.txt"),
];

/// Inputs that call for narration only, written the way players talk.
pub const NARRATION_ONLY: &[&str] = &[
    "I look around",
    "look around the room",
    "what can I see from here?",
    "describe the village square",
    "tell me more about this place",
    "what does the old man look like",
    "I walk into the tavern",
    "we keep walking along the river",
    "head back to town",
    "I go upstairs to my room",
    "I sit down and have a drink",
    "I order some stew and bread",
    "I eat my rations",
    "we make camp and rest for the night",
    "I go to sleep",
    "wait an hour",
    "I wave at the children playing in the street",
    "hi!",
    "good morning everyone",
    "I nod politely and move on",
    "I thank her for the help",
    "I say goodbye to the blacksmith",
    "I ask the barkeep what's new in town",
    "we chat with the other travellers by the fire",
    "I tell my friends a story from my childhood",
    "I laugh at his joke",
    "I hum a tune",
    "I open my pack and check my gear",
    "I change into dry clothes",
    "I sharpen my knife by the fire",
    "I feed my horse",
    "I stretch and yawn",
    "I open the window",
    "I close the door behind me",
    "I sit on the bench and watch people pass",
    "I admire the view from the hill",
    "I listen to the rain on the roof",
    "we enter the city through the main gate",
    "continue the story",
    "go on",
    "next",
    "yes",
    "sure, let's go",
    "what happens next?",
    "I follow my companion",
    "I lean against the wall and wait",
    "describe the weather",
    "paint me a picture of the forest at night",
    "I take off my boots and relax",
    "I pour myself a cup of tea",
    "I light the candle on the table",
    "I step outside for some fresh air",
    "I browse the stalls without buying anything",
    "the party rides toward the mountains",
    "I smile",
    "I shrug",
    "I think about home for a while",
    "i write a letter to my mother",
    "let's just enjoy the evening",
    "I put the map back in my bag",
];

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn other_languages_narration_only_inputs_are_read_by_a_multilingual_router_alone() {
        let english = narration_only(ExampleLanguages::English);
        assert_eq!(english.len(), NARRATION_ONLY.len());
        let every = narration_only(ExampleLanguages::Every);
        assert!(every.len() >= english.len() + 3 * 40, "{}", every.len());
        assert!(every.iter().all(|t| !t.trim().is_empty() && t.len() <= 300));
        for file in IN_OTHER_LANGUAGES {
            let first = file.lines().next().unwrap().trim();
            assert!(every.iter().any(|t| t == first), "{first}");
        }
    }
}
