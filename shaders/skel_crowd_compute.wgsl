// skel: crowd compute skinning. One dispatch skins one mesh for every visible instance of a
// crowd: workgroup x covers 256 vertices, workgroup (y, z) picks the slot, and the slot's
// instance (from the visible list) picks its bone matrices in the crowd's one bone buffer
// (instance * bone_stride + bone_offset). Output: slot-major skinned positions and normals,
// tightly packed f32 triples at (slot * vertex_count + vertex) * 3, so an instanced draw reads
// vertex `vertex_index` of instance `instance_index` there.
//
// With skel_crowd_skin.wgsl appended (the skinning it shares with the vertex fragment;
// CROWD_COMPUTE_WGSL is the assembled module): entry points skel_crowd_skin4 (JOINTS_0/WEIGHTS_0),
// skel_crowd_skin8 (and JOINTS_1/WEIGHTS_1) and skel_crowd_skin16 (and JOINTS_2..3/WEIGHTS_2..3,
// bindings 11-14), linear blend skinning; skel_crowd_skin4_dq, skel_crowd_skin8_dq and
// skel_crowd_skin16_dq, dual-quaternion skinning (each bone matrix converted as
// skel_gpu::dual_quat_unchecked does, each influence flipped to the hemisphere of the vertex's
// first one, the blend renormalised). A pipeline binds what its entry point uses.
//
// Meshes with morph targets use the `_morph` forms of those entry points (skel_crowd_skin4_morph
// … skel_crowd_skin16_dq_morph): the same skinning after p + Σ w_t Δp_t (and n + Σ w_t Δn_t when
// the targets have normal deltas), glTF 2.0 §3.7.2.2, with the weights of the slot's own instance
// (bindings 15-17). Meshes without morph targets keep the entry points above, which read none of
// it.

struct SkelCrowdParams {
    vertex_count: u32,
    // Matrices per instance in skel_crowd_bones, and this mesh's first one within an instance.
    bone_stride: u32,
    bone_offset: u32,
    // The first slot of this dispatch's chunk: the output buffers are bound from it on.
    first_slot: u32,
}

@group(0) @binding(0) var<uniform> skel_crowd_params: SkelCrowdParams;
// Every instance's bone matrices, instance-major, SKEL_BONE_VEC4S vec4s each: 4, a
// column-major 4x4; 3, the top three rows of an affine matrix (set by the pipeline).
@group(0) @binding(1) var<storage, read> skel_crowd_bones: array<vec4<f32>>;
override SKEL_BONE_VEC4S: u32 = 4u;
// [0]: visible instances n; [1 + slot]: the instance skinned into slot `slot` (slot < n).
@group(0) @binding(2) var<storage, read> skel_crowd_instances: array<u32>;
@group(0) @binding(3) var<storage, read> skel_rest_positions: array<f32>;
@group(0) @binding(4) var<storage, read> skel_rest_normals: array<f32>;
@group(0) @binding(5) var<storage, read> skel_joints0: array<vec4<u32>>;
@group(0) @binding(6) var<storage, read> skel_weights0: array<vec4<f32>>;
@group(0) @binding(7) var<storage, read> skel_joints1: array<vec4<u32>>;
@group(0) @binding(8) var<storage, read> skel_weights1: array<vec4<f32>>;
@group(0) @binding(9) var<storage, read_write> skel_out_positions: array<f32>;
@group(0) @binding(10) var<storage, read_write> skel_out_normals: array<f32>;
@group(0) @binding(11) var<storage, read> skel_joints2: array<vec4<u32>>;
@group(0) @binding(12) var<storage, read> skel_weights2: array<vec4<f32>>;
@group(0) @binding(13) var<storage, read> skel_joints3: array<vec4<u32>>;
@group(0) @binding(14) var<storage, read> skel_weights3: array<vec4<f32>>;

// Morphing entry points only. The mesh's morph targets (skel_gpu::MorphGpu's deltas: positions
// target-major at (t * vertex_count + v) * 3, normals likewise from float normal_offset) and every
// instance's weights, weight_stride floats per instance, this mesh's first at weight_offset.
struct SkelCrowdMorph {
    target_count: u32,
    // 0: the targets have no normal deltas.
    normal_offset: u32,
    weight_stride: u32,
    weight_offset: u32,
}

@group(0) @binding(15) var<uniform> skel_crowd_morph: SkelCrowdMorph;
@group(0) @binding(16) var<storage, read> skel_crowd_morph_deltas: array<f32>;
@group(0) @binding(17) var<storage, read> skel_crowd_morph_weights: array<f32>;

// The slot of this workgroup within its chunk, and the first bone of its instance (or no slot
// past the list).
fn skel_crowd_base(group: vec3<u32>, groups: vec3<u32>) -> vec2<u32> {
    let local = group.z * groups.y + group.y;
    let slot = skel_crowd_params.first_slot + local;
    if (slot >= skel_crowd_instances[0]) {
        return vec2<u32>(local, 0xffffffffu);
    }
    let instance = skel_crowd_instances[1u + slot];
    return vec2<u32>(local, instance * skel_crowd_params.bone_stride + skel_crowd_params.bone_offset);
}

fn skel_crowd_rest(v: u32) -> SkelCrowdVertex {
    return SkelCrowdVertex(
        vec3<f32>(skel_rest_positions[v * 3u], skel_rest_positions[v * 3u + 1u], skel_rest_positions[v * 3u + 2u]),
        vec3<f32>(skel_rest_normals[v * 3u], skel_rest_normals[v * 3u + 1u], skel_rest_normals[v * 3u + 2u]),
    );
}

// Writes vertex `v` of slot `slot`.
fn skel_crowd_write(slot: u32, v: u32, s: SkelCrowdVertex) {
    let at = (slot * skel_crowd_params.vertex_count + v) * 3u;
    skel_out_positions[at] = s.position.x;
    skel_out_positions[at + 1u] = s.position.y;
    skel_out_positions[at + 2u] = s.position.z;
    skel_out_normals[at] = s.normal.x;
    skel_out_normals[at + 1u] = s.normal.y;
    skel_out_normals[at + 2u] = s.normal.z;
}

// Vertex v's JOINTS_n / WEIGHTS_n. Each entry point calls only the sets it binds.
fn skel_crowd_set0(v: u32) -> SkelCrowdSet { return SkelCrowdSet(skel_joints0[v], skel_weights0[v]); }
fn skel_crowd_set1(v: u32) -> SkelCrowdSet { return SkelCrowdSet(skel_joints1[v], skel_weights1[v]); }
fn skel_crowd_set2(v: u32) -> SkelCrowdSet { return SkelCrowdSet(skel_joints2[v], skel_weights2[v]); }
fn skel_crowd_set3(v: u32) -> SkelCrowdSet { return SkelCrowdSet(skel_joints3[v], skel_weights3[v]); }

// Skins vertex id.x of this workgroup's slot from its rest pose and writes it (nothing past the
// mesh or the visible list). The sets are read by the entry point, before this check: a read
// past the mesh is bounds-checked, and its value is not used.
fn skel_crowd_skin_at(id: vec3<u32>, group: vec3<u32>, groups: vec3<u32>, dual_quat: bool, sets: u32, s0: SkelCrowdSet, s1: SkelCrowdSet, s2: SkelCrowdSet, s3: SkelCrowdSet) {
    let v = id.x;
    let base = skel_crowd_base(group, groups);
    if (v >= skel_crowd_params.vertex_count || base.y == 0xffffffffu) {
        return;
    }
    let rest = skel_crowd_rest(v);
    skel_crowd_write(base.x, v, skel_crowd_skin_sets(base.y, dual_quat, rest.position, rest.normal, sets, s0, s1, s2, s3));
}

fn skel_crowd_morph_delta(at: u32) -> vec3<f32> {
    return vec3<f32>(skel_crowd_morph_deltas[at], skel_crowd_morph_deltas[at + 1u], skel_crowd_morph_deltas[at + 2u]);
}

// Vertex v's rest position and normal morphed with `instance`'s weights: + Σ w_t Δ_t over the
// targets with a non-zero weight (zero weights read nothing), as skel_morph.wgsl does for one
// character.
fn skel_crowd_morphed(instance: u32, v: u32) -> SkelCrowdVertex {
    let rest = skel_crowd_rest(v);
    var p = rest.position;
    var n = rest.normal;
    let vertex_count = skel_crowd_params.vertex_count;
    let normal_offset = skel_crowd_morph.normal_offset;
    let first = instance * skel_crowd_morph.weight_stride + skel_crowd_morph.weight_offset;
    for (var t = 0u; t < skel_crowd_morph.target_count; t += 1u) {
        let w = skel_crowd_morph_weights[first + t];
        if (w != 0.0) {
            let at = (t * vertex_count + v) * 3u;
            p += w * skel_crowd_morph_delta(at);
            if (normal_offset != 0u) {
                n += w * skel_crowd_morph_delta(normal_offset + at);
            }
        }
    }
    return SkelCrowdVertex(p, n);
}

// skel_crowd_skin_at after morphing the vertex with the slot's instance's weights.
fn skel_crowd_skin_morph_at(id: vec3<u32>, group: vec3<u32>, groups: vec3<u32>, dual_quat: bool, sets: u32, s0: SkelCrowdSet, s1: SkelCrowdSet, s2: SkelCrowdSet, s3: SkelCrowdSet) {
    let v = id.x;
    let base = skel_crowd_base(group, groups);
    if (v >= skel_crowd_params.vertex_count || base.y == 0xffffffffu) {
        return;
    }
    let instance = skel_crowd_instances[1u + skel_crowd_params.first_slot + base.x];
    let morphed = skel_crowd_morphed(instance, v);
    skel_crowd_write(base.x, v, skel_crowd_skin_sets(base.y, dual_quat, morphed.position, morphed.normal, sets, s0, s1, s2, s3));
}

// The entry points: 4, 8 or 16 influences, linear or dual-quaternion.

@compute @workgroup_size(256)
fn skel_crowd_skin4(@builtin(global_invocation_id) id: vec3<u32>, @builtin(workgroup_id) group: vec3<u32>, @builtin(num_workgroups) groups: vec3<u32>) {
    skel_crowd_skin_at(id, group, groups, false, 1u, skel_crowd_set0(id.x), SKEL_CROWD_NO_SET, SKEL_CROWD_NO_SET, SKEL_CROWD_NO_SET);
}

@compute @workgroup_size(256)
fn skel_crowd_skin4_dq(@builtin(global_invocation_id) id: vec3<u32>, @builtin(workgroup_id) group: vec3<u32>, @builtin(num_workgroups) groups: vec3<u32>) {
    skel_crowd_skin_at(id, group, groups, true, 1u, skel_crowd_set0(id.x), SKEL_CROWD_NO_SET, SKEL_CROWD_NO_SET, SKEL_CROWD_NO_SET);
}

@compute @workgroup_size(256)
fn skel_crowd_skin8(@builtin(global_invocation_id) id: vec3<u32>, @builtin(workgroup_id) group: vec3<u32>, @builtin(num_workgroups) groups: vec3<u32>) {
    skel_crowd_skin_at(id, group, groups, false, 2u, skel_crowd_set0(id.x), skel_crowd_set1(id.x), SKEL_CROWD_NO_SET, SKEL_CROWD_NO_SET);
}

@compute @workgroup_size(256)
fn skel_crowd_skin8_dq(@builtin(global_invocation_id) id: vec3<u32>, @builtin(workgroup_id) group: vec3<u32>, @builtin(num_workgroups) groups: vec3<u32>) {
    skel_crowd_skin_at(id, group, groups, true, 2u, skel_crowd_set0(id.x), skel_crowd_set1(id.x), SKEL_CROWD_NO_SET, SKEL_CROWD_NO_SET);
}

@compute @workgroup_size(256)
fn skel_crowd_skin16(@builtin(global_invocation_id) id: vec3<u32>, @builtin(workgroup_id) group: vec3<u32>, @builtin(num_workgroups) groups: vec3<u32>) {
    skel_crowd_skin_at(id, group, groups, false, 4u, skel_crowd_set0(id.x), skel_crowd_set1(id.x), skel_crowd_set2(id.x), skel_crowd_set3(id.x));
}

@compute @workgroup_size(256)
fn skel_crowd_skin16_dq(@builtin(global_invocation_id) id: vec3<u32>, @builtin(workgroup_id) group: vec3<u32>, @builtin(num_workgroups) groups: vec3<u32>) {
    skel_crowd_skin_at(id, group, groups, true, 4u, skel_crowd_set0(id.x), skel_crowd_set1(id.x), skel_crowd_set2(id.x), skel_crowd_set3(id.x));
}

// The morphing entry points: the same, after skel_crowd_morphed.

@compute @workgroup_size(256)
fn skel_crowd_skin4_morph(@builtin(global_invocation_id) id: vec3<u32>, @builtin(workgroup_id) group: vec3<u32>, @builtin(num_workgroups) groups: vec3<u32>) {
    skel_crowd_skin_morph_at(id, group, groups, false, 1u, skel_crowd_set0(id.x), SKEL_CROWD_NO_SET, SKEL_CROWD_NO_SET, SKEL_CROWD_NO_SET);
}

@compute @workgroup_size(256)
fn skel_crowd_skin4_dq_morph(@builtin(global_invocation_id) id: vec3<u32>, @builtin(workgroup_id) group: vec3<u32>, @builtin(num_workgroups) groups: vec3<u32>) {
    skel_crowd_skin_morph_at(id, group, groups, true, 1u, skel_crowd_set0(id.x), SKEL_CROWD_NO_SET, SKEL_CROWD_NO_SET, SKEL_CROWD_NO_SET);
}

@compute @workgroup_size(256)
fn skel_crowd_skin8_morph(@builtin(global_invocation_id) id: vec3<u32>, @builtin(workgroup_id) group: vec3<u32>, @builtin(num_workgroups) groups: vec3<u32>) {
    skel_crowd_skin_morph_at(id, group, groups, false, 2u, skel_crowd_set0(id.x), skel_crowd_set1(id.x), SKEL_CROWD_NO_SET, SKEL_CROWD_NO_SET);
}

@compute @workgroup_size(256)
fn skel_crowd_skin8_dq_morph(@builtin(global_invocation_id) id: vec3<u32>, @builtin(workgroup_id) group: vec3<u32>, @builtin(num_workgroups) groups: vec3<u32>) {
    skel_crowd_skin_morph_at(id, group, groups, true, 2u, skel_crowd_set0(id.x), skel_crowd_set1(id.x), SKEL_CROWD_NO_SET, SKEL_CROWD_NO_SET);
}

@compute @workgroup_size(256)
fn skel_crowd_skin16_morph(@builtin(global_invocation_id) id: vec3<u32>, @builtin(workgroup_id) group: vec3<u32>, @builtin(num_workgroups) groups: vec3<u32>) {
    skel_crowd_skin_morph_at(id, group, groups, false, 4u, skel_crowd_set0(id.x), skel_crowd_set1(id.x), skel_crowd_set2(id.x), skel_crowd_set3(id.x));
}

@compute @workgroup_size(256)
fn skel_crowd_skin16_dq_morph(@builtin(global_invocation_id) id: vec3<u32>, @builtin(workgroup_id) group: vec3<u32>, @builtin(num_workgroups) groups: vec3<u32>) {
    skel_crowd_skin_morph_at(id, group, groups, true, 4u, skel_crowd_set0(id.x), skel_crowd_set1(id.x), skel_crowd_set2(id.x), skel_crowd_set3(id.x));
}
