// skel: 4-influence skinning (JOINTS_0 / WEIGHTS_0).

// The skin matrix Σ w_k · bone[j_k], k < 4 (glTF 2.0 §3.7.3).
fn skel_skin_matrix(joints: vec4<u32>, weights: vec4<f32>) -> mat4x4<f32> {
    let width = textureDimensions(skel_bone_texture).x;
    return skel_add_influences(SKEL_ZERO_MATRIX, width, joints, weights);
}

// Morphs (when the variant has morph targets), then skins position and normal.
fn skel_skin(vertex_index: u32, position: vec3<f32>, normal: vec3<f32>, joints: vec4<u32>, weights: vec4<f32>) -> SkelVertex {
    return skel_apply(skel_skin_matrix(joints, weights), skel_morph(vertex_index, position, normal));
}

// The influences as vertex attributes, one struct an entry point can take as a parameter.
struct SkelInfluences {
    @location({{JOINTS0_LOCATION}}) joints0: vec4<u32>,
    @location({{WEIGHTS0_LOCATION}}) weights0: vec4<f32>,
}

// skel_skin with the influences from the vertex attributes.
fn skel_skin_vertex(vertex_index: u32, position: vec3<f32>, normal: vec3<f32>, influences: SkelInfluences) -> SkelVertex {
    return skel_skin(vertex_index, position, normal, influences.joints0, influences.weights0);
}
