#!/usr/bin/env python3
"""Joins a device call's runs with what ran them, for committing under docs/h200/.

scripts/h200/seen.sh (and compare_builds.sh) write one bench JSON object per run into
NAME.jsonl and, before each, a line `== BUILD ARGS` into NAME.txt. This prints each object on
one line with two fields added: `build` (the binary that ran) and `args` (its arguments past
the script's common ones). Runs that printed no JSON (a failed command) are left out of the
JSON file, so the lines are matched in order only when every run printed one; otherwise it
stops with an error.

    python3 scripts/h200/tag_runs.py OUT/seen.jsonl OUT/seen.txt > docs/h200/DATE/seen/seen.jsonl
"""
import json
import re
import sys


def main(jsonl, txt):
    text = open(jsonl).read()
    heads = [line[3:].rstrip("\n") for line in open(txt) if line.startswith("== ")]
    decoder, at, objects = json.JSONDecoder(), 0, []
    while (m := re.compile(r"\S").search(text, at)) is not None:
        obj, at = decoder.raw_decode(text, m.start())
        objects.append(obj)
    if len(objects) != len(heads):
        sys.exit(f"{len(objects)} JSON objects for {len(heads)} runs: match them by hand")
    for obj, head in zip(objects, heads):
        build, _, args = head.partition(" ")
        obj["build"], obj["args"] = build, args
        print(json.dumps(obj, separators=(",", ":")))


if __name__ == "__main__":
    main(*sys.argv[1:3])
