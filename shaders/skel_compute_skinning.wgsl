// skel: compute skinning. Rest positions (and normals) plus influences in, skinned positions
// (and normals) out, for users who skin once and draw many passes. Composed after the skinning
// fragment (bone texture and morph targets in group {{FRAGMENT_GROUP}}); this file owns group 0.
//
// Positions and normals are tightly packed f32 triples (the Float32x3 vertex layout), so the
// outputs can be bound as vertex buffers directly. One invocation per vertex,
// {{WORKGROUP_SIZE}} per workgroup; the dispatch is 2D when a mesh needs more than
// max_compute_workgroups_per_dimension workgroups (more than ~16.7M vertices at 65 535).
//
// Skinned variants first copy the skeleton's first {{BONE_CACHE_SIZE}} bones from the bone
// texture into workgroup memory, together, so that each influence reads workgroup memory
// instead of four rgba32float texels (texture fetches of 128-bit texels are what bounded the
// plain version); bones past the cache are read from the texture as usual.

struct SkelComputeParams {
    vertex_count: u32,
    bone_count: u32,
    _pad1: u32,
    _pad2: u32,
}

@group(0) @binding(0) var<uniform> skel_params: SkelComputeParams;
@group(0) @binding(1) var<storage, read> skel_rest_positions: array<f32>;
@group(0) @binding(2) var<storage, read_write> skel_out_positions: array<f32>;
{{NORMAL_BINDINGS}}
{{INFLUENCE_BINDINGS}}

const SKEL_WORKGROUP_SIZE: u32 = {{WORKGROUP_SIZE}}u;
{{BONE_CACHE}}

fn skel_load_position(v: u32) -> vec3<f32> {
    return vec3<f32>(skel_rest_positions[v * 3u], skel_rest_positions[v * 3u + 1u], skel_rest_positions[v * 3u + 2u]);
}

@compute @workgroup_size({{WORKGROUP_SIZE}})
fn skel_skin_compute(
    @builtin(workgroup_id) group: vec3<u32>,
    @builtin(num_workgroups) groups: vec3<u32>,
    @builtin(local_invocation_index) lane: u32,
) {
    {{BONE_CACHE_LOAD}}
    let v = (group.y * groups.x + group.x) * SKEL_WORKGROUP_SIZE + lane;
    if (v >= skel_params.vertex_count) {
        return;
    }
    let skinned = skel_skin(v, skel_load_position(v), skel_load_normal(v){{INFLUENCE_ARGS}});
    skel_out_positions[v * 3u] = skinned.position.x;
    skel_out_positions[v * 3u + 1u] = skinned.position.y;
    skel_out_positions[v * 3u + 2u] = skinned.position.z;
    skel_store_normal(v, skinned.normal);
}
