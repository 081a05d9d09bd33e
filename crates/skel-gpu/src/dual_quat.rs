//! Dual-quaternion skinning (Kavan, Collins, Žára, O'Sullivan 2007): the CPU reference the GPU
//! paths are tested against.
//!
//! Linear blend skinning averages matrices, and an average of rotations is not a rotation: a
//! joint twisted by 180° collapses its cross-section to a line (the "candy wrapper"). Blending
//! unit dual quaternions and renormalising keeps every blend rigid, so volume is preserved
//! (Blender's "preserve volume", USD's `skinningMethod = "dualQuaternion"`). glTF has no field
//! for it: it is opt-in per mesh.
//!
//! A dual quaternion holds a rotation and a translation only. Bones whose matrices carry scale,
//! shear or a reflection ([`dual_quat_from_matrix`] returns `None`) cannot be expressed: such
//! meshes fall back to linear skinning (the crowd records a warning).
//!
//! Bone matrices come in as [`Mat4`] (column-major, the layout of glTF and WGSL), dual
//! quaternions go out as [`DualQuat`] (two [`Quat`]s, `[x, y, z, w]` each), points and normals
//! as [`Vec3`], in the bones' units. The GPU fragments convert each bone matrix with the same
//! formulas, in the same order, in `f32`; the arithmetic here is spelled out component by
//! component (not glam's SIMD operators) so that it stays that reference to the last bit.

use glam::{Mat4, Quat, Vec3};

/// How far a bone matrix's 3×3 part may be from a rotation (column lengths from 1, column dot
/// products from 0) and still be skinned with dual quaternions.
pub const DQ_RIGID_TOLERANCE: f32 = 1e-3;

/// How a mesh is skinned.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub enum SkinningMethod {
    /// Σ w·M, the glTF 2.0 §3.7.3 formula.
    #[default]
    Linear,
    /// Blended unit dual quaternions (rigid blends; see the module docs).
    DualQuaternion,
}

/// A dual quaternion `real + ε·dual`: `real` is the unit rotation, `dual` is
/// `½·(t, 0)·real` for the translation `t`. 32 bytes, `#[repr(C)]` and [`bytemuck::Pod`], so
/// an array of them uploads as WGSL's `struct { real: vec4<f32>, dual: vec4<f32> }` (the
/// fragments' `SkelDualQuat`).
#[repr(C)]
#[derive(Debug, Clone, Copy, PartialEq, bytemuck::Pod, bytemuck::Zeroable)]
pub struct DualQuat {
    /// The rotation, a unit quaternion `[x, y, z, w]`.
    pub real: Quat,
    /// Half the translation times the rotation (`½·(t, 0)·real`), in the bones' units.
    pub dual: Quat,
}

impl DualQuat {
    /// No rotation, no translation.
    pub const IDENTITY: Self = Self {
        real: Quat::IDENTITY,
        dual: Quat::from_xyzw(0.0, 0.0, 0.0, 0.0),
    };

    /// The eight components `[real.x, real.y, real.z, real.w, dual.x, dual.y, dual.z, dual.w]`.
    #[inline]
    #[must_use]
    pub fn to_array(self) -> [f32; 8] {
        bytemuck::cast(self)
    }

    /// The dual quaternion of `[real.x, real.y, real.z, real.w, dual.x, dual.y, dual.z,
    /// dual.w]` (not normalised).
    #[inline]
    #[must_use]
    pub fn from_array(a: [f32; 8]) -> Self {
        bytemuck::cast(a)
    }
}

fn column(m: &[f32; 16], c: usize) -> [f32; 3] {
    [m[c * 4], m[c * 4 + 1], m[c * 4 + 2]]
}

fn dot3(a: [f32; 3], b: [f32; 3]) -> f32 {
    a[0] * b[0] + a[1] * b[1] + a[2] * b[2]
}

fn cross(a: [f32; 3], b: [f32; 3]) -> [f32; 3] {
    [
        a[1] * b[2] - a[2] * b[1],
        a[2] * b[0] - a[0] * b[2],
        a[0] * b[1] - a[1] * b[0],
    ]
}

/// Whether the 3×3 part of `m` is a rotation within [`DQ_RIGID_TOLERANCE`] (unit, orthogonal
/// columns and no reflection; the translation column is not looked at).
#[must_use]
pub fn is_rigid(m: &Mat4) -> bool {
    let m = m.to_cols_array();
    let (x, y, z) = (column(&m, 0), column(&m, 1), column(&m, 2));
    let t = DQ_RIGID_TOLERANCE;
    let unit = |c| (dot3(c, c).sqrt() - 1.0).abs() <= t;
    unit(x)
        && unit(y)
        && unit(z)
        && dot3(x, y).abs() <= t
        && dot3(y, z).abs() <= t
        && dot3(z, x).abs() <= t
        && dot3(cross(x, y), z) > 0.0
}

/// The index of the first of `bones` that is not rigid ([`is_rigid`]): a mesh with one cannot
/// be skinned with dual quaternions.
#[must_use]
pub fn first_non_rigid_bone(bones: &[Mat4]) -> Option<usize> {
    bones.iter().position(|m| !is_rigid(m))
}

/// The unit rotation quaternion of the 3×3 part of `m`, assumed a rotation (Shepperd's
/// method: the largest of w, x, y, z is found first, so no division is by a small number).
#[must_use]
pub fn quat_from_rotation(m: &Mat4) -> Quat {
    Quat::from_array(quat_of(&m.to_cols_array()))
}

/// [`quat_from_rotation`] on the column-major elements.
fn quat_of(m: &[f32; 16]) -> [f32; 4] {
    let (m00, m11, m22) = (m[0], m[5], m[10]);
    // m[c * 4 + r] is row r of column c.
    let (m01, m02, m10, m12, m20, m21) = (m[4], m[8], m[1], m[9], m[2], m[6]);
    let q = if m00 + m11 + m22 > 0.0 {
        let s = (1.0 + m00 + m11 + m22).sqrt() * 2.0;
        [(m21 - m12) / s, (m02 - m20) / s, (m10 - m01) / s, 0.25 * s]
    } else if m00 > m11 && m00 > m22 {
        let s = (1.0 + m00 - m11 - m22).sqrt() * 2.0;
        [0.25 * s, (m01 + m10) / s, (m02 + m20) / s, (m21 - m12) / s]
    } else if m11 > m22 {
        let s = (1.0 + m11 - m00 - m22).sqrt() * 2.0;
        [(m01 + m10) / s, 0.25 * s, (m12 + m21) / s, (m02 - m20) / s]
    } else {
        let s = (1.0 + m22 - m00 - m11).sqrt() * 2.0;
        [(m02 + m20) / s, (m12 + m21) / s, 0.25 * s, (m10 - m01) / s]
    };
    let n = (q[0] * q[0] + q[1] * q[1] + q[2] * q[2] + q[3] * q[3]).sqrt();
    [q[0] / n, q[1] / n, q[2] / n, q[3] / n]
}

fn quat_mul(a: [f32; 4], b: [f32; 4]) -> [f32; 4] {
    [
        a[3] * b[0] + a[0] * b[3] + a[1] * b[2] - a[2] * b[1],
        a[3] * b[1] - a[0] * b[2] + a[1] * b[3] + a[2] * b[0],
        a[3] * b[2] + a[0] * b[1] - a[1] * b[0] + a[2] * b[3],
        a[3] * b[3] - a[0] * b[0] - a[1] * b[1] - a[2] * b[2],
    ]
}

/// The dual quaternion of a rigid matrix, or `None` when its 3×3 part is not a rotation
/// (scale, shear, reflection; see [`is_rigid`]).
#[must_use]
pub fn dual_quat_from_matrix(m: &Mat4) -> Option<DualQuat> {
    if !is_rigid(m) {
        return None;
    }
    Some(dual_quat_unchecked(m))
}

/// [`dual_quat_from_matrix`] without the rigidity check (what the GPU fragments compute).
#[must_use]
pub fn dual_quat_unchecked(m: &Mat4) -> DualQuat {
    DualQuat::from_array(dual_quat_of(&m.to_cols_array()))
}

/// [`dual_quat_unchecked`] on the column-major elements.
fn dual_quat_of(m: &[f32; 16]) -> [f32; 8] {
    let r = quat_of(m);
    let t = [m[12], m[13], m[14], 0.0];
    let d = quat_mul(t, r);
    [
        r[0],
        r[1],
        r[2],
        r[3],
        0.5 * d[0],
        0.5 * d[1],
        0.5 * d[2],
        0.5 * d[3],
    ]
}

/// Rotates `v` by the unit quaternion `q`: v + 2w(q×v) + 2q×(q×v).
fn rotate(q: [f32; 4], v: [f32; 3]) -> [f32; 3] {
    let u = [q[0], q[1], q[2]];
    let t = cross(u, v);
    let t = [2.0 * t[0], 2.0 * t[1], 2.0 * t[2]];
    let c = cross(u, t);
    [
        v[0] + q[3] * t[0] + c[0],
        v[1] + q[3] * t[1] + c[1],
        v[2] + q[3] * t[2] + c[2],
    ]
}

/// Blends the dual quaternions of `bones` (converted unchecked) over one vertex's influences
/// (`joints[k]` indexes `bones`, with weight `weights[k]`; joints past `bones` are skipped),
/// each flipped to the hemisphere of the vertex's first influence (antipodality per vertex),
/// and renormalises. `None` when the weights sum to zero.
#[must_use]
pub fn blend_dual_quats(bones: &[Mat4], joints: &[u32], weights: &[f32]) -> Option<DualQuat> {
    let mut acc = [0.0f32; 8];
    let mut pivot: Option<[f32; 4]> = None;
    for (&j, &w) in joints.iter().zip(weights) {
        if w == 0.0 {
            continue;
        }
        let Some(m) = bones.get(j as usize) else {
            continue;
        };
        let dq = dual_quat_of(&m.to_cols_array());
        let real = [dq[0], dq[1], dq[2], dq[3]];
        let p = *pivot.get_or_insert(real);
        let s = if real[0] * p[0] + real[1] * p[1] + real[2] * p[2] + real[3] * p[3] < 0.0 {
            -w
        } else {
            w
        };
        for (a, d) in acc.iter_mut().zip(dq) {
            *a += s * d;
        }
    }
    let n = (acc[0] * acc[0] + acc[1] * acc[1] + acc[2] * acc[2] + acc[3] * acc[3]).sqrt();
    if n == 0.0 {
        return None;
    }
    Some(DualQuat::from_array(acc.map(|a| a / n)))
}

/// Applies a unit dual quaternion to a `position` (rotation, then translation
/// 2·dual·conj(real)) and a `normal` (rotation only, not renormalised): `(position, normal)`.
#[must_use]
pub fn apply_dual_quat(dq: DualQuat, position: Vec3, normal: Vec3) -> (Vec3, Vec3) {
    let (p, n) = apply_dq(dq.to_array(), position.to_array(), normal.to_array());
    (Vec3::from_array(p), Vec3::from_array(n))
}

/// [`apply_dual_quat`] on components.
fn apply_dq(dq: [f32; 8], position: [f32; 3], normal: [f32; 3]) -> ([f32; 3], [f32; 3]) {
    let r = [dq[0], dq[1], dq[2], dq[3]];
    let d = [dq[4], dq[5], dq[6], dq[7]];
    let conj = [-r[0], -r[1], -r[2], r[3]];
    let t = quat_mul(d, conj);
    let p = rotate(r, position);
    (
        [p[0] + 2.0 * t[0], p[1] + 2.0 * t[1], p[2] + 2.0 * t[2]],
        rotate(r, normal),
    )
}

/// Dual-quaternion skinning of `positions` (and `normals`), vertex streams of 3 floats per
/// vertex as glTF stores them (what `skel_anim::skin_vertices` takes), with `per_vertex`
/// influences per vertex in `joints`/`weights` and one matrix per joint in `bones`, into the
/// `out_*` streams. A vertex whose weights sum to zero keeps its rest position. Normals are
/// renormalised (zero stays zero), as in linear skinning.
///
/// # Panics
/// When a slice is shorter than the vertex count of `positions` needs.
#[expect(
    clippy::too_many_arguments,
    reason = "skel_anim::skin_vertices' arguments, with the influences spelled out"
)]
pub fn skin_vertices_dq(
    positions: &[f32],
    normals: Option<&[f32]>,
    per_vertex: usize,
    joints: &[u32],
    weights: &[f32],
    bones: &[Mat4],
    out_positions: &mut [f32],
    mut out_normals: Option<&mut [f32]>,
) {
    for v in 0..positions.len() / 3 {
        let p = [positions[v * 3], positions[v * 3 + 1], positions[v * 3 + 2]];
        let n = normals.map_or([0.0; 3], |n| [n[v * 3], n[v * 3 + 1], n[v * 3 + 2]]);
        let range = v * per_vertex..(v + 1) * per_vertex;
        let (sp, sn) = match blend_dual_quats(bones, &joints[range.clone()], &weights[range]) {
            Some(dq) => apply_dq(dq.to_array(), p, n),
            None => (p, n),
        };
        out_positions[v * 3..v * 3 + 3].copy_from_slice(&sp);
        if let Some(out) = out_normals.as_deref_mut() {
            let len = dot3(sn, sn).sqrt();
            let unit = if len > 0.0 {
                sn.map(|c| c / len)
            } else {
                [0.0; 3]
            };
            out[v * 3..v * 3 + 3].copy_from_slice(&unit);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Column-major rotation by `angle` radians about x, then translation `t`.
    fn rot_x(angle: f32, t: [f32; 3]) -> Mat4 {
        let (s, c) = angle.sin_cos();
        Mat4::from_cols_array(&[
            1.0, 0.0, 0.0, 0.0, 0.0, c, s, 0.0, 0.0, -s, c, 0.0, t[0], t[1], t[2], 1.0,
        ])
    }

    /// Column-major rotation about the axis (1, 1, 1)/√3 by `angle`, then translation `t`.
    fn rot_diag(angle: f32, t: [f32; 3]) -> Mat4 {
        let k = 1.0 / 3.0f32.sqrt();
        let (s, c) = angle.sin_cos();
        let a = 1.0 - c;
        let (x, y, z) = (k, k, k);
        Mat4::from_cols_array(&[
            c + x * x * a,
            y * x * a + z * s,
            z * x * a - y * s,
            0.0,
            x * y * a - z * s,
            c + y * y * a,
            z * y * a + x * s,
            0.0,
            x * z * a + y * s,
            y * z * a - x * s,
            c + z * z * a,
            0.0,
            t[0],
            t[1],
            t[2],
            1.0,
        ])
    }

    fn linear(bones: &[Mat4], joints: &[u32], weights: &[f32], p: [f32; 3]) -> [f32; 3] {
        let mut out = [0.0; 3];
        for (&j, &w) in joints.iter().zip(weights) {
            let m = bones[j as usize].to_cols_array();
            for (r, o) in out.iter_mut().enumerate() {
                *o += w * (m[r] * p[0] + m[4 + r] * p[1] + m[8 + r] * p[2] + m[12 + r]);
            }
        }
        out
    }

    fn close(a: [f32; 3], b: [f32; 3], tol: f32) -> bool {
        a.iter().zip(b).all(|(x, y)| (x - y).abs() <= tol)
    }

    #[test]
    fn rigid_poses_skin_as_linear_skinning_does() {
        // Bones 0..3 one rigid transform (the whole mesh moves as one body); bones 4..6
        // each their own, used alone (weight 1).
        let mut bones = Vec::new();
        for _ in 0..4 {
            bones.push(rot_diag(2.1, [0.3, -1.0, 2.0]));
        }
        bones.push(rot_x(0.7, [1.0, 0.0, 0.0]));
        bones.push(rot_diag(-2.9, [0.0, 4.0, -1.0]));
        bones.push(rot_x(3.0, [0.0, 0.0, 0.5]));
        let cases: [([u32; 4], [f32; 4]); 5] = [
            ([0, 1, 2, 3], [0.1, 0.2, 0.3, 0.4]),
            ([3, 2, 0, 0], [0.5, 0.5, 0.0, 0.0]),
            ([4, 0, 0, 0], [1.0, 0.0, 0.0, 0.0]),
            ([5, 0, 0, 0], [1.0, 0.0, 0.0, 0.0]),
            ([6, 1, 0, 0], [1.0, 0.0, 0.0, 0.0]),
        ];
        for (joints, weights) in cases {
            for p in [[0.0, 0.0, 0.0], [1.0, -2.0, 0.5], [-3.0, 0.25, 7.0]] {
                let dq = blend_dual_quats(&bones, &joints, &weights).unwrap();
                let (got, _) = apply_dual_quat(dq, Vec3::from(p), Vec3::ZERO);
                let got = got.to_array();
                let want = linear(&bones, &joints, &weights, p);
                assert!(
                    close(got, want, 1e-5),
                    "{joints:?} {weights:?} {p:?}: {got:?} vs {want:?}"
                );
            }
        }
    }

    /// Shoelace area of a ring of points projected on the y-z plane.
    fn ring_area(points: &[[f32; 3]]) -> f32 {
        let n = points.len();
        (0..n)
            .map(|i| {
                let (a, b) = (points[i], points[(i + 1) % n]);
                a[1] * b[2] - b[1] * a[2]
            })
            .sum::<f32>()
            .abs()
            * 0.5
    }

    #[test]
    fn a_cylinder_twisted_180_degrees_keeps_its_cross_section_with_dual_quaternions() {
        // A unit-radius cylinder along x from 0 to 2; bone 0 still, bone 1 turned 180° about x;
        // weight of bone 1 rising linearly with x.
        let bones = [rot_x(0.0, [0.0; 3]), rot_x(std::f32::consts::PI, [0.0; 3])];
        let segments = 32;
        let rest_area = ring_area(
            &(0..segments)
                .map(|k| {
                    let a = k as f32 / segments as f32 * std::f32::consts::TAU;
                    [0.0, a.cos(), a.sin()]
                })
                .collect::<Vec<_>>(),
        );
        let mut worst_dq = f32::MAX;
        let mut linear_middle = 0.0;
        for ring in 0..=8 {
            let x = ring as f32 / 4.0;
            let w1 = x / 2.0;
            let weights = [1.0 - w1, w1];
            let mut dq_ring = Vec::new();
            let mut lin_ring = Vec::new();
            for k in 0..segments {
                let a = k as f32 / segments as f32 * std::f32::consts::TAU;
                let p = [x, a.cos(), a.sin()];
                let dq = blend_dual_quats(&bones, &[0, 1], &weights).unwrap();
                dq_ring.push(apply_dual_quat(dq, Vec3::from(p), Vec3::ZERO).0.to_array());
                lin_ring.push(linear(&bones, &[0, 1], &weights, p));
            }
            worst_dq = worst_dq.min(ring_area(&dq_ring) / rest_area);
            if ring == 4 {
                linear_middle = ring_area(&lin_ring) / rest_area;
            }
        }
        assert!(
            worst_dq >= 0.9,
            "dual quaternions keep {worst_dq} of the area"
        );
        assert!(
            linear_middle < 0.05,
            "linear skinning keeps {linear_middle} at the middle"
        );
    }

    #[test]
    fn influences_are_blended_in_the_first_ones_hemisphere() {
        // 200° about x converts to a quaternion with w < 0, opposite the identity's: unflipped,
        // the half-half blend turns +100° (the long way); flipped, -80° (the short way).
        let bones = [rot_x(0.0, [0.0; 3]), rot_x(200f32.to_radians(), [0.0; 3])];
        let dq = blend_dual_quats(&bones, &[0, 1], &[0.5, 0.5]).unwrap();
        let (p, _) = apply_dual_quat(dq, Vec3::Y, Vec3::ZERO);
        let p = p.to_array();
        let a = (-80f32).to_radians();
        assert!(close(p, [0.0, a.cos(), a.sin()], 1e-5), "{p:?}");
    }

    #[test]
    fn scaled_bones_are_not_rigid() {
        let mut m = rot_diag(1.0, [1.0, 2.0, 3.0]);
        assert!(is_rigid(&m));
        assert!(dual_quat_from_matrix(&m).is_some());
        // Non-uniform scale on the first column (its w is 0: only x, y, z change).
        m.x_axis *= 1.5;
        assert!(!is_rigid(&m));
        assert!(dual_quat_from_matrix(&m).is_none());
        let bones = [rot_x(0.3, [0.0; 3]), m];
        assert_eq!(first_non_rigid_bone(&bones), Some(1));
        // A reflection is not a rotation either.
        let mirror = Mat4::from_cols_array(&[
            -1.0, 0.0, 0.0, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0, 0.0, 1.0,
        ]);
        assert!(!is_rigid(&mirror));
    }
}
