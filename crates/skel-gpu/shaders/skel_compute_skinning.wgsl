// skel: compute skinning. Rest positions (and normals) plus influences in, skinned positions
// (and normals) out, for users who skin once and draw many passes. Composed after the skinning
// fragment (bone texture and morph targets in group {{FRAGMENT_GROUP}}); this file owns group 0.
//
// Positions and normals are tightly packed f32 triples (the Float32x3 vertex layout), so the
// outputs can be bound as vertex buffers directly.
//
// Work layout: {{WORKGROUP_SIZE}} invocations per workgroup; each workgroup skins
// `tiles_per_workgroup` consecutive tiles of {{WORKGROUP_SIZE}} vertices (lane i takes vertex
// i of every tile, so loads stay coalesced), {{VERTICES_PER_ITERATION}} tile(s) per loop
// iteration: the loads of those vertices are issued before any of them is skinned. Skinned
// variants fill the workgroup bone cache once, before the first tile, so the fill (texture
// reads and a barrier) is paid once per `tiles_per_workgroup` tiles instead of once per tile.
// The dispatch is 2D when a mesh needs more than max_compute_workgroups_per_dimension
// workgroups.

struct SkelComputeParams {
    vertex_count: u32,
    bone_count: u32,
    // Tiles of SKEL_WORKGROUP_SIZE vertices per workgroup, a multiple of
    // SKEL_VERTICES_PER_ITERATION (the host rounds it up).
    tiles_per_workgroup: u32,
    _pad: u32,
}

@group(0) @binding(0) var<uniform> skel_params: SkelComputeParams;
@group(0) @binding(1) var<storage, read> skel_rest_positions: array<f32>;
@group(0) @binding(2) var<storage, read_write> skel_out_positions: array<f32>;
{{NORMAL_BINDINGS}}
{{INFLUENCE_BINDINGS}}

const SKEL_WORKGROUP_SIZE: u32 = {{WORKGROUP_SIZE}}u;
const SKEL_VERTICES_PER_ITERATION: u32 = {{VERTICES_PER_ITERATION}}u;
{{BONE_CACHE}}

fn skel_load_position(v: u32) -> vec3<f32> {
    return vec3<f32>(skel_rest_positions[v * 3u], skel_rest_positions[v * 3u + 1u], skel_rest_positions[v * 3u + 2u]);
}

// Everything one vertex reads from the vertex buffers.
struct SkelComputeInput {
    position: vec3<f32>,
    normal: vec3<f32>,
{{INPUT_FIELDS}}
}

fn skel_load_input(v: u32) -> SkelComputeInput {
    return SkelComputeInput(skel_load_position(v), skel_load_normal(v){{INPUT_LOADS}});
}

{{SKIN_INPUT}}

fn skel_store(v: u32, skinned: SkelVertex) {
    skel_out_positions[v * 3u] = skinned.position.x;
    skel_out_positions[v * 3u + 1u] = skinned.position.y;
    skel_out_positions[v * 3u + 2u] = skinned.position.z;
    skel_store_normal(v, skinned.normal);
}

@compute @workgroup_size({{WORKGROUP_SIZE}})
fn skel_skin_compute(
    @builtin(workgroup_id) group: vec3<u32>,
    @builtin(num_workgroups) groups: vec3<u32>,
    @builtin(local_invocation_index) lane: u32,
) {
    {{BONE_CACHE_LOAD}}
    let count = skel_params.vertex_count;
    let last = count - 1u;
    let tiles = skel_params.tiles_per_workgroup;
    let first = (group.y * groups.x + group.x) * tiles * SKEL_WORKGROUP_SIZE + lane;
    for (var tile = 0u; tile < tiles; tile += SKEL_VERTICES_PER_ITERATION) {
        let v0 = first + tile * SKEL_WORKGROUP_SIZE;
        if (v0 >= count) {
            return;
        }
        // Vertices past the end load (and skin) the last vertex but store nothing.
{{ITERATION}}
    }
}
