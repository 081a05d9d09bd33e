// Runs in headless Chromium (check_three.mjs serves it): for each asset, clip and time, the
// bone matrices three.js's own AnimationMixer leaves against those of skel-anim's three.js
// adapter, each on its own GLTFLoader copy of the same bytes: the adapter playing the clip, the
// same with skel's skinning matrices written straight into the skeletons (`skinning:
// "direct"`), and (for a named clip) the adapter driven by a one-state graph that plays it. The error is the largest
// distance between where the two put a corner of a skinned mesh's bounding box through any
// one bone (three.js's skinning, in world space), over the diagonal of the character's rest box.
import * as THREE from "three";
import { GLTFLoader } from "three/addons/loaders/GLTFLoader.js";
import { loadAsset } from "skel-anim";
import { SkelThreeCharacter } from "skel-anim/three";
import { skinnedMeshes } from "./skinned.js";

const ASSETS = ["CesiumMan/CesiumMan.glb", "Fox/Fox.glb", "RobotExpressive/RobotExpressive.glb"];

function corners(box) {
  const out = [];
  for (const x of [box.min.x, box.max.x])
    for (const y of [box.min.y, box.max.y])
      for (const z of [box.min.z, box.max.z]) out.push(new THREE.Vector3(x, y, z));
  return out;
}

// The largest distance, in world space, between where two skinned meshes (the same mesh of
// two copies) put the 8 corners of the mesh's bounding box through each bone: for bone i,
// meshWorld · bindMatrixInverse · boneMatrices[i] · bindMatrix · corner, three.js's own skinning.
function worstBone(a, b, points) {
  const ma = new THREE.Matrix4();
  const mb = new THREE.Matrix4();
  let worst = 0;
  const bonesA = a.skeleton.boneMatrices;
  const bonesB = b.skeleton.boneMatrices;
  for (let bone = 0; bone * 16 < bonesA.length; bone++) {
    ma.fromArray(bonesA, bone * 16).premultiply(a.bindMatrixInverse).premultiply(a.matrixWorld).multiply(a.bindMatrix);
    mb.fromArray(bonesB, bone * 16).premultiply(b.bindMatrixInverse).premultiply(b.matrixWorld).multiply(b.bindMatrix);
    for (const p of points) {
      worst = Math.max(worst, p.clone().applyMatrix4(ma).distanceTo(p.clone().applyMatrix4(mb)));
    }
  }
  return worst;
}

function meshCorners(mesh) {
  mesh.geometry.computeBoundingBox();
  return corners(mesh.geometry.boundingBox);
}

async function checkAsset(name) {
  const bytes = await (await fetch(`/assets/${name}`)).arrayBuffer();
  const loader = new GLTFLoader();
  const three = await loader.parseAsync(bytes.slice(0), "");
  const driven = await loader.parseAsync(bytes.slice(0), "");
  const graphed = await loader.parseAsync(bytes.slice(0), "");
  const direct = await loader.parseAsync(bytes.slice(0), "");
  const asset = await loadAsset(new Uint8Array(bytes));
  driven.scene.updateMatrixWorld(true);
  const box = new THREE.Box3().setFromObject(driven.scene);
  const diagonal = box.min.distanceTo(box.max);
  // The rest pose's bone matrices: a pose that equals them shows nothing about the clip.
  three.scene.updateMatrixWorld(true);
  const rest = skinnedMeshes(three.scene).map((m) => {
    m.skeleton.update();
    return {
      skeleton: { boneMatrices: m.skeleton.boneMatrices.slice() },
      bindMatrix: m.bindMatrix.clone(),
      bindMatrixInverse: m.bindMatrixInverse.clone(),
      matrixWorld: m.matrixWorld.clone(),
    };
  });
  const character = new SkelThreeCharacter(driven, asset);
  const directly = new SkelThreeCharacter(direct, asset, { skinning: "direct" });
  const mixer = new THREE.AnimationMixer(three.scene);
  const rows = [];
  for (let clip = 0; clip < three.animations.length; clip++) {
    const animation = three.animations[clip];
    // GLTFLoader names an unnamed clip `animation_<index>`; skel leaves it empty.
    if (character.clipNames[clip] !== "" && animation.name !== character.clipNames[clip]) {
      throw new Error(`${name}: clip ${clip} is ${animation.name} in three.js, ${character.clipNames[clip]} in skel`);
    }
    mixer.stopAllAction();
    mixer.clipAction(animation).play();
    character.play(clip);
    const duration = asset.clipDuration(clip);
    const clipName = character.clipNames[clip];
    const graph =
      clipName === ""
        ? undefined
        : asset.compileGraph(JSON.stringify({ layers: [{ name: "base", entry: "s", states: { s: { clip: clipName } } }] }));
    for (const t of [0.37 * duration, 0.81 * duration, duration + 0.25 * duration]) {
      mixer.setTime(t);
      three.scene.updateMatrixWorld(true);
      character.play(clip);
      character.update(t);
      rows.push(compare(name, animation.name, t, "clip", three, driven, rest, diagonal));
      directly.play(clip);
      directly.update(t);
      rows.push(compare(name, animation.name, t, "direct", three, direct, rest, diagonal));
      if (graph !== undefined) {
        const byGraph = new SkelThreeCharacter(graphed, asset, { graph });
        byGraph.update(t);
        rows.push(compare(name, animation.name, t, "graph", three, graphed, rest, diagonal));
        byGraph.dispose();
      }
    }
    graph?.free();
  }
  return rows;
}

// One row: the mixer's copy `three` against the adapter's copy `ours` at time `t`.
function compare(name, clip, t, driver, three, ours, rest, diagonal) {
  ours.scene.updateMatrixWorld(true);
  const skel = skinnedMeshes(ours.scene);
  const theirs = skinnedMeshes(three.scene);
  let worst = 0;
  let moved = 0;
  for (let i = 0; i < theirs.length; i++) {
    theirs[i].skeleton.update();
    skel[i].skeleton.update();
    const points = meshCorners(theirs[i]);
    worst = Math.max(worst, worstBone(theirs[i], skel[i], points));
    moved = Math.max(moved, worstBone(theirs[i], rest[i], points));
  }
  return { asset: name, clip, time: t, driver, meshes: theirs.length, error: worst / diagonal, moved: moved / diagonal };
}

// A bad file is an Error with the loader's message, and the module goes on working (the
// assets below load after it).
async function badFile() {
  try {
    await loadAsset(new Uint8Array([0x67, 0x6c, 0x54, 0x46, 9, 0, 0, 0]));
  } catch (e) {
    if (!(e instanceof Error) || !e.message.includes("cannot load the glTF asset")) {
      throw new Error(`a bad file threw ${e}, not the loader's Error`);
    }
    return e.message;
  }
  throw new Error("a bad file loaded");
}

// A `.gltf` whose buffer is a sibling file: loaded by URL (the package fetches the sibling
// relative to it) it poses as the same bytes with the sibling given; from bytes without the
// sibling, an Error naming it. Returns the largest difference of a skinning matrix entry and
// how far the clip moved them from rest (equality at rest would show nothing).
async function siblings() {
  const url = "/fixtures/two_skins.gltf";
  const byUrl = await loadAsset(url);
  const gltf = new Uint8Array(await (await fetch(url)).arrayBuffer());
  const bin = new Uint8Array(await (await fetch("/fixtures/two_skins.bin")).arrayBuffer());
  const byBytes = await loadAsset(gltf, { files: new Map([["two_skins.bin", bin]]) });
  let missing = "";
  try {
    await loadAsset(gltf, { files: {} });
  } catch (e) {
    missing = String(e && e.message ? e.message : e);
  }
  if (!missing.includes("two_skins.bin")) {
    throw new Error(`a .gltf without its sibling: "${missing}", not an Error naming two_skins.bin`);
  }
  const players = [byUrl, byBytes].map((asset) => {
    const player = asset.createPlayer();
    player.play(asset.clipIndex("Both"), true);
    return player;
  });
  const rest = Array.from(players[0].boneMatrices(0));
  let worst = 0;
  let moved = 0;
  for (let step = 0; step < 20; step++) {
    for (const player of players) player.tick(1 / 30);
  }
  for (let binding = 0; binding < byUrl.skeletonCount; binding++) {
    const [a, b] = players.map((p) => p.boneMatrices(binding));
    if (a.length === 0 || a.length !== b.length) throw new Error(`binding ${binding}: ${a.length} and ${b.length} floats`);
    for (let i = 0; i < a.length; i++) {
      worst = Math.max(worst, Math.abs(a[i] - b[i]));
      if (binding === 0) moved = Math.max(moved, Math.abs(a[i] - rest[i]));
    }
  }
  return { worst, moved, missing };
}

try {
  const badFileMessage = await badFile();
  const gltfFiles = await siblings();
  const rows = [];
  for (const name of ASSETS) rows.push(...(await checkAsset(name)));
  window.skelResult = { rows, badFileMessage, gltfFiles };
} catch (e) {
  window.skelResult = { error: String(e && e.stack ? e.stack : e) };
}
