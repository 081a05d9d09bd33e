#!/bin/bash
# The CPU cull's time on a quiet many-core machine (issue 45's "CPU bounds: at most 5 ns per
# joint"): skel bench gpu crowd --posing cpu --cull (every CesiumMan boxed from its 19 bone
# matrices and tested against the camera, half the crowd in front of it) at 10 000 and 100 000
# characters, on one thread (RAYON_NUM_THREADS=1) and on every core, three interleaved rounds.
# The JSON's cull_cpu_ns_per_bone is the figure. Then, unless GPU=0, issue 47's GPU rows
# (scripts/h200/gpu_cull.sh) in the same call.
#
# Run on the lent GPU machine as scripts/h200/gpu_posing.sh is (carry: .gl, .devbin). Every run
# appends one JSON object to $OUT/cpu_cull.jsonl; the log goes to $OUT/log.txt, the machine to
# $OUT/env.txt. About a minute of device time without the GPU rows. NS (default "10000 100000")
# shrinks it for a dry run on lavapipe.
set -u
source scripts/h200/prelude.sh
CPU="$B bench gpu crowd $C --posing cpu --cull --no-skin --json"
for round in 1 2 3; do
  for n in ${NS:-10000 100000}; do
    RAYON_NUM_THREADS=1 t $CPU --characters $n --frames 60 >> "$OUT/cpu_cull.jsonl" 2>>"$L"
    t $CPU --characters $n --frames 60 >> "$OUT/cpu_cull.jsonl" 2>>"$L"
  done
done
echo "cpu rows done" >> "$L"
if [ "${GPU:-1}" = 1 ]; then
  bash scripts/h200/gpu_cull.sh
fi
