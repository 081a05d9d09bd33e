#!/usr/bin/env bash
# skel's compressed clips beside ACL 2.1's at its default settings, on the same clips:
#   bash scripts/acl/compare.sh   # writes docs/results/acl_compare.json (KeyFormat::Fixed) and
#                                 # acl_compare_variable.json (KeyFormat::Variable), prints the tables
# Needs ../shared/assets (CesiumMan, Fox, RobotExpressive); never run in CI.
#   ACL_FROM=docs/results/acl_compare.json bash scripts/acl/compare.sh
#                                 # skel's side only, ACL's figures kept from the committed run
#                                 # (when the clips `acl_compare export` writes are unchanged)
set -euo pipefail
cd "$(dirname "$0")/../.."
ACL_DIR=${ACL_DIR:-/tmp/acl}
CARGO_TARGET_DIR=${CARGO_TARGET_DIR:-target} cargo build --release -p skel-gltf --example acl_compare
bin=${CARGO_TARGET_DIR:-target}/release/examples/acl_compare
work="$ACL_DIR/run"
rm -rf "$work" && mkdir -p "$work/clips" "$work/stats"
if [ -z "${ACL_FROM:-}" ]; then
  compressor=$(bash scripts/acl/build.sh | tail -1)
  "$bin" export "$work/clips" > "$work/manifest.txt"
  while read -r id _; do
    "$compressor" -acl="$work/clips/$id.acl.sjson" -stats="$work/stats/$id.sjson" > /dev/null
  done < "$work/manifest.txt"
else
  # The committed figures are read before the outputs are written over them.
  cp "$ACL_FROM" "$work/acl_from.json"
  export ACL_FROM_NAME="$ACL_FROM" ACL_FROM="$work/acl_from.json"
fi
"$bin" ours-fixed > "$work/ours.jsonl"
"$bin" ours > "$work/ours_variable.jsonl"
python3 scripts/acl/collect.py "$work" docs/results/acl_compare.json \
  "$(git rev-parse --short HEAD)" "$(g++ --version | head -1)" \
  docs/results/acl_compare_variable.json
