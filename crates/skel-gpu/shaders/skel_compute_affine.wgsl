// skel: compute skinning's skin matrix as affine rows (mat3x4: row r of Σ w_k · bone[j_k] in
// column r), from the bone cache that follows it (its skel_affine_bone). Applying it is
// three dot products: (p, 1) · row for a position, (n, 0) · row for a normal — what
// glam's transform_point3 / transform_vector3 compute on the CPU.

// The affine rows of `m` (column-major as uploaded).
fn skel_affine_rows(m: mat4x4<f32>) -> mat3x4<f32> {
    return mat3x4<f32>(
        vec4<f32>(m[0].x, m[1].x, m[2].x, m[3].x),
        vec4<f32>(m[0].y, m[1].y, m[2].y, m[3].y),
        vec4<f32>(m[0].z, m[1].z, m[2].z, m[3].z),
    );
}

const SKEL_ZERO_AFFINE: mat3x4<f32> = mat3x4<f32>(vec4<f32>(0.0), vec4<f32>(0.0), vec4<f32>(0.0));

// m + weight · bone[joint]. With skipping on, a zero weight reads nothing (like the CPU
// reference); with it off every influence is accumulated without a branch, which gives the
// same result for the finite matrices a skeleton holds (0 · x = 0).
fn skel_add_affine(m: mat3x4<f32>, joint: u32, weight: f32) -> mat3x4<f32> {
    {{SKIP_ZERO_WEIGHT}}
    return m + weight * skel_affine_bone(joint);
}

// Σ weights[k] · bone[joints[k]] over one JOINTS_n/WEIGHTS_n set, added to `m`.
fn skel_add_affine_set(m: mat3x4<f32>, joints: vec4<u32>, weights: vec4<f32>) -> mat3x4<f32> {
    var acc = skel_add_affine(m, joints.x, weights.x);
    acc = skel_add_affine(acc, joints.y, weights.y);
    acc = skel_add_affine(acc, joints.z, weights.z);
    return skel_add_affine(acc, joints.w, weights.w);
}

// Transforms a position (w = 1) and a normal (w = 0, renormalised) by affine rows.
fn skel_apply_affine(m: mat3x4<f32>, v: SkelVertex) -> SkelVertex {
    let p = vec4<f32>(v.position, 1.0) * m;
    let n = vec4<f32>(v.normal, 0.0) * m;
    return SkelVertex(p, skel_normalize_or_zero(n));
}
