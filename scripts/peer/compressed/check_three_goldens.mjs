// Checks three_goldens.mjs's output. Usage:
//   node check_three_goldens.mjs OUT GOLDENS_DIR [SHARED_GOLDEN_DIR]
// (SHARED_GOLDEN_DIR defaults to ../shared/golden beside the repository.)
// 1. Harness check: each original's golden (<Model>.<clip>.json) against the shared goldens
//    (<Model>/<clip>.json, also three.js r187) at the times both have (0, 0.3713·duration and the
//    end): jointWorld, skinMatrices and positions of the vertices both sampled, and how far any
//    number differs beyond what rounding both files explains.
// 2. What the re-encoding moves, in three's own numbers: each variant against its original at the
//    same clip and time. Joints by NAME (world translation); positions order-free (gltfpack
//    merges duplicate vertices and reorders them): each stored variant vertex is matched to the
//    nearest vertex of the original at t = 0 (all of the original's vertices, all primitives,
//    recomputed here with three), then that pair is compared at every time; `nn` is the plain
//    nearest-neighbour distance at each time (a lower bound).
// All distances are relative to the diagonal of the original's world bounding box over the
// stored frames.
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { loadGlb, describe, pose, worldPosition, originalOf } from './three_goldens.mjs';

const here = path.dirname(fileURLToPath(import.meta.url));
const [out, goldens, sharedArg] = process.argv.slice(2);
const shared = sharedArg || path.resolve(here, '../../../../shared/golden');
if (!out || !goldens) {
  console.error('usage: node check_three_goldens.mjs OUT GOLDENS_DIR [SHARED_GOLDEN_DIR]');
  process.exit(2);
}

const fmt = (x) => (x === null || x === undefined ? '—' : x.toExponential(2));
const read = (f) => JSON.parse(fs.readFileSync(f, 'utf8'));

function glbJson(file) {
  const b = fs.readFileSync(file);
  const len = b.readUInt32LE(12);
  return JSON.parse(b.subarray(20, 20 + len).toString('utf8'));
}

function bboxDiag(pointArrays) {
  const min = [Infinity, Infinity, Infinity], max = [-Infinity, -Infinity, -Infinity];
  for (const a of pointArrays) {
    for (let i = 0; i < a.length; i += 3) {
      for (let k = 0; k < 3; k++) { min[k] = Math.min(min[k], a[i + k]); max[k] = Math.max(max[k], a[i + k]); }
    }
  }
  return Math.hypot(max[0] - min[0], max[1] - min[1], max[2] - min[2]);
}

// max abs difference of 16-number matrices, split into translation (12..14) and the rest
function matDiff(a, b) {
  let tr = 0, lin = 0;
  for (let i = 0; i < a.length; i++) {
    const d = Math.abs(a[i] - b[i]);
    if (i % 16 >= 12 && i % 16 <= 14) tr = Math.max(tr, d); else lin = Math.max(lin, d);
  }
  return { tr, lin };
}

// largest |element| of a 16-number matrix's linear part (its scale: RobotExpressive's joints carry 100)
function linScale(m) {
  let s = 0;
  for (const i of [0, 1, 2, 4, 5, 6, 8, 9, 10]) s = Math.max(s, Math.abs(m[i]));
  return s;
}

// |a − b| beyond what rounding a to `da` and b to `db` significant digits can explain
const halfUnit = (x, d) => (x === 0 ? 0 : 0.5 * 10 ** (Math.floor(Math.log10(Math.abs(x))) - d + 1));
let beyondRounding = 0;
function noteRounding(a, b, da, db) {
  beyondRounding = Math.max(beyondRounding, Math.abs(a - b) - halfUnit(a, da) - halfUnit(b, db) - 1e-15 * Math.abs(b));
}

const goldenFiles = fs.readdirSync(goldens).filter((f) => /\.\d+\.json$/.test(f)).sort();
const split = (f) => { const m = f.match(/^(.*)\.(\d+)\.json$/); return { stem: m[1], clip: Number(m[2]) }; };

// ---------------------------------------------------------------------------------------------
console.log('# 1. originals against the shared goldens (same times only)');
let worst = 0;
for (const f of goldenFiles) {
  const { stem, clip } = split(f);
  if (originalOf(out, stem + '.glb')) continue; // a variant
  const sf = path.join(shared, stem, `${clip}.json`);
  if (!fs.existsSync(sf)) { console.log(`${f}: no ${sf}`); continue; }
  const mine = read(path.join(goldens, f));
  const ref = read(sf);
  const diag = bboxDiag(ref.frames.flatMap((fr) => fr.meshes.map((m) => m.positions)));
  const refMeshes = new Map(ref.meshes.map((m, i) => [m.key, { m, i }]));
  mine.frames.forEach((fr, fi) => {
    const ri = ref.times.indexOf(fr.t);
    if (ri < 0) { console.log(`${f} t=${fr.t}: not in the shared golden`); return; }
    const rf = ref.frames[ri];
    let jw = { tr: 0, lin: 0 }, sm = { tr: 0, lin: 0 };
    for (const s of Object.keys(fr.skins)) {
      if (JSON.stringify(fr.skins[s].joints) !== JSON.stringify(rf.skins[s].joints)) throw new Error(`${f}: skin ${s} joints differ`);
      const a = matDiff(fr.skins[s].jointWorld, rf.skins[s].jointWorld);
      const b = matDiff(fr.skins[s].skinMatrices, rf.skins[s].skinMatrices);
      for (const k of ['jointWorld', 'skinMatrices']) {
        fr.skins[s][k].forEach((x, i) => noteRounding(x, rf.skins[s][k][i], mine.digits, ref.digits));
      }
      jw = { tr: Math.max(jw.tr, a.tr), lin: Math.max(jw.lin, a.lin) };
      sm = { tr: Math.max(sm.tr, b.tr), lin: Math.max(sm.lin, b.lin) };
    }
    let pos = 0, compared = 0;
    fr.meshes.forEach((m, mi) => {
      const r = refMeshes.get(m.key);
      if (!r) throw new Error(`${f}: ${m.key} not in the shared golden`);
      const refIdx = new Map((r.m.sampledIndices || Array.from({ length: r.m.vertexCount }, (_, i) => i)).map((v, j) => [v, j]));
      const rp = rf.meshes[r.i].positions;
      mine.meshes[mi].sampledIndices.forEach((v, j) => {
        const rj = refIdx.get(v);
        if (rj === undefined) return;
        compared++;
        for (let k = 0; k < 3; k++) {
          pos = Math.max(pos, Math.abs(m.positions[3 * j + k] - rp[3 * rj + k]));
          noteRounding(m.positions[3 * j + k], rp[3 * rj + k], mine.digits, ref.digits);
        }
      });
    });
    worst = Math.max(worst, jw.tr / diag, sm.tr / diag, pos / diag);
    console.log(`${f} t=${fr.t}: jointWorld translation ${fmt(jw.tr / diag)} linear ${fmt(jw.lin)}; skinMatrices translation ${fmt(sm.tr / diag)} linear ${fmt(sm.lin)}; positions ${fmt(pos / diag)} over ${compared} vertices (diag ${diag.toPrecision(4)})`);
  });
}
console.log(`worst relative difference against the shared goldens: ${fmt(worst)}`);
console.log(`largest absolute difference beyond both files' rounding (7 and 6 significant digits): ${fmt(Math.max(0, beyondRounding))}`);

// ---------------------------------------------------------------------------------------------
console.log('\n# 2. variants against their original, same clip and times (three.js numbers)');

// all vertices of all primitives of a file, world space, at each time, as three computes them
async function allPositions(file, clip, times) {
  const gltf = await loadGlb(file);
  const { prims } = describe(gltf);
  const frames = [];
  pose(gltf, clip, times, () => {
    const a = [];
    for (const p of prims) {
      const n = p.obj.geometry.attributes.position.count;
      for (let i = 0; i < n; i++) a.push(...worldPosition(p.obj, i).toArray());
    }
    frames.push(Float64Array.from(a));
  });
  return frames;
}

function nearest(points, x, y, z) {
  let best = Infinity, bi = -1;
  for (let i = 0; i < points.length; i += 3) {
    const d = (points[i] - x) ** 2 + (points[i + 1] - y) ** 2 + (points[i + 2] - z) ** 2;
    if (d < best) { best = d; bi = i / 3; }
  }
  return { d: Math.sqrt(best), i: bi };
}

const cache = new Map();
async function compare(f, ostem, withJoints) {
  const { stem, clip } = split(f);
  const orig = ostem + '.glb';
  const V = read(path.join(goldens, f));
  const O = read(path.join(goldens, `${ostem}.${clip}.json`));
  if (JSON.stringify(V.times) !== JSON.stringify(O.times)) throw new Error(`${f}: times differ from ${ostem}`);
  const key = `${ostem}.${clip}`;
  if (!cache.has(key)) cache.set(key, await allPositions(path.join(out, orig), clip, O.times));
  const full = cache.get(key);
  const diag = bboxDiag(full);
  // joints by name
  const vj = glbJson(path.join(out, stem + '.glb')), oj = glbJson(path.join(out, orig));
  const oByName = new Map();
  for (const s of Object.keys(O.frames[0].skins)) {
    O.frames[0].skins[s].joints.forEach((n, j) => { const name = oj.nodes[n].name; if (!oByName.has(name)) oByName.set(name, { s, j }); });
  }
  const jointT = [], jointLin = [];
  if (withJoints) V.frames.forEach((fr, fi) => {
    let tr = 0, lin = 0;
    for (const s of Object.keys(fr.skins)) {
      fr.skins[s].joints.forEach((n, j) => {
        const o = oByName.get(vj.nodes[n].name);
        if (!o) throw new Error(`${f}: joint ${vj.nodes[n].name} not in ${orig}`);
        const a = fr.skins[s].jointWorld.slice(16 * j, 16 * j + 16);
        const b = O.frames[fi].skins[o.s].jointWorld.slice(16 * o.j, 16 * o.j + 16);
        const d = matDiff(a, b);
        tr = Math.max(tr, d.tr); lin = Math.max(lin, d.lin / linScale(b));
      });
    }
    jointT.push(tr / diag); jointLin.push(lin);
  });
  // positions: match at t = 0, then compare the pair at every time
  const vpos = V.frames.map((fr) => fr.meshes.flatMap((m) => m.positions));
  const pair = [0, 0, 0].slice(0, V.frames.length).fill(0), nn = pair.slice();
  for (let i = 0; i < vpos[0].length; i += 3) {
    const m = nearest(full[0], vpos[0][i], vpos[0][i + 1], vpos[0][i + 2]);
    vpos.forEach((p, fi) => {
      const o = full[fi];
      const d = Math.hypot(p[i] - o[3 * m.i], p[i + 1] - o[3 * m.i + 1], p[i + 2] - o[3 * m.i + 2]);
      pair[fi] = Math.max(pair[fi], d / diag);
      nn[fi] = Math.max(nn[fi], nearest(o, p[i], p[i + 1], p[i + 2]).d / diag);
    });
  }
  const vertices = vpos[0].length / 3;
  console.log(`${f} vs ${ostem}.${clip} (t = ${V.times.map((t) => t.toPrecision(6)).join(', ')}; diag ${diag.toPrecision(4)}; ${vertices} vertices):`);
  if (withJoints) console.log(`  joint world translation by name: ${jointT.map(fmt).join(' / ')}; joint world linear part (max |Δ| / max |element| per joint): ${jointLin.map(fmt).join(' / ')}`);
  console.log(`  positions, pair matched at t=0: ${pair.map(fmt).join(' / ')}; nearest at each t: ${nn.map(fmt).join(' / ')}`);
}

for (const f of goldenFiles) {
  const orig = originalOf(out, split(f).stem + '.glb');
  if (orig) await compare(f, orig.replace(/\.glb$/, ''), true);
}

console.log('\n# 3. draco and meshopt (-cc) against plain gltfpack: decoding, same clip and times');
for (const f of goldenFiles) {
  const { stem } = split(f);
  const orig = originalOf(out, stem + '.glb');
  if (!orig) continue;
  const base = orig.replace(/\.glb$/, '') + '_gltfpack';
  if (stem !== base && fs.existsSync(path.join(out, base + '.glb'))) await compare(f, base, true);
}
