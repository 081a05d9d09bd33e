// three-vrm's spring-bone cost per joint-step, for issue 44's speed comparison.
//
// For each fixture (default: fixtures/vrm/*.vrm; or the files given), drives its root along goldens.mjs's motion in the "current" loop order, and times only
// `vrm.springBoneManager.update(dt)` (process.hrtime.bigint around each call): WARMUP rounds of
// STEPS steps, then ROUNDS timed rounds; each round restarts from the rest state at step 0.
// Writes goldens/timing.json: the median round in ns per joint-step for every fixture, and as the
// headline the fixture with the most joints (then the most collider tests), with every round.
//
// Run: cd scripts/peer/vrm && npm ci && node bench.mjs [file.vrm ...]
// (pin it to one core for a quieter number: taskset -c 1 node bench.mjs)

import { readFileSync, readdirSync, writeFileSync, mkdirSync } from "node:fs";
import { basename, join, resolve } from "node:path";
import os from "node:os";
import { execFileSync } from "node:child_process";
import { fileURLToPath } from "node:url";
import { DT, STEPS, here, load, repo, setRoot, versions } from "./goldens.mjs";

const WARMUP = 5;
const ROUNDS = 15;

// `--one file.vrm`: time that file and print its result as JSON (the parent runs every fixture
// in a process of its own: once one fixture's center node has put three-vrm's Proxy on a
// matrix's elements, V8's code for every Matrix4 slows down for the rest of the process, and
// the fixtures timed after it would pay for it).
const one = process.argv[2] === "--one" ? process.argv[3] : null;
const args = one ? [] : process.argv.slice(2);
const dir = join(repo, "fixtures/vrm");
const files = one
    ? []
    : args.length
      ? args.map((f) => resolve(f))
      : readdirSync(dir)
            .filter((f) => f.endsWith(".vrm"))
            .sort()
            .map((f) => join(dir, f));

/// Times one fixture: WARMUP then ROUNDS rounds; ns per joint-step of every round.
function bench(file) {
    return load(readFileSync(file)).then((ctx) => {
        const { vrm, holder, root } = ctx;
        const manager = vrm.springBoneManager;
        const joints = [...manager.joints];
        const colliderTests = joints.reduce((s, j) => s + j.colliderGroups.reduce((t, g) => t + g.colliders.length, 0), 0);
        const round = () => {
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
        };
        for (let i = 0; i < WARMUP; i++) round();
        const rounds = [];
        for (let i = 0; i < ROUNDS; i++) rounds.push(round());
        const median = [...rounds].sort((a, b) => a - b)[Math.floor(rounds.length / 2)];
        const center = joints.some((j) => j.center != null);
        return { fixture: basename(file), joints: joints.length, colliderTests, center, rounds, median };
    });
}

if (one) {
    process.stdout.write(JSON.stringify(await bench(resolve(one))));
    process.exit(0);
}

// What one hrtime pair costs (not subtracted; reported).
let overhead = 0n;
for (let i = 0; i < 100000; i++) {
    const t0 = process.hrtime.bigint();
    overhead += process.hrtime.bigint() - t0;
}

const results = [];
for (const file of files) {
    try {
        const outText = execFileSync(process.execPath, [fileURLToPath(import.meta.url), "--one", file], {
            stdio: ["ignore", "pipe", "ignore"],
        });
        results.push(JSON.parse(outText));
    } catch {
        // goldens.mjs reports the fixtures three-vrm refuses
    }
}
if (!results.length) throw new Error("no fixture loaded");
// The headline: the fixture with the most joints (then the most collider tests).
const best = [...results].sort((a, b) => b.joints - a.joints || b.colliderTests - a.colliderTests)[0];
const r1 = (x) => Math.round(x * 10) / 10;
const plain = results.filter((r) => !r.center).sort((a, b) => b.joints - a.joints || b.colliderTests - a.colliderTests)[0];
const median = best.median;
const rounds = best.rounds;

const timing = {
    format: "skel-peer-vrm-timing/1",
    fixture: best.fixture,
    joints: best.joints,
    colliderTestsPerStep: best.colliderTests,
    collidersPerJoint: r1(best.colliderTests / best.joints),
    measured: "vrm.springBoneManager.update(dt) only, current loop order, root moved as in goldens.mjs, one node process per fixture",
    dt: DT,
    stepsPerRound: STEPS,
    warmupRounds: WARMUP,
    rounds: ROUNDS,
    nsPerJointStepMedian: Math.round(median * 10) / 10,
    jointStepsPerMs: Math.round(1e6 / median),
    nsPerJointStepRounds: rounds.map(r1),
    centerSpace: best.center,
    largestWithoutCenter: plain
        ? { fixture: plain.fixture, joints: plain.joints, colliderTestsPerStep: plain.colliderTests, nsPerJointStepMedian: r1(plain.median), jointStepsPerMs: Math.round(1e6 / plain.median) }
        : null,
    everyFixture: Object.fromEntries(
        results.map((r) => [
            r.fixture,
            { joints: r.joints, colliderTests: r.colliderTests, center: r.center, nsPerJointStepMedian: r1(r.median) },
        ]),
    ),
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
if (plain) console.log(`${plain.fixture} (largest without center space): ${plain.joints} joints: ${r1(plain.median)} ns per joint-step`);
console.log(
    `${timing.fixture}: ${timing.joints} joints, ${timing.collidersPerJoint.toFixed(2)} collider tests per joint: ` +
        `${timing.nsPerJointStepMedian} ns per joint-step (median of ${ROUNDS} rounds), ${timing.jointStepsPerMs} joint-steps/ms`,
);
