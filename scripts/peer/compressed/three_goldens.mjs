// three.js (r187) as the posing oracle for the compressed variants written by
// shared_variants.sh: every .glb in OUT is loaded with three's own GLTFLoader in node (no DOM),
// its first clips are posed with three's AnimationMixer, and what three computed is written as
// `peer-ref-golden/1` files (the format of ../shared/golden, see README.md beside this script):
// one file per variant and clip, GOLDENS_DIR/<variant>.<clip>.json; and, where the file's
// rotation keys are off unit length, GOLDENS_DIR/<variant>.<clip>.unitquat.json: three with
// the keys normalised before it poses them, as skel does at load.
// Usage: node three_goldens.mjs OUT GOLDENS_DIR (see shared_variants.sh).
//
// How three runs in node here, and why (nothing below changes geometry or animation):
// - GLB bytes go to `GLTFLoader.parse(arrayBuffer, '', onLoad, onError)`.
// - EXT_meshopt_compression: three's own `examples/jsm/libs/meshopt_decoder.module.js`.
// - KHR_draco_mesh_compression: GLTFLoader calls `dracoLoader.preload()` and
//   `dracoLoader.decodeDracoFile(buffer, callback, attributeIDs, attributeTypes, colorSpace,
//   onError)`. NodeDRACOLoader is three's DRACOLoader with the Web Worker replaced by an
//   in-process one: the worker body is three's own DRACOWorker source (cut out of
//   DRACOLoader.js), run on draco3dgltf's decoder module; DRACOLoader's decodeGeometry and
//   _createGeometry build the BufferGeometry exactly as in a browser.
// - Images are never decoded: a plugin gives the parser a texture loader that returns an empty
//   THREE.Texture for each image. Everything three does to a texture afterwards runs
//   (flipY, sampler, KHR_texture_transform → offset/rotation/repeat/channel/matrix).
import fs from 'node:fs';
import path from 'node:path';
import { createRequire } from 'node:module';
import { pathToFileURL } from 'node:url';
import * as THREE from 'three';
import { GLTFLoader } from 'three/examples/jsm/loaders/GLTFLoader.js';
import { DRACOLoader } from 'three/examples/jsm/loaders/DRACOLoader.js';
import { MeshoptDecoder } from 'three/examples/jsm/libs/meshopt_decoder.module.js';
import draco3d from 'draco3dgltf';

const require = createRequire(import.meta.url);

// GLTFParser.loadImageSource reads `self.URL`; node has URL.createObjectURL and Blob.
if (typeof globalThis.self === 'undefined') globalThis.self = globalThis;

export const DIGITS = 7;
export const MID_FRACTION = 0.3713; // the shared goldens' "arbitrary time": 0.3713 · duration
export const MAX_CLIPS = 2;
export const SKINNED_VERTEX_BUDGET = 300; // stored vertices per file over all skinned primitives
export const SKINNED_VERTEX_CAP = 300; // ... and per skinned primitive
export const RIGID_VERTEX_CAP = 8; // per rigid primitive

// ---------------------------------------------------------------------------------------------
// Draco: three's DRACOLoader, its worker run in-process.

const dracoWorkerBody = (() => {
  const src = fs.readFileSync(require.resolve('three/examples/jsm/loaders/DRACOLoader.js'), 'utf8');
  const start = src.indexOf('function DRACOWorker()');
  const end = src.indexOf('export {', start);
  if (start < 0 || end < 0) throw new Error('DRACOWorker not found in three\'s DRACOLoader.js');
  const fn = src.slice(start, end);
  // exactly what DRACOLoader._initDecoder puts into the worker's blob
  return fn.substring(fn.indexOf('{') + 1, fn.lastIndexOf('}'));
})();

// Runs the worker body in a scope where `onmessage` is a local, `self` holds postMessage and
// the typed-array constructors (this realm's, so three's instanceof / constructor checks hold).
const makeWorkerScope = new Function('self', 'DracoDecoderModule',
  `let onmessage;\n${dracoWorkerBody}\nreturn (data) => onmessage({ data });`);

const TYPED_ARRAYS = { Float32Array, Int8Array, Int16Array, Int32Array, Uint8Array, Uint16Array, Uint32Array };

export class NodeDRACOLoader extends DRACOLoader {
  _initDecoder() {
    if (!this.decoderPending) this.decoderPending = Promise.resolve();
    return this.decoderPending;
  }

  // DRACOLoader._getWorker with `new Worker(blob)` replaced by an in-process worker.
  _getWorker(taskID, taskCost) {
    return this._initDecoder().then(() => {
      if (this.workerPool.length === 0) {
        const worker = { _callbacks: {}, _taskCosts: {}, _taskLoad: 0, terminate() {} };
        const scope = {
          ...TYPED_ARRAYS,
          postMessage: (message) => setImmediate(() => worker.onmessage({ data: message })),
        };
        const deliver = makeWorkerScope(scope, draco3d.createDecoderModule);
        worker.postMessage = (message) => deliver(message);
        worker.postMessage({ type: 'init', decoderConfig: { ...this.decoderConfig } });
        worker.onmessage = function (e) {
          const message = e.data;
          switch (message.type) {
            case 'decode': worker._callbacks[message.id].resolve(message); break;
            case 'error': worker._callbacks[message.id].reject(message); break;
            default: console.error('THREE.DRACOLoader: Unexpected message, "' + message.type + '"');
          }
        };
        this.workerPool.push(worker);
      }
      const worker = this.workerPool[0];
      worker._taskCosts[taskID] = taskCost;
      worker._taskLoad += taskCost;
      return worker;
    });
  }
}

// ---------------------------------------------------------------------------------------------
// Loading.

const stubTextureLoader = {
  // what GLTFParser.loadImageSource calls: load(url, onLoad, onProgress, onError)
  load(url, onLoad) {
    const texture = new THREE.Texture();
    texture.image = { width: 1, height: 1, data: null };
    onLoad(texture);
  },
};

function nodeTexturesPlugin(parser) {
  parser.textureLoader = stubTextureLoader;
  return { name: 'SKEL_node_texture_stub' };
}

// weight sums before three's SkinnedMesh.normalizeSkinWeights (GLTFLoader calls it on every
// skinned mesh it creates) and after it (quantised weights are re-quantised by setXYZW).
const weightStats = new WeakMap();
function maxWeightSumDev(attr) {
  const v = new THREE.Vector4();
  let dev = 0;
  for (let i = 0; i < attr.count; i++) {
    v.fromBufferAttribute(attr, i);
    dev = Math.max(dev, Math.abs(v.x + v.y + v.z + v.w - 1));
  }
  return dev;
}
const originalNormalize = THREE.SkinnedMesh.prototype.normalizeSkinWeights;
THREE.SkinnedMesh.prototype.normalizeSkinWeights = function () {
  const attr = this.geometry.attributes.skinWeight;
  const before = maxWeightSumDev(attr);
  originalNormalize.call(this);
  weightStats.set(this.geometry, { before, after: maxWeightSumDev(attr) });
};

let dracoLoader = null;
export async function loadGlb(file) {
  await MeshoptDecoder.ready;
  if (!dracoLoader) dracoLoader = new NodeDRACOLoader();
  const bytes = fs.readFileSync(file);
  const arrayBuffer = bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength);
  const loader = new GLTFLoader();
  loader.setMeshoptDecoder(MeshoptDecoder);
  loader.setDRACOLoader(dracoLoader);
  loader.register(nodeTexturesPlugin);
  return new Promise((resolve, reject) => loader.parse(arrayBuffer, '', resolve, reject));
}

// ---------------------------------------------------------------------------------------------
// Mapping three's objects back to glTF indices.

export function describe(gltf) {
  const json = gltf.parser.json;
  const assoc = gltf.parser.associations;
  const prims = [];
  gltf.scene.traverse((obj) => {
    if (!obj.isMesh) return;
    const a = assoc.get(obj);
    if (!a || a.primitives === undefined) return;
    const node = a.nodes !== undefined ? a.nodes : assoc.get(obj.parent)?.nodes;
    if (node === undefined) throw new Error(`no glTF node for mesh ${obj.name}`);
    const primDef = json.meshes[a.meshes].primitives[a.primitives];
    const influenceSets = Object.keys(primDef.attributes).filter((k) => /^JOINTS_\d+$/.test(k)).length;
    prims.push({
      obj, key: `n${node}/p${a.primitives}`, node, mesh: a.meshes, primitive: a.primitives,
      name: obj.name, skinned: obj.isSkinnedMesh === true,
      skin: obj.isSkinnedMesh ? json.nodes[node].skin : undefined, influenceSets,
    });
  });
  prims.sort((x, y) => x.node - y.node || x.primitive - y.primitive);
  // skins: three builds one Skeleton per glTF skin (cached dependency); find it through a mesh
  const skins = [];
  (json.skins || []).forEach((skinDef, s) => {
    const p = prims.find((q) => q.skinned && q.skin === s);
    if (!p) { skins.push(null); return; }
    const skeleton = p.obj.skeleton;
    skeleton.bones.forEach((bone, i) => {
      if (assoc.get(bone)?.nodes !== skinDef.joints[i]) {
        throw new Error(`skin ${s} joint ${i}: three bone is not node ${skinDef.joints[i]}`);
      }
    });
    skins.push({ index: s, joints: skinDef.joints, skeleton });
  });
  return { json, prims, skins };
}

// ---------------------------------------------------------------------------------------------
// Posing.

// 0, 0.3713 · duration, duration of `duration` (the original's clip for a variant)
export function clipTimes(duration) {
  return [0, duration * MID_FRACTION, duration];
}

// The file in OUT that a variant was made from (shortest `<stem>_` prefix with a .glb in OUT):
// `Fox_gltfpack_cc.glb` → `Fox.glb`; null for an original.
export function originalOf(out, file) {
  const stem = path.basename(file, '.glb');
  for (let i = stem.indexOf('_'); i > 0; i = stem.indexOf('_', i + 1)) {
    if (fs.existsSync(path.join(out, stem.slice(0, i) + '.glb'))) return stem.slice(0, i) + '.glb';
  }
  return null;
}

// Poses clip `clipIndex` at each time with three's AnimationMixer and calls visit(t) with the
// scene's world matrices and skeletons up to date.
export function pose(gltf, clipIndex, times, visit) {
  const clip = gltf.animations[clipIndex];
  const mixer = new THREE.AnimationMixer(gltf.scene);
  const action = mixer.clipAction(clip);
  // LoopOnce + clampWhenFinished: at t = duration the action holds the clip's last value
  // (LoopRepeat would wrap t = duration to 0).
  action.setLoop(THREE.LoopOnce, 1);
  action.clampWhenFinished = true;
  const skeletons = new Set();
  gltf.scene.traverse((o) => { if (o.isSkinnedMesh) skeletons.add(o.skeleton); });
  for (const t of times) {
    action.reset().play();
    mixer.setTime(t);
    gltf.scene.updateMatrixWorld(true);
    for (const sk of skeletons) sk.update();
    visit(t);
  }
  action.stop();
  mixer.uncacheRoot(gltf.scene);
}

const _v = new THREE.Vector3();
// world-space position of vertex i as three computes it: morphs + skinning, then matrixWorld
export function worldPosition(obj, i, target = _v) {
  obj.getVertexPosition(i, target);
  return target.applyMatrix4(obj.matrixWorld);
}

// ---------------------------------------------------------------------------------------------
// Goldens.

export const round = (x) => (x === 0 ? 0 : Number(x.toPrecision(DIGITS)));
const roundAll = (a) => Array.from(a, round);

function sampleStep(p, skinnedCount) {
  const n = p.obj.geometry.attributes.position.count;
  const cap = p.skinned
    ? Math.min(SKINNED_VERTEX_CAP, Math.floor(SKINNED_VERTEX_BUDGET / skinnedCount))
    : RIGID_VERTEX_CAP;
  return Math.max(1, Math.ceil(n / cap));
}

function uvTransform(obj) {
  const map = obj.material && obj.material.map;
  if (!map) return null;
  if (map.matrixAutoUpdate) map.updateMatrix();
  return {
    offset: roundAll(map.offset.toArray()),
    rotation: round(map.rotation),
    repeat: roundAll(map.repeat.toArray()),
    center: roundAll(map.center.toArray()),
    channel: map.channel,
    flipY: map.flipY,
    matrix: roundAll(map.matrix.elements), // three's Matrix3, column-major
  };
}

function clipInfo(json, clip, index) {
  const anim = json.animations[index];
  const interps = new Set(anim.samplers.map((s) => s.interpolation || 'LINEAR'));
  let keyCount = 0;
  for (const s of anim.samplers) keyCount = Math.max(keyCount, json.accessors[s.input].count);
  return {
    index, name: anim.name ?? null, duration: clip.duration, keyCount,
    channels: anim.channels.length, interpolations: [...interps].sort(),
    engineClipName: clip.name, engineTracks: clip.tracks.length,
  };
}

// timesFrom: { file, duration } of the original's clip when `file` is a variant, else null.
export function golden(gltf, file, clipIndex, timesFrom = null) {
  const { json, prims, skins } = describe(gltf);
  const clip = gltf.animations[clipIndex];
  const times = clipTimes(timesFrom ? timesFrom.duration : clip.duration);
  const skinnedCount = prims.filter((p) => p.skinned).length;
  const meshes = prims.map((p) => {
    const n = p.obj.geometry.attributes.position.count;
    const k = sampleStep(p, skinnedCount);
    const m = {
      key: p.key, node: p.node, mesh: p.mesh, primitive: p.primitive, name: p.name,
      skinned: p.skinned, vertexCount: n,
    };
    if (p.skinned) {
      const ws = weightStats.get(p.obj.geometry);
      Object.assign(m, {
        skin: p.skin, joints: json.skins[p.skin].joints, influenceSets: p.influenceSets,
        influencesUsedByThree: 4,
        weightSumMaxDev: ws ? round(ws.before) : null,
        weightSumMaxDevAfterThree: ws ? round(ws.after) : null,
      });
    }
    m.positionsSource = 'three.js SkinnedMesh/Mesh.getVertexPosition (morphs + skinning) * matrixWorld';
    m.sampledEvery = k;
    m.sampledIndices = Array.from({ length: Math.ceil(n / k) }, (_, j) => j * k);
    m.uvTransform = uvTransform(p.obj);
    return m;
  });
  const frames = [];
  pose(gltf, clipIndex, times, (t) => {
    const frame = { t, skins: {}, meshes: [] };
    for (const s of skins) {
      if (!s) continue;
      const jointWorld = [];
      for (const bone of s.skeleton.bones) jointWorld.push(...bone.matrixWorld.elements);
      frame.skins[s.index] = {
        joints: s.joints, jointWorld: roundAll(jointWorld), skinMatrices: roundAll(s.skeleton.boneMatrices),
      };
    }
    prims.forEach((p, i) => {
      const positions = [];
      for (const v of meshes[i].sampledIndices) positions.push(...worldPosition(p.obj, v).toArray());
      const fm = { key: p.key, positions: roundAll(positions) };
      if (p.obj.morphTargetInfluences) fm.morphWeights = roundAll(p.obj.morphTargetInfluences);
      frame.meshes.push(fm);
    });
    frames.push(frame);
  });
  return {
    format: 'peer-ref-golden/1',
    engine: 'three',
    engineVersion: `three r${THREE.REVISION}`,
    asset: path.basename(file),
    assetName: path.basename(file, '.glb'),
    generatedBy: 'scripts/peer/compressed/three_goldens.mjs',
    space: 'positions / jointWorld / skinMatrices are in glTF native right-handed WORLD space of this file (scene root = identity). positions = three.js getVertexPosition(i) (morph targets, then skinning with three\'s 4 influences and its normalised weights) * matrixWorld. skinMatrices[j] = jointWorld[j] * inverseBindMatrix[j] (three\'s skeleton.boneMatrices, float32).',
    matrixLayout: 'All matrices are 4x4, 16 numbers, COLUMN-MAJOR; per-joint arrays concatenated in skins[s].joints order of THIS file.',
    handedness: 'three.js is right-handed, Y up, like glTF: no conversion.',
    notes: [
      'Node, mesh and skin indices are those of this file (gltfpack renumbers nodes).',
      'Times: 0, 0.3713 * D and D (0.3713: the shared goldens\' arbitrary time), D = the duration of the ORIGINAL file\'s clip (timesFrom) so that all variants of a model are posed at the same times; gltfpack resamples clips at 30 Hz and its clip.duration can be up to one frame longer. Posed with AnimationMixer, LoopOnce + clampWhenFinished, action.reset().play(), mixer.setTime(t).',
      'frames[f].nodes is not written (size); rigid primitives keep only a few vertices.',
      'Images are not decoded (empty THREE.Texture per image); uvTransform is read from the texture three assigned to material.map.',
    ],
    digits: DIGITS,
    extensionsUsed: json.extensionsUsed || [],
    clip: clipInfo(json, clip, clipIndex),
    clipCount: gltf.animations.length,
    timesFrom: timesFrom ? timesFrom.file : path.basename(file),
    times,
    meshes,
    frames,
  };
}

/// Divides every rotation key of `clip` by its length, as skel's loader does; returns the
/// largest | |q|² − 1 | before.
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

async function main() {
  const [out, goldens] = process.argv.slice(2);
  if (!out || !goldens) {
    console.error('usage: node three_goldens.mjs OUT GOLDENS_DIR');
    process.exit(2);
  }
  fs.mkdirSync(goldens, { recursive: true });
  for (const file of fs.readdirSync(out).filter((f) => f.endsWith('.glb')).sort()) {
    const full = path.join(out, file);
    const clips = Math.min(MAX_CLIPS, (await loadGlb(full)).animations.length);
    const orig = originalOf(out, file);
    const origClips = orig ? (await loadGlb(path.join(out, orig))).animations : null;
    for (let c = 0; c < clips; c++) {
      const gltf = await loadGlb(full); // fresh scene per clip: nodes a clip leaves alone stay at rest
      let timesFrom = null;
      if (origClips) {
        if (!origClips[c] || origClips[c].name !== gltf.animations[c].name) {
          throw new Error(`${file}: clip ${c} does not match ${orig}'s`);
        }
        timesFrom = { file: orig, duration: origClips[c].duration };
      }
      const g = golden(gltf, full, c, timesFrom);
      const name = `${file.replace(/\.glb$/, '')}.${c}.json`;
      const text = JSON.stringify(g) + '\n';
      fs.writeFileSync(path.join(goldens, name), text);
      console.log(`${name}: ${g.meshes.length} primitives, ${Object.keys(g.frames[0].skins).length} skins, ${(text.length / 1024).toFixed(1)} KiB`);
      // Rotation keys off unit length (gltfpack's int16 keys): three keeps them, skel
      // normalises them at load, so also write three with the keys normalised — the golden
      // skel must meet, as the shared goldens' `.unitquat.json` (f32 rounding of a unit key
      // stays below 1e-6).
      const unit = await loadGlb(full);
      const dev = normaliseRotationKeys(unit.animations[c]);
      if (dev > 1e-6) {
        const u = golden(unit, full, c, timesFrom);
        u.generatedBy = 'scripts/peer/compressed/three_goldens.mjs (rotation keys normalised)';
        u.rotationKeysMaxNormSqDev = dev;
        const uname = `${file.replace(/\.glb$/, '')}.${c}.unitquat.json`;
        fs.writeFileSync(path.join(goldens, uname), JSON.stringify(u) + '\n');
        console.log(`${uname}: rotation keys |q|²−1 up to ${dev.toExponential(2)} before normalising`);
      }
    }
  }
  dracoLoader?.dispose();
}

if (process.argv[1] && import.meta.url === pathToFileURL(path.resolve(process.argv[1])).href) {
  await main();
}
