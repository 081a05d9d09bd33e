#!/usr/bin/env bash
# Writes goldens/three-fixtures/: three.js r187's pose (three_goldens.mjs) of the built-in
# character and its committed peer-encoded variants (fixtures/peer/character_*.glb), clip 0
# (Walk). Only what `crates/skel-gltf/tests/three_variants.rs` reads is kept: the original's
# golden and, for each variant, the golden with the rotation keys normalised (`.unitquat`, as
# skel normalises them). Node tools; never run in CI. Usage (from anywhere):
#   (cd scripts/peer/compressed && npm ci) && bash scripts/peer/compressed/fixture_goldens.sh
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
root="$(cd "$here/../../.." && pwd)"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
mkdir -p "$work/in" "$work/out"
cp "$root/fixtures/default_character.glb" "$work/in/character.glb"
cp "$root"/fixtures/peer/character_*.glb "$work/in/"
node "$here/three_goldens.mjs" "$work/in" "$work/out"
dest="$here/goldens/three-fixtures"
rm -rf "$dest" && mkdir -p "$dest"
cp "$work/out/character.0.json" "$dest/"
for v in gltfpack gltfpack_cc gltfpack_draco meshopt; do
  cp "$work/out/character_$v.0.unitquat.json" "$dest/"
done
ls -l "$dest"
