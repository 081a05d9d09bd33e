// skel: the bone texture and bone matrix fetch.
//
// rgba32float, 4 texels per bone (one per matrix column). Texel i = bone * 4 + col sits at
// (i % width, i / width); width is a multiple of 4, so a bone never straddles rows. For
// skeletons up to width / 4 bones this is the seed's single row and
// textureLoad(boneTex, vec2<i32>(boneIdx * 4 + col, 0), 0).

@group({{GROUP}}) @binding({{BONE_BINDING}}) var skel_bone_texture: texture_2d<f32>;

// Bone `bone`'s matrix, given the texture width (hoisted out of the per-influence loop).
fn skel_bone_matrix_in(bone: u32, width: u32) -> mat4x4<f32> {
    let first = bone * 4u;
    let x = i32(first % width);
    let y = i32(first / width);
    return mat4x4<f32>(
        textureLoad(skel_bone_texture, vec2<i32>(x, y), 0),
        textureLoad(skel_bone_texture, vec2<i32>(x + 1, y), 0),
        textureLoad(skel_bone_texture, vec2<i32>(x + 2, y), 0),
        textureLoad(skel_bone_texture, vec2<i32>(x + 3, y), 0),
    );
}

// Bone `bone`'s matrix (column-major, as uploaded).
fn skel_bone_matrix(bone: u32) -> mat4x4<f32> {
    return skel_bone_matrix_in(bone, textureDimensions(skel_bone_texture).x);
}

// m + weight * bone[joint]; zero weights fetch nothing. `skel_fetch_bone` is
// skel_bone_fetch_texture.wgsl's plain texture read, or compute skinning's workgroup cache.
fn skel_add_influence(m: mat4x4<f32>, width: u32, joint: u32, weight: f32) -> mat4x4<f32> {
    if (weight == 0.0) {
        return m;
    }
    return m + weight * skel_fetch_bone(joint, width);
}

// Σ weights[k] · bone[joints[k]] over one JOINTS_n/WEIGHTS_n set, added to `m`.
fn skel_add_influences(m: mat4x4<f32>, width: u32, joints: vec4<u32>, weights: vec4<f32>) -> mat4x4<f32> {
    var acc = skel_add_influence(m, width, joints.x, weights.x);
    acc = skel_add_influence(acc, width, joints.y, weights.y);
    acc = skel_add_influence(acc, width, joints.z, weights.z);
    return skel_add_influence(acc, width, joints.w, weights.w);
}

const SKEL_ZERO_MATRIX: mat4x4<f32> = mat4x4<f32>(
    vec4<f32>(0.0), vec4<f32>(0.0), vec4<f32>(0.0), vec4<f32>(0.0),
);
