#!/bin/bash
# Builds against builds on the lent GPU machine: each stripped `skel` in .devbin/v/ (named by
# what it is, e.g. base = the commit before a change) and .devbin/skel, interleaved, three
# rounds, on CesiumMan with --posing gpu and 3x4 bones:
# - 1 000 000 baked, posed alone and posed + boxed by the pose pass + culled;
# - 100 000 per-node and baked, posed, boxed by the pose pass, culled (half in view, then a
#   tenth) and skinned.
# One JSON object per run in $OUT/compare.jsonl, each preceded by a line `== BUILD ARGS` in
# $OUT/compare.txt (the JSON's fields say the rest). Carry .gl and .devbin; .xz files in
# .devbin/v are unpacked first. N1, N2 and FRAMES shrink it for a dry run on lavapipe.
set -u
source scripts/h200/prelude.sh
for f in .devbin/v/*.xz; do [ -e "$f" ] && xz -d -f "$f"; done
chmod +x .devbin/v/* 2>/dev/null
N1=${N1:-1000000}; N2=${N2:-100000}; F=${FRAMES:-30}
BUILDS="$(ls .devbin/v) skel"
run() { # build args...
  local b=$1; shift
  local bin=.devbin/v/$b; [ "$b" = skel ] && bin=$B
  echo "== $b $*" >> "$OUT/compare.txt"
  t $bin bench gpu crowd $C --posing gpu --json --frames $F --bone-layout 3x4 "$@" >> "$OUT/compare.jsonl" 2>>"$L"
}
for round in 1 2 3; do
  for b in $BUILDS; do
    run $b --layout baked --characters $N1 --no-skin
    run $b --layout baked --characters $N1 --no-skin --cull --bounds pose
    for lay in per-node baked; do
      run $b --layout $lay --characters $N2 --cull --bounds pose
      run $b --layout $lay --characters $N2 --cull --bounds pose --in-view 0.1
    done
  done
done
echo done >> "$L"
