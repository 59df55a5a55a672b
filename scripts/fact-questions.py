#!/usr/bin/env python3
"""Fact questions asked of a whole story, with a writer: how many answers
the player reads hold the fact.

Usage: scripts/fact-questions.py NARRATORIA_BIN [--half held|tune] [-- PLAY_ARGS...]

For each story of crates/core/tests/data/fact_questions.json it saves the
story's scenario (`scenarios new --from`), plays its turns and then asks
each question of the half at the terminal (`play --jsonl --new`), with the
PLAY_ARGS given (e.g. `--writer model.gguf`), in a scratch NARRATORIA_HOME.
A question is answered right when the turn's narrative names one of its
`expect` words. Prints each miss and the count per story and in all.
"""
import json
import os
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def main():
    binary = sys.argv[1]
    args = sys.argv[2:]
    half = "held"
    if "--half" in args:
        half = args[args.index("--half") + 1]
    play_args = args[args.index("--") + 1 :] if "--" in args else []
    data = json.load(open(os.path.join(ROOT, "crates/core/tests/data/fact_questions.json")))
    right = total = 0
    with tempfile.TemporaryDirectory() as home:
        env = dict(os.environ, NARRATORIA_HOME=home)
        for story in data["stories"]:
            scenario = story["scenario"]
            path = os.path.join(home, scenario["name"] + ".json")
            json.dump(scenario, open(path, "w"))
            subprocess.run([binary, "scenarios", "new", scenario["name"], "--from", path], env=env, check=True, capture_output=True)
            questions = [q for q in story["questions"] if q.get("half") == half]
            lines = [t[0] for t in story["turns"]] + [q["q"] for q in questions]
            out = subprocess.run(
                [binary, "play", "--jsonl", "--new", "--scenario", scenario["name"], "--session", os.path.join(home, "s.db"), *play_args],
                input="\n".join(lines) + "\n", env=env, capture_output=True, text=True, check=True,
            ).stdout.splitlines()
            told = [json.loads(l).get("narrative") or "" for l in out if l.strip()][len(story["turns"]):]
            got = 0
            for q, narrative in zip(questions, told):
                ok = any(e.lower() in narrative.lower() for e in q["expect"])
                got += ok
                if not ok:
                    print(f"  miss: {q['q']!r} (expect {q['expect']}) → {narrative[:160]!r}")
            print(f"{scenario['name']}: {got}/{len(questions)}")
            right += got
            total += len(questions)
    print(f"{half} half: {right}/{total} answered with the fact")


if __name__ == "__main__":
    main()
