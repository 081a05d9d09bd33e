#!/bin/bash
# Issue 47's figures for docs/bench-gpu.md ("Posing with 3x4 bones, bounds and culling"):
# skel bench gpu crowd with --posing gpu on CesiumMan, per-node layout, two interleaved rounds:
# - 1 000 000 posed, pose only: 4x4 through the facade (the 0.967 ms row of bench-crowds.md),
#   3x4 (--bone-layout 3x4), then with bounds and culling (--cull, half the crowd in front of the
#   camera) for 3x4 and 4x4; the 3x4 row also measures the compute-copy bandwidth (--copy-mib);
# - 100 000 posed, culled and skinned (3x4 and 4x4), and posed and skinned without culling
#   (4x4 through the facade: the 5.35 ms row; 3x4);
# - the CPU path beside them (100 000, posed on every core, uploaded, skinned);
# - 1 000 000 3x4 posed alone at each per-node workgroup size (--pose-group 64, 128, 256), and
#   culled with the pose pass writing the boxes (--cull --bounds pose) at each size: the
#   issue's pose + bounds + cull target (<= 0.5 ms on the H200) is pose_cull_gpu_ms there.
# Run on the lent GPU machine as scripts/h200/gpu_posing.sh is (carry: .gl, .devbin). Every run
# appends one JSON object to $OUT/cull.jsonl (GPU posing) or $OUT/cpu.jsonl; the log goes to
# $OUT/log.txt, the machine to $OUT/env.txt. N1 and N2 (default 1000000 and 100000) and FRAMES
# (default 30) shrink it for a dry run on lavapipe. GROUP_ONLY=1 runs only the --pose-group rows
# (both rounds), to fit one device command when the rest is already measured.
set -u
source scripts/h200/prelude.sh
N1=${N1:-1000000}; N2=${N2:-100000}; F=${FRAMES:-30}
G="$B bench gpu crowd $C --posing gpu --layout per-node --json --frames $F"
for round in 1 2; do
  if [ "${GROUP_ONLY:-0}" != 1 ]; then
  t $G --characters $N1 --no-skin >> "$OUT/cull.jsonl" 2>>"$L"
  if [ "$round" = 1 ]; then COPY="--copy-mib 1024"; else COPY=""; fi
  t $G --characters $N1 --no-skin --bone-layout 3x4 $COPY >> "$OUT/cull.jsonl" 2>>"$L"
  t $G --characters $N1 --no-skin --bone-layout 3x4 --cull >> "$OUT/cull.jsonl" 2>>"$L"
  t $G --characters $N1 --no-skin --bone-layout 4x4 --cull >> "$OUT/cull.jsonl" 2>>"$L"
  t $G --characters $N2 >> "$OUT/cull.jsonl" 2>>"$L"
  t $G --characters $N2 --bone-layout 3x4 >> "$OUT/cull.jsonl" 2>>"$L"
  t $G --characters $N2 --bone-layout 3x4 --cull >> "$OUT/cull.jsonl" 2>>"$L"
  t $G --characters $N2 --bone-layout 4x4 --cull >> "$OUT/cull.jsonl" 2>>"$L"
  t $B bench gpu crowd $C --posing cpu --characters $N2 --frames 20 --json >> "$OUT/cpu.jsonl" 2>>"$L"
  fi
  for PG in 64 128 256; do
    t $G --characters $N1 --no-skin --bone-layout 3x4 --pose-group $PG >> "$OUT/cull.jsonl" 2>>"$L"
    t $G --characters $N1 --no-skin --bone-layout 3x4 --pose-group $PG --cull --bounds pose >> "$OUT/cull.jsonl" 2>>"$L"
  done
done
echo done >> "$L"
