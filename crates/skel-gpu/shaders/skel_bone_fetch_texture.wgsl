// skel: bone matrices for skinning come straight from the bone texture (the vertex-shader
// fragment; compute skinning supplies its own skel_fetch_bone with a workgroup cache).

fn skel_fetch_bone(bone: u32, width: u32) -> mat4x4<f32> {
    return skel_bone_matrix_in(bone, width);
}
