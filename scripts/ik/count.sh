#!/usr/bin/env bash
# Instructions per chain IK solve (crates/skel-anim/examples/chain_solves.rs): valgrind
# cachegrind, no cache simulation, the difference of two runs that differ only in the number of
# solves (start-up cancels out). Usage: bash scripts/ik/count.sh [SOLVER...] (default: fabrik
# fabrik_limits ccd). Prints one line per solver.
set -euo pipefail
cd "$(dirname "$0")/../.."
cargo build --release -p skel-anim --example chain_solves >&2
bin="${CARGO_TARGET_DIR:-target}/release/examples/chain_solves"
solvers=("$@")
[ ${#solvers[@]} -eq 0 ] && solvers=(fabrik fabrik_limits ccd)
short=2000
long=12000
count() { # solver solves -> instructions
  local out
  out=$(mktemp)
  valgrind --tool=cachegrind --cache-sim=no --cachegrind-out-file="$out" \
    "$bin" "$1" "$2" >/dev/null 2>&1
  awk '/^summary:/ {print $2}' "$out"
  rm -f "$out"
}
for solver in "${solvers[@]}"; do
  a=$(count "$solver" "$short")
  b=$(count "$solver" "$long")
  awk -v a="$a" -v b="$b" -v n=$((long - short)) -v s="$solver" \
    'BEGIN { printf "%s instructions_per_solve %.1f\n", s, (b - a) / n }'
done
