// Babylon.js reference for skel's KHR_animation_pointer sampling, KHR_texture_transform and
// skinning. Under a NullEngine in glTF's own right-handed space (`useRightHandedSystem`), it
// writes to goldens/ beside this file:
//
// - pointer.json: every KHR_animation_pointer channel of fixtures/animation_pointer.gltf that
//   Babylon applies, sampled at TIMES, read back from the Babylon object it animates and turned
//   back into the glTF value (README.md lists each inverse), plus the channels Babylon skips.
// - pointer_visibility.json: the visibility channel moved onto a node with a mesh of its own
//   (pointer_visibility.gltf, written beside it), which Babylon animates.
// - skin/<Model>.<clip>.json: for CesiumMan, Fox and RiggedFigure from ../shared/assets (never
//   copied into the repository), every skin's joint world matrices and Babylon's own skinning
//   matrices at a few times, in the shape of ../shared/golden (peer-ref-golden/1).
// - uv.json: Babylon's texture matrix (Texture.getTextureMatrix) for KHR_texture_transform
//   cases, applied to a few UVs; texture_transform.gltf: the file those cases were loaded from.
//
// Regenerate: cd scripts/peer/babylon && npm ci && node goldens.mjs

import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import {
    FreeCamera,
    LoadAssetContainerAsync,
    Logger,
    Matrix,
    NullEngine,
    Quaternion,
    Scene,
    Texture,
    Vector3,
} from "@babylonjs/core/index.js";
import "@babylonjs/loaders/glTF/index.js";

const here = dirname(fileURLToPath(import.meta.url));
const repo = resolve(here, "../../..");
const assets = resolve(repo, "../shared/assets");
const out = join(here, "goldens");
const versions = {
    core: JSON.parse(readFileSync(join(here, "node_modules/@babylonjs/core/package.json"))).version,
    loaders: JSON.parse(readFileSync(join(here, "node_modules/@babylonjs/loaders/package.json"))).version,
};
const engineVersion = `@babylonjs/core ${versions.core}, @babylonjs/loaders ${versions.loaders}`;

/// Rounds to 7 significant digits (the goldens stay small; f32 data has about 7).
const round = (x) => (x === 0 ? 0 : Number(x.toPrecision(7)));

/// Babylon's log lines while loading (the pointers it skips are reported there).
const logged = [];
Logger.OnNewCacheEntry = (entry) => logged.push(entry);

async function load(scene, bytes, ext) {
    const data = "data:;base64," + bytes.toString("base64");
    const container = await LoadAssetContainerAsync(data, scene, {
        pluginExtension: ext,
        // Nodes stay at their glTF rest: no animation is started on load.
        pluginOptions: { gltf: { animationStartMode: 0 } },
    });
    container.addAllToScene();
    return container;
}

function freshScene() {
    const engine = new NullEngine();
    const scene = new Scene(engine);
    // glTF's own right-handed space: no mirroring root, the space of skel's tests.
    scene.useRightHandedSystem = true;
    return { engine, scene };
}

/// Poses `group` at `t` seconds (frame t · fps, Babylon's glTF loader keys at 60 fps).
function seek(group, t) {
    const fps = group.targetedAnimations[0]?.animation.framePerSecond ?? 60;
    group.play(false);
    group.goToFrame(t * fps);
    group.pause();
}

// ---- KHR_animation_pointer ----------------------------------------------------------------

/// Times: the keys (0, 1, 2), between them, the shared goldens' arbitrary 0.3713 and past the end.
const TIMES = [0, 0.25, 0.3713, 0.5, 0.9, 1, 1.3713, 1.75, 2];

/// Each pointer Babylon applies → how to read its glTF value back from the loaded objects.
/// `m`: materials by glTF index, `cam`: cameras, `light`: lights, `node`: nodes.
const READERS = {
    "/materials/0/pbrMetallicRoughness/baseColorFactor": ({ m }) => [...m[0].albedoColor.asArray(), m[0].alpha],
    "/materials/0/emissiveFactor": ({ m }) => m[0].emissiveColor.asArray(),
    "/materials/0/extensions/KHR_materials_emissive_strength/emissiveStrength": ({ m }) => [m[0].emissiveIntensity],
    // Babylon 9.28 registers metallicFactor twice, the second time onto `roughness`, which wins:
    // the channel's values land in PBRMaterial.roughness (README.md, "What Babylon does").
    "/materials/0/pbrMetallicRoughness/metallicFactor": ({ m }) => [m[0].roughness],
    "/materials/1/pbrMetallicRoughness/baseColorTexture/extensions/KHR_texture_transform/offset": ({ m }) => [
        m[1].albedoTexture.uOffset,
        m[1].albedoTexture.vOffset,
    ],
    // Babylon's wAng is the glTF rotation negated.
    "/materials/1/pbrMetallicRoughness/baseColorTexture/extensions/KHR_texture_transform/rotation": ({ m }) => [-m[1].albedoTexture.wAng],
    "/materials/1/pbrMetallicRoughness/baseColorTexture/extensions/KHR_texture_transform/scale": ({ m }) => [
        m[1].albedoTexture.uScale,
        m[1].albedoTexture.vScale,
    ],
    "/nodes/0/translation": ({ node }) => node[0].position.asArray(),
    "/nodes/0/rotation": ({ node }) => node[0].rotationQuaternion.asArray(),
    "/nodes/0/scale": ({ node }) => node[0].scaling.asArray(),
    "/cameras/0/perspective/yfov": ({ cam }) => [cam[0].fov],
    "/cameras/0/perspective/znear": ({ cam }) => [cam[0].minZ],
    "/cameras/0/perspective/zfar": ({ cam }) => [cam[0].maxZ],
    // xmag → orthoLeft = −xmag (orthoRight reads the next key's value: README.md).
    "/cameras/1/orthographic/xmag": ({ cam }) => [-cam[1].orthoLeft],
    "/cameras/1/orthographic/ymag": ({ cam }) => [-cam[1].orthoBottom],
    "/extensions/KHR_lights_punctual/lights/0/color": ({ light }) => light[0].diffuse.asArray(),
    "/extensions/KHR_lights_punctual/lights/0/intensity": ({ light }) => [light[0].intensity],
    "/extensions/KHR_lights_punctual/lights/0/range": ({ light }) => [light[0].range],
    // SpotLight angles are full cone angles: twice glTF's half angles.
    "/extensions/KHR_lights_punctual/lights/0/spot/innerConeAngle": ({ light }) => [light[0].innerAngle / 2],
    "/extensions/KHR_lights_punctual/lights/0/spot/outerConeAngle": ({ light }) => [light[0].angle / 2],
};

/// Babylon's own value of orthoRight and orthoTop, written beside the golden for the record.
const RECORDED = {
    "orthoRight (from xmag)": ({ cam }) => [cam[1].orthoRight],
    "orthoTop (from ymag)": ({ cam }) => [cam[1].orthoTop],
};

async function pointerGolden() {
    const file = "fixtures/animation_pointer.gltf";
    const json = JSON.parse(readFileSync(join(repo, file), "utf8"));
    const { engine, scene } = freshScene();
    logged.length = 0;
    const c = await load(scene, readFileSync(join(repo, file)), ".gltf");
    const skippedLog = logged
        .filter((l) => l.includes("Invalid pointer"))
        .map((l) => l.replace(/<[^>]*>/g, "").replace(/^\[[^\]]*\]: /, "").trim());
    const byName = (list, name) => list.find((x) => x.name === name);
    const ctx = {
        m: json.materials.map((mat) => byName(c.materials, mat.name)),
        node: json.nodes.map((n) => byName([...c.meshes, ...c.transformNodes], n.name)),
        cam: c.cameras, // in glTF camera order (camera0, camera1)
        light: json.extensions.KHR_lights_punctual.lights.map((_, i) => c.lights[i]),
    };
    const group = c.animationGroups[0];
    const channels = json.animations[0].channels;
    const pointers = channels.map((ch) => ch.target.extensions?.KHR_animation_pointer?.pointer).filter(Boolean);
    // A channel Babylon applies has an animation on the object it names.
    const targeted = new Set(group.targetedAnimations.map((ta) => ta.animation.name));
    const applied = pointers.filter((p) => READERS[p]);
    const notApplied = pointers.filter((p) => !READERS[p]);
    const frames = TIMES.map((t) => {
        seek(group, t);
        const values = {};
        for (const p of applied) values[p] = READERS[p](ctx).map(round);
        const recorded = {};
        for (const [k, r] of Object.entries(RECORDED)) recorded[k] = r(ctx).map(round);
        return { t, values, babylonRecorded: recorded };
    });
    engine.dispose();
    return {
        format: "skel-pointer-golden/1",
        engine: "Babylon.js",
        engineVersion,
        generatedBy: "scripts/peer/babylon/goldens.mjs",
        asset: file,
        clip: { index: 0, name: group.name, frames: [group.from, group.to], animations: targeted.size },
        digits: 7,
        notes:
            "values[pointer] = the glTF value the channel gives at t, read back from the Babylon object it animates (goldens.mjs READERS lists each inverse). notApplied: pointers Babylon leaves alone (its log for the ones it calls invalid; a visibility channel on a node without a mesh of its own has no animatable).",
        notApplied,
        babylonLog: skippedLog,
        frames,
    };
}

/// Babylon animates KHR_node_visibility on a node's own primitive meshes only, and the
/// fixture hides `Group` (no mesh). The same file with the channel on `Cells` (node 2, the
/// mesh below it) is written beside the golden, and sampled: `isVisible` as 1 or 0.
async function visibilityGolden() {
    const json = JSON.parse(readFileSync(join(repo, "fixtures/animation_pointer.gltf"), "utf8"));
    const from = "/nodes/1/extensions/KHR_node_visibility/visible";
    const to = "/nodes/2/extensions/KHR_node_visibility/visible";
    const channel = json.animations[0].channels.find((c) => c.target.extensions?.KHR_animation_pointer?.pointer === from);
    channel.target.extensions.KHR_animation_pointer.pointer = to;
    const text = JSON.stringify(json, null, 1) + "\n";
    writeFileSync(join(out, "pointer_visibility.gltf"), text);
    const { engine, scene } = freshScene();
    const c = await load(scene, Buffer.from(text), ".gltf");
    const group = c.animationGroups[0];
    const cells = c.meshes.filter((m) => m.parent?.name === "Cells" || m.name === "Cells");
    if (cells.length === 0) throw new Error("no mesh of Cells");
    const frames = [0, 0.25, 0.5, 0.9, 0.999, 1, 1.001, 1.5, 1.999, 2].map((t) => {
        seek(group, t);
        return { t, values: { [to]: [cells.every((m) => m.isVisible) ? 1 : 0] } };
    });
    engine.dispose();
    return {
        format: "skel-pointer-golden/1",
        engine: "Babylon.js",
        engineVersion,
        generatedBy: "scripts/peer/babylon/goldens.mjs",
        asset: "scripts/peer/babylon/goldens/pointer_visibility.gltf",
        notes: `fixtures/animation_pointer.gltf with its visibility channel moved from ${from} to ${to} (a node with a mesh of its own, which Babylon animates). Values: Babylon's isVisible of Cells' primitive meshes, 1 or 0.`,
        digits: 7,
        frames,
    };
}

// ---- Skinning ------------------------------------------------------------------------------

/// Shared assets: (folder, file, clips to pose).
const SKIN_ASSETS = [
    ["CesiumMan", "CesiumMan.glb", [0]],
    ["Fox", "Fox.glb", [0, 2]],
    ["RiggedFigure", "RiggedFigure.glb", [0]],
];

/// A Babylon matrix as glTF's column-major 16 numbers: Babylon's row-vector `m` array holds
/// the column-vector matrix column by column, translation at 12..14.
const cols = (mat) => Array.from(mat.m, round);

async function skinGolden(folder, file, clip) {
    const bytes = readFileSync(join(assets, folder, file));
    const json = gltfJson(bytes);
    const { engine, scene } = freshScene();
    const c = await load(scene, bytes, ".glb");
    new FreeCamera("render", new Vector3(0, 0, -10), scene); // scene.render needs a camera
    const group = c.animationGroups[clip];
    const duration = (group.to - group.from) / (group.targetedAnimations[0]?.animation.framePerSecond ?? 60);
    const times = [0, round(0.3713 * duration), round(0.5 * duration + 0.01), duration];
    const skins = json.skins.map((skin, s) => ({ s, joints: skin.joints }));
    // Babylon skeleton per glTF skin, and a skinned mesh using it.
    const skeletons = c.skeletons;
    const frames = times.map((t) => {
        for (const sk of skeletons) sk.returnToRest();
        seek(group, t);
        scene.render(); // world matrices, then the skeletons' matrices (Skeleton.prepare)
        const frame = { t, skins: {} };
        for (const { s } of skins) {
            const skeleton = skeletons[s];
            const mesh = c.meshes.find((m) => m.skeleton === skeleton);
            mesh.computeWorldMatrix(true);
            const jointWorld = [];
            for (const bone of skeleton.bones) {
                const node = bone.getTransformNode();
                node.computeWorldMatrix(true);
                jointWorld.push(...cols(node.getWorldMatrix()));
            }
            // Babylon's skinning: vertex_world = v · bones[j] · mesh.world (row vectors), so
            // bones[j] · mesh.world is the skin matrix skel computes (jointWorld · inverse bind).
            const flat = skeleton.getTransformMatrices(mesh);
            const skin = [];
            for (let j = 0; j < skeleton.bones.length; j++) {
                const bone = Matrix.FromArray(flat, j * 16);
                skin.push(...cols(bone.multiply(mesh.getWorldMatrix())));
            }
            frame.skins[s] = { jointWorld, skinMatrices: skin };
        }
        return frame;
    });
    // Babylon orders a skeleton's bones as the glTF skin's joints: check it by name.
    for (const { s, joints } of skins) {
        const names = skeletons[s].bones.map((b) => b.getTransformNode()?.name);
        const want = joints.map((j) => json.nodes[j].name);
        if (names.join("|") !== want.join("|")) throw new Error(`${folder} skin ${s}: bone order differs from the skin's joints`);
    }
    engine.dispose();
    return {
        format: "peer-ref-golden/1",
        engine: "Babylon.js",
        engineVersion,
        generatedBy: "scripts/peer/babylon/goldens.mjs",
        asset: `shared/assets/${folder}/${file}`,
        space: "glTF native right-handed world space (useRightHandedSystem, no mirroring root)",
        matrixLayout: "4x4, 16 numbers, column-major; per-joint arrays concatenated in skins[s].joints order",
        digits: 7,
        clip: { index: clip, name: group.name, duration },
        times,
        skins,
        frames,
    };
}

/// The JSON chunk of a GLB.
function gltfJson(bytes) {
    const length = bytes.readUInt32LE(12);
    return JSON.parse(bytes.subarray(20, 20 + length).toString("utf8"));
}

// ---- KHR_texture_transform on UVs ----------------------------------------------------------

/// Transforms (glTF's offset, rotation, scale) and the UVs each is applied to.
const UV_CASES = [
    { offset: [0, 0], rotation: 0, scale: [1, 1] },
    { offset: [0.25, -0.5], rotation: 0, scale: [1, 1] },
    { offset: [0, 0], rotation: 0, scale: [2, 0.5] },
    { offset: [0, 0], rotation: Math.PI / 2, scale: [1, 1] },
    { offset: [0, 0], rotation: 0.3, scale: [1, 1] },
    { offset: [0.1, 0.2], rotation: -1.2, scale: [1.5, 3] },
    { offset: [-0.3, 0.7], rotation: 2.5, scale: [0.25, 4] },
];
const UVS = [
    [0, 0],
    [1, 0],
    [0, 1],
    [1, 1],
    [0.5, 0.5],
    [0.25, 0.75],
    [-0.4, 1.3],
];

async function uvGolden() {
    // The transforms go through Babylon's glTF loader (KHR_texture_transform), not set by hand:
    // one material per case on a one-triangle file, texCoord 1 on the last to show the override.
    const { engine, scene } = freshScene();
    const json = uvFile();
    // The same file goes beside the golden: skel's test loads it.
    writeFileSync(join(out, "texture_transform.gltf"), JSON.stringify(json, null, 1) + "\n");
    const c = await load(scene, Buffer.from(JSON.stringify(json)), ".gltf");
    const cases = UV_CASES.map((tt, i) => {
        const texture = c.materials.find((m) => m.name === `case${i}`).albedoTexture;
        // Babylon's shaders read `vec2(textureMatrix * vec4(uv, 1.0, 0.0))`: the row vector
        // (u, v, 1, 0) times the matrix, translation in its third row. Its glTF loader keeps
        // glTF's UV convention (invertY = false).
        const m = texture.getTextureMatrix().m;
        const uvs = UVS.map(([u, v]) => [round(u * m[0] + v * m[4] + m[8]), round(u * m[1] + v * m[5] + m[9])]);
        return { ...tt, texCoord: texture.coordinatesIndex, uvs };
    });
    engine.dispose();
    return {
        format: "skel-uv-golden/1",
        engine: "Babylon.js",
        engineVersion,
        generatedBy: "scripts/peer/babylon/goldens.mjs",
        notes:
            "asset texture_transform.gltf (beside this file), material i = cases[i]. cases[i].uvs[k] = Babylon's Texture.getTextureMatrix() (as its glTF loader sets it from KHR_texture_transform) applied to UVS[k]; texCoord is the texture's coordinatesIndex (the extension's texCoord override).",
        uvsIn: UVS,
        digits: 7,
        cases,
    };
}

/// A one-triangle glTF with a material per UV case (a 1×1 PNG texture).
function uvFile() {
    const png =
        "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==";
    const f = new Float32Array([0, 0, 0, 1, 0, 0, 0, 1, 0, 0, 0, 1, 0, 0, 1]);
    const data = Buffer.from(f.buffer).toString("base64");
    return {
        asset: { version: "2.0" },
        extensionsUsed: ["KHR_texture_transform"],
        buffers: [{ byteLength: 60, uri: `data:application/octet-stream;base64,${data}` }],
        bufferViews: [
            { buffer: 0, byteOffset: 0, byteLength: 36 },
            { buffer: 0, byteOffset: 36, byteLength: 24 },
        ],
        accessors: [
            { bufferView: 0, componentType: 5126, count: 3, type: "VEC3", min: [0, 0, 0], max: [1, 1, 0] },
            { bufferView: 1, componentType: 5126, count: 3, type: "VEC2" },
        ],
        images: [{ uri: `data:image/png;base64,${png}` }],
        textures: [{ source: 0 }],
        materials: UV_CASES.map((tt, i) => ({
            name: `case${i}`,
            pbrMetallicRoughness: {
                baseColorTexture: {
                    index: 0,
                    extensions: {
                        KHR_texture_transform: {
                            offset: tt.offset,
                            rotation: tt.rotation,
                            scale: tt.scale,
                            ...(i === UV_CASES.length - 1 ? { texCoord: 1 } : {}),
                        },
                    },
                },
            },
        })),
        meshes: UV_CASES.map((_, i) => ({
            primitives: [{ attributes: { POSITION: 0, TEXCOORD_0: 1, TEXCOORD_1: 1 }, material: i }],
        })),
        nodes: UV_CASES.map((_, i) => ({ mesh: i })),
        scenes: [{ nodes: UV_CASES.map((_, i) => i) }],
        scene: 0,
    };
}

// ---- main -----------------------------------------------------------------------------------

Texture.ForceSerializeBuffers = false;
mkdirSync(join(out, "skin"), { recursive: true });
const write = (rel, value) => {
    const text = JSON.stringify(value) + "\n";
    writeFileSync(join(out, rel), text);
    console.log(`${rel}: ${(text.length / 1024).toFixed(1)} KiB`);
};
write("pointer.json", await pointerGolden());
write("uv.json", await uvGolden());
write("pointer_visibility.json", await visibilityGolden());
for (const [folder, file, clips] of SKIN_ASSETS) {
    for (const clip of clips) write(`skin/${folder}.${clip}.json`, await skinGolden(folder, file, clip));
}
