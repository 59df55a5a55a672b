#!/usr/bin/env python3
"""What a player notices in a played story, from `narratoria play --jsonl`.

Usage: scripts/story-report.py INPUTS.txt RESULTS.jsonl [--verbatim]

INPUTS.txt holds the player's lines as they were fed to `play --jsonl`
(lines starting with `/` and blank lines are skipped, as the command skips
them). For each turn it reports the time (the turn's root span), who told it
(the storyteller's provider, or "template"/"lost"), whether the narration
echoes the player (its first sentence repeats five or more of the player's
words in a row: lexicon `ECHO_WORDS`, docs/stories.md "Echo") and whether
the world moved beyond the deed (the game master decided a beat), then the
story's echo rate, moved turns, lost turns and p50/p95 turn time.
"""
import json
import re
import sys

ECHO_WORDS = 5


def words(text):
    return [w.lower().replace("\u2019", "'") for w in re.split(r"[^\w'\u2019]+", text) if w]


def shared_run(text, source):
    a, b = words(text), words(source)
    best, prev = 0, [0] * (len(b) + 1)
    for x in a:
        row = [0] * (len(b) + 1)
        for j, y in enumerate(b):
            if x == y:
                row[j + 1] = prev[j] + 1
                best = max(best, row[j + 1])
        prev = row
    return best


def first_sentence(text):
    m = re.search(r"[.!?\u2026](?:[\"\u201d\u2019']?)(\s|$)", text)
    return text[: m.end()] if m else text


def percentile(values, p):
    if not values:
        return 0.0
    s = sorted(values)
    k = max(0, min(len(s) - 1, round(p / 100 * len(s) + 0.5) - 1))
    return s[k]


def main():
    inputs = [l.rstrip("\n") for l in open(sys.argv[1], encoding="utf-8")]
    inputs = [l for l in inputs if l.strip() and not l.startswith("/")]
    results = [json.loads(l) for l in open(sys.argv[2], encoding="utf-8") if l.strip()]
    verbatim = "--verbatim" in sys.argv
    times, echoes, moved, lost = [], 0, 0, 0
    for n, (said, r) in enumerate(zip(inputs, results), 1):
        trace = r.get("executionTrace", [])
        tools = {t.get("toolPath", ""): t for t in trace}
        narrate = tools.get("storyteller/narrate") or {}
        provider = (narrate.get("output") or {}).get("provider") or "lost"
        gm = tools.get("game-master/direct-turn") or {}
        beats = (gm.get("output") or {}).get("beats") or []
        spans = (r.get("trace") or {}).get("spans") or []
        root = next((s for s in spans if s.get("parentSpanId") is None), None)
        seconds = (root["endMs"] - root["startMs"]) / 1000 if root else r.get("totalExecutionTimeMs", 0) / 1000
        times.append(seconds)
        narrative = r.get("narrative") or ""
        echo = shared_run(first_sentence(narrative), said) >= ECHO_WORDS
        echoes += echo
        moved += bool(beats)
        lost += provider in ("lost", "template") or not narrative.strip()
        marks = ("echo " if echo else "") + ("moved " if beats else "")
        if verbatim:
            print(f"**{n}. > {said}**  \n*{seconds:.1f} s, {provider}{', ' + marks.strip() if marks else ''}*")
            if beats:
                print(f"*game master: {'; '.join(b['kind'] + ': ' + b['text'] for b in beats)}*")
            print(f"\n{narrative}\n")
        else:
            print(f"{n:>2} {seconds:6.1f}s {provider:<9} {marks:<12} {said[:60]}")
    t = len(results)
    print(
        f"\n{t} turns: echo {echoes}/{t} ({100 * echoes / max(t, 1):.0f} %), "
        f"world moved {moved}/{t}, lost {lost}, "
        f"p50 {percentile(times, 50):.1f} s, p95 {percentile(times, 95):.1f} s"
    )


if __name__ == "__main__":
    main()
