// Runs in headless Chromium (bench_three.mjs serves it): the cost of a frame of N characters
// animated by three.js's own AnimationMixer against the same characters animated by skel-anim's
// three.js adapter, in one page. Each side is what a three.js page does every frame before it
// draws: the animation update of every character (`mixer.update(dt)`, or the adapter's
// `update(dt)`: skel's tick and the node world matrices written), `scene.updateMatrixWorld()`
// and every skinned mesh's `skeleton.update()` (what `WebGLRenderer.render` does before it
// draws). No drawing. Each character is a SkeletonUtils clone of the file's scene playing the
// clip from its own phase. Rounds alternate the two sides; each round times FRAMES frames.
// Two more rows split skel's side: its ticks alone, and three.js's share alone. A fifth times
// the adapter with `skinning: "direct"` (skel's skinning matrices straight into the skeletons).
import * as THREE from "three";
import { GLTFLoader } from "three/addons/loaders/GLTFLoader.js";
import * as SkeletonUtils from "three/addons/utils/SkeletonUtils.js";
import { loadAsset } from "skel-anim";
import { SkelThreeCharacter } from "skel-anim/three";
import { skinnedMeshes } from "./skinned.js";

const query = new URLSearchParams(location.search);
const ASSET = query.get("asset") ?? "Fox/Fox.glb";
const CLIP = query.get("clip") ?? "0";
const COUNT = Number(query.get("count") ?? "100");
const FRAMES = Number(query.get("frames") ?? "100");
const ROUNDS = Number(query.get("rounds") ?? "5");
const DT = 1 / 60;

// A clone of the file's scene with GLTFLoader's node associations carried over (the adapter
// finds each glTF node's object through them): SkeletonUtils.clone keeps the traversal order.
function cloneWithAssociations(gltf) {
  const scene = SkeletonUtils.clone(gltf.scene);
  const sources = [];
  gltf.scene.traverse((o) => sources.push(o));
  const associations = new Map();
  let i = 0;
  scene.traverse((o) => {
    const ref = gltf.parser.associations.get(sources[i++]);
    if (ref !== undefined) associations.set(o, ref);
  });
  return { scene, parser: { associations } };
}

// `count` characters in a row, each `frame()` one frame of the side; returns the side.
function mixerSide(gltf, clip, count) {
  const scene = new THREE.Scene();
  const mixers = [];
  for (let i = 0; i < count; i++) {
    const character = SkeletonUtils.clone(gltf.scene);
    character.position.x = i;
    scene.add(character);
    const mixer = new THREE.AnimationMixer(character);
    mixer.clipAction(gltf.animations[clip]).play();
    mixer.setTime(i * 0.137);
    mixers.push(mixer);
  }
  const skinned = skinnedMeshes(scene);
  return () => {
    for (const m of mixers) m.update(DT);
    scene.updateMatrixWorld();
    for (const s of skinned) s.skeleton.update();
  };
}

function skelSide(gltf, asset, clip, count, options = {}) {
  const scene = new THREE.Scene();
  const characters = [];
  for (let i = 0; i < count; i++) {
    const clone = cloneWithAssociations(gltf);
    clone.scene.position.x = i;
    scene.add(clone.scene);
    clone.scene.updateMatrixWorld(true);
    const character = new SkelThreeCharacter(clone, asset, options);
    character.play(clip);
    character.seek(i * 0.137);
    characters.push(character);
  }
  const skinned = skinnedMeshes(scene);
  // The whole frame, and apart: skel's ticks alone, and three.js's share (the world matrices
  // and skeletons, with the pose left as it is).
  return {
    skel: () => {
      for (const c of characters) c.update(DT);
      scene.updateMatrixWorld();
      for (const s of skinned) s.skeleton.update();
    },
    skelTicks: () => {
      for (const c of characters) c.player.tick(DT);
    },
    threeShare: () => {
      scene.updateMatrixWorld();
      for (const s of skinned) s.skeleton.update();
    },
  };
}

function time(frame) {
  const start = performance.now();
  for (let f = 0; f < FRAMES; f++) frame();
  return (performance.now() - start) / FRAMES;
}

try {
  const bytes = await (await fetch(`/assets/${ASSET}`)).arrayBuffer();
  const gltf = await new GLTFLoader().parseAsync(bytes.slice(0), "");
  const asset = await loadAsset(new Uint8Array(bytes));
  const clip = /^\d+$/.test(CLIP) ? Number(CLIP) : asset.clipIndex(CLIP);
  const sides = {
    mixer: mixerSide(gltf, clip, COUNT),
    ...skelSide(gltf, asset, clip, COUNT),
    skelDirect: skelSide(gltf, asset, clip, COUNT, { skinning: "direct" }).skel,
  };
  // Warm every side up (the JIT, the caches) before the timed rounds.
  for (const side of Object.values(sides)) time(side);
  const rounds = [];
  for (let r = 0; r < ROUNDS; r++) {
    const order = ["mixer", "skel", "skelDirect", "skelTicks", "threeShare"];
    if (r % 2 === 1) order.reverse();
    const row = { round: r };
    for (const side of order) row[side] = time(sides[side]);
    rounds.push(row);
  }
  window.skelResult = { asset: ASSET, clip: asset.clipNames[clip] ?? String(clip), count: COUNT, frames: FRAMES, rounds };
} catch (e) {
  window.skelResult = { error: String(e && e.stack ? e.stack : e) };
}
