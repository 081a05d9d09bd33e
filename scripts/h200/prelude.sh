# Sourced by the scripts/h200/*.sh runs on the lent GPU machine: installs the Vulkan loader from
# .gl/*.deb, selects Vulkan, names the carried binary and asset (B, C) and the log (L), writes
# the machine to $OUT/env.txt, and defines `t`: run one command under a time limit (T_LIMIT
# seconds, default 150), logging it, its exit code and its wall time.
for f in .gl/*.deb; do dpkg -x "$f" /; done; ldconfig
export WGPU_BACKEND=vulkan XDG_RUNTIME_DIR=/tmp
B=.devbin/skel; C=.devbin/CesiumMan.glb; L=$OUT/log.txt
{ date -u; nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv; nproc; lscpu | grep 'Model name'; } > "$OUT/env.txt" 2>&1
t() { echo "=== $*" >> "$L"; local s; s=$(date +%s%N); timeout "${T_LIMIT:-150}" "$@"; local rc=$?; echo "=== exit $rc after $(( ($(date +%s%N) - s) / 1000000 )) ms" >> "$L"; }
