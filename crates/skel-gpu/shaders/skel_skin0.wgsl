// skel: no skin (morph targets only): the normal is renormalised, as after skinning.

fn skel_skin(vertex_index: u32, position: vec3<f32>, normal: vec3<f32>) -> SkelVertex {
    let v = skel_morph(vertex_index, position, normal);
    return SkelVertex(v.position, skel_normalize_or_zero(v.normal));
}

fn skel_skin_vertex(vertex_index: u32, position: vec3<f32>, normal: vec3<f32>) -> SkelVertex {
    return skel_skin(vertex_index, position, normal);
}
