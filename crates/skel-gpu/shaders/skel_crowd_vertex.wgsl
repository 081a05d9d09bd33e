// skel: the crowd's vertex-shader fragment, for renderers that skin in their own vertex shader
// or draw what crowd compute skinning wrote. Include it (skel_gpu::crowd_vertex_wgsl puts its
// bindings in the group you choose; group 1 here) and draw every primitive once, instanced:
// `@builtin(instance_index)` is the slot in the visible list, which names the instance, whose
// bone matrices start at instance * bone_stride + bone_offset in the crowd's one bone buffer.
//
// skel_crowd_skin16 takes all four sets as arguments. skel_crowd_skin4_dq / skel_crowd_skin8_dq /
// skel_crowd_skin16_dq skin with dual quaternions, as the crowd compute
// path does (same formulas; skel_gpu::dual_quat is the CPU reference).
//
// Bindings 3 and 4 (compute output) are needed only by skel_crowd_skinned. The skinning itself
// (skel_crowd_skin_sets: the linear and the dual-quaternion blend) is skel_crowd_skin.wgsl,
// shared with crowd compute skinning and appended by skel-gpu (CROWD_VERTEX_WGSL is the
// assembled module): each function here only finds the instance's bones and passes its sets.

struct SkelCrowdDraw {
    vertex_count: u32,
    bone_stride: u32,
    bone_offset: u32,
    _pad: u32,
}

@group(1) @binding(0) var<uniform> skel_crowd_draw: SkelCrowdDraw;
@group(1) @binding(1) var<storage, read> skel_crowd_bones: array<vec4<f32>>;
// Vec4s per bone in skel_crowd_bones: 4 (column-major 4x4, the default) or 3 (the top three
// rows of an affine matrix, BoneLayout::Affine3x4): set it in the render pipeline's constants.
override SKEL_BONE_VEC4S: u32 = 4u;
// [0]: visible instances n; [1 + slot]: the instance drawn as instance_index `slot`.
@group(1) @binding(2) var<storage, read> skel_crowd_instances: array<u32>;
@group(1) @binding(3) var<storage, read> skel_crowd_skinned_positions: array<f32>;
@group(1) @binding(4) var<storage, read> skel_crowd_skinned_normals: array<f32>;

// The instance drawn as `instance_index`.
fn skel_crowd_instance(instance_index: u32) -> u32 {
    return skel_crowd_instances[1u + instance_index];
}

// The first bone matrix of the mesh for `instance_index`.
fn skel_crowd_bone_base(instance_index: u32) -> u32 {
    return skel_crowd_instance(instance_index) * skel_crowd_draw.bone_stride + skel_crowd_draw.bone_offset;
}

// Skins a vertex with 4 influences (JOINTS_0 / WEIGHTS_0) for instance `instance_index`.
fn skel_crowd_skin4(instance_index: u32, position: vec3<f32>, normal: vec3<f32>, joints0: vec4<u32>, weights0: vec4<f32>) -> SkelCrowdVertex {
    return skel_crowd_skin_sets(skel_crowd_bone_base(instance_index), false, position, normal, 1u, SkelCrowdSet(joints0, weights0), SKEL_CROWD_NO_SET, SKEL_CROWD_NO_SET, SKEL_CROWD_NO_SET);
}

// skel_crowd_skin4 with dual quaternions.
fn skel_crowd_skin4_dq(instance_index: u32, position: vec3<f32>, normal: vec3<f32>, joints0: vec4<u32>, weights0: vec4<f32>) -> SkelCrowdVertex {
    return skel_crowd_skin_sets(skel_crowd_bone_base(instance_index), true, position, normal, 1u, SkelCrowdSet(joints0, weights0), SKEL_CROWD_NO_SET, SKEL_CROWD_NO_SET, SKEL_CROWD_NO_SET);
}

// Skins a vertex with 8 influences (and JOINTS_1 / WEIGHTS_1) for instance `instance_index`.
fn skel_crowd_skin8(instance_index: u32, position: vec3<f32>, normal: vec3<f32>, joints0: vec4<u32>, weights0: vec4<f32>, joints1: vec4<u32>, weights1: vec4<f32>) -> SkelCrowdVertex {
    return skel_crowd_skin_sets(skel_crowd_bone_base(instance_index), false, position, normal, 2u, SkelCrowdSet(joints0, weights0), SkelCrowdSet(joints1, weights1), SKEL_CROWD_NO_SET, SKEL_CROWD_NO_SET);
}

// skel_crowd_skin8 with dual quaternions.
fn skel_crowd_skin8_dq(instance_index: u32, position: vec3<f32>, normal: vec3<f32>, joints0: vec4<u32>, weights0: vec4<f32>, joints1: vec4<u32>, weights1: vec4<f32>) -> SkelCrowdVertex {
    return skel_crowd_skin_sets(skel_crowd_bone_base(instance_index), true, position, normal, 2u, SkelCrowdSet(joints0, weights0), SkelCrowdSet(joints1, weights1), SKEL_CROWD_NO_SET, SKEL_CROWD_NO_SET);
}

// Skins a vertex with 16 influences (JOINTS_0..3 / WEIGHTS_0..3) for instance `instance_index`.
// Sets 2 and 3 come from wherever the caller keeps them (the skeleton's joints2/weights2/
// joints3/weights3 buffers bound as storage and read at the vertex index, for instance).
fn skel_crowd_skin16(instance_index: u32, position: vec3<f32>, normal: vec3<f32>, joints0: vec4<u32>, weights0: vec4<f32>, joints1: vec4<u32>, weights1: vec4<f32>, joints2: vec4<u32>, weights2: vec4<f32>, joints3: vec4<u32>, weights3: vec4<f32>) -> SkelCrowdVertex {
    return skel_crowd_skin_sets(skel_crowd_bone_base(instance_index), false, position, normal, 4u, SkelCrowdSet(joints0, weights0), SkelCrowdSet(joints1, weights1), SkelCrowdSet(joints2, weights2), SkelCrowdSet(joints3, weights3));
}

// skel_crowd_skin16 with dual quaternions.
fn skel_crowd_skin16_dq(instance_index: u32, position: vec3<f32>, normal: vec3<f32>, joints0: vec4<u32>, weights0: vec4<f32>, joints1: vec4<u32>, weights1: vec4<f32>, joints2: vec4<u32>, weights2: vec4<f32>, joints3: vec4<u32>, weights3: vec4<f32>) -> SkelCrowdVertex {
    return skel_crowd_skin_sets(skel_crowd_bone_base(instance_index), true, position, normal, 4u, SkelCrowdSet(joints0, weights0), SkelCrowdSet(joints1, weights1), SkelCrowdSet(joints2, weights2), SkelCrowdSet(joints3, weights3));
}

// What crowd compute skinning wrote for vertex `vertex_index` of `instance_index`.
fn skel_crowd_skinned(instance_index: u32, vertex_index: u32) -> SkelCrowdVertex {
    let at = (instance_index * skel_crowd_draw.vertex_count + vertex_index) * 3u;
    return SkelCrowdVertex(
        vec3<f32>(skel_crowd_skinned_positions[at], skel_crowd_skinned_positions[at + 1u], skel_crowd_skinned_positions[at + 2u]),
        vec3<f32>(skel_crowd_skinned_normals[at], skel_crowd_skinned_normals[at + 1u], skel_crowd_skinned_normals[at + 2u]),
    );
}
