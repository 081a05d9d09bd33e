#!/usr/bin/env bash
# Re-encodes CesiumMan, Fox and RobotExpressive from ../shared/assets with gltfpack (default:
# KHR_mesh_quantization + KHR_texture_transform; -cc: EXT_meshopt_compression) and
# glTF-Transform (draco over gltfpack's output) into a scratch folder (never committed: they are
# copies of the shared assets), then writes the decoding goldens (goldens/*.json, small,
# committed) with decode_goldens.mjs and three.js's posed goldens (goldens/three/*.json) with
# three_goldens.mjs. Node tools; never run in CI (see README.md). Usage:
#   (cd scripts/peer/compressed && npm ci) && bash scripts/peer/compressed/shared_variants.sh [OUT]
# then compare skel with them:
#   cargo run --release -p skel-gltf --example peer_variants -- OUT
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
root="$(cd "$here/../../.." && pwd)"
bin="$here/node_modules/.bin"
out="${1:-/tmp/skel-peer-variants}"
assets="$root/../shared/assets"
mkdir -p "$out"
for name in CesiumMan Fox RobotExpressive; do
  in="$assets/$name/$name.glb"
  cp "$in" "$out/${name}.glb"
  "$bin/gltfpack" -i "$in" -o "$out/${name}_gltfpack.glb" > /dev/null
  "$bin/gltfpack" -cc -i "$in" -o "$out/${name}_gltfpack_cc.glb" > /dev/null
  "$bin/gltf-transform" draco "$out/${name}_gltfpack.glb" "$out/${name}_draco.glb" > /dev/null
done
node "$here/decode_goldens.mjs" "$out" "$here/goldens"
node "$here/three_goldens.mjs" "$out" "$here/goldens/three"
ls -l "$out" "$here/goldens" "$here/goldens/three"
