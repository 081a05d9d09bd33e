//! Four-lane structure-of-arrays vectors and quaternions: four values side by side, one per
//! lane of a [`Vec4`], so that one SSE2/NEON instruction works on four joints at once.
//!
//! The pose pipeline groups a skeleton's nodes four at a time (ozz-animation's `SoaTransform`):
//! the translations of four nodes are one [`Vec3x4`] (`x` holds the four `x` components, and so
//! on), their rotations one [`Quatx4`]. Every operation here is lane-wise: lane `i` of a result
//! depends only on lane `i` of the operands, and runs the operations of the scalar formula in
//! the order the docs give, so that a lane can be compared with (or made bit-identical to) a
//! scalar implementation.
//!
//! ```
//! use glam::Vec4;
//! use skel_math::lanes::{Quatx4, Vec3x4};
//!
//! // Four translations, one per lane: (0,0,0), (1,0,0), (2,0,0), (3,0,0).
//! let t = Vec3x4::new(Vec4::new(0.0, 1.0, 2.0, 3.0), Vec4::ZERO, Vec4::ZERO);
//! let doubled = t * Vec4::splat(2.0);
//! assert_eq!(doubled.lane(3), [6.0, 0.0, 0.0]);
//!
//! // The identity in every lane leaves any rotation as it is.
//! let q = Quatx4::from_lanes([[0.0, 0.0, 0.0, 1.0]; 4]);
//! assert_eq!((Quatx4::IDENTITY * q).lane(2), [0.0, 0.0, 0.0, 1.0]);
//! ```

use core::ops::{Add, Mul, Neg, Sub};

use glam::{BVec4A, Vec4};

/// Four 3-vectors in structure-of-arrays layout: lane `i` is `(x[i], y[i], z[i])`.
///
/// 48 bytes, 16-byte aligned (three [`Vec4`]s). Used for the translations and scales of four
/// nodes.
#[derive(Debug, Clone, Copy, PartialEq, Default)]
#[repr(C)]
pub struct Vec3x4 {
    /// The four `x` components.
    pub x: Vec4,
    /// The four `y` components.
    pub y: Vec4,
    /// The four `z` components.
    pub z: Vec4,
}

impl Vec3x4 {
    /// Zero in every lane.
    pub const ZERO: Self = Self::splat([0.0; 3]);
    /// `(1, 1, 1)` in every lane (the unit scale).
    pub const ONE: Self = Self::splat([1.0; 3]);

    /// From the three component rows.
    #[inline]
    #[must_use]
    pub const fn new(x: Vec4, y: Vec4, z: Vec4) -> Self {
        Self { x, y, z }
    }

    /// `v` in every lane.
    #[inline]
    #[must_use]
    pub const fn splat(v: [f32; 3]) -> Self {
        Self::new(Vec4::splat(v[0]), Vec4::splat(v[1]), Vec4::splat(v[2]))
    }

    /// From four 3-vectors, lane `i` from `lanes[i]`.
    #[inline]
    #[must_use]
    pub fn from_lanes(lanes: [[f32; 3]; 4]) -> Self {
        let row = |c: usize| Vec4::from_array(core::array::from_fn(|l| lanes[l][c]));
        Self::new(row(0), row(1), row(2))
    }

    /// From the rows `[x, y, z]`.
    #[inline]
    #[must_use]
    pub const fn from_rows(rows: [Vec4; 3]) -> Self {
        Self::new(rows[0], rows[1], rows[2])
    }

    /// The rows `[x, y, z]`.
    #[inline]
    #[must_use]
    pub const fn rows(self) -> [Vec4; 3] {
        [self.x, self.y, self.z]
    }

    /// Lane `lane`'s vector.
    ///
    /// # Panics
    /// When `lane >= 4`.
    #[inline]
    #[must_use]
    pub fn lane(self, lane: usize) -> [f32; 3] {
        [
            self.x.to_array()[lane],
            self.y.to_array()[lane],
            self.z.to_array()[lane],
        ]
    }

    /// Lane by lane, `a` where `mask` is set, else `b`.
    #[inline]
    #[must_use]
    pub fn select(mask: BVec4A, a: Self, b: Self) -> Self {
        Self::new(
            Vec4::select(mask, a.x, b.x),
            Vec4::select(mask, a.y, b.y),
            Vec4::select(mask, a.z, b.z),
        )
    }

    /// `a + (b − a) · s` lane by lane (the scalar lerp's operations and order).
    #[inline]
    #[must_use]
    pub fn lerp(a: Self, b: Self, s: Vec4) -> Self {
        a + (b - a) * s
    }

    /// The four dot products `x·x' + y·y' + z·z'`, added left to right.
    #[inline]
    #[must_use]
    pub fn dot(self, rhs: Self) -> Vec4 {
        self.x * rhs.x + self.y * rhs.y + self.z * rhs.z
    }
}

impl Add for Vec3x4 {
    type Output = Self;
    #[inline]
    fn add(self, rhs: Self) -> Self {
        Self::new(self.x + rhs.x, self.y + rhs.y, self.z + rhs.z)
    }
}

impl Neg for Vec3x4 {
    type Output = Self;
    #[inline]
    fn neg(self) -> Self {
        Self::new(-self.x, -self.y, -self.z)
    }
}

impl Sub for Vec3x4 {
    type Output = Self;
    #[inline]
    fn sub(self, rhs: Self) -> Self {
        Self::new(self.x - rhs.x, self.y - rhs.y, self.z - rhs.z)
    }
}

/// Scales lane `i` by `rhs[i]`.
impl Mul<Vec4> for Vec3x4 {
    type Output = Self;
    #[inline]
    fn mul(self, rhs: Vec4) -> Self {
        Self::new(self.x * rhs, self.y * rhs, self.z * rhs)
    }
}

/// Four quaternions `[x, y, z, w]` in structure-of-arrays layout: lane `i` is
/// `(x[i], y[i], z[i], w[i])`, the glTF component order.
///
/// 64 bytes, 16-byte aligned (four [`Vec4`]s). Nothing here normalises unless it says so.
#[derive(Debug, Clone, Copy, PartialEq, Default)]
#[repr(C)]
pub struct Quatx4 {
    /// The four `x` components.
    pub x: Vec4,
    /// The four `y` components.
    pub y: Vec4,
    /// The four `z` components.
    pub z: Vec4,
    /// The four `w` (real) components.
    pub w: Vec4,
}

impl Quatx4 {
    /// The identity rotation in every lane.
    pub const IDENTITY: Self = Self::new(Vec4::ZERO, Vec4::ZERO, Vec4::ZERO, Vec4::ONE);

    /// From the four component rows.
    #[inline]
    #[must_use]
    pub const fn new(x: Vec4, y: Vec4, z: Vec4, w: Vec4) -> Self {
        Self { x, y, z, w }
    }

    /// From four quaternions `[x, y, z, w]`, lane `i` from `lanes[i]`.
    #[inline]
    #[must_use]
    pub fn from_lanes(lanes: [[f32; 4]; 4]) -> Self {
        let row = |c: usize| Vec4::from_array(core::array::from_fn(|l| lanes[l][c]));
        Self::new(row(0), row(1), row(2), row(3))
    }

    /// From the rows `[x, y, z, w]`.
    #[inline]
    #[must_use]
    pub const fn from_rows(rows: [Vec4; 4]) -> Self {
        Self::new(rows[0], rows[1], rows[2], rows[3])
    }

    /// The rows `[x, y, z, w]`.
    #[inline]
    #[must_use]
    pub const fn rows(self) -> [Vec4; 4] {
        [self.x, self.y, self.z, self.w]
    }

    /// Lane `lane`'s quaternion `[x, y, z, w]`.
    ///
    /// # Panics
    /// When `lane >= 4`.
    #[inline]
    #[must_use]
    pub fn lane(self, lane: usize) -> [f32; 4] {
        [
            self.x.to_array()[lane],
            self.y.to_array()[lane],
            self.z.to_array()[lane],
            self.w.to_array()[lane],
        ]
    }

    /// Lane by lane, `a` where `mask` is set, else `b`.
    #[inline]
    #[must_use]
    pub fn select(mask: BVec4A, a: Self, b: Self) -> Self {
        Self::new(
            Vec4::select(mask, a.x, b.x),
            Vec4::select(mask, a.y, b.y),
            Vec4::select(mask, a.z, b.z),
            Vec4::select(mask, a.w, b.w),
        )
    }

    /// The conjugates `(−x, −y, −z, w)` (the inverses of unit quaternions).
    #[inline]
    #[must_use]
    pub fn conjugate(self) -> Self {
        Self::new(-self.x, -self.y, -self.z, self.w)
    }

    /// The four dot products, added as glam's `Vec4::dot` does: `(x·x' + z·z') + (y·y' + w·w')`.
    #[inline]
    #[must_use]
    pub fn dot(self, rhs: Self) -> Vec4 {
        (self.x * rhs.x + self.z * rhs.z) + (self.y * rhs.y + self.w * rhs.w)
    }

    /// The four squared lengths (`self.dot(self)`).
    #[inline]
    #[must_use]
    pub fn length_squared(self) -> Vec4 {
        self.dot(self)
    }

    /// Each lane divided by its length (`q / √(q·q)`, component by component, as
    /// `v / v.length_squared().sqrt()` on a glam `Vec4`); lanes whose squared length is zero or
    /// not finite take `fallback`'s lane instead.
    #[inline]
    #[must_use]
    pub fn normalize_or(self, fallback: Self) -> Self {
        let len_sq = self.length_squared();
        let ok = len_sq.cmpgt(Vec4::ZERO) & len_sq.cmplt(Vec4::INFINITY);
        let len = len_sq.map(f32::sqrt);
        let unit = Self::new(self.x / len, self.y / len, self.z / len, self.w / len);
        Self::select(ok, unit, fallback)
    }
}

/// Scales lane `i` by `rhs[i]` (all four components).
impl Mul<Vec4> for Quatx4 {
    type Output = Self;
    #[inline]
    fn mul(self, rhs: Vec4) -> Self {
        Self::new(self.x * rhs, self.y * rhs, self.z * rhs, self.w * rhs)
    }
}

/// The Hamilton products `self[i] · rhs[i]`: the rotation `rhs` first, then `self`.
impl Mul for Quatx4 {
    type Output = Self;
    #[inline]
    fn mul(self, rhs: Self) -> Self {
        let (a, b) = (self, rhs);
        Self::new(
            a.w * b.x + a.x * b.w + a.y * b.z - a.z * b.y,
            a.w * b.y - a.x * b.z + a.y * b.w + a.z * b.x,
            a.w * b.z + a.x * b.y - a.y * b.x + a.z * b.w,
            a.w * b.w - a.x * b.x - a.y * b.y - a.z * b.z,
        )
    }
}

impl Add for Quatx4 {
    type Output = Self;
    #[inline]
    fn add(self, rhs: Self) -> Self {
        Self::new(
            self.x + rhs.x,
            self.y + rhs.y,
            self.z + rhs.z,
            self.w + rhs.w,
        )
    }
}

impl Neg for Quatx4 {
    type Output = Self;
    #[inline]
    fn neg(self) -> Self {
        Self::new(-self.x, -self.y, -self.z, -self.w)
    }
}

/// Four affine transforms (3×4 matrices, the last row `(0, 0, 0, 1)` implied) in
/// structure-of-arrays layout: `m[r][c]` holds row `r`, column `c` of the four matrices, one
/// per lane; `zero[c]` holds the implied last row's columns 0–2 as computed (`0 · scale`, a
/// signed zero), so that a product with a parent reproduces the array-of-structures product bit
/// for bit.
///
/// 240 bytes, 16-byte aligned. What the pose pipeline places under each node's parent.
#[derive(Debug, Clone, Copy, PartialEq)]
#[repr(C)]
pub struct Affine3x4 {
    /// Rows 0–2 of the four matrices, columns 0–3 (column 3: the translation).
    pub m: [[Vec4; 4]; 3],
    /// Row 3, columns 0–2.
    pub zero: [Vec4; 3],
}

impl Affine3x4 {
    /// `T · R · S` of four nodes from their translations, unit rotations and scales, with the
    /// operations and order of the scalar composition (`x2 = x + x`, `xx = x · x2`, …; column
    /// `c` of the rotation times `s[c]`).
    #[inline]
    #[must_use]
    pub fn from_trs(t: Vec3x4, r: Quatx4, s: Vec3x4) -> Self {
        let Quatx4 { x, y, z, w } = r;
        let (x2, y2, z2) = (x + x, y + y, z + z);
        let (xx, xy, xz) = (x * x2, x * y2, x * z2);
        let (yy, yz, zz) = (y * y2, y * z2, z * z2);
        let (wx, wy, wz) = (w * x2, w * y2, w * z2);
        let one = Vec4::ONE;
        Self {
            m: [
                [
                    (one - (yy + zz)) * s.x,
                    (xy - wz) * s.y,
                    (xz + wy) * s.z,
                    t.x,
                ],
                [
                    (xy + wz) * s.x,
                    (one - (xx + zz)) * s.y,
                    (yz - wx) * s.z,
                    t.y,
                ],
                [
                    (xz - wy) * s.x,
                    (yz + wx) * s.y,
                    (one - (xx + yy)) * s.z,
                    t.z,
                ],
            ],
            zero: [Vec4::ZERO * s.x, Vec4::ZERO * s.y, Vec4::ZERO * s.z],
        }
    }

    /// Lane `lane`'s matrix as four columns (glam's and glTF's column-major order).
    ///
    /// # Panics
    /// When `lane >= 4`.
    #[inline]
    #[must_use]
    pub fn lane_columns(&self, lane: usize) -> [Vec4; 4] {
        let at = |v: Vec4| v.to_array()[lane];
        core::array::from_fn(|c| {
            let last = if c == 3 { 1.0 } else { at(self.zero[c]) };
            Vec4::new(at(self.m[0][c]), at(self.m[1][c]), at(self.m[2][c]), last)
        })
    }
}

#[cfg(test)]
mod tests {
    use glam::{Quat, Vec3};
    use proptest::prelude::*;

    use super::*;

    fn unit_quat() -> impl Strategy<Value = [f32; 4]> {
        prop::array::uniform4(-1.0_f32..1.0).prop_filter_map("non-zero", |q| {
            let q = Quat::from_array(q);
            (q.length() > 0.1).then(|| q.normalize().to_array())
        })
    }

    proptest! {
        #[test]
        fn product_matches_glam_lane_by_lane(a in prop::array::uniform4(unit_quat()),
                                             b in prop::array::uniform4(unit_quat())) {
            let p = Quatx4::from_lanes(a) * Quatx4::from_lanes(b);
            for lane in 0..4 {
                let want = Quat::from_array(a[lane]) * Quat::from_array(b[lane]);
                let got = Quat::from_array(p.lane(lane));
                prop_assert!((got - want).length() < 1e-6, "lane {lane}: {got} vs {want}");
            }
        }

        #[test]
        fn conjugate_undoes_a_rotation(a in prop::array::uniform4(unit_quat())) {
            let q = Quatx4::from_lanes(a);
            let id = q.conjugate() * q;
            for lane in 0..4 {
                let got = Quat::from_array(id.lane(lane));
                prop_assert!(got.abs_diff_eq(Quat::IDENTITY, 1e-6), "lane {lane}: {got}");
            }
        }

        #[test]
        fn vec3_ops_match_scalar(a in prop::array::uniform4(prop::array::uniform3(-10.0_f32..10.0)),
                                 b in prop::array::uniform4(prop::array::uniform3(-10.0_f32..10.0)),
                                 s in prop::array::uniform4(0.0_f32..1.0)) {
            let (va, vb) = (Vec3x4::from_lanes(a), Vec3x4::from_lanes(b));
            let l = Vec3x4::lerp(va, vb, Vec4::from_array(s));
            let d = va.dot(vb).to_array();
            for lane in 0..4 {
                let (x, y) = (Vec3::from_array(a[lane]), Vec3::from_array(b[lane]));
                // Same operations in the same order: bit for bit.
                prop_assert_eq!(l.lane(lane), (x + (y - x) * s[lane]).to_array());
                prop_assert_eq!(d[lane], x.x * y.x + x.y * y.y + x.z * y.z);
            }
        }
    }

    proptest! {
        #[test]
        fn affine_composition_matches_glam(t in prop::array::uniform4(prop::array::uniform3(-10.0_f32..10.0)),
                                           r in prop::array::uniform4(unit_quat()),
                                           s in prop::array::uniform4(prop::array::uniform3(0.1_f32..3.0))) {
            let m = Affine3x4::from_trs(Vec3x4::from_lanes(t), Quatx4::from_lanes(r), Vec3x4::from_lanes(s));
            for lane in 0..4 {
                let want = glam::Mat4::from_scale_rotation_translation(
                    Vec3::from_array(s[lane]), Quat::from_array(r[lane]), Vec3::from_array(t[lane]));
                let got = glam::Mat4::from_cols_array_2d(&m.lane_columns(lane).map(|c| c.to_array()));
                prop_assert!(got.abs_diff_eq(want, 1e-4), "lane {lane}: {got} vs {want}");
                prop_assert_eq!(got.row(3), Vec4::W);
            }
        }
    }

    #[test]
    fn normalize_or_takes_the_fallback_for_zero_lanes() {
        let q = Quatx4::from_lanes([
            [0.0, 0.0, 0.0, 2.0],
            [0.0; 4],
            [f32::INFINITY, 0.0, 0.0, 1.0],
            [3.0, 0.0, 4.0, 0.0],
        ]);
        let n = q.normalize_or(Quatx4::IDENTITY);
        assert_eq!(n.lane(0), [0.0, 0.0, 0.0, 1.0]);
        assert_eq!(n.lane(1), [0.0, 0.0, 0.0, 1.0]);
        assert_eq!(n.lane(2), [0.0, 0.0, 0.0, 1.0]);
        assert_eq!(n.lane(3), [0.6, 0.0, 0.8, 0.0]);
    }

    #[test]
    fn select_takes_lanes_from_each_side() {
        let a = Vec3x4::splat([1.0, 2.0, 3.0]);
        let b = Vec3x4::ZERO;
        let s = Vec3x4::select(BVec4A::new(true, false, true, false), a, b);
        assert_eq!(s.lane(0), [1.0, 2.0, 3.0]);
        assert_eq!(s.lane(1), [0.0; 3]);
        assert_eq!(s.lane(2), [1.0, 2.0, 3.0]);
    }
}
