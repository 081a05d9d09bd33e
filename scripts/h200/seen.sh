#!/bin/bash
# Baked boxes by the advance pass, and posing only what the camera sees (issue 47), on the
# lent GPU machine: each stripped `skel` in .devbin/v/ (.xz unpacked; named by what it is,
# e.g. base = the commit before a change) and .devbin/skel, the build committed,
# interleaved, three rounds (ROUNDS), CesiumMan, GPU posing, baked, 3x4 bones:
# - 1 000 000 posed alone (the first run also measures the copy bandwidth); posed, boxed and
#   culled (half in view) with --bounds pose; --bounds seen with the half in view first,
#   scattered (every second instance), and a tenth in view (and --bounds pose with a tenth);
# - 100 000 posed, boxed, culled and skinned, --bounds pose, and seen;
# - the CPU path beside them (100 000 posed on every core, uploaded, skinned: $OUT/cpu.jsonl).
# One JSON object per run in $OUT/seen.jsonl and its `== BUILD ARGS` in $OUT/seen.txt (a run
# that printed nothing: its line in $OUT/failed.txt); scripts/h200/tag_runs.py joins them.
# Carry .gl and .devbin. N1, N2 and FRAMES shrink it for a dry run on lavapipe.
set -u
source scripts/h200/prelude.sh
for f in .devbin/v/*.xz .devbin/skel.xz; do [ -e "$f" ] && xz -d -f "$f"; done
chmod +x .devbin/v/* .devbin/skel 2>/dev/null
N1=${N1:-1000000}; N2=${N2:-100000}; F=${FRAMES:-30}
BUILDS="$(ls .devbin/v | tr '\n' ' ')skel"; FIRST=${BUILDS%% *}
run() { # build args...
  local b=$1; shift
  local bin=.devbin/v/$b; [ "$b" = skel ] && bin=$B
  local out
  out=$(t $bin bench gpu crowd $C --posing gpu --json --frames $F --bone-layout 3x4 --layout baked "$@" 2>>"$L")
  if [ -n "$out" ]; then
    echo "== $b $*" >> "$OUT/seen.txt"; echo "$out" >> "$OUT/seen.jsonl"
  else
    echo "== $b $*" >> "$OUT/failed.txt"
  fi
}
for round in $(seq 1 ${ROUNDS:-3}); do
  for b in $BUILDS; do
    # The copy bandwidth once, in the first round's first run.
    COPY=""; [ "$round" = 1 ] && [ "$b" = "$FIRST" ] && COPY="--copy-mib 1024"
    run $b --characters $N1 --no-skin $COPY
    run $b --characters $N1 --no-skin --cull --bounds pose
    run $b --characters $N2 --cull --bounds pose
    # --bounds seen: builds from 82c2497 on (an older build's runs land in failed.txt).
    run $b --characters $N1 --no-skin --cull --bounds seen
    run $b --characters $N1 --no-skin --cull --bounds seen --scatter
    run $b --characters $N1 --no-skin --cull --bounds seen --in-view 0.1
    run $b --characters $N1 --no-skin --cull --bounds pose --in-view 0.1
    run $b --characters $N2 --cull --bounds seen
  done
  # The CPU path beside them: 100 000 posed on every core, uploaded and skinned (CPU=0: not).
  [ "${CPU:-1}" = 1 ] && t $B bench gpu crowd $C --posing cpu --characters $N2 --frames 20 --json >> "$OUT/cpu.jsonl" 2>>"$L"
done
echo done >> "$L"
