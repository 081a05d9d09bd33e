#!/usr/bin/env bash
# What each key format costs to decode, in instructions: the pose pipeline's frame
# (`pose_frames run`, 100 characters at 60 fps: clock, sampling and decoding, local → world,
# bone matrices) of each benchmark asset, lossless and with both compressed key formats
# (SKEL_COMPRESSED=1: KeyFormat::Fixed; =variable: KeyFormat::Variable; ACL's default bound in
# the asset's unit), counted by valgrind (cachegrind, no cache simulation) as the difference of
# two runs that differ only in frame count (20 and 80 timed frames after 10 warm-up):
# instructions per joint-frame = (I80 - I20) / (60 x 100 x J). Deterministic for one binary.
#   bash scripts/acl/decode_instructions.sh [OUT.json]   # default docs/results/compression_decode.json
# Takes about a minute per asset and format on a quiet 2-core machine; never run in CI.
set -euo pipefail
cd "$(dirname "$0")/../.."
out=${1:-docs/results/compression_decode.json}
target=${CARGO_TARGET_DIR:-target}
# The tree the binary is built from: HEAD, "+dirty" when the working tree differs from it.
commit=$(git rev-parse --short HEAD)$(git diff --quiet HEAD -- crates || echo +dirty)
cargo build --release -p skel-gltf --example pose_frames >&2
bin=$target/release/examples/pose_frames
scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT
count() { # FORMAT ASSET FRAMES -> instructions
  local env=()
  [ "$1" = fixed ] && env=(SKEL_COMPRESSED=1)
  [ "$1" = variable ] && env=(SKEL_COMPRESSED=variable)
  env "${env[@]}" valgrind --tool=cachegrind --cache-sim=no \
    --cachegrind-out-file="$scratch/cg.out" "$bin" run "$2" 100 10 "$3" > "$scratch/run.txt" 2> /dev/null
  awk '/^summary:/ {print $2}' "$scratch/cg.out"
}
rows=()
for asset in $("$bin" list); do
  for format in lossless fixed variable; do
    short=$(count "$format" "$asset" 20)
    joints=$(awk '{for (i = 1; i < NF; i++) if ($i == "joints") print $(i + 1)}' "$scratch/run.txt")
    long=$(count "$format" "$asset" 80)
    per=$(python3 -c "print(round(($long - $short) / (60 * 100 * $joints), 2))")
    echo "$asset $format joints $joints instructions $short $long per_joint_frame $per" >&2
    rows+=("{\"asset\": \"$asset\", \"format\": \"$format\", \"joints\": $joints, \"instructions_short_run\": $short, \"instructions_long_run\": $long, \"instructions_per_joint_frame\": $per}")
  done
done
{
  echo "{"
  echo "  \"schema\": \"skel-compression-decode/1\","
  echo "  \"date\": \"$(date -u +%Y-%m-%dT%H:%MZ)\","
  echo "  \"commit\": \"$commit\","
  echo "  \"cpu\": \"$(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ *//')\","
  echo "  \"method\": \"pose_frames run ASSET 100 10 F under valgrind --tool=cachegrind --cache-sim=no, F = 20 and 80; (I80 - I20) / (60 x 100 x J)\","
  echo "  \"rows\": ["
  for i in "${!rows[@]}"; do
    sep=","
    [ "$i" -eq $((${#rows[@]} - 1)) ] && sep=""
    echo "    ${rows[$i]}$sep"
  done
  echo "  ]"
  echo "}"
} > "$out"
echo "wrote $out" >&2
