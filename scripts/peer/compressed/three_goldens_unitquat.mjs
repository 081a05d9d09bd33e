// three.js goldens of the same files and clips as three_goldens.mjs writes, with one change: every rotation key of the
// posed clip is divided by its length (as skel's loader does) before three's AnimationMixer
// interpolates it. Nothing else differs (same loader, decoders, times, sampling, rounding:
// three_goldens.mjs's own `loadGlb`, `originalOf` and `golden`).
//
// Why: gltfpack stores rotation keys as normalised int16 (KHR_mesh_quantization), which
// dequantise to |q|² = 1 ± ~3e-5. three r187 keeps them as they are: Quaternion.slerpFlat
// renormalises only on its lerp branch (adjacent keys with dot ≥ 0.9995 that differ), and a
// non-unit quaternion composes to a rotation scaled by |q|². skel normalises rotation keys at
// load, so these are what skel must match, as the shared goldens' `<clip>.unitquat.json` are for
// assets with non-unit keys. Written as `<file>.<clip>.unitquat.json` beside the plain goldens,
// only for files whose keys are off unit length by more than 1e-6 (|q|² − 1; f32 rounding
// of a unit key stays below).
//
// Usage (node 20; three and the decoders from this folder's `npm ci`); shared_variants.sh runs it:
//   node three_goldens_unitquat.mjs /tmp/skel-peer-variants goldens/three
import fs from 'node:fs';
import path from 'node:path';
import { golden, loadGlb, MAX_CLIPS, originalOf } from './three_goldens.mjs';

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
  console.error('usage: node three_goldens_unitquat.mjs OUT GOLDENS_DIR');
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
    if (dev <= 1e-6) continue; // unit keys already: the plain golden is the one
    g.generatedBy = 'scripts/peer/compressed/three_goldens_unitquat.mjs (rotation keys normalised)';
    g.rotationKeysMaxNormSqDev = dev;
    const name = `${file.replace(/\.glb$/, '')}.${c}.unitquat.json`;
    fs.writeFileSync(path.join(goldens, name), JSON.stringify(g) + '\n');
    console.log(`${name}: rotation keys |q|²−1 up to ${dev.toExponential(2)} before normalising`);
  }
}
