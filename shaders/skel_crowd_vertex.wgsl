// skel: the crowd's vertex-shader fragment, for renderers that skin in their own vertex shader
// or draw what crowd compute skinning wrote. Include it (skel_gpu::crowd_vertex_wgsl puts its
// bindings in the group you choose; group 1 here) and draw every primitive once, instanced:
// `@builtin(instance_index)` is the slot in the visible list, which names the instance, whose
// bone matrices start at instance * bone_stride + bone_offset in the crowd's one bone buffer.
//
// skel_crowd_skin16 takes all four sets as arguments. skel_crowd_skin4_dq / skel_crowd_skin8_dq /
// skel_crowd_skin16_dq skin with dual quaternions, as the crowd compute
// path does (same formulas; skel_gpu::dual_quat is the CPU reference).
//
// A complete module without entry points (validated on its own). Bindings 3 and 4 (compute
// output) are needed only by skel_crowd_skinned.

struct SkelCrowdDraw {
    vertex_count: u32,
    bone_stride: u32,
    bone_offset: u32,
    _pad: u32,
}

struct SkelCrowdVertex {
    position: vec3<f32>,
    normal: vec3<f32>,
}

@group(1) @binding(0) var<uniform> skel_crowd_draw: SkelCrowdDraw;
@group(1) @binding(1) var<storage, read> skel_crowd_bones: array<mat4x4<f32>>;
// [0]: visible instances n; [1 + slot]: the instance drawn as instance_index `slot`.
@group(1) @binding(2) var<storage, read> skel_crowd_instances: array<u32>;
@group(1) @binding(3) var<storage, read> skel_crowd_skinned_positions: array<f32>;
@group(1) @binding(4) var<storage, read> skel_crowd_skinned_normals: array<f32>;

// The instance drawn as `instance_index`.
fn skel_crowd_instance(instance_index: u32) -> u32 {
    return skel_crowd_instances[1u + instance_index];
}

// The first bone matrix of the mesh for `instance_index`.
fn skel_crowd_bone_base(instance_index: u32) -> u32 {
    return skel_crowd_instance(instance_index) * skel_crowd_draw.bone_stride + skel_crowd_draw.bone_offset;
}

// m + Σ w_k · bone[base + j_k] over one set; zero weights read nothing.
fn skel_crowd_add_influences(m: mat4x4<f32>, base: u32, joints: vec4<u32>, weights: vec4<f32>) -> mat4x4<f32> {
    var acc = m;
    for (var k = 0u; k < 4u; k += 1u) {
        let w = weights[k];
        if (w != 0.0) {
            acc += w * skel_crowd_bones[base + joints[k]];
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

// Skins a vertex with 4 influences (JOINTS_0 / WEIGHTS_0) for instance `instance_index`.
fn skel_crowd_skin4(instance_index: u32, position: vec3<f32>, normal: vec3<f32>, joints0: vec4<u32>, weights0: vec4<f32>) -> SkelCrowdVertex {
    let base = skel_crowd_bone_base(instance_index);
    return skel_crowd_apply(skel_crowd_add_influences(SKEL_CROWD_ZERO_MATRIX, base, joints0, weights0), position, normal);
}

// Skins a vertex with 8 influences (and JOINTS_1 / WEIGHTS_1) for instance `instance_index`.
fn skel_crowd_skin8(instance_index: u32, position: vec3<f32>, normal: vec3<f32>, joints0: vec4<u32>, weights0: vec4<f32>, joints1: vec4<u32>, weights1: vec4<f32>) -> SkelCrowdVertex {
    let base = skel_crowd_bone_base(instance_index);
    var m = skel_crowd_add_influences(SKEL_CROWD_ZERO_MATRIX, base, joints0, weights0);
    m = skel_crowd_add_influences(m, base, joints1, weights1);
    return skel_crowd_apply(m, position, normal);
}

// Skins a vertex with 16 influences (JOINTS_0..3 / WEIGHTS_0..3) for instance `instance_index`.
// Sets 2 and 3 come from wherever the caller keeps them (the skeleton's joints2/weights2/
// joints3/weights3 buffers bound as storage and read at the vertex index, for instance).
fn skel_crowd_skin16(instance_index: u32, position: vec3<f32>, normal: vec3<f32>, joints0: vec4<u32>, weights0: vec4<f32>, joints1: vec4<u32>, weights1: vec4<f32>, joints2: vec4<u32>, weights2: vec4<f32>, joints3: vec4<u32>, weights3: vec4<f32>) -> SkelCrowdVertex {
    let base = skel_crowd_bone_base(instance_index);
    var m = skel_crowd_add_influences(SKEL_CROWD_ZERO_MATRIX, base, joints0, weights0);
    m = skel_crowd_add_influences(m, base, joints1, weights1);
    m = skel_crowd_add_influences(m, base, joints2, weights2);
    m = skel_crowd_add_influences(m, base, joints3, weights3);
    return skel_crowd_apply(m, position, normal);
}

// What crowd compute skinning wrote for vertex `vertex_index` of `instance_index`.
fn skel_crowd_skinned(instance_index: u32, vertex_index: u32) -> SkelCrowdVertex {
    let at = (instance_index * skel_crowd_draw.vertex_count + vertex_index) * 3u;
    return SkelCrowdVertex(
        vec3<f32>(skel_crowd_skinned_positions[at], skel_crowd_skinned_positions[at + 1u], skel_crowd_skinned_positions[at + 2u]),
        vec3<f32>(skel_crowd_skinned_normals[at], skel_crowd_skinned_normals[at + 1u], skel_crowd_skinned_normals[at + 2u]),
    );
}

// ---- Dual-quaternion skinning (the crowd compute shader's, skel-gpu/src/dual_quat.rs is the CPU reference) ----

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
            let dq = skel_dual_quat(skel_crowd_bones[base + joints[k]]);
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

// skel_crowd_skin4 with dual quaternions.
fn skel_crowd_skin4_dq(instance_index: u32, position: vec3<f32>, normal: vec3<f32>, joints0: vec4<u32>, weights0: vec4<f32>) -> SkelCrowdVertex {
    let base = skel_crowd_bone_base(instance_index);
    return skel_crowd_apply_dq(skel_crowd_blend_dq_set(SKEL_DQ_EMPTY, base, joints0, weights0), position, normal);
}

// skel_crowd_skin8 with dual quaternions.
fn skel_crowd_skin8_dq(instance_index: u32, position: vec3<f32>, normal: vec3<f32>, joints0: vec4<u32>, weights0: vec4<f32>, joints1: vec4<u32>, weights1: vec4<f32>) -> SkelCrowdVertex {
    let base = skel_crowd_bone_base(instance_index);
    var b = skel_crowd_blend_dq_set(SKEL_DQ_EMPTY, base, joints0, weights0);
    b = skel_crowd_blend_dq_set(b, base, joints1, weights1);
    return skel_crowd_apply_dq(b, position, normal);
}

// skel_crowd_skin16 with dual quaternions.
fn skel_crowd_skin16_dq(instance_index: u32, position: vec3<f32>, normal: vec3<f32>, joints0: vec4<u32>, weights0: vec4<f32>, joints1: vec4<u32>, weights1: vec4<f32>, joints2: vec4<u32>, weights2: vec4<f32>, joints3: vec4<u32>, weights3: vec4<f32>) -> SkelCrowdVertex {
    let base = skel_crowd_bone_base(instance_index);
    var b = skel_crowd_blend_dq_set(SKEL_DQ_EMPTY, base, joints0, weights0);
    b = skel_crowd_blend_dq_set(b, base, joints1, weights1);
    b = skel_crowd_blend_dq_set(b, base, joints2, weights2);
    b = skel_crowd_blend_dq_set(b, base, joints3, weights3);
    return skel_crowd_apply_dq(b, position, normal);
}
