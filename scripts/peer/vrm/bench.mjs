// three-vrm's spring-bone cost per joint-step, for issue 44's speed comparison.
//
// Loads the fixture with the most spring joints (default: among fixtures/vrm/*.vrm; or the files
// given), drives its root along goldens.mjs's motion in the "current" loop order, and times only
// `vrm.springBoneManager.update(dt)` (process.hrtime.bigint around each call): WARMUP rounds of
// STEPS steps, then ROUNDS timed rounds; each round restarts from the rest state at step 0.
// Writes goldens/timing.json (the median round, in ns per joint-step, and every round).
//
// Run: cd scripts/peer/vrm && npm ci && node bench.mjs [file.vrm ...]
// (pin it to one core for a quieter number: taskset -c 1 node bench.mjs)

import { readFileSync, readdirSync, writeFileSync, mkdirSync } from "node:fs";
import { basename, join, resolve } from "node:path";
import os from "node:os";
import { DT, STEPS, here, load, repo, setRoot, versions } from "./goldens.mjs";

const WARMUP = 5;
const ROUNDS = 15;

const args = process.argv.slice(2);
const dir = join(repo, "fixtures/vrm");
const files = args.length
    ? args.map((f) => resolve(f))
    : readdirSync(dir)
          .filter((f) => f.endsWith(".vrm"))
          .sort()
          .map((f) => join(dir, f));

// The fixture with the most joints.
let best = null;
for (const file of files) {
    try {
        const ctx = await load(readFileSync(file));
        const n = ctx.vrm.springBoneManager.joints.size;
        if (!best || n > best.joints) best = { file, joints: n };
    } catch {
        // goldens.mjs reports fixtures three-vrm refuses
    }
}
if (!best) throw new Error("no fixture loaded");

const ctx = await load(readFileSync(best.file));
const { vrm, holder, root } = ctx;
const manager = vrm.springBoneManager;
const joints = [...manager.joints];
const colliderTests = joints.reduce((s, j) => s + j.colliderGroups.reduce((t, g) => t + g.colliders.length, 0), 0);

function round() {
    setRoot(root, 0);
    holder.updateMatrixWorld(true);
    manager.setInitState();
    let ns = 0n;
    for (let step = 1; step <= STEPS; step++) {
        setRoot(root, step);
        holder.updateMatrixWorld(true);
        const t0 = process.hrtime.bigint();
        manager.update(DT);
        ns += process.hrtime.bigint() - t0;
    }
    return Number(ns) / (STEPS * joints.length);
}

// What one hrtime pair costs (not subtracted; reported).
let overhead = 0n;
for (let i = 0; i < 100000; i++) {
    const t0 = process.hrtime.bigint();
    overhead += process.hrtime.bigint() - t0;
}

for (let i = 0; i < WARMUP; i++) round();
const rounds = [];
for (let i = 0; i < ROUNDS; i++) rounds.push(round());
const sorted = [...rounds].sort((a, b) => a - b);
const median = sorted[Math.floor(sorted.length / 2)];

const timing = {
    format: "skel-peer-vrm-timing/1",
    fixture: basename(best.file),
    joints: joints.length,
    colliderTestsPerStep: colliderTests,
    collidersPerJoint: colliderTests / joints.length,
    measured: "vrm.springBoneManager.update(dt) only, current loop order, root moved as in goldens.mjs",
    dt: DT,
    stepsPerRound: STEPS,
    warmupRounds: WARMUP,
    rounds: ROUNDS,
    nsPerJointStepMedian: Math.round(median * 10) / 10,
    jointStepsPerMs: Math.round(1e6 / median),
    nsPerJointStepRounds: rounds.map((r) => Math.round(r * 10) / 10),
    hrtimePairNs: Math.round(Number(overhead) / 100000),
    versions,
    node: process.version,
    cpu: os.cpus()[0]?.model ?? null,
    cpus: os.cpus().length,
    loadavg: os.loadavg().map((x) => Math.round(x * 100) / 100),
    date: new Date().toISOString().slice(0, 10),
    command: "cd scripts/peer/vrm && npm ci && node bench.mjs",
};
mkdirSync(join(here, "goldens"), { recursive: true });
writeFileSync(join(here, "goldens/timing.json"), JSON.stringify(timing, null, 1) + "\n");
console.log(
    `${timing.fixture}: ${timing.joints} joints, ${timing.collidersPerJoint.toFixed(2)} collider tests per joint: ` +
        `${timing.nsPerJointStepMedian} ns per joint-step (median of ${ROUNDS} rounds), ${timing.jointStepsPerMs} joint-steps/ms`,
);
