// skel: compute skinning's workgroup bone cache, affine rows (the default layout). Each cached
// bone is the 3 rows of its matrix's affine part (x, y, z, translation per row; the constant
// last row 0 0 0 1 is dropped, as glam's transform_point3 ignores it on the CPU): 48 bytes, so
// a skin matrix costs 12 multiply-adds and 3 16-byte reads per influence instead of 16 and 4.
// The 48-byte stride also spreads bones over all 8 groups of 4 banks of workgroup memory
// (12 words per bone: bone b starts in group 3b mod 8), where a 64-byte stride (16 words) puts
// column c of every bone in one of only 2 groups: with joints differing between neighbouring
// vertices, those reads serialise on bank conflicts.
//
// Bones below min(bone_count, {{BONE_CACHE_SIZE}}) come from workgroup memory, which every
// invocation of the workgroup fills together before skinning; others from the texture. Reads
// never touch an entry that was not written, so the pipeline skips wgpu's zero-initialisation
// of workgroup memory.

const SKEL_BONE_CACHE_SIZE: u32 = {{BONE_CACHE_SIZE}}u;

// skel_bone_cache[b][r] = row r of bone b's matrix.
var<workgroup> skel_bone_cache: array<mat3x4<f32>, {{BONE_CACHE_SIZE}}>;
// Bones in the cache, and the bone texture's width (set by skel_fill_bone_cache).
var<private> skel_cached_bones: u32;
var<private> skel_bone_width: u32;

// Copies the first min(bone_count, SKEL_BONE_CACHE_SIZE) bones into the cache, one texel (one
// matrix column) per invocation; call from uniform control flow at the start of the entry point
// (it ends with a barrier).
fn skel_fill_bone_cache(lane: u32) {
    skel_bone_width = textureDimensions(skel_bone_texture).x;
    skel_cached_bones = min(skel_params.bone_count, SKEL_BONE_CACHE_SIZE);
    let texels = skel_cached_bones * 4u;
    for (var i = lane; i < texels; i += SKEL_WORKGROUP_SIZE) {
        let column = textureLoad(skel_bone_texture, vec2<i32>(i32(i % skel_bone_width), i32(i / skel_bone_width)), 0);
        let bone = i / 4u;
        let c = i % 4u;
        skel_bone_cache[bone][0][c] = column.x;
        skel_bone_cache[bone][1][c] = column.y;
        skel_bone_cache[bone][2][c] = column.z;
    }
    workgroupBarrier();
}

// Bone `bone`'s affine rows: from the cache, else from the texture.
fn skel_affine_bone(bone: u32) -> mat3x4<f32> {
    if (bone < skel_cached_bones) {
        return skel_bone_cache[bone];
    }
    return skel_affine_rows(skel_bone_matrix_in(bone, skel_bone_width));
}

// The fragment's skel_skin_matrix (unused by the compute entry point) reads the texture.
fn skel_fetch_bone(bone: u32, width: u32) -> mat4x4<f32> {
    return skel_bone_matrix_in(bone, width);
}
