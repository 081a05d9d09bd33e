// skel: the crowd's vertex-shader fragment, for renderers that skin in their own vertex shader
// or draw what crowd compute skinning wrote. Include it (skel_gpu::crowd_vertex_wgsl puts its
// bindings in the group you choose; group 1 here) and draw every primitive once, instanced:
// `@builtin(instance_index)` is the slot in the visible list, which names the instance, whose
// bone matrices start at instance * bone_stride + bone_offset in the crowd's one bone buffer.
//
// A complete module without entry points (validated on its own). Bindings 3 and 4 (compute
// output) are needed only by skel_crowd_skinned.

struct SkelCrowdDraw {
    vertex_count: u32,
    bone_stride: u32,
    bone_offset: u32,
    _pad: u32,
}

struct SkelCrowdVertex {
    position: vec3<f32>,
    normal: vec3<f32>,
}

@group(1) @binding(0) var<uniform> skel_crowd_draw: SkelCrowdDraw;
@group(1) @binding(1) var<storage, read> skel_crowd_bones: array<mat4x4<f32>>;
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

// m + Σ w_k · bone[base + j_k] over one set; zero weights read nothing.
fn skel_crowd_add_influences(m: mat4x4<f32>, base: u32, joints: vec4<u32>, weights: vec4<f32>) -> mat4x4<f32> {
    var acc = m;
    for (var k = 0u; k < 4u; k += 1u) {
        let w = weights[k];
        if (w != 0.0) {
            acc += w * skel_crowd_bones[base + joints[k]];
        }
    }
    return acc;
}

fn skel_crowd_apply(m: mat4x4<f32>, position: vec3<f32>, normal: vec3<f32>) -> SkelCrowdVertex {
    let n = (m * vec4<f32>(normal, 0.0)).xyz;
    let len2 = dot(n, n);
    var unit = vec3<f32>(0.0);
    if (len2 > 0.0) {
        unit = n * inverseSqrt(len2);
    }
    return SkelCrowdVertex((m * vec4<f32>(position, 1.0)).xyz, unit);
}

const SKEL_CROWD_ZERO_MATRIX: mat4x4<f32> = mat4x4<f32>(vec4<f32>(0.0), vec4<f32>(0.0), vec4<f32>(0.0), vec4<f32>(0.0));

// Skins a vertex with 4 influences (JOINTS_0 / WEIGHTS_0) for instance `instance_index`.
fn skel_crowd_skin4(instance_index: u32, position: vec3<f32>, normal: vec3<f32>, joints0: vec4<u32>, weights0: vec4<f32>) -> SkelCrowdVertex {
    let base = skel_crowd_bone_base(instance_index);
    return skel_crowd_apply(skel_crowd_add_influences(SKEL_CROWD_ZERO_MATRIX, base, joints0, weights0), position, normal);
}

// Skins a vertex with 8 influences (and JOINTS_1 / WEIGHTS_1) for instance `instance_index`.
fn skel_crowd_skin8(instance_index: u32, position: vec3<f32>, normal: vec3<f32>, joints0: vec4<u32>, weights0: vec4<f32>, joints1: vec4<u32>, weights1: vec4<f32>) -> SkelCrowdVertex {
    let base = skel_crowd_bone_base(instance_index);
    var m = skel_crowd_add_influences(SKEL_CROWD_ZERO_MATRIX, base, joints0, weights0);
    m = skel_crowd_add_influences(m, base, joints1, weights1);
    return skel_crowd_apply(m, position, normal);
}

// What crowd compute skinning wrote for vertex `vertex_index` of `instance_index`.
fn skel_crowd_skinned(instance_index: u32, vertex_index: u32) -> SkelCrowdVertex {
    let at = (instance_index * skel_crowd_draw.vertex_count + vertex_index) * 3u;
    return SkelCrowdVertex(
        vec3<f32>(skel_crowd_skinned_positions[at], skel_crowd_skinned_positions[at + 1u], skel_crowd_skinned_positions[at + 2u]),
        vec3<f32>(skel_crowd_skinned_normals[at], skel_crowd_skinned_normals[at + 1u], skel_crowd_skinned_normals[at + 2u]),
    );
}
