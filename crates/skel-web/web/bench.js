// bench.html: the same characters posed by skel (wasm, crates/skel-web/src/bench.rs) and by
// three.js's AnimationMixer, in one page, interleaved, timed with performance.now(). CPU only:
// nothing is drawn on either side. Results go to <body data-bench="{…}"> (JSON), errors to
// <body data-bench-error>, progress to <body data-bench-progress>.
import init, { skel_bench_frame, skel_bench_setup } from "./skel_web.js";
import * as THREE from "three";
import { GLTFLoader } from "three/addons/loaders/GLTFLoader.js";
import * as SkeletonUtils from "three/addons/utils/SkeletonUtils.js";

const query = new URLSearchParams(location.search);
const counts = (query.get("n") ?? "100,1000").split(",").map(Number);
const rounds = Number(query.get("rounds") ?? 10);
const frames = Number(query.get("frames") ?? 200);
const warmup = Number(query.get("warmup") ?? 2);
const world = query.get("world") !== "0";
// Also time three.js with one Skeleton per character shared by its SkinnedMeshes (by hand:
// GLTFLoader and SkeletonUtils.clone give each primitive its own).
const shared = query.get("shared") !== "0";
const DT = 1 / 60;
const CLIP = "Walk";

const status = document.getElementById("bench-status");
const say = (text) => {
  status.textContent = text;
  document.body.setAttribute("data-bench-progress", text);
};
const pause = () => new Promise((resolve) => setTimeout(resolve, 0));
const median = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  const m = s.length >> 1;
  return s.length % 2 ? s[m] : (s[m - 1] + s[m]) / 2;
};

/// The built-in character (the bytes skel embeds; the harness writes them beside the page).
async function loadCharacter() {
  const response = await fetch("default_character.glb");
  if (!response.ok) throw new Error(`default_character.glb: HTTP ${response.status}`);
  const bytes = await response.arrayBuffer();
  return new Promise((resolve, reject) => new GLTFLoader().parse(bytes, "", resolve, reject));
}

/// n clones of the character in one scene, one mixer each playing Walk from i / n of the clip.
/// GLTFLoader makes the character's mesh of 7 primitives 7 SkinnedMeshes, each bound to its own
/// Skeleton of the same bones, and SkeletonUtils.clone keeps that; with `share`, each clone's
/// meshes are rebound to its first mesh's Skeleton (same bones, inverses and bind matrix).
class ThreeCrowd {
  constructor(gltf, n, share) {
    const clip = THREE.AnimationClip.findByName(gltf.animations, CLIP);
    if (!clip) throw new Error(`three.js finds no ${CLIP} clip`);
    this.scene = new THREE.Scene();
    this.mixers = [];
    /// Each character's first Skeleton: what the checksum reads.
    this.first = [];
    const skeletons = new Set();
    for (let i = 0; i < n; i++) {
      const character = SkeletonUtils.clone(gltf.scene);
      this.scene.add(character);
      const mixer = new THREE.AnimationMixer(character);
      const action = mixer.clipAction(clip);
      action.play();
      action.time = (clip.duration * i) / n;
      this.mixers.push(mixer);
      const meshes = [];
      character.traverse((o) => o.isSkinnedMesh && meshes.push(o));
      if (meshes.length === 0) throw new Error("three.js finds no SkinnedMesh");
      if (share) for (const mesh of meshes) mesh.bind(meshes[0].skeleton, mesh.bindMatrix);
      for (const mesh of meshes) skeletons.add(mesh.skeleton);
      this.first.push(meshes[0].skeleton);
    }
    this.skeletons = [...skeletons];
    this.bones = this.skeletons.reduce((sum, s) => sum + s.bones.length, 0) / n;
    this.skeletonsPerCharacter = this.skeletons.length / n;
  }

  /// What three.js does for these characters before it draws: the mixers, the scene's world
  /// matrices, each skeleton's boneMatrices (WebGLRenderer calls skeleton.update() once per
  /// skeleton and frame). Returns the checksum skel_bench_frame takes (over each character's
  /// first Skeleton: the others hold the same matrices).
  frame(dt) {
    for (const mixer of this.mixers) mixer.update(dt);
    this.scene.updateMatrixWorld();
    for (const skeleton of this.skeletons) skeleton.update();
    let sum = 0;
    for (const skeleton of this.first) {
      const m = skeleton.boneMatrices;
      for (let k = 0; k < m.length; k += 16) {
        sum += m[k] + m[k + 5] + m[k + 10] + m[k + 12] + m[k + 13] + m[k + 14];
      }
    }
    return sum;
  }
}

/// `frames` frames of `step`: milliseconds per frame and the last frame's checksum.
function timeFrames(step) {
  let checksum = 0;
  const start = performance.now();
  for (let f = 0; f < frames; f++) checksum = step(DT);
  return [(performance.now() - start) / frames, checksum];
}

async function benchmark(gltf, n) {
  say(`n=${n}: setting up`);
  await pause();
  let start = performance.now();
  const joints = skel_bench_setup(n, world);
  const skelSetupMs = performance.now() - start;
  start = performance.now();
  const crowd = new ThreeCrowd(gltf, n, false);
  const threeSetupMs = performance.now() - start;
  const sides = {
    skel: (dt) => skel_bench_frame(dt),
    three: (dt) => crowd.frame(dt),
  };
  let sharedCrowd = null;
  if (shared) {
    sharedCrowd = new ThreeCrowd(gltf, n, true);
    sides.three_shared = (dt) => sharedCrowd.frame(dt);
  }
  const names = Object.keys(sides);
  const times = Object.fromEntries(names.map((k) => [k, []]));
  const checksums = Object.fromEntries(names.map((k) => [k, 0]));
  for (let round = -warmup; round < rounds; round++) {
    // Interleaved, and the order rotates, so that none always runs first.
    const at = ((round % names.length) + names.length) % names.length;
    const order = [...names.slice(at), ...names.slice(0, at)];
    for (const side of order) {
      say(`n=${n}: ${round < 0 ? "warm-up" : "round " + (round + 1)} of ${rounds}, ${side}`);
      await pause();
      const [ms, checksum] = timeFrames(sides[side]);
      if (round >= 0) times[side].push(ms);
      checksums[side] = checksum;
    }
  }
  const side = (name) => {
    const ms = median(times[name]);
    return {
      median_ms_per_frame: ms,
      us_per_character: (ms * 1000) / n,
      min_ms_per_frame: Math.min(...times[name]),
      ms_per_frame: times[name],
    };
  };
  const result = {
    n,
    skel: { ...side("skel"), setup_ms: skelSetupMs, skinning_matrices_per_character: joints },
    three: {
      ...side("three"),
      setup_ms: threeSetupMs,
      skeletons_per_character: crowd.skeletonsPerCharacter,
      bone_matrices_per_character: crowd.bones,
    },
  };
  result.ratio = result.three.median_ms_per_frame / result.skel.median_ms_per_frame;
  if (sharedCrowd) {
    result.three_shared = {
      ...side("three_shared"),
      skeletons_per_character: sharedCrowd.skeletonsPerCharacter,
      bone_matrices_per_character: sharedCrowd.bones,
    };
    result.ratio_shared = result.three_shared.median_ms_per_frame / result.skel.median_ms_per_frame;
  }
  // Both sides played the same times for the same number of frames: the sums of the last
  // frame's skinning matrices' x translations agree when both compute the same pose.
  const differs = (a, b) => Math.abs(a - b) / Math.max(Math.abs(a), Math.abs(b), 1e-30);
  result.checksum = { ...checksums, relative_difference: differs(checksums.skel, checksums.three) };
  return result;
}

function show(results) {
  const table = document.getElementById("bench-table");
  const f = (x, digits) => x.toFixed(digits);
  table.innerHTML =
    "<tr><th>characters</th><th>skel ms/frame</th><th>three ms/frame</th>" +
    "<th>skel µs/char</th><th>three µs/char</th><th>three / skel</th>" +
    "<th>three, shared skeleton µs/char</th><th>that / skel</th></tr>" +
    results
      .map(
        (r) =>
          `<tr><td>${r.n}</td><td>${f(r.skel.median_ms_per_frame, 3)}</td>` +
          `<td>${f(r.three.median_ms_per_frame, 3)}</td><td>${f(r.skel.us_per_character, 2)}</td>` +
          `<td>${f(r.three.us_per_character, 2)}</td><td>${f(r.ratio, 1)}×</td>` +
          (r.three_shared
            ? `<td>${f(r.three_shared.us_per_character, 2)}</td><td>${f(r.ratio_shared, 1)}×</td>`
            : "<td></td><td></td>") +
          "</tr>",
      )
      .join("");
}

async function main() {
  await init();
  const gltf = await loadCharacter();
  const results = [];
  for (const n of counts) {
    results.push(await benchmark(gltf, n));
    show(results);
  }
  const report = {
    user_agent: navigator.userAgent,
    hardware_concurrency: navigator.hardwareConcurrency,
    cross_origin_isolated: self.crossOriginIsolated,
    three_revision: THREE.REVISION,
    rounds,
    frames,
    warmup,
    dt: DT,
    clip: CLIP,
    skel_world_matrices: world,
    three_shared_skeleton_timed: shared,
    results,
  };
  say("done");
  document.body.setAttribute("data-bench", JSON.stringify(report));
}

main().catch((e) => {
  const message = `bench failed: ${e?.stack ?? e}`;
  status.textContent = message;
  status.className = "error";
  document.body.setAttribute("data-bench-error", message);
});
