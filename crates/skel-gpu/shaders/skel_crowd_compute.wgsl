// skel: crowd compute skinning. One dispatch skins one mesh for every visible instance of a
// crowd: workgroup x covers 256 vertices, workgroup (y, z) picks the slot, and the slot's
// instance (from the visible list) picks its bone matrices in the crowd's one bone buffer
// (instance * bone_stride + bone_offset). Output: slot-major skinned positions and normals,
// tightly packed f32 triples at (slot * vertex_count + vertex) * 3, so an instanced draw reads
// vertex `vertex_index` of instance `instance_index` there.
//
// A complete module (validated on its own): entry points skel_crowd_skin4 (JOINTS_0/WEIGHTS_0),
// skel_crowd_skin8 (and JOINTS_1/WEIGHTS_1) and skel_crowd_skin16 (and JOINTS_2..3/WEIGHTS_2..3,
// bindings 11-14), linear blend skinning; skel_crowd_skin4_dq, skel_crowd_skin8_dq and
// skel_crowd_skin16_dq, dual-quaternion skinning (each bone matrix converted as
// skel_gpu::dual_quat_unchecked does, each influence flipped to the hemisphere of the vertex's
// first one, the blend renormalised). A pipeline binds what its entry point uses.

struct SkelCrowdParams {
    vertex_count: u32,
    // Matrices per instance in skel_crowd_bones, and this mesh's first one within an instance.
    bone_stride: u32,
    bone_offset: u32,
    _pad: u32,
}

@group(0) @binding(0) var<uniform> skel_crowd_params: SkelCrowdParams;
// Every instance's bone matrices, column-major 4x4, instance-major.
@group(0) @binding(1) var<storage, read> skel_crowd_bones: array<mat4x4<f32>>;
// [0]: visible instances n; [1 + slot]: the instance skinned into slot `slot` (slot < n).
@group(0) @binding(2) var<storage, read> skel_crowd_instances: array<u32>;
@group(0) @binding(3) var<storage, read> skel_rest_positions: array<f32>;
@group(0) @binding(4) var<storage, read> skel_rest_normals: array<f32>;
@group(0) @binding(5) var<storage, read> skel_joints0: array<vec4<u32>>;
@group(0) @binding(6) var<storage, read> skel_weights0: array<vec4<f32>>;
@group(0) @binding(7) var<storage, read> skel_joints1: array<vec4<u32>>;
@group(0) @binding(8) var<storage, read> skel_weights1: array<vec4<f32>>;
@group(0) @binding(9) var<storage, read_write> skel_out_positions: array<f32>;
@group(0) @binding(10) var<storage, read_write> skel_out_normals: array<f32>;
@group(0) @binding(11) var<storage, read> skel_joints2: array<vec4<u32>>;
@group(0) @binding(12) var<storage, read> skel_weights2: array<vec4<f32>>;
@group(0) @binding(13) var<storage, read> skel_joints3: array<vec4<u32>>;
@group(0) @binding(14) var<storage, read> skel_weights3: array<vec4<f32>>;

const SKEL_CROWD_ZERO: mat4x4<f32> = mat4x4<f32>(vec4<f32>(0.0), vec4<f32>(0.0), vec4<f32>(0.0), vec4<f32>(0.0));

// m + Σ w_k · bone[base + j_k] over one set; zero weights read nothing (as the CPU reference).
fn skel_crowd_add_set(m: mat4x4<f32>, base: u32, joints: vec4<u32>, weights: vec4<f32>) -> mat4x4<f32> {
    var acc = m;
    for (var k = 0u; k < 4u; k += 1u) {
        let w = weights[k];
        if (w != 0.0) {
            acc += w * skel_crowd_bones[base + joints[k]];
        }
    }
    return acc;
}

fn skel_crowd_normalize_or_zero(v: vec3<f32>) -> vec3<f32> {
    let len2 = dot(v, v);
    if (len2 > 0.0) {
        return v * inverseSqrt(len2);
    }
    return vec3<f32>(0.0);
}

// The slot of this workgroup, and the first bone of its instance (or no slot past the list).
fn skel_crowd_base(group: vec3<u32>, groups: vec3<u32>) -> vec2<u32> {
    let slot = group.z * groups.y + group.y;
    if (slot >= skel_crowd_instances[0]) {
        return vec2<u32>(slot, 0xffffffffu);
    }
    let instance = skel_crowd_instances[1u + slot];
    return vec2<u32>(slot, instance * skel_crowd_params.bone_stride + skel_crowd_params.bone_offset);
}

fn skel_crowd_store(slot: u32, v: u32, m: mat4x4<f32>) {
    let p = vec3<f32>(skel_rest_positions[v * 3u], skel_rest_positions[v * 3u + 1u], skel_rest_positions[v * 3u + 2u]);
    let n = vec3<f32>(skel_rest_normals[v * 3u], skel_rest_normals[v * 3u + 1u], skel_rest_normals[v * 3u + 2u]);
    let sp = (m * vec4<f32>(p, 1.0)).xyz;
    let sn = skel_crowd_normalize_or_zero((m * vec4<f32>(n, 0.0)).xyz);
    let at = (slot * skel_crowd_params.vertex_count + v) * 3u;
    skel_out_positions[at] = sp.x;
    skel_out_positions[at + 1u] = sp.y;
    skel_out_positions[at + 2u] = sp.z;
    skel_out_normals[at] = sn.x;
    skel_out_normals[at + 1u] = sn.y;
    skel_out_normals[at + 2u] = sn.z;
}

@compute @workgroup_size(256)
fn skel_crowd_skin4(
    @builtin(global_invocation_id) id: vec3<u32>,
    @builtin(workgroup_id) group: vec3<u32>,
    @builtin(num_workgroups) groups: vec3<u32>,
) {
    let v = id.x;
    let base = skel_crowd_base(group, groups);
    if (v >= skel_crowd_params.vertex_count || base.y == 0xffffffffu) {
        return;
    }
    let m = skel_crowd_add_set(SKEL_CROWD_ZERO, base.y, skel_joints0[v], skel_weights0[v]);
    skel_crowd_store(base.x, v, m);
}

@compute @workgroup_size(256)
fn skel_crowd_skin8(
    @builtin(global_invocation_id) id: vec3<u32>,
    @builtin(workgroup_id) group: vec3<u32>,
    @builtin(num_workgroups) groups: vec3<u32>,
) {
    let v = id.x;
    let base = skel_crowd_base(group, groups);
    if (v >= skel_crowd_params.vertex_count || base.y == 0xffffffffu) {
        return;
    }
    var m = skel_crowd_add_set(SKEL_CROWD_ZERO, base.y, skel_joints0[v], skel_weights0[v]);
    m = skel_crowd_add_set(m, base.y, skel_joints1[v], skel_weights1[v]);
    skel_crowd_store(base.x, v, m);
}

@compute @workgroup_size(256)
fn skel_crowd_skin16(
    @builtin(global_invocation_id) id: vec3<u32>,
    @builtin(workgroup_id) group: vec3<u32>,
    @builtin(num_workgroups) groups: vec3<u32>,
) {
    let v = id.x;
    let base = skel_crowd_base(group, groups);
    if (v >= skel_crowd_params.vertex_count || base.y == 0xffffffffu) {
        return;
    }
    var m = skel_crowd_add_set(SKEL_CROWD_ZERO, base.y, skel_joints0[v], skel_weights0[v]);
    m = skel_crowd_add_set(m, base.y, skel_joints1[v], skel_weights1[v]);
    m = skel_crowd_add_set(m, base.y, skel_joints2[v], skel_weights2[v]);
    m = skel_crowd_add_set(m, base.y, skel_joints3[v], skel_weights3[v]);
    skel_crowd_store(base.x, v, m);
}

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

fn skel_crowd_store_dq(slot: u32, v: u32, blend: SkelDqBlend) {
    var p = vec3<f32>(skel_rest_positions[v * 3u], skel_rest_positions[v * 3u + 1u], skel_rest_positions[v * 3u + 2u]);
    var n = vec3<f32>(skel_rest_normals[v * 3u], skel_rest_normals[v * 3u + 1u], skel_rest_normals[v * 3u + 2u]);
    let len = length(blend.sum.real);
    if (len != 0.0) {
        let r = blend.sum.real / len;
        let d = blend.sum.dual / len;
        let t = skel_quat_mul(d, vec4<f32>(-r.xyz, r.w));
        p = skel_rotate(r, p) + 2.0 * t.xyz;
        n = skel_rotate(r, n);
    }
    let sn = skel_crowd_normalize_or_zero(n);
    let at = (slot * skel_crowd_params.vertex_count + v) * 3u;
    skel_out_positions[at] = p.x;
    skel_out_positions[at + 1u] = p.y;
    skel_out_positions[at + 2u] = p.z;
    skel_out_normals[at] = sn.x;
    skel_out_normals[at + 1u] = sn.y;
    skel_out_normals[at + 2u] = sn.z;
}

const SKEL_DQ_EMPTY: SkelDqBlend = SkelDqBlend(SkelDualQuat(vec4<f32>(0.0), vec4<f32>(0.0)), vec4<f32>(0.0), false);

@compute @workgroup_size(256)
fn skel_crowd_skin4_dq(
    @builtin(global_invocation_id) id: vec3<u32>,
    @builtin(workgroup_id) group: vec3<u32>,
    @builtin(num_workgroups) groups: vec3<u32>,
) {
    let v = id.x;
    let base = skel_crowd_base(group, groups);
    if (v >= skel_crowd_params.vertex_count || base.y == 0xffffffffu) {
        return;
    }
    let b = skel_crowd_blend_dq_set(SKEL_DQ_EMPTY, base.y, skel_joints0[v], skel_weights0[v]);
    skel_crowd_store_dq(base.x, v, b);
}

@compute @workgroup_size(256)
fn skel_crowd_skin8_dq(
    @builtin(global_invocation_id) id: vec3<u32>,
    @builtin(workgroup_id) group: vec3<u32>,
    @builtin(num_workgroups) groups: vec3<u32>,
) {
    let v = id.x;
    let base = skel_crowd_base(group, groups);
    if (v >= skel_crowd_params.vertex_count || base.y == 0xffffffffu) {
        return;
    }
    var b = skel_crowd_blend_dq_set(SKEL_DQ_EMPTY, base.y, skel_joints0[v], skel_weights0[v]);
    b = skel_crowd_blend_dq_set(b, base.y, skel_joints1[v], skel_weights1[v]);
    skel_crowd_store_dq(base.x, v, b);
}

@compute @workgroup_size(256)
fn skel_crowd_skin16_dq(
    @builtin(global_invocation_id) id: vec3<u32>,
    @builtin(workgroup_id) group: vec3<u32>,
    @builtin(num_workgroups) groups: vec3<u32>,
) {
    let v = id.x;
    let base = skel_crowd_base(group, groups);
    if (v >= skel_crowd_params.vertex_count || base.y == 0xffffffffu) {
        return;
    }
    var b = skel_crowd_blend_dq_set(SKEL_DQ_EMPTY, base.y, skel_joints0[v], skel_weights0[v]);
    b = skel_crowd_blend_dq_set(b, base.y, skel_joints1[v], skel_weights1[v]);
    b = skel_crowd_blend_dq_set(b, base.y, skel_joints2[v], skel_weights2[v]);
    b = skel_crowd_blend_dq_set(b, base.y, skel_joints3[v], skel_weights3[v]);
    skel_crowd_store_dq(base.x, v, b);
}
