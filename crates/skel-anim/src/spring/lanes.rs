//! Four joints at once, one per lane (structure of arrays): vectors, matrices and quaternions
//! whose every component is a `Vec4` of four joints' values.
//!
//! Each operation is glam's own, element by element in the same order (its SSE2 dot products
//! sum `(x + y) + z` and `(x + z) + (y + w)`, its cross products and quaternion products are
//! written out below), so a lane's result is bit for bit what the scalar step computes for
//! that joint: batching changes the speed of the springs, never their motion.

use std::ops::{Add, Mul, Neg, Sub};

use glam::{Affine3A, BVec4A, Quat, Vec3A, Vec4};

use crate::math::interpolate::transpose;

/// `v` as four floats, the fourth whatever the register holds (glam's SSE2 build: no
/// instruction).
#[cfg(all(
    any(target_arch = "x86", target_arch = "x86_64"),
    target_feature = "sse2"
))]
#[inline]
fn widen(v: Vec3A) -> Vec4 {
    #[cfg(target_arch = "x86")]
    use std::arch::x86::__m128;
    #[cfg(target_arch = "x86_64")]
    use std::arch::x86_64::__m128;
    Vec4::from(__m128::from(v))
}

#[cfg(not(all(
    any(target_arch = "x86", target_arch = "x86_64"),
    target_feature = "sse2"
)))]
#[inline]
fn widen(v: Vec3A) -> Vec4 {
    v.extend(0.0)
}

/// `[f(0), f(1), f(2), f(3)]`, written out: `array::map` and `array::from_fn` are not always
/// inlined into the AVX build of the pass, and a call per lane costs more than the lane.
#[inline(always)]
pub(super) fn each<T>(mut f: impl FnMut(usize) -> T) -> [T; 4] {
    [f(0), f(1), f(2), f(3)]
}

/// Four 3D vectors.
#[derive(Debug, Clone, Copy)]
pub(super) struct V3 {
    pub(super) x: Vec4,
    pub(super) y: Vec4,
    pub(super) z: Vec4,
}

impl V3 {
    pub(super) const ZERO: Self = Self {
        x: Vec4::ZERO,
        y: Vec4::ZERO,
        z: Vec4::ZERO,
    };

    #[inline]
    pub(super) fn gather(v: [Vec3A; 4]) -> Self {
        let [x, y, z, _] = transpose(each(|i| widen(v[i])));
        Self { x, y, z }
    }

    /// Four vectors of which only `x`, `y` and `z` are read (loaded four floats at a time).
    #[inline]
    pub(super) fn gather4(v: [Vec4; 4]) -> Self {
        let [x, y, z, _] = transpose(v);
        Self { x, y, z }
    }

    /// The four vectors (their fourth float, which `Vec3A` never reads, is `z`'s: a zero
    /// there makes LLVM's AVX build zero half a register with the register form of `vmovq`,
    /// which valgrind 3.19 cannot run, and the instruction counts come from valgrind).
    #[inline]
    pub(super) fn scatter(self) -> [Vec3A; 4] {
        let t = transpose([self.x, self.y, self.z, self.z]);
        each(|i| Vec3A::from_vec4(t[i]))
    }

    #[inline]
    pub(super) fn dot(self, o: Self) -> Vec4 {
        self.x * o.x + self.y * o.y + self.z * o.z
    }

    #[inline]
    pub(super) fn length(self) -> Vec4 {
        self.dot(self).sqrt()
    }

    /// glam's `normalize_or_zero`: times the reciprocal length where that is finite and
    /// positive, zero elsewhere.
    #[inline]
    pub(super) fn normalize_or_zero(self) -> Self {
        let rcp = Vec4::ONE / self.length();
        let ok = rcp.is_finite_mask() & rcp.cmpgt(Vec4::ZERO);
        Self::select(ok, self * rcp, Self::ZERO)
    }

    #[inline]
    pub(super) fn cross(self, o: Self) -> Self {
        Self {
            x: self.y * o.z - self.z * o.y,
            y: self.z * o.x - self.x * o.z,
            z: self.x * o.y - self.y * o.x,
        }
    }

    #[inline]
    pub(super) fn select(mask: BVec4A, a: Self, b: Self) -> Self {
        Self {
            x: Vec4::select(mask, a.x, b.x),
            y: Vec4::select(mask, a.y, b.y),
            z: Vec4::select(mask, a.z, b.z),
        }
    }
}

impl Add for V3 {
    type Output = Self;
    #[inline]
    fn add(self, o: Self) -> Self {
        Self {
            x: self.x + o.x,
            y: self.y + o.y,
            z: self.z + o.z,
        }
    }
}

impl Sub for V3 {
    type Output = Self;
    #[inline]
    fn sub(self, o: Self) -> Self {
        Self {
            x: self.x - o.x,
            y: self.y - o.y,
            z: self.z - o.z,
        }
    }
}

/// Each lane's vector times that lane's scalar.
impl Mul<Vec4> for V3 {
    type Output = Self;
    #[inline]
    fn mul(self, s: Vec4) -> Self {
        Self {
            x: self.x * s,
            y: self.y * s,
            z: self.z * s,
        }
    }
}

/// Four 3×3 matrices, by columns.
#[derive(Debug, Clone, Copy)]
pub(super) struct M3 {
    pub(super) x: V3,
    pub(super) y: V3,
    pub(super) z: V3,
}

impl M3 {
    #[inline]
    pub(super) fn mul_vec(&self, v: V3) -> V3 {
        let col = |c: V3, s: Vec4| c * s;
        col(self.x, v.x) + col(self.y, v.y) + col(self.z, v.z)
    }

    #[inline]
    pub(super) fn mul_mat(&self, o: &Self) -> Self {
        Self {
            x: self.mul_vec(o.x),
            y: self.mul_vec(o.y),
            z: self.mul_vec(o.z),
        }
    }

    /// glam's `Mat3A::inverse`: the cofactors by cross products over the determinant.
    #[inline]
    pub(super) fn inverse(&self) -> Self {
        let t0 = self.y.cross(self.z);
        let t1 = self.z.cross(self.x);
        let t2 = self.x.cross(self.y);
        let inv = Vec4::ONE / self.z.dot(t2);
        Self {
            x: V3 {
                x: t0.x * inv,
                y: t1.x * inv,
                z: t2.x * inv,
            },
            y: V3 {
                x: t0.y * inv,
                y: t1.y * inv,
                z: t2.y * inv,
            },
            z: V3 {
                x: t0.z * inv,
                y: t1.z * inv,
                z: t2.z * inv,
            },
        }
    }
}

/// Four affine transforms.
#[derive(Debug, Clone, Copy)]
pub(super) struct A3 {
    pub(super) m: M3,
    pub(super) t: V3,
}

impl A3 {
    #[inline]
    pub(super) fn gather(a: [Affine3A; 4]) -> Self {
        Self {
            m: M3 {
                x: V3::gather(each(|i| a[i].matrix3.x_axis)),
                y: V3::gather(each(|i| a[i].matrix3.y_axis)),
                z: V3::gather(each(|i| a[i].matrix3.z_axis)),
            },
            t: V3::gather(each(|i| a[i].translation)),
        }
    }

    #[inline]
    pub(super) fn scatter(&self) -> [Affine3A; 4] {
        let (x, y, z, t) = (
            self.m.x.scatter(),
            self.m.y.scatter(),
            self.m.z.scatter(),
            self.t.scatter(),
        );
        each(|i| Affine3A {
            matrix3: glam::Mat3A::from_cols(x[i], y[i], z[i]),
            translation: t[i],
        })
    }

    #[inline]
    pub(super) fn transform_point(&self, p: V3) -> V3 {
        self.m.mul_vec(p) + self.t
    }

    #[inline]
    pub(super) fn mul(&self, o: &Self) -> Self {
        Self {
            m: self.m.mul_mat(&o.m),
            t: self.m.mul_vec(o.t) + self.t,
        }
    }

    /// glam's `Affine3A::from_scale_rotation_translation`.
    #[inline]
    pub(super) fn from_scale_rotation_translation(s: V3, q: Q, t: V3) -> Self {
        let (x2, y2, z2) = (q.x + q.x, q.y + q.y, q.z + q.z);
        let (xx, xy, xz) = (q.x * x2, q.x * y2, q.x * z2);
        let (yy, yz, zz) = (q.y * y2, q.y * z2, q.z * z2);
        let (wx, wy, wz) = (q.w * x2, q.w * y2, q.w * z2);
        let one = Vec4::ONE;
        Self {
            m: M3 {
                x: V3 {
                    x: one - (yy + zz),
                    y: xy + wz,
                    z: xz - wy,
                } * s.x,
                y: V3 {
                    x: xy - wz,
                    y: one - (xx + zz),
                    z: yz + wx,
                } * s.y,
                z: V3 {
                    x: xz + wy,
                    y: yz - wx,
                    z: one - (xx + yy),
                } * s.z,
            },
            t,
        }
    }
}

/// Four quaternions.
#[derive(Debug, Clone, Copy)]
pub(super) struct Q {
    pub(super) x: Vec4,
    pub(super) y: Vec4,
    pub(super) z: Vec4,
    pub(super) w: Vec4,
}

impl Q {
    #[inline]
    pub(super) fn gather(q: [Quat; 4]) -> Self {
        let [x, y, z, w] = transpose(each(|i| Vec4::from(q[i])));
        Self { x, y, z, w }
    }

    #[inline]
    pub(super) fn scatter(self) -> [Quat; 4] {
        let t = transpose([self.x, self.y, self.z, self.w]);
        each(|i| Quat::from_vec4(t[i]))
    }

    /// glam's SSE2 quaternion product (rtm's `quat_mul`): two partial sums per component.
    #[inline]
    pub(super) fn mul(self, r: Self) -> Self {
        let l = self;
        Self {
            x: (l.w * r.x + l.x * r.w) + (l.y * r.z - l.z * r.y),
            y: (l.w * r.y - l.x * r.z) + (l.y * r.w + l.z * r.x),
            z: (l.w * r.z + l.x * r.y) + (l.z * r.w - l.y * r.x),
            w: (l.w * r.w - l.x * r.x) + ((-(l.y * r.y)) - l.z * r.z),
        }
    }

    /// [`from_unit_vectors`](crate::math::unit_arc::from_unit_vectors), lane by lane.
    #[inline]
    pub(super) fn from_unit_vectors(from: V3, to: V3) -> Self {
        let r = from.dot(to) + Vec4::ONE;
        let opposite = r.cmplt(Vec4::splat(f32::EPSILON));
        let across_z = from.x.abs().cmpgt(from.z.abs());
        let c = from.cross(to);
        let zero = Vec4::ZERO;
        let x = Vec4::select(opposite, Vec4::select(across_z, -from.y, zero), c.x);
        let y = Vec4::select(opposite, Vec4::select(across_z, from.x, -from.z), c.y);
        let z = Vec4::select(opposite, Vec4::select(across_z, zero, from.y), c.z);
        let w = Vec4::select(opposite, zero, r);
        let len = ((x * x + z * z) + (y * y + w * w)).sqrt();
        let ok = len.cmpgt(zero);
        Self {
            x: Vec4::select(ok, x / len, zero),
            y: Vec4::select(ok, y / len, zero),
            z: Vec4::select(ok, z / len, zero),
            w: Vec4::select(ok, w / len, Vec4::ONE),
        }
    }
}

impl Neg for V3 {
    type Output = Self;
    #[inline]
    fn neg(self) -> Self {
        Self {
            x: -self.x,
            y: -self.y,
            z: -self.z,
        }
    }
}

#[cfg(test)]
mod tests {
    use glam::{Mat3A, Vec3};

    use super::*;
    use crate::math::unit_arc::from_unit_vectors;

    fn bits3(a: Vec3A) -> [u32; 3] {
        a.to_array().map(f32::to_bits)
    }

    /// Four affine transforms with some scale and shear, from `seed`.
    fn affines(seed: f32) -> [Affine3A; 4] {
        std::array::from_fn(|i| {
            let f = seed + i as f32 * 0.37;
            let q = Quat::from_euler(glam::EulerRot::XYZ, f, 0.7 * f - 1.0, 0.3 + f * f);
            let m = Affine3A::from_scale_rotation_translation(
                Vec3::new(1.0 + 0.1 * f, 0.8, 1.3 - 0.05 * f),
                q,
                Vec3::new(f, -0.5 * f, 2.0),
            );
            let shear = Mat3A::from_cols(
                m.matrix3.x_axis,
                m.matrix3.y_axis + Vec3A::new(0.1, 0.0, 0.02 * f),
                m.matrix3.z_axis,
            );
            Affine3A {
                matrix3: shear,
                translation: Vec3A::ZERO,
            } * m
        })
    }

    fn vectors(seed: f32) -> [Vec3A; 4] {
        std::array::from_fn(|i| {
            let f = seed * 1.3 + i as f32;
            Vec3A::new(f.sin(), (0.7 * f).cos() * 2.0, 0.3 - f.sin() * f.cos())
        })
    }

    #[test]
    #[cfg(target_arch = "x86_64")]
    fn every_lane_gives_glams_bits() {
        for k in 0..300 {
            let seed = k as f32 * 0.173 - 20.0;
            let (a, b, p, v) = (
                affines(seed),
                affines(seed + 5.0),
                vectors(seed),
                vectors(-seed),
            );
            let (la, lb, lp, lv) = (A3::gather(a), A3::gather(b), V3::gather(p), V3::gather(v));
            let product = la.mul(&lb).scatter();
            let point = la.transform_point(lp).scatter();
            let inverse = la.m.inverse().mul_vec(lv).scatter();
            let unit = lp.normalize_or_zero().scatter();
            let cross = lp.cross(lv).scatter();
            let length = lp.length().to_array();
            let from = lp.normalize_or_zero();
            // Opposite and near-opposite directions take the other branch.
            let to = if k % 3 == 0 {
                -from
            } else {
                lv.normalize_or_zero()
            };
            let arc = Q::from_unit_vectors(from, to).scatter();
            let (fa, ta) = (from.scatter(), to.scatter());
            let qa = a.map(|m| Quat::from_mat3a(&m.matrix3.mul_scalar(1.0)).normalize());
            let product_q = Q::gather(qa).mul(Q::gather(arc)).scatter();
            let composed = A3::from_scale_rotation_translation(lv, Q::gather(qa), lp).scatter();
            for i in 0..4 {
                let m = a[i] * b[i];
                assert_eq!(bits3(product[i].translation), bits3(m.translation));
                assert_eq!(bits3(product[i].matrix3.y_axis), bits3(m.matrix3.y_axis));
                assert_eq!(bits3(point[i]), bits3(a[i].transform_point3a(p[i])));
                assert_eq!(bits3(inverse[i]), bits3(a[i].matrix3.inverse() * v[i]));
                assert_eq!(bits3(unit[i]), bits3(p[i].normalize_or_zero()));
                assert_eq!(bits3(cross[i]), bits3(p[i].cross(v[i])));
                assert_eq!(length[i].to_bits(), p[i].length().to_bits());
                let want = from_unit_vectors(fa[i], ta[i]);
                assert_eq!(
                    arc[i].to_array().map(f32::to_bits),
                    want.to_array().map(f32::to_bits),
                    "{k} {i}"
                );
                assert_eq!(
                    product_q[i].to_array().map(f32::to_bits),
                    (qa[i] * want).to_array().map(f32::to_bits)
                );
                let c = Affine3A::from_scale_rotation_translation(
                    Vec3::from(v[i]),
                    qa[i],
                    Vec3::from(p[i]),
                );
                assert_eq!(bits3(composed[i].matrix3.x_axis), bits3(c.matrix3.x_axis));
                assert_eq!(bits3(composed[i].matrix3.y_axis), bits3(c.matrix3.y_axis));
                assert_eq!(bits3(composed[i].matrix3.z_axis), bits3(c.matrix3.z_axis));
                assert_eq!(bits3(composed[i].translation), bits3(c.translation));
            }
        }
    }
}
