#!/usr/bin/env python3
"""Where the pose pipeline's instructions go, per joint-frame: skel's driver or ozz's harness
under callgrind, by difference of two runs (80 and 20 timed frames after 10 warm-up frames, as
`cargo xtask bench --instructions`), each instruction charged to a phase by its inline stack.

    scripts/ozz/profile.py skel PROGRAM ASSET JOINTS      # PROGRAM = .../examples/pose_frames
    scripts/ozz/profile.py ozz  PROGRAM DIR   JOINTS      # PROGRAM = WORK/harness, DIR its asset
    … --lines                                             # and each phase's top source lines

Release builds inline almost everything into one or two functions, so callgrind's function
table says little. This asks callgrind for a cost per instruction (--dump-instr=yes), asks
addr2line for each instruction's inline stack (the line tables carry it: skel's release
profile keeps `line-tables-only`, the harness is built with -g), and charges the instruction
to the innermost frame that names a phase (RULES below). JOINTS divides both sides (skel's J).
Needs valgrind and binutils; prints one table.
"""

import os
import re
import subprocess
import sys
import tempfile
from collections import defaultdict

CHARACTERS, WARMUP, FRAMES = 100, 10, (20, 80)

# (phase, pattern), tried in this order on an instruction's inline stack written innermost
# first as "NAME@FILE | NAME@FILE | …"; the first match wins. Inlined frames carry short names
# ("slerp_soa", "{closure#0}", "FromAffine"), symbols full paths ("skel_anim::pose::bone_pass").
B = r"(^|::|\| )"  # the start of a name
RULES = {
    "skel": [
        ("TRS record (for hooks)", B + r"write_trs@"),
        ("slerp", B + r"(slerp\w*|sin_ratio|normalize_quat)@"),
        ("compose (TRS -> local matrix)", B + r"compose\w*@"),
        ("hierarchy (parent x local)", B + r"(place_step|place_rows(<\d+>)?|place_quad|place_lane(<\d+>)?|place|hierarchy_pass)@"),
        ("bone matrices", B + r"(bone_pass|compute_frame_bone_matrices|splat_bones|bones)@"),
        ("sampling: key search (cursors, segments)",
         r"@[^|]*(tracks|timeline)\.rs|" + B + r"(locate_segments|sample_generic|search)@"),
        ("sampling: key loads, lerp of T and S, selects", r"@[^|]*quads\.rs"),
        ("clock, tick, bookkeeping",
         r"@[^|]*(controller|clock|instances|pose|poser|group|player/\w+|wide/\w+)\.rs|tick_all"),
    ],
    "ozz": [
        ("skinning multiply (model x inverse bind)", r"SkinningMatrices"),
        ("LocalToModelJob: compose (SoaFloat4x4::FromAffine)", r"FromAffine.*LocalToModelJob"),
        ("LocalToModelJob: transpose to matrices", r"Transpose16x16.*LocalToModelJob"),
        ("LocalToModelJob: parent x local, loop", r"LocalToModelJob"),
        ("SamplingJob: key cache update (cursors)", B + r"(UpdateCache|InitializeCache|OutdateCache|TrackForward|TrackBackward)\b"),
        ("SamplingJob: decompress keys", B + r"Decompress\w*\b"),
        ("SamplingJob: interpolate (lerp, nlerp)", B + r"Interpolates\b"),
        ("SamplingJob: the rest of Run (step, spans, loops)", r"SamplingJob|@[^|]*sampling_job"),
        ("harness frame loop (clock, job set-up)", B + r"Frame\b"),
    ],
}


def callgrind(cmd, out):
    subprocess.run(
        ["valgrind", "--tool=callgrind", "--dump-instr=yes", "--compress-strings=no",
         "--compress-pos=no", f"--callgrind-out-file={out}"] + cmd,
        check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)


def self_costs(path, program):
    """Self cost per instruction address of `program`'s own object; other objects (libc,
    libm, the loader) summed under their file name."""
    costs = defaultdict(int)
    ob = ""
    skip_next = False
    with open(path) as f:
        for line in f:
            if line.startswith("ob="):
                ob = line[3:].strip()
                continue
            if line.startswith("calls="):
                skip_next = True  # the next cost line is the call's inclusive cost
                continue
            if not line[:1].isdigit() and not line.startswith("0x"):
                continue
            if skip_next:
                skip_next = False
                continue
            parts = line.split()
            if len(parts) < 3:
                continue
            ir = int(parts[2])
            if os.path.realpath(ob) == os.path.realpath(program):
                costs[int(parts[0], 0)] += ir
            else:
                costs["other: " + os.path.basename(ob)] += ir
    return costs


def inline_stacks(program, addrs):
    """addr -> ["NAME@FILE:LINE", …] innermost first. callgrind writes a position-independent
    executable's addresses as the file's own (no load bias)."""
    out = subprocess.run(
        ["addr2line", "-e", program, "-f", "-i", "-C", "-a"],
        input="\n".join(hex(a) for a in addrs), capture_output=True, text=True,
        check=True).stdout.splitlines()
    stacks, current, i = {}, None, 0
    lookup = {a: a for a in addrs}
    while i < len(out):
        line = out[i]
        if line.startswith("0x"):
            current = lookup.get(int(line, 16))
            stacks[current] = []
            i += 1
            continue
        location = out[i + 1] if i + 1 < len(out) else ""
        stacks[current].append(line + "@" + location)
        i += 2  # function, then file:line
    for stack in stacks.values():
        # An intrinsic inlined without a name of its own shows the symbol's name (the
        # outermost frame's): keep only its file.
        if len(stack) > 1 and stack[0].split("@")[0] == stack[-1].split("@")[0]:
            stack[0] = "@" + stack[0].split("@", 1)[1]
    return stacks


def phase(stack, rules):
    joined = " | ".join(stack)
    for name, pattern in rules:
        if re.search(pattern, joined):
            return name
    return "other: " + (stack[-1] if stack else "?")


def main():
    lines = sys.argv[5:] == ["--lines"]
    if len(sys.argv) != 5 + lines or sys.argv[1] not in RULES:
        print(__doc__, file=sys.stderr)
        return 2
    side, program, target, joints = sys.argv[1], os.path.abspath(sys.argv[2]), sys.argv[3], int(sys.argv[4])
    prefix = [program, "run", target] if side == "skel" else [program, target]
    with tempfile.TemporaryDirectory() as tmp:
        runs = []
        for frames in FRAMES:
            out = os.path.join(tmp, f"cg.{frames}")
            callgrind(prefix + [str(CHARACTERS), str(WARMUP), str(frames)], out)
            runs.append(self_costs(out, program))
    delta = defaultdict(int)
    for key in set(runs[0]) | set(runs[1]):
        delta[key] = runs[1].get(key, 0) - runs[0].get(key, 0)
    addrs = [a for a in delta if isinstance(a, int) and delta[a] != 0]
    stacks = inline_stacks(program, addrs)
    phases = defaultdict(int)
    by_line = defaultdict(lambda: defaultdict(int))
    for key, ir in delta.items():
        if ir == 0:
            continue
        stack = stacks.get(key, [])
        name = phase(stack, RULES[side]) if isinstance(key, int) else key
        phases[name] += ir
        # The innermost frame in our own sources (crates/ or scripts/), as file:line.
        own = [f.split("@", 1)[1] for f in stack if any(k in f for k in ("/crates/skel", "/scripts/", "/src/animation/", "/include/ozz/"))]
        by_line[name][own[0].split("/crates/")[-1] if own else "?"] += ir
    per = (FRAMES[1] - FRAMES[0]) * CHARACTERS * joints
    total = sum(phases.values())
    print(f"{side} {target}: instructions per joint-frame by phase (J = {joints})")
    for name, ir in sorted(phases.items(), key=lambda kv: -kv[1]):
        if abs(ir) / per >= 0.05:
            print(f"  {ir / per:8.1f}  {100 * ir / total:5.1f} %  {name}")
            top = sorted(by_line[name].items(), key=lambda kv: -kv[1])[:8] if lines else []
            for where, n in top:
                print(f"            {n / per:8.1f}  {where}")
    print(f"  {total / per:8.1f}  100.0 %  total")
    return 0


if __name__ == "__main__":
    sys.exit(main())
