// skel: picking a crowd on the GPU (skel_gpu::CrowdPick): the first triangle one ray hits
// over every instance, against the instances' skinned triangles, each instance's world box
// tested first. The passes, in order:
//
// 1. skel_pick_reset (one thread): clears the state below.
// 2. skel_pick_candidates (one thread per instance): the slab test of the instance's world
//    box (the boxes CrowdCull or the pose pass wrote); a crossed box appends the instance to
//    the candidate list.
// 3. skel_pick_args (one thread): the indirect dispatch of the triangle passes, x over the
//    character's triangles, y over the candidates (capped; rows loop).
// 4. skel_pick_hits, three times, skel_pick_next_stage (one thread) after the first two:
//    every candidate's triangles skinned and intersected (Moller-Trumbore, both faces, as
//    skel_gltf::pick). Stage 0: each hit takes an atomicMin of its distance's bits (a positive
//    f32's bits order as the f32 does). Stages 1 and 2: the hits at exactly the least distance
//    take the atomicMin of their instance, then (in that instance) of their triangle, so the
//    lowest (instance, triangle) wins a tie whatever order the threads ran in. One pipeline
//    runs all three stages (the stage is read from the state), so each stage computes every
//    distance with the same machine code and the equality test cannot fail on a compiler's
//    other choice of fused operations.
// 5. skel_pick_resolve (one thread): the winner's barycentric coordinates, recomputed.
//
// A vertex is morphed, then skinned, as skel_gltf's CPU reference does: world = placement *
// mesh_world * sum(w * S * (rest + sum(m * delta))), m the instance's morph weights, S the
// skinning matrix (mesh inverse * joint world * inverse bind) in the
// crowd's bone buffer, SKEL_BONE_VEC4S vec4s a bone (4: columns of a 4x4 matrix; 3: the top
// rows of an affine one).

struct SkelPickParams {
    // The ray: origin (xyz), direction (xyz, normalised on the CPU).
    origin: vec4<f32>,
    direction: vec4<f32>,
    instances: u32,
    triangles: u32,
    bones_per_instance: u32,
    // Joint/weight sets of 4 per vertex.
    sets: u32,
    // Threads per row of the candidates' 2D dispatch (workgroups in x * 64).
    row_threads: u32,
    // The most workgroups one dispatch dimension may have.
    max_groups: u32,
    // Workgroups in x of the triangle passes (threads loop over the triangles past them).
    triangle_groups: u32,
    // Morph weights per instance in skel_pick_weights (0: no morphing).
    morph_floats: u32,
}

@group(0) @binding(0) var<uniform> skel_pick: SkelPickParams;
@group(0) @binding(1) var<storage, read> skel_pick_bones: array<vec4<f32>>;
override SKEL_BONE_VEC4S: u32 = 4u;
// Per instance: its placement in the world (CrowdCull's placements).
@group(0) @binding(2) var<storage, read> skel_pick_placements: array<mat4x4<f32>>;
// Per instance: world box min, then max (w unused); min > max for an instance without one.
@group(0) @binding(3) var<storage, read> skel_pick_boxes: array<vec4<f32>>;
// Per vertex, 1 + 2 * sets vec4s: rest position bits (xyz) and the index of its morph head
// (w; 0 for none), the sets' joints (bone indices within an instance), the sets' weight bits.
// Then the morph records: per morphing vertex a head (targets, first weight) and one delta
// (bits in xyz) per target. Floats travel as bits so that no load of a small joint index as a
// float can flush it.
@group(0) @binding(4) var<storage, read> skel_pick_vertices: array<vec4<u32>>;
// Per triangle of the character (primitives in order): its three vertices, its primitive.
@group(0) @binding(5) var<storage, read> skel_pick_triangles: array<vec4<u32>>;
// Per primitive: the world matrix of the skinned mesh's node.
@group(0) @binding(6) var<storage, read> skel_pick_frames: array<mat4x4<f32>>;
// The state: SKEL_PICK_* below, then the candidate list.
@group(0) @binding(7) var<storage, read_write> skel_pick_state: array<atomic<u32>>;
// Every instance's morph weights, morph_floats an instance.
@group(0) @binding(8) var<storage, read> skel_pick_weights: array<f32>;

const SKEL_PICK_BEST_BITS: u32 = 0u;
const SKEL_PICK_BEST_INSTANCE: u32 = 1u;
const SKEL_PICK_BEST_TRIANGLE: u32 = 2u;
const SKEL_PICK_COUNT: u32 = 3u;
// The triangle passes' indirect dispatch (x, y, z), copied out by the encoder.
const SKEL_PICK_ARGS: u32 = 4u;
// The triangle pass's stage (0, 1, 2).
const SKEL_PICK_STAGE: u32 = 7u;
// The answer: hit (0 or 1), instance, triangle, distance bits, u bits, v bits.
const SKEL_PICK_RESULT: u32 = 8u;
const SKEL_PICK_CANDIDATES: u32 = 16u;

const SKEL_PICK_NONE: u32 = 0xffffffffu;
// The bits of +infinity: larger than every finite positive distance's.
const SKEL_PICK_FAR: u32 = 0x7f800000u;
// f32::EPSILON, as the CPU's degenerate-triangle test uses it.
const SKEL_PICK_EPSILON: f32 = 1.1920929e-7;
const SKEL_PICK_GROUP: u32 = 64u;

// Skinning matrix `bone` of the crowd, as a 4x4 matrix in either layout.
fn skel_pick_bone(bone: u32) -> mat4x4<f32> {
    let at = bone * SKEL_BONE_VEC4S;
    if SKEL_BONE_VEC4S == 3u {
        return transpose(mat4x4<f32>(skel_pick_bones[at], skel_pick_bones[at + 1u], skel_pick_bones[at + 2u], vec4<f32>(0.0, 0.0, 0.0, 1.0)));
    }
    return mat4x4<f32>(skel_pick_bones[at], skel_pick_bones[at + 1u], skel_pick_bones[at + 2u], skel_pick_bones[at + 3u]);
}

// Vertex `v` skinned by instance `instance`'s bones (in the mesh's frame).
fn skel_pick_skin(instance: u32, v: u32) -> vec3<f32> {
    let sets = skel_pick.sets;
    let at = v * (1u + 2u * sets);
    var rest = vec4<f32>(bitcast<vec3<f32>>(skel_pick_vertices[at].xyz), 1.0);
    let head_at = skel_pick_vertices[at].w;
    if head_at != 0u && skel_pick.morph_floats != 0u {
        let head = skel_pick_vertices[head_at];
        let first = instance * skel_pick.morph_floats + head.y;
        for (var t = 0u; t < head.x; t++) {
            let m = skel_pick_weights[first + t];
            if m != 0.0 {
                rest += vec4<f32>(m * bitcast<vec3<f32>>(skel_pick_vertices[head_at + 1u + t].xyz), 0.0);
            }
        }
    }
    let base = instance * skel_pick.bones_per_instance;
    var skinned = vec3<f32>(0.0);
    for (var s = 0u; s < sets; s++) {
        let joints = skel_pick_vertices[at + 1u + s];
        let weights = bitcast<vec4<f32>>(skel_pick_vertices[at + 1u + sets + s]);
        for (var k = 0u; k < 4u; k++) {
            if weights[k] != 0.0 {
                skinned += weights[k] * (skel_pick_bone(base + joints[k]) * rest).xyz;
            }
        }
    }
    return skinned;
}

// Moller-Trumbore, both faces, as skel_gltf::pick computes it: (distance, u, v) of the hit in
// front of the origin, or a distance of -1 for none.
fn skel_pick_intersect(a: vec3<f32>, b: vec3<f32>, c: vec3<f32>) -> vec3<f32> {
    let miss = vec3<f32>(-1.0, 0.0, 0.0);
    let origin = skel_pick.origin.xyz;
    let dir = skel_pick.direction.xyz;
    let e1 = b - a;
    let e2 = c - a;
    let p = cross(dir, e2);
    let det = dot(e1, p);
    // Parallel to the plane, or a degenerate triangle.
    if !(abs(det) > SKEL_PICK_EPSILON * length(e1) * length(e2)) {
        return miss;
    }
    let inv = 1.0 / det;
    let s = origin - a;
    let u = dot(s, p) * inv;
    if !(u >= 0.0 && u <= 1.0) {
        return miss;
    }
    let q = cross(s, e1);
    let v = dot(dir, q) * inv;
    if !(v >= 0.0 && u + v <= 1.0) {
        return miss;
    }
    let distance = dot(e2, q) * inv;
    // Positive and below infinity: its bits then order as the distance does.
    if !(distance > 0.0 && bitcast<u32>(distance) < SKEL_PICK_FAR) {
        return miss;
    }
    return vec3<f32>(distance, u, v);
}

// Triangle `t` of instance `instance`, skinned and placed, against the ray.
fn skel_pick_hit(instance: u32, t: u32) -> vec3<f32> {
    let tri = skel_pick_triangles[t];
    let world = skel_pick_placements[instance] * skel_pick_frames[tri.w];
    let a = (world * vec4<f32>(skel_pick_skin(instance, tri.x), 1.0)).xyz;
    let b = (world * vec4<f32>(skel_pick_skin(instance, tri.y), 1.0)).xyz;
    let c = (world * vec4<f32>(skel_pick_skin(instance, tri.z), 1.0)).xyz;
    return skel_pick_intersect(a, b, c);
}

// Where the ray enters the box lo..hi in front of its origin (slabs, as skel_gltf::pick's
// box test: 0 when the origin is inside), or -1 when it does not; an empty box (lo > hi, an
// instance without a finite sphere) is never entered.
fn skel_pick_entry(lo: vec3<f32>, hi: vec3<f32>) -> f32 {
    if any(lo > hi) {
        return -1.0;
    }
    let origin = skel_pick.origin.xyz;
    let dir = skel_pick.direction.xyz;
    var near = 0.0;
    var far = 3.4028234e38;
    for (var axis = 0u; axis < 3u; axis++) {
        let o = origin[axis];
        let d = dir[axis];
        if d == 0.0 {
            if o < lo[axis] || o > hi[axis] {
                return -1.0;
            }
            continue;
        }
        let t0 = (lo[axis] - o) / d;
        let t1 = (hi[axis] - o) / d;
        near = max(near, min(t0, t1));
        far = min(far, max(t0, t1));
    }
    if near <= far {
        return near;
    }
    return -1.0;
}

@compute @workgroup_size(1)
fn skel_pick_reset() {
    atomicStore(&skel_pick_state[SKEL_PICK_BEST_BITS], SKEL_PICK_FAR);
    atomicStore(&skel_pick_state[SKEL_PICK_BEST_INSTANCE], SKEL_PICK_NONE);
    atomicStore(&skel_pick_state[SKEL_PICK_BEST_TRIANGLE], SKEL_PICK_NONE);
    atomicStore(&skel_pick_state[SKEL_PICK_COUNT], 0u);
    atomicStore(&skel_pick_state[SKEL_PICK_STAGE], 0u);
    for (var i = 0u; i < 8u; i++) {
        atomicStore(&skel_pick_state[SKEL_PICK_RESULT + i], 0u);
    }
}

@compute @workgroup_size(64)
fn skel_pick_candidates(@builtin(global_invocation_id) id: vec3<u32>) {
    let i = id.x + id.y * skel_pick.row_threads;
    if i >= skel_pick.instances {
        return;
    }
    if skel_pick_entry(skel_pick_boxes[2u * i].xyz, skel_pick_boxes[2u * i + 1u].xyz) >= 0.0 {
        let slot = atomicAdd(&skel_pick_state[SKEL_PICK_COUNT], 1u);
        atomicStore(&skel_pick_state[SKEL_PICK_CANDIDATES + slot], i);
    }
}

@compute @workgroup_size(1)
fn skel_pick_args() {
    let count = atomicLoad(&skel_pick_state[SKEL_PICK_COUNT]);
    var rows = min(count, skel_pick.max_groups);
    if skel_pick.triangles == 0u {
        rows = 0u;
    }
    atomicStore(&skel_pick_state[SKEL_PICK_ARGS], skel_pick.triangle_groups);
    atomicStore(&skel_pick_state[SKEL_PICK_ARGS + 1u], rows);
    atomicStore(&skel_pick_state[SKEL_PICK_ARGS + 2u], 1u);
}

// Every (candidate, triangle) this thread covers: stage 0 takes the least distance, stage 1
// the least instance at that distance, stage 2 the least triangle of that instance there.
@compute @workgroup_size(64)
fn skel_pick_hits(@builtin(workgroup_id) group: vec3<u32>, @builtin(num_workgroups) groups: vec3<u32>, @builtin(local_invocation_index) lane: u32) {
    let stage = atomicLoad(&skel_pick_state[SKEL_PICK_STAGE]);
    let count = atomicLoad(&skel_pick_state[SKEL_PICK_COUNT]);
    let best_instance = atomicLoad(&skel_pick_state[SKEL_PICK_BEST_INSTANCE]);
    let best_bits = atomicLoad(&skel_pick_state[SKEL_PICK_BEST_BITS]);
    let stride = groups.x * SKEL_PICK_GROUP;
    for (var c = group.y; c < count; c += groups.y) {
        let instance = atomicLoad(&skel_pick_state[SKEL_PICK_CANDIDATES + c]);
        if stage == 2u && instance != best_instance {
            continue;
        }
        // The tie stages skip a candidate whose box the ray enters beyond the least distance
        // (it holds no hit that near), with a thousandth of the distance or of the box to
        // spare for rounding: a crowd's picked-through instances cost stage 0 alone.
        if stage == 1u {
            let lo = skel_pick_boxes[2u * instance].xyz;
            let hi = skel_pick_boxes[2u * instance + 1u].xyz;
            let best = bitcast<f32>(best_bits);
            if skel_pick_entry(lo, hi) - best > 1e-3 * max(best, length(hi - lo)) {
                continue;
            }
        }
        for (var t = group.x * SKEL_PICK_GROUP + lane; t < skel_pick.triangles; t += stride) {
            let hit = skel_pick_hit(instance, t);
            if hit.x < 0.0 {
                continue;
            }
            let bits = bitcast<u32>(hit.x);
            if stage == 0u {
                atomicMin(&skel_pick_state[SKEL_PICK_BEST_BITS], bits);
            } else if bits == best_bits {
                if stage == 1u {
                    atomicMin(&skel_pick_state[SKEL_PICK_BEST_INSTANCE], instance);
                } else {
                    atomicMin(&skel_pick_state[SKEL_PICK_BEST_TRIANGLE], t);
                }
            }
        }
    }
}

@compute @workgroup_size(1)
fn skel_pick_next_stage() {
    atomicAdd(&skel_pick_state[SKEL_PICK_STAGE], 1u);
}

@compute @workgroup_size(1)
fn skel_pick_resolve() {
    let instance = atomicLoad(&skel_pick_state[SKEL_PICK_BEST_INSTANCE]);
    let t = atomicLoad(&skel_pick_state[SKEL_PICK_BEST_TRIANGLE]);
    if t == SKEL_PICK_NONE || instance == SKEL_PICK_NONE {
        return;
    }
    let hit = skel_pick_hit(instance, t);
    atomicStore(&skel_pick_state[SKEL_PICK_RESULT], 1u);
    atomicStore(&skel_pick_state[SKEL_PICK_RESULT + 1u], instance);
    atomicStore(&skel_pick_state[SKEL_PICK_RESULT + 2u], t);
    atomicStore(&skel_pick_state[SKEL_PICK_RESULT + 3u], atomicLoad(&skel_pick_state[SKEL_PICK_BEST_BITS]));
    atomicStore(&skel_pick_state[SKEL_PICK_RESULT + 4u], bitcast<u32>(hit.y));
    atomicStore(&skel_pick_state[SKEL_PICK_RESULT + 5u], bitcast<u32>(hit.z));
}
