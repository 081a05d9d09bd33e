// skel: 8-influence skinning (JOINTS_0 / WEIGHTS_0 and JOINTS_1 / WEIGHTS_1).

// The skin matrix Σ w_k · bone[j_k], k < 8 (glTF 2.0 §3.7.3).
fn skel_skin_matrix(joints0: vec4<u32>, weights0: vec4<f32>, joints1: vec4<u32>, weights1: vec4<f32>) -> mat4x4<f32> {
    let width = textureDimensions(skel_bone_texture).x;
    let m = skel_add_influences(SKEL_ZERO_MATRIX, width, joints0, weights0);
    return skel_add_influences(m, width, joints1, weights1);
}

// Morphs (when the variant has morph targets), then skins position and normal.
fn skel_skin(vertex_index: u32, position: vec3<f32>, normal: vec3<f32>, joints0: vec4<u32>, weights0: vec4<f32>, joints1: vec4<u32>, weights1: vec4<f32>) -> SkelVertex {
    let m = skel_skin_matrix(joints0, weights0, joints1, weights1);
    return skel_apply(m, skel_morph(vertex_index, position, normal));
}

// The influences as vertex attributes, one struct an entry point can take as a parameter.
struct SkelInfluences {
    @location({{JOINTS0_LOCATION}}) joints0: vec4<u32>,
    @location({{WEIGHTS0_LOCATION}}) weights0: vec4<f32>,
    @location({{JOINTS1_LOCATION}}) joints1: vec4<u32>,
    @location({{WEIGHTS1_LOCATION}}) weights1: vec4<f32>,
}

// skel_skin with the influences from the vertex attributes.
fn skel_skin_vertex(vertex_index: u32, position: vec3<f32>, normal: vec3<f32>, influences: SkelInfluences) -> SkelVertex {
    return skel_skin(vertex_index, position, normal, influences.joints0, influences.weights0, influences.joints1, influences.weights1);
}
