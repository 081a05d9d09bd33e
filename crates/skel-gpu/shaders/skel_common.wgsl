// skel: shared by every skinning variant (composed first). Everything is prefixed `skel_`.

// A vertex after morphing and skinning, in the mesh's bind space.
struct SkelVertex {
    position: vec3<f32>,
    normal: vec3<f32>,
}

// `v / |v|`, or zero for a zero vector (glam's `normalize_or_zero`, which the CPU reference uses).
fn skel_normalize_or_zero(v: vec3<f32>) -> vec3<f32> {
    let len2 = dot(v, v);
    if (len2 > 0.0) {
        return v * inverseSqrt(len2);
    }
    return vec3<f32>(0.0);
}

// Transforms a position (w = 1) and a normal (w = 0, renormalised) by a skin matrix.
fn skel_apply(m: mat4x4<f32>, v: SkelVertex) -> SkelVertex {
    let p = m * vec4<f32>(v.position, 1.0);
    let n = m * vec4<f32>(v.normal, 0.0);
    return SkelVertex(p.xyz, skel_normalize_or_zero(n.xyz));
}
