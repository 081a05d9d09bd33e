// three-vrm-animation reference for skel's `.vrma` retargeting (issue 44).
//
// Loads fixture avatars with three-vrm's VRMLoaderPlugin and `.vrma` clips with
// three-vrm-animation's VRMAnimationLoaderPlugin, builds the clip with createVRMAnimationClip,
// plays it with an AnimationMixer (LoopOnce, clamped) at a few times, runs
// `vrm.humanoid.update()` (normalized bones → raw bones) and writes every humanoid bone's world
// position (glTF's right-handed space, the avatar at the origin) to goldens/vrma.json.
// crates/skel-retarget/tests/vrma_three.rs compares skel's retargeted clips with it.
//
// Regenerate: cd scripts/peer/vrm && npm ci && node vrma.mjs

import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import * as THREE from "three";
import { GLTFLoader } from "three/examples/jsm/loaders/GLTFLoader.js";
import { VRMLoaderPlugin } from "@pixiv/three-vrm";
import { VRMAnimationLoaderPlugin, createVRMAnimationClip } from "@pixiv/three-vrm-animation";

const here = dirname(fileURLToPath(import.meta.url));
const fixtures = resolve(here, "../../../fixtures/vrm");
const version = (p) => JSON.parse(readFileSync(join(here, "node_modules", p, "package.json"))).version;

const CASES = [
    ["v1_expressions.vrm", "walk.vrma"],
    ["v1_expressions.vrm", "walk_tall.vrma"],
    ["v1_scaled_root.vrm", "walk_tall.vrma"],
    ["v0_expressions.vrm", "walk.vrma"],
];
const TIMES = [0, 0.13, 0.25, 0.4, 0.5, 0.77, 1.0];

async function parse(file, plugin) {
    const loader = new GLTFLoader();
    loader.register(plugin);
    const b = readFileSync(join(fixtures, file));
    return loader.parseAsync(b.buffer.slice(b.byteOffset, b.byteOffset + b.byteLength), "");
}

const cases = [];
for (const [avatar, clipFile] of CASES) {
    const g = await parse(avatar, (p) => new VRMLoaderPlugin(p));
    const vrm = g.userData.vrm;
    const a = await parse(clipFile, (p) => new VRMAnimationLoaderPlugin(p));
    const clip = createVRMAnimationClip(a.userData.vrmAnimations[0], vrm);
    const nodes = await g.parser.getDependencies("node");
    const holder = new THREE.Scene();
    holder.add(vrm.scene);
    const mixer = new THREE.AnimationMixer(vrm.scene);
    const action = mixer.clipAction(clip);
    action.setLoop(THREE.LoopOnce, 1);
    action.clampWhenFinished = true;
    action.play();
    const bones = {};
    for (const [name, bone] of Object.entries(vrm.humanoid.humanBones)) {
        if (bone?.node) bones[name] = nodes.indexOf(bone.node);
    }
    const frames = [];
    for (const t of TIMES) {
        mixer.setTime(t);
        vrm.humanoid.update();
        holder.updateMatrixWorld(true);
        const at = {};
        for (const [name, bone] of Object.entries(vrm.humanoid.humanBones)) {
            if (!bone?.node) continue;
            const p = new THREE.Vector3().setFromMatrixPosition(bone.node.matrixWorld);
            at[name] = [p.x, p.y, p.z];
        }
        frames.push({ time: t, positions: at });
    }
    cases.push({ avatar, vrma: clipFile, metaVersion: vrm.meta.metaVersion, tracks: clip.tracks.length, bones, frames });
}

mkdirSync(join(here, "goldens"), { recursive: true });
writeFileSync(
    join(here, "goldens/vrma.json"),
    JSON.stringify(
        {
            three: version("three"),
            threeVrm: version("@pixiv/three-vrm"),
            threeVrmAnimation: version("@pixiv/three-vrm-animation"),
            command: "cd scripts/peer/vrm && npm ci && node vrma.mjs",
            cases,
        },
        null,
        1,
    ) + "\n",
);
console.log(`wrote goldens/vrma.json: ${cases.length} cases`);
