// skel: compute skinning's workgroup bone cache, full 4×4 columns (BoneCacheLayout::Columns).
// Not the default: kept so benchmarks can measure what the affine-row layout
// (skel_bone_cache.wgsl) gains. Each bone is its matrix as uploaded, 64 bytes: 4 16-byte reads
// per influence, and a 16-word stride that puts column c of every bone in one of 2 of the 8
// groups of 4 banks, so different joints among neighbouring vertices conflict.

const SKEL_BONE_CACHE_SIZE: u32 = {{BONE_CACHE_SIZE}}u;

var<workgroup> skel_bone_cache: array<mat4x4<f32>, {{BONE_CACHE_SIZE}}>;
var<private> skel_cached_bones: u32;
var<private> skel_bone_width: u32;

// Copies the first min(bone_count, SKEL_BONE_CACHE_SIZE) bones into the cache, one bone per
// invocation; call from uniform control flow at the start of the entry point (it ends with a
// barrier).
fn skel_fill_bone_cache(lane: u32) {
    skel_bone_width = textureDimensions(skel_bone_texture).x;
    skel_cached_bones = min(skel_params.bone_count, SKEL_BONE_CACHE_SIZE);
    for (var bone = lane; bone < skel_cached_bones; bone += SKEL_WORKGROUP_SIZE) {
        skel_bone_cache[bone] = skel_bone_matrix_in(bone, skel_bone_width);
    }
    workgroupBarrier();
}

// Bone `bone`'s matrix, from the cache or the texture.
fn skel_column_bone(bone: u32) -> mat4x4<f32> {
    if (bone < skel_cached_bones) {
        return skel_bone_cache[bone];
    }
    return skel_bone_matrix_in(bone, skel_bone_width);
}

// Bone `bone`'s affine rows.
fn skel_affine_bone(bone: u32) -> mat3x4<f32> {
    return skel_affine_rows(skel_column_bone(bone));
}

fn skel_fetch_bone(bone: u32, width: u32) -> mat4x4<f32> {
    return skel_bone_matrix_in(bone, width);
}
