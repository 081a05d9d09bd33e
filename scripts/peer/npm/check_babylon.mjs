// The Babylon.js adapter against Babylon.js's own AnimationGroup, under a NullEngine in node:
// each of CesiumMan, Fox and RobotExpressive (../shared/assets) is loaded twice by Babylon's
// glTF loader, in a left-handed scene (Babylon's default, its `__root__` converting) and in a
// right-handed one; one copy is posed by the clip's AnimationGroup, the other by
// SkelBabylonCharacter (a third by SkelBabylonCharacter with `skinning: "direct"`), for every
// clip (a fresh AnimationGroup copy each) at 37 % and 81 % of its length. The error is the largest
// distance between where the two copies put a corner of a skinned mesh's bounding box through
// any one bone (Babylon's skinning: corner · bone · meshWorld), over the diagonal of the
// character's rest box; tolerance 1e-5, and the group's pose must have moved from rest.
import { readFileSync } from "node:fs";
import path from "node:path";
import { Matrix, Vector3 } from "@babylonjs/core/index.js";
import { assets, babylonScene, loadAsset, SkelBabylonCharacter } from "./babylon_node.mjs";

const TOLERANCE = 1e-5;
const ASSETS = ["CesiumMan/CesiumMan.glb", "Fox/Fox.glb", "RobotExpressive/RobotExpressive.glb"];

/** One copy of the model in its own scene: `{ scene, container }`. */
async function load(bytes, rightHanded) {
  const { scene, containers } = await babylonScene(bytes, { rightHanded });
  return { scene, container: containers[0] };
}

// Per skinned mesh: every bone's `bone · meshWorld` (Babylon's row-vector skinning).
function skinMatrices({ scene, container }) {
  scene.render();
  return container.skeletons.map((skeleton) => {
    const mesh = container.meshes.find((m) => m.skeleton === skeleton);
    mesh.computeWorldMatrix(true);
    const flat = skeleton.getTransformMatrices(mesh);
    const bones = [];
    for (let j = 0; j * 16 < flat.length; j++) {
      bones.push(Matrix.FromArray(flat, j * 16).multiply(mesh.getWorldMatrix()));
    }
    const box = mesh.getBoundingInfo().boundingBox;
    const corners = [];
    for (const x of [box.minimum.x, box.maximum.x])
      for (const y of [box.minimum.y, box.maximum.y])
        for (const z of [box.minimum.z, box.maximum.z]) corners.push(new Vector3(x, y, z));
    return { bones, corners };
  });
}

function worst(a, b) {
  let out = 0;
  for (let s = 0; s < a.length; s++) {
    for (let j = 0; j < a[s].bones.length; j++) {
      for (const p of a[s].corners) {
        const pa = Vector3.TransformCoordinates(p, a[s].bones[j]);
        const pb = Vector3.TransformCoordinates(p, b[s].bones[j]);
        out = Math.max(out, Vector3.Distance(pa, pb));
      }
    }
  }
  return out;
}

let failed = false;
let worstSeen = 0;
let cases = 0;
for (const name of ASSETS) {
  const bytes = readFileSync(path.join(assets, name));
  const asset = await loadAsset(new Uint8Array(bytes));
  for (const rightHanded of [false, true]) {
    const driven = await load(bytes, rightHanded);
    const rest = skinMatrices(await load(bytes, rightHanded));
    const root = driven.container.meshes[0];
    const { min, max } = root.getHierarchyBoundingVectors(true);
    const diagonal = Vector3.Distance(min, max);
    const character = new SkelBabylonCharacter(driven.container, asset);
    // The same with skel's skinning matrices written straight into the skeletons.
    const direct = await load(bytes, rightHanded);
    const directCharacter = new SkelBabylonCharacter(direct.container, asset, { skinning: "direct" });
    for (let clip = 0; clip < driven.container.animationGroups.length; clip++) {
      // A fresh copy per clip: a stopped group leaves its nodes where it put them, and the
      // nodes the next clip does not animate must be at rest, as skel's are.
      const babylon = await load(bytes, rightHanded);
      const groups = babylon.container.animationGroups;
      const group = groups[clip];
      const fps = group.targetedAnimations[0]?.animation.framePerSecond ?? 60;
      const duration = asset.clipDuration(clip);
      for (const t of [0.37 * duration, 0.81 * duration]) {
        group.play(false);
        group.goToFrame(t * fps);
        group.pause();
        character.play(clip);
        character.update(t);
        directCharacter.play(clip);
        directCharacter.update(t);
        const theirs = skinMatrices(babylon);
        const moved = worst(theirs, rest) / diagonal;
        for (const [skinning, copy] of [["bones", driven], ["direct", direct]]) {
          const ours = skinMatrices(copy);
          const error = worst(theirs, ours) / diagonal;
          const bad = !(error <= TOLERANCE) || !(moved > 1e-3);
          failed ||= bad;
          worstSeen = Math.max(worstSeen, error);
          cases++;
          console.log(
            `${bad ? "FAIL" : "ok  "} ${name} ${rightHanded ? "right" : "left "}-handed ${group.name} ${skinning} t=${t.toFixed(3)} s skins=${theirs.length} error=${error.toExponential(2)} of the diagonal (pose moved ${moved.toFixed(3)})`,
          );
        }
      }
    }
    character.dispose();
    directCharacter.dispose();
  }
}
console.log(`${cases} cases, worst ${worstSeen.toExponential(2)} of the diagonal (tolerance ${TOLERANCE})`);
process.exit(failed ? 1 : 0);
