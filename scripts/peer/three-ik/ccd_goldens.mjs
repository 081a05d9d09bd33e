// three.js's CCDIKSolver (0.187.0) as the reference for skel-anim's ChainSolver::CcdThreeJs:
// builds a few bone chains, solves each for several targets from its rest pose and writes
// crates/skel-anim/tests/golden/three_ccd/<case>.json. See README.md.

import { writeFileSync, mkdirSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Bone, Quaternion, Vector3 } from 'three';
import { CCDIKSolver } from 'three/examples/jsm/animation/CCDIKSolver.js';

const here = dirname(fileURLToPath(import.meta.url));
const out = join(here, '../../../crates/skel-anim/tests/golden/three_ccd');

// A small deterministic generator (mulberry32), so the goldens do not change between runs.
function rng(seed) {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

// Every input is rounded to f32 so that skel (which reads f32) starts from the same numbers.
const f = (x) => Math.fround(x);
const f3 = (v) => [f(v[0]), f(v[1]), f(v[2])];
function unitQuat(r) {
  const q = new Quaternion(r() * 2 - 1, r() * 2 - 1, r() * 2 - 1, r() * 2 - 1).normalize();
  return [f(q.x), f(q.y), f(q.z), f(q.w)];
}
function smallQuat(r, angle) {
  const axis = new Vector3(r() * 2 - 1, r() * 2 - 1, r() * 2 - 1).normalize();
  const q = new Quaternion().setFromAxisAngle(axis, angle * (r() * 2 - 1));
  return [f(q.x), f(q.y), f(q.z), f(q.w)];
}

// A chain of `n` joints: the root somewhere, each later joint `length` along a direction
// near +y in its parent, small local rotations. `limits(j)` gives link j's three.js limits
// (j counts from the root).
function chain(seed, n, lengths, limits) {
  const r = rng(seed);
  const joints = [];
  for (let j = 0; j < n; j++) {
    const t = j === 0 ? f3([r() - 0.5, r() - 0.5, r() - 0.5]) : f3([0.2 * (r() - 0.5), lengths[j - 1], 0.2 * (r() - 0.5)]);
    const q = j === 0 ? unitQuat(r) : smallQuat(r, 0.6);
    joints.push({ translation: t, rotation: q, ...(j < n - 1 ? limits(j) : {}) });
  }
  return joints;
}

function build(joints) {
  const bones = joints.map((j) => {
    const b = new Bone();
    b.position.fromArray(j.translation);
    b.quaternion.fromArray(j.rotation);
    return b;
  });
  for (let j = 1; j < bones.length; j++) bones[j - 1].add(bones[j]);
  const target = new Bone();
  bones.push(target);
  return { bones, target };
}

function solve(joints, target, iteration, maxAngle) {
  const { bones, target: t } = build(joints);
  t.position.fromArray(target);
  const n = joints.length;
  const links = [];
  for (let j = n - 2; j >= 0; j--) {
    const link = { index: j };
    const lim = joints[j];
    if (lim.hinge) link.limitation = new Vector3().fromArray(lim.hinge);
    if (lim.euler_min) link.rotationMin = new Vector3().fromArray(lim.euler_min);
    if (lim.euler_max) link.rotationMax = new Vector3().fromArray(lim.euler_max);
    links.push(link);
  }
  const ik = { target: n, effector: n - 1, links, iteration };
  if (maxAngle !== undefined) ik.maxAngle = maxAngle;
  bones[0].updateMatrixWorld(true);
  t.updateMatrixWorld(true);
  new CCDIKSolver({ skeleton: { bones } }, [ik]).update();
  bones[0].updateMatrixWorld(true);
  return {
    target,
    local_rotations: bones.slice(0, n).map((b) => b.quaternion.toArray()),
    world_positions: bones.slice(0, n).map((b) => new Vector3().setFromMatrixPosition(b.matrixWorld).toArray()),
  };
}

function targets(seed, joints, reaches) {
  const r = rng(seed);
  const { bones } = build(joints);
  bones[0].updateMatrixWorld(true);
  const root = new Vector3().setFromMatrixPosition(bones[0].matrixWorld);
  const length = joints.slice(1).reduce((s, j) => s + Math.hypot(...j.translation), 0);
  return reaches.map((reach) => {
    const d = new Vector3(r() * 2 - 1, r() * 2 - 1, r() * 2 - 1).normalize().multiplyScalar(reach * length);
    return f3(root.clone().add(d).toArray());
  });
}

const hinge = (axis) => ({ hinge: new Vector3(...axis).normalize().toArray().map(f) });
const euler = (min, max) => ({ euler_min: f3(min), euler_max: f3(max) });
const cases = [
  { name: 'free_4', seed: 1, n: 4, lengths: [1, 0.8, 0.6], limits: () => ({}), iteration: 10 },
  { name: 'free_6_long', seed: 2, n: 6, lengths: [0.5, 0.5, 0.4, 0.4, 0.3], limits: () => ({}), iteration: 25 },
  { name: 'hinge_4', seed: 3, n: 4, lengths: [1, 1, 0.5], limits: (j) => (j > 0 ? hinge([1, 0, 0.2]) : {}), iteration: 12 },
  { name: 'euler_5', seed: 4, n: 5, lengths: [0.7, 0.6, 0.5, 0.4], limits: (j) => (j > 0 ? euler([-1, -0.5, -0.8], [0.9, 0.6, 1.2]) : {}), iteration: 15 },
  { name: 'max_angle_4', seed: 5, n: 4, lengths: [1, 0.7, 0.4], limits: () => ({}), iteration: 8, maxAngle: 0.2 },
  { name: 'mixed_8', seed: 6, n: 8, lengths: [0.3, 0.3, 0.3, 0.25, 0.25, 0.2, 0.2], limits: (j) => [{}, hinge([0, 0, 1]), euler([-0.7, -0.7, -0.7], [0.7, 0.7, 0.7])][j % 3], iteration: 20 },
];

mkdirSync(out, { recursive: true });
for (const c of cases) {
  const joints = chain(c.seed, c.n, c.lengths, c.limits);
  const solves = targets(100 + c.seed, joints, [0.35, 0.7, 1.4]).map((t) => solve(joints, t, c.iteration, c.maxAngle));
  const golden = {
    three: '0.187.0',
    iterations: c.iteration,
    max_angle: c.maxAngle ?? null,
    joints,
    solves,
  };
  writeFileSync(join(out, `${c.name}.json`), JSON.stringify(golden, null, 1) + '\n');
  console.log(`${c.name}: ${solves.length} solves`);
}
