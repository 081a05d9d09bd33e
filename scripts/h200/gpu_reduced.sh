#!/bin/bash
# The reduced joint set's rows of docs/bench-crowds.md ("Posing on the GPU"): 1 000 000
# CesiumMan, one clip, per-node and per-bone, with every bone, with the bones of the first 3
# and of the first 2 levels (`--reduced-levels`), and the first 3 levels at every 4th frame.
# Run on the lent GPU machine as scripts/h200/gpu_posing.sh is (carry: .gl, .devbin). Every run
# appends one JSON object to $OUT/reduced.jsonl; the log goes to $OUT/log.txt, the machine to
# $OUT/env.txt. About 30 s of device time.
set -u
source scripts/h200/prelude.sh
G="$B bench gpu crowd $C --posing gpu --json --no-skin --frames 30 --characters 1000000"
for round in 1 2; do
  for layout in per-node per-bone; do
    t $G --layout $layout >> "$OUT/reduced.jsonl" 2>>"$L"
    t $G --layout $layout --reduced-levels 3 >> "$OUT/reduced.jsonl" 2>>"$L"
    t $G --layout $layout --reduced-levels 2 >> "$OUT/reduced.jsonl" 2>>"$L"
    t $G --layout $layout --reduced-levels 3 --lod 4 >> "$OUT/reduced.jsonl" 2>>"$L"
  done
done
echo done >> "$L"
