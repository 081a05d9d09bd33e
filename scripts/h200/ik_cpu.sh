#!/bin/bash
# Issue 42's three CPU budgets timed on a quiet machine, one core (taskset), interleaved rounds:
# one FABRIK chain alone (6 joints, 10 iterations: `chain_solves fabrik`, the build before the
# step-ahead passes as `chain_old` beside it) and in batches (`fabrik_batch`); foot placement on
# 1 000 characters (`foot_frames`, one solve each and `batch`); an inertialized blend's cost per
# joint-frame (`inertial_frames`, CesiumMan, `blend` against `still`).
#
# Run on the lent machine with .devbin holding the stripped release examples (chain_solves,
# chain_old, foot_frames, inertial_frames) and CesiumMan.glb (carry: .devbin). Every line goes to
# $OUT/ik_cpu.txt, the machine to $OUT/env.txt. About a minute. ROUNDS (default 5), CORE (default 3).
set -u
D=.devbin
OUT=${OUT:-/tmp}
{ date -u; nproc; lscpu | grep 'Model name'; } > "$OUT/env.txt" 2>&1
# inertial_frames reads the shared assets from SKEL_SHARED (skel-test-support's shared_root).
mkdir -p .devshared/assets/CesiumMan && cp $D/CesiumMan.glb .devshared/assets/CesiumMan/
export SKEL_SHARED=$PWD/.devshared
one() { echo "$(date -u +%T) $*: $(taskset -c "${CORE:-3}" "$@" 2>&1 | tail -1)" >> "$OUT/ik_cpu.txt"; }
for round in $(seq "${ROUNDS:-5}"); do
  echo "round $round" >> "$OUT/ik_cpu.txt"
  if [ $((round % 2)) = 1 ]; then A=chain_old; Bn=chain_solves; else A=chain_solves; Bn=chain_old; fi
  one $D/$A fabrik 1000000
  one $D/$Bn fabrik 1000000
  one $D/chain_solves fabrik 1000000 1
  one $D/chain_solves fabrik_batch 1000000
  one $D/foot_frames 1000 600
  one $D/foot_frames 1000 600 batch
  one $D/inertial_frames run CesiumMan 100 10 3000 still
  one $D/inertial_frames run CesiumMan 100 10 3000 blend
done
