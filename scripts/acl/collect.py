#!/usr/bin/env python3
"""Joins ACL's stats (WORK/stats/*.sjson) and skel's KeyFormat::Fixed clips (WORK/ours.jsonl)
per clip into OUT.json and prints the markdown table of docs/bench-compression.md; with
VARIABLE.json, does the same for KeyFormat::Variable (WORK/ours_variable.jsonl).

usage: collect.py WORK OUT.json COMMIT COMPILER [VARIABLE.json]

With ACL_FROM=ACL.json in the environment, ACL's figures are taken from that earlier output of
this script (its "acl" objects, per clip id) instead of WORK/stats: skel's side measured again
beside ACL's committed run, when the clips ACL was given have not changed.
"""
import datetime
import json
import os
import re
import sys
from pathlib import Path

ACL_KEYS = {"raw_size", "compressed_size", "compression_ratio", "compression_time",
            "max_error", "num_samples", "num_bones", "looping"}


def acl_stats(path):
    """The top-level scalars of ACL's first run (its sjson is `key = value` a line)."""
    out = {}
    for line in path.read_text().splitlines():
        m = re.match(r"^\t\t(\w+) = (.+)$", line)
        if m and m.group(1) in ACL_KEYS:
            v = m.group(2).strip().strip('"')
            out[m.group(1)] = {"true": True, "false": False}.get(v, v)
            if isinstance(out[m.group(1)], str):
                out[m.group(1)] = float(v) if "." in v or "e" in v else int(v)
    return out


def acl_source():
    """Where ACL's figures come from, for the JSON."""
    if not os.environ.get("ACL_FROM"):
        return "this run"
    return "kept from " + os.environ.get("ACL_FROM_NAME", os.environ["ACL_FROM"]) + \
        " (the clips ACL was given are unchanged)"


def main():
    work, out, commit, compiler = Path(sys.argv[1]), Path(sys.argv[2]), sys.argv[3], sys.argv[4]
    clips = []
    earlier = None
    if os.environ.get("ACL_FROM"):
        earlier = {c["id"]: c["acl"] for c in json.loads(Path(os.environ["ACL_FROM"]).read_text())["clips"]}
    for line in (work / "ours.jsonl").read_text().splitlines():
        ours = json.loads(line)
        if earlier is not None:
            acl_figures = earlier[ours["id"]]
        else:
            acl = acl_stats(work / "stats" / f"{ours['id']}.sjson")
            acl_figures = {"raw_bytes": acl["raw_size"], "compressed_bytes": acl["compressed_size"],
                           "max_error_cm": acl["max_error"], "samples": acl["num_samples"],
                           "looping": acl.get("looping", False),
                           "build_ms": round(acl["compression_time"] * 1e3, 2)}
        clips.append({
            "id": ours["id"], "bones": ours["bones"], "samples": ours["samples"],
            "acl": acl_figures,
            "skel": {k: ours[k] for k in ("raw_bytes_all_bones", "raw_bytes_animated",
                                           "compressed_bytes", "max_error_cm", "p99_error_cm",
                                           "times", "build_ms")},
        })
    total = {
        "acl_compressed_bytes": sum(c["acl"]["compressed_bytes"] for c in clips),
        "skel_compressed_bytes": sum(c["skel"]["compressed_bytes"] for c in clips),
        "raw_bytes_all_bones": sum(c["skel"]["raw_bytes_all_bones"] for c in clips),
        "raw_bytes_animated": sum(c["skel"]["raw_bytes_animated"] for c in clips),
    }
    doc = {
        "what": "skel compressed clips (ACL's 0.01 cm bound on a 3 cm shell in the model's units, "
                "skel's error against the clip itself in f64) beside ACL 2.1.0's "
                "acl_compressor at its default settings, on the same clips",
        "date": datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d %H:%M UTC"),
        "commit": commit, "compiler": compiler, "acl": "v2.1.0",
        "command": "bash scripts/acl/compare.sh",
        "acl_figures": acl_source(),
        "clips": clips, "total": total,
    }
    out.write_text(json.dumps(doc, indent=1) + "\n")
    if len(sys.argv) > 5:
        variable(work, Path(sys.argv[5]), clips, commit)
    print("| clip | J | samples | ACL bytes | skel bytes | skel / ACL | ACL max (cm, at samples) "
          "| skel max / p99 (cm, 240 Hz + keys) | ACL ratio (all bones) | skel ratio (all bones / animated) |")
    print("|---|---|---|---|---|---|---|---|---|---|")
    rows = clips + [{"id": "**total**", "bones": "", "samples": "",
                     "acl": {"compressed_bytes": total["acl_compressed_bytes"], "max_error_cm": max(c["acl"]["max_error_cm"] for c in clips)},
                     "skel": {"compressed_bytes": total["skel_compressed_bytes"],
                              "raw_bytes_all_bones": total["raw_bytes_all_bones"],
                              "raw_bytes_animated": total["raw_bytes_animated"],
                              "max_error_cm": max(c["skel"]["max_error_cm"] for c in clips),
                              "p99_error_cm": max(c["skel"]["p99_error_cm"] for c in clips)}}]
    for c in rows:
        print(row(c, c["acl"], c["skel"]) + " |")


def row(clip, acl, skel):
    """One clip's table row, ACL's figures beside skel's (without the closing bar)."""
    return (f"| {clip['id']} | {clip['bones']} | {clip['samples']} | {acl['compressed_bytes']} | "
            f"{skel['compressed_bytes']} | {skel['compressed_bytes'] / acl['compressed_bytes']:.2f} | "
            f"{acl['max_error_cm']:.4f} | {skel['max_error_cm']:.4f} / {skel['p99_error_cm']:.4f} | "
            f"{skel['raw_bytes_all_bones'] / acl['compressed_bytes']:.1f} | "
            f"{skel['raw_bytes_all_bones'] / skel['compressed_bytes']:.1f} / "
            f"{skel['raw_bytes_animated'] / skel['compressed_bytes']:.2f}")


def variable(work, out, clips, commit):
    """KeyFormat::Variable's figures beside ACL's (from `clips`), into `out`, and their table."""
    acl = {c["id"]: c["acl"] for c in clips}
    rows = []
    for line in (work / "ours_variable.jsonl").read_text().splitlines():
        ours = json.loads(line)
        rows.append({"id": ours["id"], "bones": ours["bones"], "samples": ours["samples"],
                     "acl": acl[ours["id"]],
                     "skel_variable": {k: ours[k] for k in (
                         "raw_bytes_all_bones", "raw_bytes_animated", "compressed_bytes",
                         "stored_bytes", "max_error_cm", "p99_error_cm", "times",
                         "build_ms")}})
    a = sum(r["acl"]["compressed_bytes"] for r in rows)
    v = sum(r["skel_variable"]["compressed_bytes"] for r in rows)
    f = sum(r["skel_variable"]["stored_bytes"] for r in rows)
    doc = {
        "what": "skel's KeyFormat::Variable clips (ACL's 0.01 cm bound on a 3 cm shell in the "
                "model's units, skel's error against the clip itself in f64) beside "
                "ACL 2.1.0's acl_compressor at its default settings, on the same clips",
        "date": datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d %H:%M UTC"),
        "commit": commit, "command": "bash scripts/acl/compare.sh",
        "acl_figures": acl_source(),
        "clips": rows,
        "total": {"acl_bytes": a, "skel_variable_bytes": v, "skel_over_acl": round(v / a, 4),
                  "skel_stored_bytes": f, "stored_over_acl": round(f / a, 4)},
    }
    out.write_text(json.dumps(doc, indent=1) + "\n")
    print("| clip | J | samples | ACL bytes | skel bytes | skel / ACL | ACL max (cm, at samples) "
          "| skel max / p99 (cm, 240 Hz + keys) | ACL ratio (all bones) "
          "| skel ratio (all bones / animated) | skel build (ms) | skel file bytes | file / ACL |")
    print("|---|---|---|---|---|---|---|---|---|---|---|---|---|")

    def stored(o, acl_bytes):
        return f" {o['stored_bytes']} | {o['stored_bytes'] / acl_bytes:.3f} |"
    for r in rows:
        print(row(r, r["acl"], r["skel_variable"]) + f" | {r['skel_variable']['build_ms']:.0f} |"
              + stored(r["skel_variable"], r["acl"]["compressed_bytes"]))
    ours = [r["skel_variable"] for r in rows]
    total = {"id": "**total**", "bones": "", "samples": ""}
    total_acl = {"compressed_bytes": a, "max_error_cm": max(r["acl"]["max_error_cm"] for r in rows)}
    total_ours = {"compressed_bytes": v, **{k: sum(o[k] for o in ours) for k in (
                      "raw_bytes_all_bones", "raw_bytes_animated", "stored_bytes")},
                  **{k: max(o[k] for o in ours) for k in ("max_error_cm", "p99_error_cm")}}
    print(row(total, total_acl, total_ours) + " |  |" + stored(total_ours, a))
    print()


main()
