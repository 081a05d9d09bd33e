// Diagnostic for the peer_variants example: three.js goldens of the same files and clips as
// scripts/peer/compressed/three_goldens.mjs writes, with one change: every rotation key of the
// posed clip is divided by its length (as skel's loader does) before three's AnimationMixer
// interpolates it. Nothing else differs (same loader, decoders, times, sampling, rounding:
// three_goldens.mjs's own `loadGlb`, `originalOf` and `golden`).
//
// Why: gltfpack stores rotation keys as normalised int16 (KHR_mesh_quantization), which
// dequantise to |q|² = 1 ± ~3e-5. three r187 keeps them as they are: Quaternion.slerpFlat
// renormalises only on its lerp branch (adjacent keys with dot ≥ 0.9995 that differ), and a
// non-unit quaternion composes to a rotation scaled by |q|². skel normalises rotation keys at
// load. Posed against these goldens, every file agrees with skel within 1.7e-6 of the diagonal.
//
// Usage (node 20; three and the decoders from scripts/peer/compressed's `npm ci`), from the
// repository root:
//   node crates/skel-gltf/examples/peer_variants/unit_quat_goldens.mjs /tmp/skel-peer-variants /tmp/skel-three-unitquat
//   cargo run --release -p skel-gltf --example peer_variants -- /tmp/skel-peer-variants /tmp/skel-three-unitquat
import fs from 'node:fs';
import path from 'node:path';
import { golden, loadGlb, MAX_CLIPS, originalOf } from '../../../../scripts/peer/compressed/three_goldens.mjs';

function normaliseRotationKeys(clip) {
  let worst = 0;
  for (const track of clip.tracks) {
    if (track.ValueTypeName !== 'quaternion') continue;
    const v = track.values;
    for (let i = 0; i < v.length; i += 4) {
      const l = Math.hypot(v[i], v[i + 1], v[i + 2], v[i + 3]);
      worst = Math.max(worst, Math.abs(l * l - 1));
      for (let k = 0; k < 4; k++) v[i + k] /= l;
    }
  }
  return worst;
}

const [out, goldens] = process.argv.slice(2);
if (!out || !goldens) {
  console.error('usage: node unit_quat_goldens.mjs OUT GOLDENS_DIR');
  process.exit(2);
}
fs.mkdirSync(goldens, { recursive: true });
for (const file of fs.readdirSync(out).filter((f) => f.endsWith('.glb')).sort()) {
  const full = path.join(out, file);
  const clips = Math.min(MAX_CLIPS, (await loadGlb(full)).animations.length);
  const orig = originalOf(out, file);
  const origClips = orig ? (await loadGlb(path.join(out, orig))).animations : null;
  for (let c = 0; c < clips; c++) {
    const gltf = await loadGlb(full); // fresh scene per clip, as three_goldens.mjs
    const dev = normaliseRotationKeys(gltf.animations[c]);
    const timesFrom = origClips ? { file: orig, duration: origClips[c].duration } : null;
    const g = golden(gltf, full, c, timesFrom);
    g.generatedBy = 'crates/skel-gltf/examples/peer_variants/unit_quat_goldens.mjs (rotation keys normalised)';
    g.rotationKeysMaxNormSqDev = dev;
    const name = `${file.replace(/\.glb$/, '')}.${c}.json`;
    fs.writeFileSync(path.join(goldens, name), JSON.stringify(g) + '\n');
    console.log(`${name}: rotation keys |q|²−1 up to ${dev.toExponential(2)} before normalising`);
  }
}
