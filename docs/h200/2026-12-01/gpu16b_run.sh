#!/bin/bash
# skel gpu16 H200 run: every command's stdout (JSON) and stderr (tables) go to $OUT.
cd "$(dirname "$0")/.."
L=$OUT/log.txt
{ echo "tree: $(pwd)"; ls; test -f crates/skel-cli/src/commands/bench_gpu/mod.rs && echo "worktree gpu16 sources present" || echo "main's sources (no bench_gpu/mod.rs)"; } > $L 2>&1
for f in .gl/*.deb; do dpkg -x $f /; done; ldconfig
export WGPU_BACKEND=vulkan XDG_RUNTIME_DIR=/tmp
B=.devbin/skel; C=.devbin/CesiumMan.glb
{ date -u; nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv; nproc; lscpu | grep 'Model name'; } > $OUT/env.txt 2>&1
t() { echo "=== $*" >> $L; local s=$(date +%s%N); timeout 150 "$@"; local rc=$?; echo "=== exit $rc after $(( ($(date +%s%N) - s) / 1000000 )) ms" >> $L; }
for r in 1 2 3; do t $B bench gpu crowd $C --characters 10000 --frames 60 --json >> $OUT/crowd.jsonl 2>>$L; done
t $B bench gpu crowd $C --characters 10000 --frames 60 --skinning dq --json >> $OUT/crowd.jsonl 2>>$L
t $B bench gpu crowd $C --characters 10000 --frames 60 >> $L 2>&1
t $B bench gpu upload --characters 10000 --bones 19 --frames 15 --warmup 3 --json > $OUT/upload.json 2>>$L
t $B bench gpu compute --vertices 16777216 --rounds 2 --warmup-ms 200 --iterations 20 --json > $OUT/compute_16.json 2>>$L
t $B bench gpu compute --vertices 16777216 --influences 16 --streams positions --rounds 3 --warmup-ms 200 --copy-mib 0 --json > $OUT/compute_16pos.json 2>>$L
t $B bench gpu draw $C --characters 10000 --frames 60 --json > $OUT/draw.json 2>>$L
t $B bench gpu compute --bogus >> $L 2>&1
echo done >> $L
