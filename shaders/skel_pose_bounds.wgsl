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

struct SkelBoundsPart {
    left: SkelAffine,
    right: SkelAffine,
    // Centre (joint frame), radius.
    sphere: vec4<f32>,
}

// Per instance: its placement in the world (CrowdCull's placements buffer).
@group(0) @binding(9) var<storage, read> skel_bounds_placements: array<mat4x4<f32>>;
// Per instance: min, then max (w 0): CrowdCull's boxes buffer. Skipped instances keep theirs.
@group(0) @binding(10) var<storage, read_write> skel_bounds_boxes: array<vec4<f32>>;
// Per posed node: first part and part count with every joint, then with the reduced set.
@group(0) @binding(11) var<storage, read> skel_bounds_nodes: array<vec4<u32>>;
@group(0) @binding(12) var<storage, read> skel_bounds_parts: array<SkelBoundsPart>;

// The largest f32 (written under it: browsers refuse a literal that only rounds to it).
const SKEL_BOUNDS_INF: f32 = 3.4028234e38;

// Whether every lane is finite (from the bits: fast-math may fold x - x == 0).
fn skel_bounds_finite(v: vec3<f32>) -> bool {
    let e = bitcast<vec3<u32>>(v) & vec3<u32>(0x7f800000u);
    return all(e != vec3<u32>(0x7f800000u));
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
    for (var p = first; p < first + count; p += 1u) {
        let part = skel_bounds_parts[p];
        let m = skel_affine_mul(part.left, skel_affine_mul(model, part.right));
        let c = vec4<f32>(part.sphere.xyz, 1.0);
        let center = (placement * vec4<f32>(dot(m.r0, c), dot(m.r1, c), dot(m.r2, c), 1.0)).xyz;
        // The columns of J's 3x3 part (placement's 3x3 times m's; m's bottom row is 0 0 0 1).
        let j0 = placement[0].xyz * m.r0.x + placement[1].xyz * m.r1.x + placement[2].xyz * m.r2.x;
        let j1 = placement[0].xyz * m.r0.y + placement[1].xyz * m.r1.y + placement[2].xyz * m.r2.y;
        let j2 = placement[0].xyz * m.r0.z + placement[1].xyz * m.r1.z + placement[2].xyz * m.r2.z;
        let half = sqrt(j0 * j0 + j1 * j1 + j2 * j2) * part.sphere.w;
        let a = center - half;
        let b = center + half;
        if skel_bounds_finite(a + b) {
            lo = min(lo, a);
            hi = max(hi, b);
        }
    }
    return array<vec3<f32>, 2>(lo, hi);
}

// skel_pose_nodes, then the boxes: each (instance, node) thread boxes its node's parts in
// registers, the bones go out, the per-node boxes go into skel_group_model (no longer read)
// and the instance's node-0 thread folds them and writes the instance's box once.
@compute @workgroup_size(SKEL_POSE_GROUP)
fn skel_pose_nodes_bounds(
    @builtin(workgroup_id) wid: vec3<u32>,
    @builtin(local_invocation_index) lid: u32,
) {
    let t = skel_nodes_resolve(wid, lid);
    var node_box = array<vec3<f32>, 2>(vec3<f32>(SKEL_BOUNDS_INF), vec3<f32>(-SKEL_BOUNDS_INF));
    if t.posing {
        node_box = skel_bounds_node(skel_group_model[lid], t);
    }
    skel_nodes_write(t.first_slot, lid);
    workgroupBarrier();
    skel_group_model[lid] = SkelAffine(vec4<f32>(node_box[0], 0.0), vec4<f32>(node_box[1], 0.0), vec4<f32>(0.0));
    workgroupBarrier();
    if t.posing && t.node == 0u {
        var lo = node_box[0];
        var hi = node_box[1];
        for (var n = 1u; n < skel_pose.nodes; n += 1u) {
            let b = skel_group_model[lid + n];
            lo = min(lo, b.r0.xyz);
            hi = max(hi, b.r1.xyz);
        }
        skel_bounds_boxes[t.instance * 2u] = vec4<f32>(lo, 0.0);
        skel_bounds_boxes[t.instance * 2u + 1u] = vec4<f32>(hi, 0.0);
    }
}
