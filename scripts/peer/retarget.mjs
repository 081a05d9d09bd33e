// Babylon.js reference for skel-retarget: loads each case's source and target under a
// NullEngine, retargets the chosen clips with AnimatorAvatar.retargetAnimationGroup (same map
// and options as the Rust test), samples them, and writes the target joints' world
// transforms to crates/skel-retarget/tests/golden/<case>.json.
//
// Regenerate: cd scripts/peer && npm ci && node retarget.mjs
// Assets are read from ../shared/assets beside the repository (never copied into it).

import { readFileSync, writeFileSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import {
    AnimatorAvatar,
    LoadAssetContainerAsync,
    Logger,
    NullEngine,
    Quaternion,
    Scene,
    Vector3,
} from "@babylonjs/core/index.js";
import "@babylonjs/loaders/glTF/index.js";

const here = dirname(fileURLToPath(import.meta.url));
const repo = resolve(here, "../..");
const assets = resolve(repo, "../shared/assets");
const goldenDir = join(repo, "crates/skel-retarget/tests/golden");

/// The bytes of a `.glb`, or of a `.gltf` made self-contained: buffers become data URIs and
/// images are dropped (the engine is null; only nodes, skins and animations matter).
function fileBytes(rel) {
    const path = rel.startsWith("fixtures/") ? join(repo, rel) : join(assets, rel);
    const bytes = readFileSync(path);
    if (!path.endsWith(".gltf")) {
        return { data: "data:;base64," + bytes.toString("base64"), ext: ".glb" };
    }
    const json = JSON.parse(bytes.toString("utf8"));
    for (const buffer of json.buffers ?? []) {
        if (buffer.uri && !buffer.uri.startsWith("data:")) {
            const bin = readFileSync(join(dirname(path), decodeURIComponent(buffer.uri)));
            buffer.uri = "data:application/octet-stream;base64," + bin.toString("base64");
        }
    }
    delete json.images;
    delete json.textures;
    delete json.samplers;
    for (const m of json.materials ?? []) {
        delete m.pbrMetallicRoughness;
        delete m.normalTexture;
        delete m.occlusionTexture;
        delete m.emissiveTexture;
    }
    return { data: "data:;base64," + Buffer.from(JSON.stringify(json)).toString("base64"), ext: ".gltf" };
}

async function load(scene, rel) {
    const { data, ext } = fileBytes(rel);
    const container = await LoadAssetContainerAsync(data, scene, {
        pluginExtension: ext,
        // Nodes stay at their glTF rest: no animation is started on load.
        pluginOptions: { gltf: { animationStartMode: 0, skipMaterials: true } },
    });
    container.addAllToScene();
    return container;
}

/// Rounds to 7 significant digits (the goldens stay small, far below the tolerances).
const round = (x) => Number(x.toPrecision(7));

function worldTransforms(container, jointNames) {
    const root = container.rootNodes[0];
    const nodes = [root, ...root.getDescendants(false)];
    for (const n of nodes) {
        n.computeWorldMatrix(true);
    }
    const out = {};
    for (const n of nodes) {
        if (!jointNames.has(n.name)) continue;
        const s = new Vector3();
        const q = new Quaternion();
        const t = new Vector3();
        n.getWorldMatrix().decompose(s, q, t);
        out[n.name] = [t.x, t.y, t.z, q.x, q.y, q.z, q.w].map(round);
    }
    return out;
}

async function runCase(c) {
    const engine = new NullEngine();
    const scene = new Scene(engine);
    // glTF's own right-handed space: no mirroring root, the space of the Rust test.
    scene.useRightHandedSystem = true;
    const source = await load(scene, c.source);
    const target = await load(scene, c.target);
    const avatar = new AvatarFor(target);
    const jointNames = new Set();
    for (const sk of target.skeletons) {
        for (const b of sk.bones) jointNames.add(b.getTransformNode()?.name ?? b.name);
    }
    // Babylon's mapNodeNames goes source → target; the case's map goes target → source.
    const mapNodeNames = new Map(Object.entries(c.map).map(([t, s]) => [s, t]));
    const clips = [];
    for (const name of c.clips) {
        const group = name === "" ? source.animationGroups[0] : source.animationGroups.find((g) => g.name === name);
        if (!group) throw new Error(`${c.name}: no clip ${name}`);
        // The root fix needs the source's ground node animated in the clip (Babylon's rule).
        const animated = new Set(group.targetedAnimations.map((ta) => ta.target.name));
        const rootFixed = animated.has(c.map[c.root]) && animated.has(c.map[c.ground]);
        const retargeted = avatar.retargetAnimationGroup(group, {
            animationGroupName: `${name}-retargeted`,
            mapNodeNames,
            fixRootPosition: true,
            rootNodeName: c.map[c.root],
            groundReferenceNodeName: c.map[c.ground],
        });
        const fps = retargeted.targetedAnimations[0]?.animation.framePerSecond ?? 60;
        const samples = [];
        for (const t of c.times) {
            // Joints the clip does not animate stand at rest (retargetAnimationGroup puts the
            // avatar back in the pose it found, here the previous sample's).
            for (const sk of target.skeletons) sk.returnToRest();
            retargeted.play(false);
            retargeted.goToFrame(t * fps);
            retargeted.pause();
            samples.push(worldTransforms(target, jointNames));
            retargeted.stop();
        }
        retargeted.dispose();
        clips.push({ name, root_fixed: rootFixed, samples });
    }
    engine.dispose();
    return { ...c, babylon: "@babylonjs/core 9.28.0", clips };
}

/// The avatar of a loaded target: its root node (`__root__`) and every skinned mesh below.
function AvatarFor(container) {
    return new AnimatorAvatar("target", container.rootNodes[0], false, false);
}

Logger.LogLevels = Logger.ErrorLogLevel;
const cases = JSON.parse(readFileSync(join(here, "cases.json"), "utf8"));
for (const c of cases) {
    const golden = await runCase(c);
    const path = join(goldenDir, `${c.name}.json`);
    writeFileSync(path, JSON.stringify(golden) + "\n");
    console.log(`wrote ${path}`);
}
