//! The key rules of a `.vrma` on an avatar, as three-vrm-animation 3.5 applies them through
//! three-vrm's normalized humanoid.
//!
//! A rotation key `q` of bone `b` is first made *normalized*: `n = R(Wₛ[h]) · q · R(Wₛ[b])⁻¹`,
//! with `R(W)` the rotation of a rest world matrix of the `.vrma`'s rig and `h` the nearest
//! humanoid ancestor of `b` the `.vrma` maps (VRM's humanoid parent map; the hips' glTF parent
//! for the hips). `n` is the bone's turn from rest in world space, relative to its humanoid
//! parent's. On the avatar it becomes `P⁻¹ · n · P · Rₜ`, with `P` the rotation of the avatar
//! node's parent at rest and `Rₜ` its rest rotation. For a VRM 0.x avatar (facing −z) `n` is
//! first turned half round y, `(x, y, z, w) → (−x, y, −z, w)`, as three-vrm-animation does for
//! `metaVersion` 0.
//!
//! The hips' translation key `v` becomes the world position `Wₛ[parent] · v`, scaled by the
//! ratio of the hips' rest heights (avatar over `.vrma`, world y), (x, z) negated for VRM 0.x,
//! then brought into the avatar hips' parent frame.

use glam::{DMat4, DQuat, DVec3};
use skel_anim::{Interpolation, Sampler};

/// The rotation of a rest world matrix (its scale divided out).
pub(crate) fn rotation_of(m: DMat4) -> DQuat {
    let (_, r, _) = m.to_scale_rotation_translation();
    r.normalize()
}

/// `q ↦ a · flip(l · q · r) · c`: linear in `q`'s components, so tangents follow the same map.
#[derive(Debug, Clone, Copy)]
pub(crate) struct RotationRule {
    pub l: DQuat,
    pub r: DQuat,
    pub a: DQuat,
    pub c: DQuat,
    pub vrm0: bool,
}

impl RotationRule {
    fn apply(&self, q: DQuat) -> DQuat {
        let n = self.l * q * self.r;
        let n = if self.vrm0 {
            DQuat::from_xyzw(-n.x, n.y, -n.z, n.w)
        } else {
            n
        };
        self.a * n * self.c
    }

    /// The avatar's rotation sampler for the `.vrma`'s `sampler`.
    pub(crate) fn rewrite(&self, sampler: &Sampler) -> Option<Sampler> {
        let out: Vec<f32> = sampler
            .output()
            .chunks_exact(4)
            .flat_map(|q| {
                let q = DQuat::from_xyzw(
                    f64::from(q[0]),
                    f64::from(q[1]),
                    f64::from(q[2]),
                    f64::from(q[3]),
                );
                self.apply(q).to_array().map(|x| x as f32)
            })
            .collect();
        Sampler::new(sampler.input().to_vec(), out, sampler.interpolation()).ok()
    }
}

/// The hips' translation rule: `v ↦ inv_parent · (ratio · flip(parent · v))`.
#[derive(Debug, Clone, Copy)]
pub(crate) struct HipsRule {
    pub source_parent: DMat4,
    pub inv_target_parent: DMat4,
    pub ratio: f64,
    pub vrm0: bool,
}

impl HipsRule {
    fn flip(&self, v: DVec3) -> DVec3 {
        if self.vrm0 {
            DVec3::new(-v.x, v.y, -v.z)
        } else {
            v
        }
    }

    /// The avatar's hips translation sampler for the `.vrma`'s `sampler`: values as points,
    /// a cubic spline's tangents as vectors.
    pub(crate) fn rewrite(&self, sampler: &Sampler) -> Option<Sampler> {
        let cubic = sampler.interpolation() == Interpolation::CubicSpline;
        let out: Vec<f32> = sampler
            .output()
            .chunks_exact(3)
            .enumerate()
            .flat_map(|(i, v)| {
                let v = glam::Vec3::from_slice(v).as_dvec3();
                let w = if cubic && i % 3 != 1 {
                    let d = self.ratio * self.flip(self.source_parent.transform_vector3(v));
                    self.inv_target_parent.transform_vector3(d)
                } else {
                    let p = self.ratio * self.flip(self.source_parent.transform_point3(v));
                    self.inv_target_parent.transform_point3(p)
                };
                w.to_array().map(|x| x as f32)
            })
            .collect();
        Sampler::new(sampler.input().to_vec(), out, sampler.interpolation()).ok()
    }
}
