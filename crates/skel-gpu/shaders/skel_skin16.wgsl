// skel: 16-influence skinning (JOINTS_0..3 / WEIGHTS_0..3).
//
// Sets 0 and 1 arrive as vertex attributes, as in the 8-influence variant; sets 2 and 3 are
// read from storage buffers at the vertex index (WebGPU's default of 8 vertex buffers leaves
// no room for four more beside position, normal and uv). The storage buffers are the
// skeleton's own joints2/weights2/joints3/weights3 buffers, 16 bytes per vertex.

@group({{GROUP}}) @binding({{JOINTS2_BINDING}}) var<storage, read> skel_joints2: array<vec4<u32>>;
@group({{GROUP}}) @binding({{WEIGHTS2_BINDING}}) var<storage, read> skel_weights2: array<vec4<f32>>;
@group({{GROUP}}) @binding({{JOINTS3_BINDING}}) var<storage, read> skel_joints3: array<vec4<u32>>;
@group({{GROUP}}) @binding({{WEIGHTS3_BINDING}}) var<storage, read> skel_weights3: array<vec4<f32>>;

// The skin matrix Σ w_k · bone[j_k], k < 16 (glTF 2.0 §3.7.3), sets 2 and 3 of `vertex_index`.
fn skel_skin_matrix(vertex_index: u32, joints0: vec4<u32>, weights0: vec4<f32>, joints1: vec4<u32>, weights1: vec4<f32>) -> mat4x4<f32> {
    let width = textureDimensions(skel_bone_texture).x;
    var m = skel_add_influences(SKEL_ZERO_MATRIX, width, joints0, weights0);
    m = skel_add_influences(m, width, joints1, weights1);
    m = skel_add_influences(m, width, skel_joints2[vertex_index], skel_weights2[vertex_index]);
    return skel_add_influences(m, width, skel_joints3[vertex_index], skel_weights3[vertex_index]);
}

// Morphs (when the variant has morph targets), then skins position and normal.
fn skel_skin(vertex_index: u32, position: vec3<f32>, normal: vec3<f32>, joints0: vec4<u32>, weights0: vec4<f32>, joints1: vec4<u32>, weights1: vec4<f32>) -> SkelVertex {
    let m = skel_skin_matrix(vertex_index, joints0, weights0, joints1, weights1);
    return skel_apply(m, skel_morph(vertex_index, position, normal));
}

// Sets 0 and 1 as vertex attributes, one struct an entry point can take as a parameter.
struct SkelInfluences {
    @location({{JOINTS0_LOCATION}}) joints0: vec4<u32>,
    @location({{WEIGHTS0_LOCATION}}) weights0: vec4<f32>,
    @location({{JOINTS1_LOCATION}}) joints1: vec4<u32>,
    @location({{WEIGHTS1_LOCATION}}) weights1: vec4<f32>,
}

// skel_skin with sets 0 and 1 from the vertex attributes (2 and 3 from storage).
fn skel_skin_vertex(vertex_index: u32, position: vec3<f32>, normal: vec3<f32>, influences: SkelInfluences) -> SkelVertex {
    return skel_skin(vertex_index, position, normal, influences.joints0, influences.weights0, influences.joints1, influences.weights1);
}
