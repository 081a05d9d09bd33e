// skel: the skinning shared by crowd compute skinning (skel_crowd_compute.wgsl) and the crowd's
// vertex-shader fragment (skel_crowd_vertex.wgsl): skel-gpu appends it to both
// (CROWD_COMPUTE_WGSL, CROWD_VERTEX_WGSL). It reads `skel_crowd_bones` (every instance's bone
// matrices, column-major 4x4, instance-major), which each of the two declares in its own group.
// Both skin every vertex through skel_crowd_skin_sets (at the end): the compute entry points
// and the vertex functions only say where the bones and the joint/weight sets come from.

struct SkelCrowdVertex {
    position: vec3<f32>,
    normal: vec3<f32>,
}

// Bone matrix `bone` of skel_crowd_bones as a 4x4 matrix: SKEL_BONE_VEC4S vec4s a bone, 4 (the
// columns, BoneLayout::Mat4) or 3 (the top three rows of an affine matrix, Affine3x4).
fn skel_crowd_bone(bone: u32) -> mat4x4<f32> {
    let at = bone * SKEL_BONE_VEC4S;
    if SKEL_BONE_VEC4S == 3u {
        return transpose(mat4x4<f32>(skel_crowd_bones[at], skel_crowd_bones[at + 1u], skel_crowd_bones[at + 2u], vec4<f32>(0.0, 0.0, 0.0, 1.0)));
    }
    return mat4x4<f32>(skel_crowd_bones[at], skel_crowd_bones[at + 1u], skel_crowd_bones[at + 2u], skel_crowd_bones[at + 3u]);
}

// m + Σ w_k · bone[base + j_k] over one set; zero weights read nothing.
fn skel_crowd_add_influences(m: mat4x4<f32>, base: u32, joints: vec4<u32>, weights: vec4<f32>) -> mat4x4<f32> {
    var acc = m;
    for (var k = 0u; k < 4u; k += 1u) {
        let w = weights[k];
        if (w != 0.0) {
            acc += w * skel_crowd_bone(base + joints[k]);
        }
    }
    return acc;
}

fn skel_crowd_apply(m: mat4x4<f32>, position: vec3<f32>, normal: vec3<f32>) -> SkelCrowdVertex {
    let n = (m * vec4<f32>(normal, 0.0)).xyz;
    let len2 = dot(n, n);
    var unit = vec3<f32>(0.0);
    if (len2 > 0.0) {
        unit = n * inverseSqrt(len2);
    }
    return SkelCrowdVertex((m * vec4<f32>(position, 1.0)).xyz, unit);
}

const SKEL_CROWD_ZERO_MATRIX: mat4x4<f32> = mat4x4<f32>(vec4<f32>(0.0), vec4<f32>(0.0), vec4<f32>(0.0), vec4<f32>(0.0));

// ---- Dual-quaternion skinning (skel-gpu/src/dual_quat.rs is the CPU reference) ----

struct SkelDualQuat {
    real: vec4<f32>,
    dual: vec4<f32>,
}

fn skel_quat_mul(a: vec4<f32>, b: vec4<f32>) -> vec4<f32> {
    return vec4<f32>(
        a.w * b.x + a.x * b.w + a.y * b.z - a.z * b.y,
        a.w * b.y - a.x * b.z + a.y * b.w + a.z * b.x,
        a.w * b.z + a.x * b.y - a.y * b.x + a.z * b.w,
        a.w * b.w - a.x * b.x - a.y * b.y - a.z * b.z,
    );
}

// The unit quaternion of a rotation matrix's 3x3 part (Shepperd's method).
fn skel_quat_from_rotation(m: mat4x4<f32>) -> vec4<f32> {
    let m00 = m[0][0];
    let m11 = m[1][1];
    let m22 = m[2][2];
    let m01 = m[1][0];
    let m02 = m[2][0];
    let m10 = m[0][1];
    let m12 = m[2][1];
    let m20 = m[0][2];
    let m21 = m[1][2];
    var q: vec4<f32>;
    if (m00 + m11 + m22 > 0.0) {
        let s = sqrt(1.0 + m00 + m11 + m22) * 2.0;
        q = vec4<f32>((m21 - m12) / s, (m02 - m20) / s, (m10 - m01) / s, 0.25 * s);
    } else if (m00 > m11 && m00 > m22) {
        let s = sqrt(1.0 + m00 - m11 - m22) * 2.0;
        q = vec4<f32>(0.25 * s, (m01 + m10) / s, (m02 + m20) / s, (m21 - m12) / s);
    } else if (m11 > m22) {
        let s = sqrt(1.0 + m11 - m00 - m22) * 2.0;
        q = vec4<f32>((m01 + m10) / s, 0.25 * s, (m12 + m21) / s, (m02 - m20) / s);
    } else {
        let s = sqrt(1.0 + m22 - m00 - m11) * 2.0;
        q = vec4<f32>((m02 + m20) / s, (m12 + m21) / s, 0.25 * s, (m10 - m01) / s);
    }
    return q / length(q);
}

fn skel_dual_quat(m: mat4x4<f32>) -> SkelDualQuat {
    let r = skel_quat_from_rotation(m);
    let d = skel_quat_mul(vec4<f32>(m[3].xyz, 0.0), r);
    return SkelDualQuat(r, 0.5 * d);
}

// Running blend: the sum so far, the pivot (first influence's rotation) and whether it is set.
struct SkelDqBlend {
    sum: SkelDualQuat,
    pivot: vec4<f32>,
    has_pivot: bool,
}

fn skel_crowd_blend_dq_set(blend: SkelDqBlend, base: u32, joints: vec4<u32>, weights: vec4<f32>) -> SkelDqBlend {
    var b = blend;
    for (var k = 0u; k < 4u; k += 1u) {
        let w = weights[k];
        if (w != 0.0) {
            let dq = skel_dual_quat(skel_crowd_bone(base + joints[k]));
            if (!b.has_pivot) {
                b.pivot = dq.real;
                b.has_pivot = true;
            }
            var s = w;
            if (dot(dq.real, b.pivot) < 0.0) {
                s = -w;
            }
            b.sum.real += s * dq.real;
            b.sum.dual += s * dq.dual;
        }
    }
    return b;
}

fn skel_rotate(q: vec4<f32>, v: vec3<f32>) -> vec3<f32> {
    let t = 2.0 * cross(q.xyz, v);
    return v + q.w * t + cross(q.xyz, t);
}

const SKEL_DQ_EMPTY: SkelDqBlend = SkelDqBlend(SkelDualQuat(vec4<f32>(0.0), vec4<f32>(0.0)), vec4<f32>(0.0), false);

fn skel_crowd_apply_dq(blend: SkelDqBlend, position: vec3<f32>, normal: vec3<f32>) -> SkelCrowdVertex {
    var p = position;
    var n = normal;
    let len = length(blend.sum.real);
    if (len != 0.0) {
        let r = blend.sum.real / len;
        let d = blend.sum.dual / len;
        let t = skel_quat_mul(d, vec4<f32>(-r.xyz, r.w));
        p = skel_rotate(r, p) + 2.0 * t.xyz;
        n = skel_rotate(r, n);
    }
    let len2 = dot(n, n);
    var unit = vec3<f32>(0.0);
    if (len2 > 0.0) {
        unit = n * inverseSqrt(len2);
    }
    return SkelCrowdVertex(p, unit);
}

// ---- One vertex, linear or dual-quaternion: what both crowd modules call ----

// One JOINTS_n / WEIGHTS_n pair of a vertex.
struct SkelCrowdSet {
    joints: vec4<u32>,
    weights: vec4<f32>,
}

// A set that is not there (zero weights read nothing).
const SKEL_CROWD_NO_SET: SkelCrowdSet = SkelCrowdSet(vec4<u32>(0u), vec4<f32>(0.0));

// A running blend of either kind: the matrix sum (linear) or the dual-quaternion sum.
struct SkelCrowdBlend {
    linear: mat4x4<f32>,
    dq: SkelDqBlend,
    dual_quat: bool,
}

fn skel_crowd_add_set(blend: SkelCrowdBlend, base: u32, s: SkelCrowdSet) -> SkelCrowdBlend {
    var b = blend;
    if (b.dual_quat) {
        b.dq = skel_crowd_blend_dq_set(b.dq, base, s.joints, s.weights);
    } else {
        b.linear = skel_crowd_add_influences(b.linear, base, s.joints, s.weights);
    }
    return b;
}

// Skins `position` and `normal` with the bones from `base` in skel_crowd_bones over the first
// `sets` (1, 2 or 4) of s0..s3: Σ w·M (zero weights read nothing), or with `dual_quat` the
// blended dual quaternions (each influence in the first one's hemisphere, renormalised). The
// normal comes out unit length (zero stays zero). Callers pass `sets` and `dual_quat` as
// constants, so a compiled entry point keeps one of the four paths.
fn skel_crowd_skin_sets(base: u32, dual_quat: bool, position: vec3<f32>, normal: vec3<f32>, sets: u32, s0: SkelCrowdSet, s1: SkelCrowdSet, s2: SkelCrowdSet, s3: SkelCrowdSet) -> SkelCrowdVertex {
    var b = SkelCrowdBlend(SKEL_CROWD_ZERO_MATRIX, SKEL_DQ_EMPTY, dual_quat);
    b = skel_crowd_add_set(b, base, s0);
    if (sets > 1u) {
        b = skel_crowd_add_set(b, base, s1);
    }
    if (sets > 2u) {
        b = skel_crowd_add_set(b, base, s2);
        b = skel_crowd_add_set(b, base, s3);
    }
    if (dual_quat) {
        return skel_crowd_apply_dq(b.dq, position, normal);
    }
    return skel_crowd_apply(b.linear, position, normal);
}
