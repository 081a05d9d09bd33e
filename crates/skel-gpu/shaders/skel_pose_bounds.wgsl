// skel: the pose pass's bounds (appended to skel_pose.wgsl: skel_gpu::POSE_WGSL is both files;
// not a module on its own). skel_pose_nodes_bounds poses as skel_pose_nodes does and then boxes
// every posed instance in the world, so that culling reads one box (32 bytes) an instance
// instead of every part's bone matrix.
//
// A part is a bounding sphere in its joint's frame (centre c, radius r, as
// skel_gltf::CharacterBounds keeps it). CrowdCull's matrix pass boxes it under
// J = placement * left * S * right, with S = meshInverse[src] * model[node(src)] * inverseBind[src]
// the skinning matrix the bone gets (src: the bone itself, or in the reduced joint set its
// kept ancestor). The CPU folds the constant ends into two affine matrices per part,
// L = left * meshInverse[src] and K = inverseBind[src] * right (skel_gpu::PoseBoundsTable), so
// J = placement * L * model * K holds exactly the matrix the cull pass rebuilds, taken from
// the model transform already in workgroup memory. The box: centre J c, half extent r times
// the length of each row of J's 3x3 part (CharacterBounds::world_box); a part whose box is not
// finite is left out, and an instance with no finite part gets min > max.
//
// The usual part has the same L as the first part of its node (one mesh world and mesh inverse
// for the whole character): then J = (placement * L * model) * K, and the thread forms
// PM = placement * L * model once for all of its node's parts; the CPU keeps K c (so the centre
// is PM (K c)) and marks whether K's 3x3 part is the identity (then the half extent's row lengths
// are PM's, the same for every part of the node). Other parts take the full product. The per-node boxes are folded into the instance's
// box by workgroup atomicMin / atomicMax on order-preserving encodings of the floats.

struct SkelBoundsPart {
    left: SkelAffine,
    right: SkelAffine,
    // Centre (joint frame), radius.
    sphere: vec4<f32>,
    // K c, then flags (as a float): 1 when L is the node's first part's L (bit for bit), + 2
    // when K's 3x3 part is the identity.
    kc: vec4<f32>,
}

// Per instance: its placement in the world (CrowdCull's placements buffer).
@group(0) @binding(9) var<storage, read> skel_bounds_placements: array<mat4x4<f32>>;
// Per instance: min, then max (w 0): CrowdCull's boxes buffer. Skipped instances keep theirs.
@group(0) @binding(10) var<storage, read_write> skel_bounds_boxes: array<vec4<f32>>;
// Per posed node: first part and part count with every joint, then with the reduced set.
@group(0) @binding(11) var<storage, read> skel_bounds_nodes: array<vec4<u32>>;
@group(0) @binding(12) var<storage, read> skel_bounds_parts: array<SkelBoundsPart>;

const SKEL_BOUNDS_INF: f32 = 3.40282347e38;

// Per instance of the workgroup: its box's min (0..3) and max (3..6), as skel_bounds_order
// encodes them.
var<workgroup> skel_group_box: array<array<atomic<u32>, 6>, SKEL_POSE_GROUP>;

// Whether every lane is finite (from the bits: fast-math may fold x - x == 0).
fn skel_bounds_finite(v: vec3<f32>) -> bool {
    let e = bitcast<vec3<u32>>(v) & vec3<u32>(0x7f800000u);
    return all(e != vec3<u32>(0x7f800000u));
}

// A float's bits as a u32 ordered as the floats are (finite values).
fn skel_bounds_order(v: vec3<f32>) -> vec3<u32> {
    let b = bitcast<vec3<u32>>(v);
    let negative = (b & vec3<u32>(0x80000000u)) != vec3<u32>(0u);
    return select(b | vec3<u32>(0x80000000u), ~b, negative);
}

fn skel_bounds_unorder(e: vec3<u32>) -> vec3<f32> {
    let positive = (e & vec3<u32>(0x80000000u)) != vec3<u32>(0u);
    return bitcast<vec3<f32>>(select(~e, e & vec3<u32>(0x7fffffffu), positive));
}

// The box of the parts of `node` (with the instance's joint set) under `model`, placed; min >
// max when none is finite.
fn skel_bounds_node(model: SkelAffine, t: SkelNodeThread) -> array<vec3<f32>, 2> {
    var lo = vec3<f32>(SKEL_BOUNDS_INF);
    var hi = vec3<f32>(-SKEL_BOUNDS_INF);
    let entry = skel_bounds_nodes[t.node];
    let reduced = ((t.flags >> 6u) & 1u) != 0u;
    let first = select(entry.x, entry.z, reduced);
    let count = select(entry.y, entry.w, reduced);
    if count == 0u {
        return array<vec3<f32>, 2>(lo, hi);
    }
    let placement = skel_bounds_placements[t.instance];
    let p0 = placement[0].xyz;
    let p1 = placement[1].xyz;
    let p2 = placement[2].xyz;
    // PL = placement * L (the node's first part's L), then PM = PL * model: the 3x3 parts'
    // columns and the translations.
    let l = skel_bounds_parts[first].left;
    let pl0 = p0 * l.r0.x + p1 * l.r1.x + p2 * l.r2.x;
    let pl1 = p0 * l.r0.y + p1 * l.r1.y + p2 * l.r2.y;
    let pl2 = p0 * l.r0.z + p1 * l.r1.z + p2 * l.r2.z;
    let plt = p0 * l.r0.w + p1 * l.r1.w + p2 * l.r2.w + placement[3].xyz;
    let pm0 = pl0 * model.r0.x + pl1 * model.r1.x + pl2 * model.r2.x;
    let pm1 = pl0 * model.r0.y + pl1 * model.r1.y + pl2 * model.r2.y;
    let pm2 = pl0 * model.r0.z + pl1 * model.r1.z + pl2 * model.r2.z;
    let pmt = pl0 * model.r0.w + pl1 * model.r1.w + pl2 * model.r2.w + plt;
    // The lengths of PM's 3x3 rows: the half extent per unit radius when K's 3x3 is I.
    let pm_rows = sqrt(pm0 * pm0 + pm1 * pm1 + pm2 * pm2);
    for (var p = first; p < first + count; p += 1u) {
        let kc = skel_bounds_parts[p].kc;
        let radius = skel_bounds_parts[p].sphere.w;
        let flags = u32(kc.w);
        var center: vec3<f32>;
        var half: vec3<f32>;
        if (flags & 1u) != 0u {
            center = pm0 * kc.x + pm1 * kc.y + pm2 * kc.z + pmt;
            if (flags & 2u) != 0u {
                half = pm_rows * radius;
            } else {
                let k = skel_bounds_parts[p].right;
                let j0 = pm0 * k.r0.x + pm1 * k.r1.x + pm2 * k.r2.x;
                let j1 = pm0 * k.r0.y + pm1 * k.r1.y + pm2 * k.r2.y;
                let j2 = pm0 * k.r0.z + pm1 * k.r1.z + pm2 * k.r2.z;
                half = sqrt(j0 * j0 + j1 * j1 + j2 * j2) * radius;
            }
        } else {
            let part = skel_bounds_parts[p];
            let m = skel_affine_mul(part.left, skel_affine_mul(model, part.right));
            let c = vec4<f32>(part.sphere.xyz, 1.0);
            center = (placement * vec4<f32>(dot(m.r0, c), dot(m.r1, c), dot(m.r2, c), 1.0)).xyz;
            // The columns of J's 3x3 part (placement's 3x3 times m's; m's bottom row is 0 0 0 1).
            let j0 = p0 * m.r0.x + p1 * m.r1.x + p2 * m.r2.x;
            let j1 = p0 * m.r0.y + p1 * m.r1.y + p2 * m.r2.y;
            let j2 = p0 * m.r0.z + p1 * m.r1.z + p2 * m.r2.z;
            half = sqrt(j0 * j0 + j1 * j1 + j2 * j2) * radius;
        }
        let a = center - half;
        let b = center + half;
        if skel_bounds_finite(a + b) {
            lo = min(lo, a);
            hi = max(hi, b);
        }
    }
    return array<vec3<f32>, 2>(lo, hi);
}

// skel_pose_nodes, then the boxes: the instance's node-0 thread clears its box in workgroup
// memory (ordered before the first use by skel_nodes_resolve's barriers), the bones go out,
// each (instance, node) thread boxes its node's parts from its model (still in
// skel_group_model) and folds its box in atomically; after a barrier the node-0 thread writes
// the instance's box once.
@compute @workgroup_size(SKEL_POSE_GROUP)
fn skel_pose_nodes_bounds(
    @builtin(workgroup_id) wid: vec3<u32>,
    @builtin(local_invocation_index) lid: u32,
) {
    let c = lid / skel_pose.nodes;
    if lid - c * skel_pose.nodes == 0u {
        let lo = skel_bounds_order(vec3<f32>(SKEL_BOUNDS_INF));
        let hi = skel_bounds_order(vec3<f32>(-SKEL_BOUNDS_INF));
        atomicStore(&skel_group_box[c][0], lo.x);
        atomicStore(&skel_group_box[c][1], lo.y);
        atomicStore(&skel_group_box[c][2], lo.z);
        atomicStore(&skel_group_box[c][3], hi.x);
        atomicStore(&skel_group_box[c][4], hi.y);
        atomicStore(&skel_group_box[c][5], hi.z);
    }
    let t = skel_nodes_resolve(wid, lid);
    skel_nodes_write(t.first_slot, lid);
    if t.posing {
        let node_box = skel_bounds_node(skel_group_model[lid], t);
        if all(node_box[0] <= node_box[1]) {
            let lo = skel_bounds_order(node_box[0]);
            let hi = skel_bounds_order(node_box[1]);
            atomicMin(&skel_group_box[c][0], lo.x);
            atomicMin(&skel_group_box[c][1], lo.y);
            atomicMin(&skel_group_box[c][2], lo.z);
            atomicMax(&skel_group_box[c][3], hi.x);
            atomicMax(&skel_group_box[c][4], hi.y);
            atomicMax(&skel_group_box[c][5], hi.z);
        }
    }
    workgroupBarrier();
    if t.posing && t.node == 0u {
        let lo = vec3<u32>(atomicLoad(&skel_group_box[c][0]), atomicLoad(&skel_group_box[c][1]), atomicLoad(&skel_group_box[c][2]));
        let hi = vec3<u32>(atomicLoad(&skel_group_box[c][3]), atomicLoad(&skel_group_box[c][4]), atomicLoad(&skel_group_box[c][5]));
        skel_bounds_boxes[t.instance * 2u] = vec4<f32>(skel_bounds_unorder(lo), 0.0);
        skel_bounds_boxes[t.instance * 2u + 1u] = vec4<f32>(skel_bounds_unorder(hi), 0.0);
    }
}
