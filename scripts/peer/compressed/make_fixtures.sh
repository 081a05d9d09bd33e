#!/usr/bin/env bash
# Writes fixtures/peer/*.glb: the built-in character re-encoded by gltfpack and glTF-Transform
# (quantised, meshopt, Draco), and the textured plane by gltfpack (quantised UVs undone by
# KHR_texture_transform). Node tools; never run in CI. Usage (from anywhere):
#   (cd scripts/peer/compressed && npm ci) && bash scripts/peer/compressed/make_fixtures.sh
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
root="$(cd "$here/../../.." && pwd)"
bin="$here/node_modules/.bin"
in="$root/fixtures/default_character.glb"
out="$root/fixtures/peer"
mkdir -p "$out"
"$bin/gltfpack" -i "$in" -o "$out/character_gltfpack.glb"
"$bin/gltfpack" -cc -i "$in" -o "$out/character_gltfpack_cc.glb"
"$bin/gltf-transform" meshopt "$in" "$out/character_meshopt.glb"
"$bin/gltf-transform" draco "$out/character_gltfpack.glb" "$out/character_gltfpack_draco.glb"
"$bin/gltfpack" -i "$root/fixtures/textured_grid.glb" -o "$out/textured_gltfpack.glb"
"$bin/gltfpack" -cc -i "$root/fixtures/textured_grid.glb" -o "$out/textured_gltfpack_cc.glb"
ls -l "$out"
