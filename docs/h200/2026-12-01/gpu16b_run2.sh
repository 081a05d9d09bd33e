#!/bin/bash
cd "$(dirname "$0")/.."
L=$OUT/log2.txt
for f in .gl/*.deb; do dpkg -x $f /; done; ldconfig
export WGPU_BACKEND=vulkan XDG_RUNTIME_DIR=/tmp
B=.devbin/skel; C=.devbin/CesiumMan.glb
date -u > $L
t() { echo "=== $*" >> $L; local s=$(date +%s%N); timeout 200 "$@"; local rc=$?; echo "=== exit $rc after $(( ($(date +%s%N) - s) / 1000000 )) ms" >> $L; }
t $B bench gpu compute --vertices 16777216 --rounds 3 --warmup-ms 200 --iterations 20 --json > $OUT/compute_16_r3.json 2>>$L
t $B bench gpu compute --vertices 16777216 --influences 4,16 --formats quick --rounds 2 --warmup-ms 1000 --copy-mib 0 --json > $OUT/compute_16_warm1000.json 2>>$L
for r in 4 5; do t $B bench gpu crowd $C --characters 10000 --frames 60 --json >> $OUT/crowd2.jsonl 2>>$L; done
echo done >> $L
