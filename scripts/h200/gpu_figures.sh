#!/bin/bash
# Reproduces the H200 figures of docs/bench-gpu.md and docs/bench-crowds.md (the JSON files of
# docs/h200/2026-12-01/ named gpu16b_*; see that folder's README for which command wrote which).
#
# Run on the lent GPU machine from the repository root, with a release `skel` binary built here
# (`cargo build --release -p skel-cli`, stripped) in .devbin/skel, CesiumMan.glb from the shared
# assets in .devbin/, and the Vulkan loader's .deb files in .gl/ (the device README says how to
# get them). Every command's JSON goes to $OUT (the run tool brings that folder back); the text
# tables and exit codes go to $OUT/log.txt. About 4 minutes of device time in all; the 2026-12-01
# measurements ran the same commands in three calls (the rounds of the crowd split 3 + 2).
set -u
T_LIMIT=240
source scripts/h200/prelude.sh
# skel::Crowd, 10 000 CesiumMan: five linear runs, one dual-quaternion run; 1 000 once.
for r in 1 2 3 4 5; do t $B bench gpu crowd $C --characters 10000 --frames 60 --json >> "$OUT/crowd.jsonl" 2>>"$L"; done
t $B bench gpu crowd $C --characters 10000 --frames 60 --skinning dq --json >> "$OUT/crowd.jsonl" 2>>"$L"
t $B bench gpu crowd $C --characters 1000 --frames 60 --json > "$OUT/crowd_1000.json" 2>>"$L"
# Bone upload, every mode; per-character uploads with morph weights.
t $B bench gpu upload --characters 10000 --bones 19 --frames 15 --warmup 3 --json > "$OUT/upload.json" 2>>"$L"
t $B bench gpu upload --characters 1000 --bones 22 --targets 3 --frames 30 --modes separate_skeletons,separate_morph_weights,crowd_ring --json > "$OUT/upload_1000_morph.json" 2>>"$L"
t $B bench gpu upload --characters 10000 --bones 19 --targets 3 --frames 15 --warmup 3 --modes separate_skeletons,separate_morph_weights,crowd_ring --json > "$OUT/upload_10000_morph.json" 2>>"$L"
# Compute skinning at 16.7M vertices (4, 8, 16 influences), and the tuning sweep.
t $B bench gpu compute --vertices 16777216 --rounds 3 --warmup-ms 200 --iterations 20 --json > "$OUT/compute_16_r3.json" 2>>"$L"
t $B bench gpu compute --vertices 16777216 --sweep 16777216 --formats none --rounds 3 --warmup-ms 200 --json > "$OUT/sweep_16.json" 2>>"$L"
# Vertex-shader skinning: one instanced draw.
t $B bench gpu draw $C --characters 10000 --frames 60 --json > "$OUT/draw.json" 2>>"$L"
t $B bench gpu draw $C --characters 1000 --frames 60 --json > "$OUT/draw_1000.json" 2>>"$L"
echo done >> "$L"
