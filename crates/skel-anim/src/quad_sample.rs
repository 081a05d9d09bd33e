//! Sampling one quad of a clip's four-node key blocks ([`QuadPlan`]) at a key interval: what
//! both four-node passes (the single clip's in `quads.rs`, the layers' in `player/quad_mix.rs`)
//! start from.

use glam::{BVec4A, Vec4};
use skel_math::lanes::{Quatx4, Vec3x4};

use crate::interpolate;
use crate::layout::NONE;
use crate::quad_plan::{Quad, QuadPlan, QuadRows, R_ROWS, ROWS, S_ROWS, T_ROWS};
use crate::timeline::Segment;

/// Four nodes' transforms.
#[derive(Clone, Copy)]
pub(crate) struct Lanes {
    pub(crate) t: Vec3x4,
    pub(crate) r: Quatx4,
    pub(crate) s: Vec3x4,
}

impl Lanes {
    #[inline(always)]
    pub(crate) fn from_rows(h: &QuadRows) -> Self {
        Self {
            t: Vec3x4::new(h[T_ROWS], h[T_ROWS + 1], h[T_ROWS + 2]),
            r: Quatx4::new(h[R_ROWS], h[R_ROWS + 1], h[R_ROWS + 2], h[R_ROWS + 3]),
            s: Vec3x4::new(h[S_ROWS], h[S_ROWS + 1], h[S_ROWS + 2]),
        }
    }
}

/// Quad `qi` of `plan` and its nodes' transforms at the key intervals `segments`.
#[inline(always)]
pub(crate) fn sample_quad<'p>(
    plan: &'p QuadPlan,
    segments: &[Segment],
    qi: usize,
) -> Option<(&'p Quad, Lanes)> {
    let q = plan.quads.get(qi)?;
    Some((q, sample(&plan.keys, q, segments)))
}

/// Quad `q`'s transforms (its keys in `keys`) at the key intervals `segments`: held rows where
/// constant, the lerp (translation, scale) and polynomial slerp (rotation) of the interval's
/// keys elsewhere, STEP and untracked lanes as key `a`. Lane by lane bit for bit the
/// array-of-structures pass's values.
#[inline(always)]
pub(crate) fn sample(keys: &[Vec4], q: &Quad, segments: &[Segment]) -> Lanes {
    sample_with::<true>(keys, q, segments)
}

/// [`sample`] for an additive layer's differences: the rotations' slerps not normalised (unit
/// within 2e-7; the layer normalises the product they go into).
#[inline(always)]
pub(crate) fn sample_differences(keys: &[Vec4], q: &Quad, segments: &[Segment]) -> Lanes {
    sample_with::<false>(keys, q, segments)
}

/// [`sample`], the slerps normalised where `UNIT`.
#[inline(always)]
fn sample_with<const UNIT: bool>(keys: &[Vec4], q: &Quad, segments: &[Segment]) -> Lanes {
    let h = &q.held;
    if q.fixed != NONE {
        return Lanes::from_rows(h);
    }
    let seg = if q.timeline == NONE {
        Segment::default()
    } else {
        segments[q.timeline as usize]
    };
    let ka = &keys[q.first + seg.a as usize * ROWS..][..ROWS];
    let kb = &keys[q.first + seg.b as usize * ROWS..][..ROWS];
    let s = Vec4::splat(seg.s);
    let vec3 = |first: usize, hold: BVec4A, constant: bool| {
        if constant {
            return Vec3x4::new(h[first], h[first + 1], h[first + 2]);
        }
        let a = Vec3x4::new(ka[first], ka[first + 1], ka[first + 2]);
        let b = Vec3x4::new(kb[first], kb[first + 1], kb[first + 2]);
        let lerped = Vec3x4::lerp(a, b, s);
        if hold.any() {
            Vec3x4::select(hold, a, lerped)
        } else {
            lerped
        }
    };
    let r = if q.r_const {
        Quatx4::new(h[R_ROWS], h[R_ROWS + 1], h[R_ROWS + 2], h[R_ROWS + 3])
    } else {
        let ra = [ka[R_ROWS], ka[R_ROWS + 1], ka[R_ROWS + 2], ka[R_ROWS + 3]];
        let rb = [kb[R_ROWS], kb[R_ROWS + 1], kb[R_ROWS + 2], kb[R_ROWS + 3]];
        let copy = q.r_step | BVec4A::splat(seg.a == seg.b);
        let slerped = Quatx4::from_rows(if UNIT {
            interpolate::slerp_soa(ra, rb, s, copy)
        } else {
            interpolate::slerp_soa_unnormalized(ra, rb, s, copy)
        });
        if q.r_rest.any() {
            Quatx4::select(q.r_rest, Quatx4::from_rows(ra), slerped)
        } else {
            slerped
        }
    };
    Lanes {
        t: vec3(T_ROWS, q.t_hold, q.t_const),
        r,
        s: vec3(S_ROWS, q.s_hold, q.s_const),
    }
}
