//! The four-lane geometry the legs are solved with ([`super::legs_x4`]): 3-vectors, 3×3
//! matrices and rotations of four legs side by side (`skel_math::lanes`' layout, one leg per
//! lane), each operation one SIMD instruction for all four legs where glam's scalar types spend
//! shuffles on the horizontal parts of a dot or a cross product.

use glam::{BVec4A, Vec4};
use skel_math::lanes::{Quatx4, Vec3x4};

use crate::sample::lane_bits::sqrt;

/// Lane by lane, `a × b`.
#[inline(always)]
pub(crate) fn cross(a: Vec3x4, b: Vec3x4) -> Vec3x4 {
    Vec3x4::new(
        a.y * b.z - a.z * b.y,
        a.z * b.x - a.x * b.z,
        a.x * b.y - a.y * b.x,
    )
}

/// Lane by lane, `|v|`.
#[inline(always)]
pub(crate) fn length(v: Vec3x4) -> Vec4 {
    sqrt(v.dot(v))
}

/// Four 3×3 matrices, by columns.
#[derive(Clone, Copy)]
pub(crate) struct Mat3x4 {
    pub(crate) c: [Vec3x4; 3],
}

impl Mat3x4 {
    /// `self · v` lane by lane.
    #[inline(always)]
    pub(crate) fn mul_vec(&self, v: Vec3x4) -> Vec3x4 {
        self.c[0] * v.x + self.c[1] * v.y + self.c[2] * v.z
    }

    /// `self · rhs` lane by lane.
    #[inline(always)]
    pub(crate) fn mul(&self, rhs: &Self) -> Self {
        Self {
            c: [
                self.mul_vec(rhs.c[0]),
                self.mul_vec(rhs.c[1]),
                self.mul_vec(rhs.c[2]),
            ],
        }
    }

    /// The rotation matrices of unit quaternions `q` (glam's `Mat3A::from_quat`).
    #[inline(always)]
    pub(crate) fn from_quat(q: Quatx4) -> Self {
        let two = Vec4::splat(2.0);
        let (x2, y2, z2) = (q.x * two, q.y * two, q.z * two);
        let (xx, xy, xz) = (q.x * x2, q.x * y2, q.x * z2);
        let (yy, yz, zz) = (q.y * y2, q.y * z2, q.z * z2);
        let (wx, wy, wz) = (q.w * x2, q.w * y2, q.w * z2);
        let one = Vec4::ONE;
        Self {
            c: [
                Vec3x4::new(one - (yy + zz), xy + wz, xz - wy),
                Vec3x4::new(xy - wz, one - (xx + zz), yz + wx),
                Vec3x4::new(xz + wy, yz - wx, one - (xx + yy)),
            ],
        }
    }

    /// The inverses' rows times each determinant (the adjugate: `inverse · v` is
    /// `(r₀ · v, r₁ · v, r₂ · v) / det`), and the determinants.
    #[inline(always)]
    pub(crate) fn adjugate_rows(&self) -> ([Vec3x4; 3], Vec4) {
        let [x, y, z] = self.c;
        let rows = [cross(y, z), cross(z, x), cross(x, y)];
        let det = z.dot(rows[2]);
        (rows, det)
    }
}

/// Four inverse 3×3 matrices as rows: `self · v` is `(r₀ · v, r₁ · v, r₂ · v)`.
#[derive(Clone, Copy)]
pub(crate) struct InverseRows {
    pub(crate) r: [Vec3x4; 3],
}

impl InverseRows {
    /// The inverses of `m` (rows of the adjugate over the determinant) and the determinants.
    #[inline(always)]
    pub(crate) fn of(m: &Mat3x4) -> (Self, Vec4) {
        let (rows, det) = m.adjugate_rows();
        let inv = Vec4::ONE / det;
        (
            Self {
                r: [rows[0] * inv, rows[1] * inv, rows[2] * inv],
            },
            det,
        )
    }

    /// `inverse · v` lane by lane.
    #[inline(always)]
    pub(crate) fn mul_vec(&self, v: Vec3x4) -> Vec3x4 {
        Vec3x4::new(self.r[0].dot(v), self.r[1].dot(v), self.r[2].dot(v))
    }

    /// `inverse · m` lane by lane.
    #[inline(always)]
    pub(crate) fn mul_mat(&self, m: &Mat3x4) -> Mat3x4 {
        Mat3x4 {
            c: [
                self.mul_vec(m.c[0]),
                self.mul_vec(m.c[1]),
                self.mul_vec(m.c[2]),
            ],
        }
    }
}

/// Unit quaternions `q` rotating `v`, lane by lane (`v + 2w (q × v) + 2 q × (q × v)`).
#[inline(always)]
pub(crate) fn rotate(q: Quatx4, v: Vec3x4) -> Vec3x4 {
    let u = Vec3x4::new(q.x, q.y, q.z);
    let t = cross(u, v) * Vec4::splat(2.0);
    v + t * q.w + cross(u, t)
}

/// The quaternion of a rotation matrix (glam's `Quat::from_mat3a`: the largest of `4x²`,
/// `4y²`, `4z²`, `4w²` picks the formula), lane by lane, not normalised beyond what the
/// formula gives.
#[inline(always)]
pub(crate) fn quat_from_mat(m: &Mat3x4) -> Quatx4 {
    let [x, y, z] = m.c;
    let (m00, m01, m02) = (x.x, x.y, x.z);
    let (m10, m11, m12) = (y.x, y.y, y.z);
    let (m20, m21, m22) = (z.x, z.y, z.z);
    let one = Vec4::ONE;
    let low_w = m22.cmple(Vec4::ZERO);
    let dif10 = m11 - m00;
    let sum10 = m11 + m00;
    let pick_x = low_w & dif10.cmple(Vec4::ZERO);
    let pick_y = low_w & !dif10.cmple(Vec4::ZERO);
    let pick_z = !low_w & sum10.cmple(Vec4::ZERO);
    let four_sq = select4(
        [pick_x, pick_y, pick_z],
        [
            (one - m22) - dif10,
            (one - m22) + dif10,
            (one + m22) - sum10,
            (one + m22) + sum10,
        ],
    );
    let half_inv = Vec4::splat(0.5) / sqrt(four_sq);
    let (s01, s02, s12) = (m01 + m10, m02 + m20, m12 + m21);
    let (d12, d20, d01) = (m12 - m21, m20 - m02, m01 - m10);
    let picks = [pick_x, pick_y, pick_z];
    Quatx4::new(
        select4(picks, [four_sq, s01, s02, d12]) * half_inv,
        select4(picks, [s01, four_sq, s12, d20]) * half_inv,
        select4(picks, [s02, s12, four_sq, d01]) * half_inv,
        select4(picks, [d12, d20, d01, four_sq]) * half_inv,
    )
}

/// `values[0]` where `picks[0]`, else `values[1]` where `picks[1]`, else `values[2]` where
/// `picks[2]`, else `values[3]` (the picks exclude each other).
#[inline(always)]
fn select4(picks: [BVec4A; 3], values: [Vec4; 4]) -> Vec4 {
    Vec4::select(
        picks[0],
        values[0],
        Vec4::select(
            picks[1],
            values[1],
            Vec4::select(picks[2], values[2], values[3]),
        ),
    )
}

/// The turns about unit `axis` from the angles whose cosines and sines are `from` to those
/// of `to` ([`crate::ik::turn_between`] lane by lane, unit length).
#[inline(always)]
pub(crate) fn turn_between(axis: Vec3x4, from: (Vec4, Vec4), to: (Vec4, Vec4)) -> Quatx4 {
    let c = to.0 * from.0 + to.1 * from.1;
    let s = to.1 * from.0 - to.0 * from.1;
    let ahead = c.cmpge(Vec4::ZERO);
    let along = Vec4::select(ahead, s, Vec4::ONE - c);
    let w = Vec4::select(ahead, Vec4::ONE + c, s);
    let q = Quatx4::new(axis.x * along, axis.y * along, axis.z * along, w);
    let len = sqrt(q.length_squared());
    let unit = q * (Vec4::ONE / len);
    let half_turn = Quatx4::new(axis.x, axis.y, axis.z, Vec4::ZERO);
    Quatx4::select(len.cmpgt(Vec4::splat(1e-12)), unit, half_turn)
}

/// Whether every component of each lane is finite (the sum's test: a finite sum that
/// overflows also answers no, which sends the lane to the scalar path).
#[inline(always)]
pub(crate) fn finite3(v: Vec3x4) -> BVec4A {
    finite(v.x + v.y + v.z)
}

/// Whether each lane is finite.
#[inline(always)]
pub(crate) fn finite(v: Vec4) -> BVec4A {
    v.abs().cmplt(Vec4::INFINITY)
}
