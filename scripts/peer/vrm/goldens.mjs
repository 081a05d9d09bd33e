// three-vrm reference for skel's VRM spring bones (issue 44, "Parity with three-vrm").
//
// For each VRM file (default: every *.vrm under fixtures/vrm/, written by `cargo xtask fixtures`),
// loads it in Node with three's GLTFLoader and three-vrm's VRMLoaderPlugin, drives the avatar's
// root (the VRM's `scene`, the parent of the glTF scene's root nodes) along a scripted motion for
// STEPS steps of DT, in two host-loop orders ("examples" and "current", README.md), and writes
// goldens/<fixture>.json: what three-vrm read (joints, colliders, update order) and every spring
// joint's world position at the recorded steps. goldens/root_motion.json holds the root's world
// matrix at every step 0..STEPS (shared by all fixtures).
//
// Regenerate: cd scripts/peer/vrm && npm ci && node goldens.mjs [file.vrm ...]

import { mkdirSync, readFileSync, readdirSync, writeFileSync } from "node:fs";
import { basename, dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { createHash } from "node:crypto";
import * as THREE from "three";
import { GLTFLoader } from "three/examples/jsm/loaders/GLTFLoader.js";
import { VRMLoaderPlugin } from "@pixiv/three-vrm";

export const here = dirname(fileURLToPath(import.meta.url));
export const repo = resolve(here, "../../..");
const out = join(here, "goldens");
export const versions = {
    three: JSON.parse(readFileSync(join(here, "node_modules/three/package.json"))).version,
    threeVrm: JSON.parse(readFileSync(join(here, "node_modules/@pixiv/three-vrm/package.json"))).version,
};

export const DT = 1 / 60;
export const STEPS = 600;
export const TELEPORT_STEP = 400;
export const TELEPORT = [10, 0, 0];
/// A recorded step is "sensitive" where the 1 µm root nudge moves a position by more than this (m).
const SENSITIVE = 1e-5;

/// The root's pose at a step: t = step · DT;
/// translation (0.5 sin(2π t / 2) + (step ≥ 400 ? 10 : 0), 0, 0.3 t),
/// rotation about +Y by 0.8 sin(2π t / 3) rad, scale 1.
export function rootPose(step) {
    const t = step * DT;
    const x = 0.5 * Math.sin((2 * Math.PI * t) / 2) + (step >= TELEPORT_STEP ? TELEPORT[0] : 0);
    const y = 0 + (step >= TELEPORT_STEP ? TELEPORT[1] : 0);
    const z = 0.3 * t + (step >= TELEPORT_STEP ? TELEPORT[2] : 0);
    const angle = 0.8 * Math.sin((2 * Math.PI * t) / 3);
    return { position: [x, y, z], angle };
}

export function setRoot(root, step) {
    const { position, angle } = rootPose(step);
    root.position.set(position[0], position[1], position[2]);
    root.quaternion.setFromAxisAngle(new THREE.Vector3(0, 1, 0), angle);
    root.scale.set(1, 1, 1);
}

/// Steps whose state is recorded: 1, every 5th, and every step from 395 to 410.
export const RECORDED = (() => {
    const s = new Set([1]);
    for (let i = 5; i <= STEPS; i += 5) s.add(i);
    for (let i = 395; i <= 410; i++) s.add(i);
    return [...s].sort((a, b) => a - b);
})();

/// three-vrm's console warnings while loading (kept in the golden).
const warnings = [];
const warn = console.warn;
console.warn = (...args) => {
    warnings.push(args.map(String).join(" "));
};

export async function load(bytes) {
    const loader = new GLTFLoader();
    loader.register((parser) => new VRMLoaderPlugin(parser));
    const ab = bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength);
    const gltf = await loader.parseAsync(ab, "");
    const vrm = gltf.userData.vrm;
    if (!vrm) throw new Error("three-vrm built no VRM (VRMC_vrm / VRM meta or humanoid missing)");
    if (!vrm.springBoneManager) throw new Error("three-vrm found no spring bones");
    const nodes = await gltf.parser.getDependencies("node");
    const index = new Map();
    nodes.forEach((o, i) => index.set(o, i));
    const holder = new THREE.Scene();
    holder.add(vrm.scene);
    return { gltf, vrm, nodes, index, holder, root: vrm.scene };
}

const r7 = (x) => Math.round(x * 1e7) / 1e7;
const arr = (v) => [v.x, v.y, v.z];

/// The joints in three-vrm's update order, and the same state as at load time but started from
/// world matrices that are current (see README: "Initial state").
function prepare(ctx) {
    const { vrm, holder, root } = ctx;
    const manager = vrm.springBoneManager;
    const joints = [...manager.joints];
    const loaderTails = joints.map((j) => j._currentTail.clone());
    setRoot(root, 0);
    holder.updateMatrixWorld(true);
    manager.setInitState();
    holder.updateMatrixWorld(true);
    let loaderInitDiff = 0;
    joints.forEach((j, i) => {
        loaderInitDiff = Math.max(loaderInitDiff, j._currentTail.distanceTo(loaderTails[i]));
    });
    return { manager, joints, loaderInitDiff };
}

/// Runs STEPS steps in one loop order and records positions.
/// `nudge`: metres added to the root's x at every step (the sensitivity probe; 0 for the goldens).
function simulate(ctx, order, recordNodes, virtualTails, nudge = 0) {
    const { vrm, holder, root } = ctx;
    const { joints } = prepare(ctx);
    const jointOf = new Map(joints.map((j) => [ctx.index.get(j.bone), j]));
    const rec = [];
    const tmp = new THREE.Vector3();
    const snapshot = () => {
        const row = [];
        for (const n of recordNodes) {
            ctx.nodes[n].getWorldPosition(tmp);
            row.push(r7(tmp.x), r7(tmp.y), r7(tmp.z));
        }
        for (const n of virtualTails) {
            const j = jointOf.get(n);
            j.bone.updateWorldMatrix(true, false);
            tmp.copy(j.initialLocalChildPosition).applyMatrix4(j.bone.matrixWorld);
            row.push(r7(tmp.x), r7(tmp.y), r7(tmp.z));
        }
        return row;
    };
    const rest = snapshot();
    let next = 0;
    for (let step = 1; step <= STEPS; step++) {
        setRoot(root, step);
        root.position.x += nudge;
        if (order === "current") holder.updateMatrixWorld(true);
        vrm.update(DT);
        // The render's matrix update (WebGLRenderer.render calls scene.updateMatrixWorld()).
        holder.updateMatrixWorld();
        if (RECORDED[next] === step) {
            rec.push(snapshot());
            next++;
        }
    }
    return { rest, positions: rec };
}

async function golden(file) {
    const bytes = readFileSync(file);
    warnings.length = 0;
    const a = await load(bytes);
    const json = a.gltf.parser.json;
    const { manager, joints, loaderInitDiff } = prepare(a);
    const nodeOf = (o) => (o == null ? null : a.index.has(o) ? a.index.get(o) : -1);
    const nameOf = (o) => (o == null ? null : o.name);

    const colliders = [];
    const colliderIndex = new Map();
    for (const j of joints)
        for (const g of j.colliderGroups)
            for (const c of g.colliders)
                if (!colliderIndex.has(c)) {
                    colliderIndex.set(c, colliders.length);
                    const s = c.shape;
                    const entry = { node: nodeOf(c.parent), name: nameOf(c.parent), shape: s.type, offset: arr(s.offset) };
                    if (s.type === "sphere" || s.type === "capsule") {
                        entry.radius = s.radius;
                        entry.inside = s.inside;
                    }
                    if (s.type === "capsule") entry.tail = arr(s.tail);
                    if (s.type === "plane") entry.normal = arr(s.normal);
                    colliders.push(entry);
                }
    const jointIndex = new Map(joints.map((j, i) => [j, i]));
    const jointEntries = joints.map((j) => ({
        node: nodeOf(j.bone),
        name: nameOf(j.bone),
        child: nodeOf(j.child),
        initialLocalChildPosition: arr(j.initialLocalChildPosition),
        stiffness: j.settings.stiffness,
        gravityPower: j.settings.gravityPower,
        gravityDir: arr(j.settings.gravityDir),
        dragForce: j.settings.dragForce,
        hitRadius: j.settings.hitRadius,
        center: j.center ? nodeOf(j.center) : null,
        colliderGroups: j.colliderGroups.map((g) => ({ name: g.name ?? null, colliders: g.colliders.map((c) => colliderIndex.get(c)) })),
    }));
    manager._sortJoints();
    const updateOrder = manager._sortedJoints.map((j) => jointIndex.get(j));

    // Recorded nodes: every joint's node and every joint's child node (the last tail of a
    // VRMC_springBone chain is a child, not a joint); a joint without a child (VRM 0.x leaves)
    // gets a virtual tail: its initialLocalChildPosition through its world matrix.
    const recordSet = new Set();
    for (const j of joints) {
        recordSet.add(nodeOf(j.bone));
        if (j.child) recordSet.add(nodeOf(j.child));
    }
    if (recordSet.has(-1)) throw new Error("a joint's object is not a glTF node");
    const recordNodes = [...recordSet].sort((x, y) => x - y);
    const virtualTails = joints.filter((j) => !j.child).map((j) => nodeOf(j.bone)).sort((x, y) => x - y);

    const orders = {};
    for (const order of ["examples", "current"]) {
        const ctx = await load(bytes);
        orders[order] = simulate(ctx, order, recordNodes, virtualTails);
    }
    // Sensitivity: the same run with the root 1 µm off along x at every step (about f32's
    // spacing at 10 m): how far the recorded positions move (beyond the 1 µm itself).
    const sensitivity = {};
    for (const order of ["examples", "current"]) {
        const ctx = await load(bytes);
        const nudged = simulate(ctx, order, recordNodes, virtualTails, 1e-6);
        let m = 0;
        const sensitive = [];
        nudged.positions.forEach((row, i) => {
            let mi = 0;
            row.forEach((v, k) => (mi = Math.max(mi, Math.abs(v - orders[order].positions[i][k]))));
            if (mi > SENSITIVE) sensitive.push(RECORDED[i]);
            m = Math.max(m, mi);
        });
        sensitivity[order] = r7(m);
        orders[order].sensitiveSteps = sensitive;
    }
    let maxOrderDiff = 0;
    orders.examples.positions.forEach((row, i) =>
        row.forEach((v, k) => (maxOrderDiff = Math.max(maxOrderDiff, Math.abs(v - orders.current.positions[i][k])))),
    );

    return {
        format: "skel-peer-vrm/1",
        fixture: basename(file),
        fixtureSha256: createHash("sha256").update(bytes).digest("hex"),
        versions,
        dt: DT,
        steps: STEPS,
        rootMotion: "root_motion.json",
        vrmVersion: json.extensions?.VRMC_vrm ? "1.0" : json.extensions?.VRM ? "0.x" : null,
        warnings: [...warnings],
        loaderInitialTailsMovedBy: r7(loaderInitDiff),
        joints: jointEntries,
        updateOrder,
        colliders,
        nodes: recordNodes.map((n) => ({ index: n, name: a.nodes[n].name })),
        virtualTails,
        recordedSteps: RECORDED,
        maxOrderDifference: r7(maxOrderDiff),
        rootNudged1umMovesBy: sensitivity,
        orders,
    };
}

async function main() {
    const args = process.argv.slice(2);
    const dir = join(repo, "fixtures/vrm");
    const files = args.length
        ? args.map((f) => resolve(f))
        : readdirSync(dir)
              .filter((f) => f.endsWith(".vrm"))
              .sort()
              .map((f) => join(dir, f));
    mkdirSync(out, { recursive: true });
    const meta = {
        threeVrm: versions.threeVrm,
        three: versions.three,
        node: process.version,
        date: new Date().toISOString().slice(0, 10),
        command: "cd scripts/peer/vrm && npm ci && node goldens.mjs",
    };

    // The root's world matrix (column-major, three's Matrix4.elements) at every step, full precision.
    const probe = new THREE.Object3D();
    const matrices = [];
    for (let step = 0; step <= STEPS; step++) {
        setRoot(probe, step);
        probe.updateMatrixWorld(true);
        matrices.push([...probe.matrixWorld.elements]);
    }
    writeFileSync(
        join(out, "root_motion.json"),
        JSON.stringify({
            format: "skel-peer-vrm-root/1",
            ...meta,
            dt: DT,
            steps: STEPS,
            formula:
                "t = step*dt; translation = (0.5*sin(2*pi*t/2) + (step>=400 ? 10 : 0), 0, 0.3*t); rotation about +Y by 0.8*sin(2*pi*t/3) rad (three Quaternion.setFromAxisAngle); scale 1",
            matrices,
        }),
    );

    const failed = [];
    for (const file of files) {
        try {
            const g = await golden(file);
            const path = join(out, basename(file).replace(/\.vrm$/, "") + ".json");
            writeFileSync(path, JSON.stringify({ ...meta, ...g }));
            warn(
                `${basename(file)}: ${g.joints.length} joints, ${g.colliders.length} colliders, ${g.nodes.length} nodes, ` +
                    `orders differ by ${(g.maxOrderDifference * 1000).toFixed(3)} mm, ` +
                    `root nudged 1 µm moves ${(g.rootNudged1umMovesBy.examples * 1000).toFixed(4)} / ${(g.rootNudged1umMovesBy.current * 1000).toFixed(4)} mm ` +
                    `(sensitive steps ${g.orders.examples.sensitiveSteps.length} / ${g.orders.current.sensitiveSteps.length}), loader init moved ${(g.loaderInitialTailsMovedBy * 1000).toFixed(3)} mm` +
                    (g.warnings.length ? `; warnings: ${g.warnings.join(" | ")}` : ""),
            );
        } catch (e) {
            failed.push({ fixture: basename(file), error: String(e && e.stack ? e.stack.split("\n").slice(0, 3).join(" / ") : e) });
            warn(`${basename(file)}: FAILED: ${failed.at(-1).error}`);
        }
    }
    writeFileSync(join(out, "failed.json"), JSON.stringify(failed, null, 1) + "\n");
    if (failed.length) process.exitCode = 1;
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) await main();
