#!/bin/bash
# Interleaved rounds of `skel bench gpu crowd --posing gpu --layout per-node` with several
# builds of the pose pass, on the lent GPU machine: .devbin/v/bN.xz are stripped release `skel`
# binaries, each built from a variant of crates/skel-gpu (the variants are described in the
# README of the results folder), CesiumMan.glb in .devbin/, the Vulkan loader's .deb files in
# .gl/ (carry: .gl, .devbin). VARIANTS (default: every bN found) and ROUNDS (default 2) pick
# what runs; ARGS is added to the main row (e.g. `--bone-layout 3x4`), and EXTRA holds more
# rows, each a set of arguments, separated by `;`. Every run appends one JSON object, tagged with its variant, to $OUT/variants.jsonl;
# the log goes to $OUT/log.txt and the machine to $OUT/env.txt.
set -u
source scripts/h200/prelude.sh
D=/tmp/variants; mkdir -p $D
for x in .devbin/v/*.xz; do xz -dc "$x" > "$D/$(basename "$x" .xz)"; chmod +x "$D/$(basename "$x" .xz)"; done
VARIANTS=${VARIANTS:-$(cd $D && ls)}
# Runs one bench under a time limit; tags its JSON with the variant and the round.
t() { local v=$1 r=$2; shift 2; echo "=== $v round $r: $*" >> "$L"; local s; s=$(date +%s%N)
  timeout 120 "$D/$v" bench gpu crowd $C --posing gpu --json "$@" 2>>"$L" \
    | python3 -c "import json,sys; d=json.load(sys.stdin); d['variant']='$v'; d['round']=$r; d['args']='$*'; print(json.dumps(d))" >> "$OUT/variants.jsonl"
  echo "=== exit ${PIPESTATUS[0]} after $(( ($(date +%s%N) - s) / 1000000 )) ms" >> "$L"; }
for r in $(seq 1 "${ROUNDS:-2}"); do
  for v in $VARIANTS; do
    t $v $r --characters 1000000 --frames 30 --no-skin --layout ${LAYOUT:-per-node} --copy-mib 1024 ${ARGS:-}
    IFS=';' read -ra extras <<< "${EXTRA:-}"
    for e in "${extras[@]}"; do t $v $r $e; done
  done
done
echo done >> "$L"
