#!/bin/bash
cd "$(dirname "$0")/.."
L=$OUT/log3.txt
for f in .gl/*.deb; do dpkg -x $f /; done; ldconfig
export WGPU_BACKEND=vulkan XDG_RUNTIME_DIR=/tmp
B=.devbin/skel; C=.devbin/CesiumMan.glb
date -u > $L
t() { echo "=== $*" >> $L; local s=$(date +%s%N); timeout 240 "$@"; local rc=$?; echo "=== exit $rc after $(( ($(date +%s%N) - s) / 1000000 )) ms" >> $L; }
t $B bench gpu compute --vertices 16777216 --sweep 16777216 --formats none --rounds 3 --warmup-ms 200 --json > $OUT/sweep_16.json 2>>$L
t $B bench gpu upload --characters 1000 --bones 22 --targets 3 --frames 30 --modes separate_skeletons,separate_morph_weights,crowd_ring --json > $OUT/upload_1000_morph.json 2>>$L
t $B bench gpu upload --characters 10000 --bones 19 --targets 3 --frames 15 --warmup 3 --modes separate_skeletons,separate_morph_weights,crowd_ring --json > $OUT/upload_10000_morph.json 2>>$L
t $B bench gpu draw $C --characters 1000 --frames 60 --json > $OUT/draw_1000.json 2>>$L
t $B bench gpu crowd $C --characters 1000 --frames 60 --json > $OUT/crowd_1000.json 2>>$L
echo done >> $L
