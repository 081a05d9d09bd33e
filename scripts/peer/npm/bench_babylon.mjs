// Speed of the Babylon.js adapter against Babylon.js's own AnimationGroups, under a NullEngine
// in node (no browser, no GPU: `scene.render()` still runs the animations, the world matrices
// and the skeletons' matrices, which is the work compared). COUNT copies of each model are
// loaded into each of two scenes, all at the origin in the camera's view: in one every copy's
// AnimationGroup for the clip plays; in the other the groups are stopped and a
// SkelBabylonCharacter per copy plays the clip (a third scene: the same with `skinning:
// "direct"`). A frame is `scene.render()` on the first, and every character's `update(1/60)`
// then `scene.render()` on the others. Alternating rounds of
// FRAMES frames; milliseconds per frame on each side and their ratio. Never in CI; compare only
// sides of one run. Prints, of skel's frame, the share of the characters' updates.
//
//   node bench_babylon.mjs [COUNT...]          (default 100 1000; ROUNDS, FRAMES from the env)
import { readFileSync } from "node:fs";
import path from "node:path";
import { assets, babylonScene, loadAsset, SkelBabylonCharacter } from "./babylon_node.mjs";

const counts = process.argv.length > 2 ? process.argv.slice(2).map(Number) : [100, 1000];
const ASSETS = [
  ["Fox/Fox.glb", "Run"],
  ["CesiumMan/CesiumMan.glb", 0],
];
const ROUNDS = Number(process.env.ROUNDS ?? "5");
const FRAMES = Number(process.env.FRAMES ?? "50");

/** A copy of the first skinned mesh's bone matrices, as the last render left them. */
function firstBones({ containers }) {
  const skeleton = containers[0].skeletons[0];
  const mesh = containers[0].meshes.find((m) => m.skeleton === skeleton);
  return Array.from(skeleton.getTransformMatrices(mesh));
}

function msPerFrame(frame) {
  const start = performance.now();
  for (let f = 0; f < FRAMES; f++) frame();
  return (performance.now() - start) / FRAMES;
}

const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const range = (xs) => `${Math.min(...xs).toFixed(3)}–${Math.max(...xs).toFixed(3)}`;

for (const [name, clipKey] of ASSETS) {
  const bytes = readFileSync(path.join(assets, name));
  const asset = await loadAsset(new Uint8Array(bytes));
  const clip = typeof clipKey === "number" ? clipKey : asset.clipIndex(clipKey);
  for (const count of counts) {
    const theirs = await babylonScene(bytes, { copies: count });
    for (const c of theirs.containers) c.animationGroups[clip].play(true);
    const ours = await babylonScene(bytes, { copies: count });
    const direct = await babylonScene(bytes, { copies: count });
    const characters = ours.containers.map((c) => {
      const character = new SkelBabylonCharacter(c, asset);
      character.play(clip);
      return character;
    });
    const directs = direct.containers.map((c) => {
      const character = new SkelBabylonCharacter(c, asset, { skinning: "direct" });
      character.play(clip);
      return character;
    });
    const babylonFrame = () => theirs.scene.render();
    const directFrame = () => {
      for (const character of directs) character.update(1 / 60);
      direct.scene.render();
    };
    let updates = 0;
    const skelFrame = () => {
      const start = performance.now();
      for (const character of characters) character.update(1 / 60);
      updates += performance.now() - start;
      ours.scene.render();
    };
    // Warm both (JIT, first matrices), then alternate.
    babylonFrame();
    skelFrame();
    directFrame();
    const before = [theirs, ours, direct].map(firstBones);
    const rounds = [];
    for (let r = 0; r < ROUNDS; r++) {
      const babylon = msPerFrame(babylonFrame);
      updates = 0;
      const skel = msPerFrame(skelFrame);
      const skelDirect = msPerFrame(directFrame);
      rounds.push({ babylon, skel, skelDirect, ratio: babylon / skel, updates: updates / FRAMES });
    }
    // Both sides must have animated (a side that draws a still pose would be cheap for nothing).
    [theirs, ours, direct].forEach((side, i) => {
      const after = firstBones(side);
      const moved = Math.max(...after.map((v, k) => Math.abs(v - before[i][k])));
      const what = ["AnimationGroup", "skel", "skel direct"][i];
      if (!(moved > 1e-4)) throw new Error(`${name}: the ${what} side did not animate (${moved})`);
    });
    const b = rounds.map((x) => x.babylon);
    const s = rounds.map((x) => x.skel);
    const q = rounds.map((x) => x.ratio);
    console.log(
      `${name} ${clipKey} ×${count}: AnimationGroup ${median(b).toFixed(3)} ms a frame (${range(b)}), ` +
        `skel ${median(s).toFixed(3)} ms (${range(s)}); AnimationGroup / skel ${median(q).toFixed(2)}× (${range(q)}) ` +
        `over ${ROUNDS} rounds of ${FRAMES} frames; of skel's: the characters' updates ` +
        `${median(rounds.map((x) => x.updates)).toFixed(3)} ms, Babylon's render (world and skeleton matrices) the rest; ` +
        `skinning "direct" ${median(rounds.map((x) => x.skelDirect)).toFixed(3)} ms ` +
        `(group / direct ${median(rounds.map((x) => x.babylon / x.skelDirect)).toFixed(2)}×)`,
    );
    for (const character of [...characters, ...directs]) character.dispose();
    theirs.scene.dispose();
    ours.scene.dispose();
    direct.scene.dispose();
  }
}
