//! The key rule: `L_T(key) = P_T⁻¹ · P_S · L_S(key) · W_S⁻¹ · W_T` (column vectors), with
//! `L_S(key)` the source node's rest TRS where the key replaces one part.
//!
//! Babylon.js (`AnimatorAvatar._retargetAnimationKeys`) writes the same product with row
//! vectors, `W_T · W_S⁻¹ · L_S · P_S · P_T⁻¹`; transposing reverses the order. Only the
//! part of `L_T` that the key animates is kept: a rotation key gives the rotation of the
//! product, a translation key its translation, a scale key its scale.

use glam::{DMat4, DQuat, DVec3};
use skel_anim::{ChannelPath, Interpolation, Sampler};

use crate::error::{RetargetError, Side};
use crate::rest::{RestPose, Trs, checked_inverse};

/// The two constant matrices of one (target, source) pair, and the source's rest TRS.
#[derive(Debug, Clone, Copy)]
pub(crate) struct KeyRule {
    /// `P_T⁻¹ · P_S`.
    pre: DMat4,
    /// `W_S⁻¹ · W_T`.
    post: DMat4,
    /// The source node's rest TRS: what a key of one part leaves of the others.
    rest: Trs,
}

impl KeyRule {
    /// The rule for source node `s` driving target node `t`.
    pub(crate) fn new(
        source: &RestPose,
        target: &RestPose,
        s: usize,
        t: usize,
    ) -> Result<Self, RetargetError> {
        let inv_pt = checked_inverse(target.parent_world(t), Side::Target, &target.names[t])?;
        let inv_ws = checked_inverse(source.world[s], Side::Source, &source.names[s])?;
        Ok(Self {
            pre: inv_pt * source.parent_world(s),
            post: inv_ws * target.world[t],
            rest: source.local[s],
        })
    }

    fn product(&self, local: Trs) -> (DVec3, DQuat, DVec3) {
        (self.pre * local.matrix() * self.post).to_scale_rotation_translation()
    }

    /// A rotation key rewritten.
    pub(crate) fn rotation(&self, q: DQuat) -> DQuat {
        self.product(Trs { r: q, ..self.rest }).1
    }

    /// The source node's rest rotation (what a clip without rotation keys leaves it at).
    pub(crate) fn rest_rotation(&self) -> DQuat {
        self.rest.r
    }

    /// A translation key rewritten.
    pub(crate) fn translation(&self, t: DVec3) -> DVec3 {
        self.product(Trs { t, ..self.rest }).2
    }

    /// A scale key rewritten.
    pub(crate) fn scale(&self, s: DVec3) -> DVec3 {
        self.product(Trs { s, ..self.rest }).0
    }

    /// One value of `path` (3 or 4 floats) rewritten, as 4 floats.
    fn value(&self, path: ChannelPath, v: [f64; 4]) -> [f64; 4] {
        match path {
            ChannelPath::Rotation => {
                let q = DQuat::from_xyzw(v[0], v[1], v[2], v[3]);
                if q.length_squared() < 1e-24 {
                    return v;
                }
                self.rotation(q.normalize()).to_array()
            }
            ChannelPath::Translation => self
                .translation(DVec3::new(v[0], v[1], v[2]))
                .extend(0.0)
                .to_array(),
            ChannelPath::Scale => self
                .scale(DVec3::new(v[0], v[1], v[2]))
                .extend(0.0)
                .to_array(),
            ChannelPath::Weights => v,
        }
    }

    /// `sampler` (a `path` channel) with every key rewritten. Rotation keys are kept in the
    /// hemisphere of the key before, so that interpolation takes the same way round; cubic
    /// spline tangents are carried through the rule by its derivative (a central difference
    /// in `f64`).
    pub(crate) fn rewrite(&self, sampler: &Sampler, path: ChannelPath) -> Sampler {
        let n = path.components().unwrap_or(3);
        let cubic = sampler.interpolation() == Interpolation::CubicSpline;
        let read = |i: usize| -> [f64; 4] {
            let mut v = [0.0; 4];
            for (k, x) in v.iter_mut().enumerate().take(n) {
                *x = f64::from(sampler.output()[i * n + k]);
            }
            v
        };
        let per_key = if cubic { 3 } else { 1 };
        let keys = sampler.input().len();
        let mut out = Vec::with_capacity(sampler.output().len());
        let mut previous: Option<[f64; 4]> = None;
        for key in 0..keys {
            let base = key * per_key;
            let value_slot = if cubic { base + 1 } else { base };
            let v = read(value_slot);
            let mut mapped = self.value(path, v);
            if path == ChannelPath::Rotation
                && let Some(p) = previous
                && dot(p, mapped) < 0.0
            {
                mapped = mapped.map(|x| -x);
            }
            previous = Some(mapped);
            let mut slots = [mapped; 3];
            if cubic {
                slots[0] = self.tangent(path, v, read(base), mapped);
                slots[2] = self.tangent(path, v, read(base + 2), mapped);
            }
            for slot in &slots[..per_key] {
                out.extend(slot[..n].iter().map(|&x| x as f32));
            }
        }
        // Same times, same interpolation, same counts: only the values changed.
        Sampler::new(sampler.input().to_vec(), out, sampler.interpolation())
            .unwrap_or_else(|_| sampler.clone())
    }

    /// The derivative of the rule at `v` along `tangent`, with rotations aligned to `at`.
    fn tangent(&self, path: ChannelPath, v: [f64; 4], tangent: [f64; 4], at: [f64; 4]) -> [f64; 4] {
        if path == ChannelPath::Weights {
            return tangent;
        }
        let norm = tangent.iter().map(|x| x * x).sum::<f64>().sqrt();
        if norm == 0.0 {
            return [0.0; 4];
        }
        let h = 1e-5 / norm.max(1.0);
        let step = |sign: f64| {
            let mut w = v;
            for (x, d) in w.iter_mut().zip(tangent) {
                *x += sign * h * d;
            }
            let mut m = self.value(path, w);
            if path == ChannelPath::Rotation && dot(m, at) < 0.0 {
                m = m.map(|x| -x);
            }
            m
        };
        let (plus, minus) = (step(1.0), step(-1.0));
        let mut d = [0.0; 4];
        for k in 0..4 {
            d[k] = (plus[k] - minus[k]) / (2.0 * h);
        }
        d
    }
}

fn dot(a: [f64; 4], b: [f64; 4]) -> f64 {
    a.iter().zip(b).map(|(x, y)| x * y).sum()
}
