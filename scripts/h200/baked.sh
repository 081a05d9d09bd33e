#!/bin/bash
# PoseLayout::Baked against the per-node pass on the lent GPU machine: skel bench gpu crowd
# with --posing gpu on CesiumMan, 3x4 bones, two interleaved rounds of
# - 1 000 000 posed alone: per-node, baked;
# - 1 000 000 posed and culled (half the crowd in front of the camera), boxes from the bone
#   matrices (--bounds cull) and from the pose pass (--bounds pose: per-node from the joints
#   in workgroup memory, baked from the boxes baked with its frames): per-node, baked;
# - 100 000 posed, culled and skinned: per-node, baked.
# Carry .gl and .devbin as for gpu_cull.sh. N1, N2 and FRAMES shrink it for a dry run.
set -u
source scripts/h200/prelude.sh
N1=${N1:-1000000}; N2=${N2:-100000}; F=${FRAMES:-30}
G="$B bench gpu crowd $C --posing gpu --json --frames $F --bone-layout 3x4"
for round in 1 2; do
  for LAYOUT in per-node baked; do
    t $G --layout $LAYOUT --characters $N1 --no-skin >> "$OUT/baked.jsonl" 2>>"$L"
    t $G --layout $LAYOUT --characters $N1 --no-skin --cull >> "$OUT/baked.jsonl" 2>>"$L"
    t $G --layout $LAYOUT --characters $N1 --no-skin --cull --bounds pose >> "$OUT/baked.jsonl" 2>>"$L"
    t $G --layout $LAYOUT --characters $N2 --cull --bounds pose >> "$OUT/baked.jsonl" 2>>"$L"
  done
done
echo done >> "$L"
