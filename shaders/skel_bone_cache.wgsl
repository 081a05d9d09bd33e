// skel: compute skinning's workgroup bone cache (skinned variants). Replaces the fragment's
// skel_fetch_bone: bones below min(bone_count, {{BONE_CACHE_SIZE}}) come from workgroup memory,
// which every invocation of the workgroup fills together before skinning; others from the
// texture. Reads never touch an entry that was not written, so the pipeline skips wgpu's
// zero-initialisation of workgroup memory.

const SKEL_BONE_CACHE_SIZE: u32 = {{BONE_CACHE_SIZE}}u;

var<workgroup> skel_bone_cache: array<mat4x4<f32>, {{BONE_CACHE_SIZE}}>;

// Copies the first min(bone_count, SKEL_BONE_CACHE_SIZE) bones into the cache; call from
// uniform control flow at the start of the entry point (it ends with a barrier).
fn skel_fill_bone_cache(lane: u32) {
    let width = textureDimensions(skel_bone_texture).x;
    let cached = min(skel_params.bone_count, SKEL_BONE_CACHE_SIZE);
    for (var bone = lane; bone < cached; bone += SKEL_WORKGROUP_SIZE) {
        skel_bone_cache[bone] = skel_bone_matrix_in(bone, width);
    }
    workgroupBarrier();
}

fn skel_fetch_bone(bone: u32, width: u32) -> mat4x4<f32> {
    if (bone < min(skel_params.bone_count, SKEL_BONE_CACHE_SIZE)) {
        return skel_bone_cache[bone];
    }
    return skel_bone_matrix_in(bone, width);
}
