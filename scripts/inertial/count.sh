#!/usr/bin/env bash
# Instructions per joint-frame of inertialized switches against cuts and authored cross-fades
# (crates/skel-gltf/examples/inertial_frames.rs): valgrind cachegrind, no cache simulation, the
# difference of two runs that differ only in the number of timed frames (loading, set-up and
# warm-up cancel out). Usage: bash scripts/inertial/count.sh [ASSET...] (default: CesiumMan
# Fox-Survey RiggedFigure). Prints one line per asset and mode.
set -euo pipefail
cd "$(dirname "$0")/../.."
cargo build --release -p skel-gltf --example inertial_frames >&2
bin="${CARGO_TARGET_DIR:-target}/release/examples/inertial_frames"
assets=("$@")
[ ${#assets[@]} -eq 0 ] && assets=(CesiumMan Fox-Survey RiggedFigure)
n=100
short=20
long=80
count() { # asset frames mode -> instructions
  local out
  out=$(mktemp)
  valgrind --tool=cachegrind --cache-sim=no --cachegrind-out-file="$out" \
    "$bin" run "$1" "$n" 10 "$2" "$3" >/dev/null 2>&1
  awk '/^summary:/ {print $2}' "$out"
  rm -f "$out"
}
for asset in "${assets[@]}"; do
  joints=$("$bin" run "$asset" 1 0 1 cut | awk '{print $6}')
  for mode in cut crossfade inertialize still blend; do
    a=$(count "$asset" "$short" "$mode")
    b=$(count "$asset" "$long" "$mode")
    awk -v a="$a" -v b="$b" -v f=$((long - short)) -v n="$n" -v j="$joints" -v asset="$asset" -v mode="$mode" \
      'BEGIN { printf "%s %s joints %d instructions_per_joint_frame %.1f\n", asset, mode, j, (b - a) / (f * n * j) }'
  done
done
