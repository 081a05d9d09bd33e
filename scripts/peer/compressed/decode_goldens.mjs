// The decoding oracle for skel-gltf's meshopt and Draco decoders: glTF-Transform (with
// meshoptimizer's and Google's draco3d decoders) reads every variant in OUT and writes, per
// primitive, the vertex and index counts and order-free statistics of the decoded POSITION and
// TEXCOORD_0 accessors (in the accessor's own space, normalised integers as floats): min, max,
// sum and sum of squares per component, plus the base colour texture's KHR_texture_transform.
// Usage: node decode_goldens.mjs OUT GOLDENS_DIR (see shared_variants.sh).
import fs from 'node:fs';
import path from 'node:path';
import { NodeIO } from '@gltf-transform/core';
import { ALL_EXTENSIONS } from '@gltf-transform/extensions';
import draco3d from 'draco3dgltf';
import { MeshoptDecoder } from 'meshoptimizer';

const [out, goldens] = process.argv.slice(2);
await MeshoptDecoder.ready;
const io = new NodeIO()
  .registerExtensions(ALL_EXTENSIONS)
  .registerDependencies({
    'draco3d.decoder': await draco3d.createDecoderModule(),
    'meshopt.decoder': MeshoptDecoder,
  });

function stats(accessor) {
  if (!accessor) return null;
  const n = accessor.getElementSize();
  const count = accessor.getCount();
  const el = new Array(n);
  const min = new Array(n).fill(Infinity), max = new Array(n).fill(-Infinity);
  const sum = new Array(n).fill(0), sq = new Array(n).fill(0);
  for (let i = 0; i < count; i++) {
    accessor.getElement(i, el); // normalised integers come back as floats
    for (let k = 0; k < n; k++) {
      min[k] = Math.min(min[k], el[k]); max[k] = Math.max(max[k], el[k]);
      sum[k] += el[k]; sq[k] += el[k] * el[k];
    }
  }
  return { count, min, max, sum, sq };
}

fs.mkdirSync(goldens, { recursive: true });
for (const file of fs.readdirSync(out).filter((f) => f.endsWith('.glb')).sort()) {
  const doc = await io.read(path.join(out, file));
  const primitives = [];
  doc.getRoot().listMeshes().forEach((mesh, m) => {
    mesh.listPrimitives().forEach((prim, p) => {
      const info = prim.getMaterial()?.getBaseColorTextureInfo();
      const t = info && prim.getMaterial().getBaseColorTexture()
        ? info.getExtension('KHR_texture_transform') : null;
      primitives.push({
        mesh: m,
        primitive: p,
        indices: prim.getIndices()?.getCount() ?? null,
        position: stats(prim.getAttribute('POSITION')),
        texcoord0: stats(prim.getAttribute('TEXCOORD_0')),
        uv_transform: t ? { offset: t.getOffset(), rotation: t.getRotation(), scale: t.getScale() } : null,
      });
    });
  });
  const name = file.replace(/\.glb$/, '.json');
  fs.writeFileSync(path.join(goldens, name), JSON.stringify({ file, primitives }, null, 1) + '\n');
  console.log(`${name}: ${primitives.length} primitives`);
}
