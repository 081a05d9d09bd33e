#!/bin/bash
# The GPU-posing figures of docs/bench-crowds.md ("Posing on the GPU"): skel bench gpu crowd
# with --posing gpu at 100 000 and 1 000 000 CesiumMan (one clip, two-clip blend, the three thread
# layouts, LOD), pose + compute skinning of 100 000 (chunked past the 2 GiB binding), and
# --posing cpu beside them, the compute-copy bandwidth measured in the same runs.
#
# Run on the lent GPU machine from the repository root, with a release `skel` binary built here
# (`cargo build --release -p skel-cli`, stripped) in .devbin/skel, CesiumMan.glb from the shared
# assets in .devbin/, and the Vulkan loader's .deb files in .gl/ (carry: .gl, .devbin). Every
# run appends one JSON object to $OUT/gpu.jsonl or $OUT/cpu.jsonl; the text log and exit codes
# go to $OUT/log.txt, the machine to $OUT/env.txt. About 4 minutes of device time.
# LAYOUTS (default: all three) picks the layouts; CPU=0 leaves out the CPU rows; the
# 1 000 000-character one-clip row of each layout is run again at the end (RERUN=0: not).
set -u
source scripts/h200/prelude.sh
G="$B bench gpu crowd $C --posing gpu --json"
# Pose only (no skinned output: 1 000 000 CesiumMan would need 78 GB of it), every layout.
LAYOUTS=${LAYOUTS:-per-node per-bone per-character}
for layout in $LAYOUTS; do
  for n in 100000 1000000; do
    t $G --characters $n --frames 30 --no-skin --layout $layout --copy-mib 1024 >> "$OUT/gpu.jsonl" 2>>"$L"
    t $G --characters $n --frames 30 --no-skin --layout $layout --blend >> "$OUT/gpu.jsonl" 2>>"$L"
  done
  t $G --characters 1000000 --frames 30 --no-skin --layout $layout --lod 4 >> "$OUT/gpu.jsonl" 2>>"$L"
  # Pose + compute skinning of 100 000: the 3.9 GB output bound in chunks under 2 GiB.
  t $G --characters 100000 --frames 20 --layout $layout >> "$OUT/gpu.jsonl" 2>>"$L"
done
for layout in per-node per-bone; do
  for n in 10000 30000 300000; do
    t $G --characters $n --frames 30 --no-skin --layout $layout >> "$OUT/gpu.jsonl" 2>>"$L"
  done
done
if [ "${RERUN:-1}" = 1 ]; then
  for layout in $LAYOUTS; do
    t $G --characters 1000000 --frames 30 --no-skin --layout $layout --copy-mib 1024 >> "$OUT/gpu.jsonl" 2>>"$L"
  done
fi
[ "${CPU:-1}" = 1 ] || { echo done >> "$L"; exit 0; }
# The CPU path beside it: players on every core, every bone uploaded every frame.
t $B bench gpu crowd $C --posing cpu --characters 100000 --frames 20 --json >> "$OUT/cpu.jsonl" 2>>"$L"
for n in 10000 30000; do
  t $B bench gpu crowd $C --posing cpu --characters $n --frames 20 --no-skin --json >> "$OUT/cpu.jsonl" 2>>"$L"
done
t $B bench gpu crowd $C --posing cpu --characters 100000 --frames 20 --no-skin --copy-mib 1024 --json >> "$OUT/cpu.jsonl" 2>>"$L"
echo done >> "$L"
