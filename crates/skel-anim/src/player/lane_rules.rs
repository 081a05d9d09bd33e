//! The layer rules on four lanes (four nodes of a quad at once): the blend sums and their
//! finish, and the additive application (the quad's samples come from `pose::four_node::sample`); what
//! [`quad_mix`](super::quad_mix) runs per quad. Each is `mix`'s property rule lane by lane.

use core::ops::{Add, Mul};

use glam::{BVec4A, Vec4};
use skel_math::lanes::{Quatx4, Vec3x4};

use crate::math::{interpolate, slerp_wide};

/// `base + w · (value − reference)` in the lanes of `on`.
#[inline(always)]
pub(super) fn add_vectors(
    base: Vec3x4,
    reference: Vec3x4,
    value: Vec3x4,
    w: Vec4,
    on: BVec4A,
) -> Vec3x4 {
    if !on.any() {
        return base;
    }
    let sum = base + (value - reference) * w;
    if on.all() {
        sum
    } else {
        Vec3x4::select(on, sum, base)
    }
}

/// `p / |p|` for the product `p` of two unit quaternions (unit within rounding, so one Newton
/// step from 1 rescales it, as `interpolate::normalize_quat` does); lanes that are not near unit
/// are divided by their length, and zero or non-finite ones take `fallback`'s lane.
#[inline(always)]
fn normalize_unit_product(p: Quatx4, fallback: Quatx4) -> Quatx4 {
    let len_sq = p.length_squared();
    let near = (len_sq - Vec4::ONE)
        .abs()
        .cmple(Vec4::splat(interpolate::NEWTON_BAND));
    if near.all() {
        p * (Vec4::splat(1.5) - Vec4::splat(0.5) * len_sq)
    } else {
        p.normalize_or(fallback)
    }
}

/// The blend sums of one quad.
pub(super) struct Sums {
    pub(super) t: Acc<Vec3x4>,
    pub(super) r: Acc<Quatx4>,
    pub(super) s: Acc<Vec3x4>,
}

/// A property of four nodes as the blend sums it: what translations and scales (plain
/// weighted averages) and rotations (hemisphere-aligned, normalised sums) do differently.
pub(super) trait Blended: Copy + Add<Output = Self> + Mul<Vec4, Output = Self> {
    /// Lane by lane, `a` where `mask` is set, else `b`.
    fn pick(mask: BVec4A, a: Self, b: Self) -> Self;
    /// The weight `v` is summed at, given the first contributor `first`.
    fn aligned_weight(v: Self, first: Self, w: Vec4) -> Vec4;
    /// The finished value of lanes with a total weight `total` that need more than a copy of
    /// `first`: the sum's average, the rest value filling a total below 1.
    fn finished(sum: Self, rest: Self, first: Self, total: Vec4) -> Self;
}

impl Blended for Vec3x4 {
    #[inline(always)]
    fn pick(mask: BVec4A, a: Self, b: Self) -> Self {
        Self::select(mask, a, b)
    }

    #[inline(always)]
    fn aligned_weight(_: Self, _: Self, w: Vec4) -> Vec4 {
        w
    }

    #[inline(always)]
    fn finished(sum: Self, rest: Self, _: Self, total: Vec4) -> Self {
        let filled = sum + rest * (Vec4::ONE - total);
        let averaged = Self::new(sum.x / total, sum.y / total, sum.z / total);
        Self::select(total.cmplt(Vec4::ONE), filled, averaged)
    }
}

impl Blended for Quatx4 {
    #[inline(always)]
    fn pick(mask: BVec4A, a: Self, b: Self) -> Self {
        Self::select(mask, a, b)
    }

    /// Turned into the first contributor's hemisphere.
    #[inline(always)]
    fn aligned_weight(v: Self, first: Self, w: Vec4) -> Vec4 {
        Vec4::select(v.dot(first).cmplt(Vec4::ZERO), -w, w)
    }

    /// The rest value, in the first contributor's hemisphere, fills a total below 1; the sum
    /// is normalised (a zero or non-finite one falls back to the first contributor).
    #[inline(always)]
    fn finished(sum: Self, rest: Self, first: Self, total: Vec4) -> Self {
        let below = total.cmplt(Vec4::ONE);
        let out = if below.any() {
            let fill = Vec4::select(
                rest.dot(first).cmplt(Vec4::ZERO),
                total - Vec4::ONE,
                Vec4::ONE - total,
            );
            Self::select(below, sum + rest * fill, sum)
        } else {
            sum
        };
        out.normalize_or(first)
    }
}

/// Running sums of one property of four nodes: `mix::Acc` lane by lane.
#[derive(Clone, Copy)]
pub(super) struct Acc<T> {
    /// The weighted sum; while `lazy`, not stored: `first · weight` (one contributor).
    sum: T,
    first: T,
    weight: Vec4,
    count: Vec4,
    lazy: bool,
}

impl<T: Blended> Acc<T> {
    #[inline(always)]
    fn sum(&self) -> T {
        if self.lazy {
            self.first * self.weight
        } else {
            self.sum
        }
    }

    /// The sums after a first contributor `v` at lane weights `w` (lanes at 0 stay empty and
    /// take the rest value, whatever `sum` and `first` hold).
    #[inline(always)]
    pub(super) fn start(v: T, w: Vec4) -> Self {
        Self {
            sum: v,
            first: v,
            weight: w,
            count: Vec4::select(w.cmpne(Vec4::ZERO), Vec4::ONE, Vec4::ZERO),
            lazy: true,
        }
    }

    /// One more contributor `v` at lane weights `w`.
    #[inline(always)]
    pub(super) fn add(&mut self, v: T, w: Vec4) {
        let active = w.cmpne(Vec4::ZERO);
        if !active.any() {
            return;
        }
        let fresh = self.count.cmpeq(Vec4::ZERO);
        if fresh.all() {
            *self = Self::start(v, w);
            return;
        }
        let sum = self.sum();
        self.lazy = false;
        let signed = T::aligned_weight(v, self.first, w);
        if active.all() && !fresh.any() {
            self.sum = sum + v * signed;
            self.weight += w;
            self.count += Vec4::ONE;
            return;
        }
        let new = active & fresh;
        let summed = T::pick(active, sum + v * signed, sum);
        self.sum = T::pick(new, v * w, summed);
        self.first = T::pick(new, v, self.first);
        let total = Vec4::select(active, self.weight + w, self.weight);
        self.weight = Vec4::select(new, w, total);
        self.count = Vec4::select(active, self.count + Vec4::ONE, self.count);
    }

    /// The blended value of each lane over `rest`: the rest value where nothing contributed,
    /// a single contributor of weight ≥ 1 as it is, else [`Blended::finished`].
    #[inline(always)]
    pub(super) fn finish(&self, rest: T) -> T {
        let empty = self.count.cmpeq(Vec4::ZERO);
        if empty.all() {
            return rest;
        }
        let total = self.weight;
        let single = self.count.cmpeq(Vec4::ONE) & total.cmpge(Vec4::ONE);
        let out = if (single | empty).all() {
            self.first
        } else {
            T::pick(
                single,
                self.first,
                T::finished(self.sum(), rest, self.first, total),
            )
        };
        if empty.any() {
            T::pick(empty, rest, out)
        } else {
            out
        }
    }
}

/// `q · delta^w` in the lanes of `on`, `delta = conj(reference) · value` (`additive::add_rotation`
/// lane by lane: the difference on the short path, the polynomial slerp from the identity for
/// weights in `0..=1`, the exact power through the angle for others).
#[inline(always)]
pub(super) fn add_rotation_deltas(q: Quatx4, delta: Quatx4, w: Vec4, on: BVec4A) -> Quatx4 {
    let flip = delta.w.cmplt(Vec4::ZERO);
    let delta = if flip.any() {
        Quatx4::select(flip, -delta, delta)
    } else {
        delta
    };
    let slerped = Quatx4::from_rows(slerp_wide::slerp_soa_from_identity(delta.rows(), w));
    let one = w.cmpeq(Vec4::ONE);
    let powered = if one.any() {
        Quatx4::select(one, delta, slerped)
    } else {
        slerped
    };
    let added = normalize_unit_product(q * powered, q);
    let mut out = if on.all() {
        added
    } else {
        Quatx4::select(on, added, q)
    };
    let unit = w.cmpge(Vec4::ZERO) & w.cmple(Vec4::ONE);
    let odd = on & !unit;
    if odd.any() {
        // Weights outside 0..=1 (negative ones undo): the scalar rule, lane by lane, from the
        // identity as reference.
        let mut lanes = [out.lane(0), out.lane(1), out.lane(2), out.lane(3)];
        let ws = w.to_array();
        for (l, lane) in lanes.iter_mut().enumerate() {
            if odd.test(l) {
                let quat = |x: Quatx4| glam::Quat::from_array(x.lane(l));
                *lane = super::additive::add_rotation(
                    quat(q),
                    glam::Quat::IDENTITY,
                    quat(delta),
                    ws[l],
                )
                .to_array();
            }
        }
        out = Quatx4::from_lanes(lanes);
    }
    out
}

#[cfg(test)]
mod tests {
    use glam::Vec4;
    use proptest::prelude::*;

    use crate::math::slerp_wide;

    fn unit_quats() -> impl Strategy<Value = [Vec4; 4]> {
        prop::array::uniform4(prop::array::uniform4(-1.0_f32..1.0)).prop_filter_map(
            "non-zero",
            |lanes| {
                let mut rows = [[0.0_f32; 4]; 4];
                for (l, q) in lanes.iter().enumerate() {
                    let v = Vec4::from_array(*q);
                    if v.length() < 0.1 {
                        return None;
                    }
                    // On the identity's hemisphere, as an additive delta is.
                    let v = v.normalize() * v.w.signum();
                    for (c, x) in v.to_array().into_iter().enumerate() {
                        rows[c][l] = x;
                    }
                }
                Some(rows.map(Vec4::from_array))
            },
        )
    }

    proptest! {
        #[test]
        fn slerp_from_the_identity_is_the_exact_slerp(b in unit_quats(),
                                                      s in prop::array::uniform4(0.0_f32..=1.0)) {
            let got = slerp_wide::slerp_soa_from_identity(b, Vec4::from_array(s));
            for (lane, &t) in s.iter().enumerate() {
                // f64: q^s = (sin(sθ)/sin θ · v, cos(sθ)), θ the half angle.
                let q: [f64; 4] = std::array::from_fn(|c| f64::from(b[c].to_array()[lane]));
                let v = (q[0] * q[0] + q[1] * q[1] + q[2] * q[2]).sqrt();
                let theta = v.atan2(q[3]);
                let t = f64::from(t);
                let k = if theta < 1e-9 { t } else { (t * theta).sin() / theta.sin() };
                let want = [q[0] * k, q[1] * k, q[2] * k, (t * theta).cos()];
                for c in 0..4 {
                    let g = f64::from(got[c].to_array()[lane]);
                    prop_assert!((g - want[c]).abs() < 1e-6, "lane {} row {}: {} vs {}", lane, c, g, want[c]);
                }
            }
        }
    }
}
