// skel: variant without morph targets: morphing is the identity.

fn skel_morph(vertex_index: u32, position: vec3<f32>, normal: vec3<f32>) -> SkelVertex {
    return SkelVertex(position, normal);
}
