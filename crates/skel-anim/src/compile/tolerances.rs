//! The tolerances of [`KeyFormat::Variable`](crate::KeyFormat)'s search: how far each lane's
//! error carries ([`Reach`]), and the tolerance of each lane at a step of the searched factor
//! ([`Tolerances`]), which a choice keeps for its last pass (`compile/variable.rs`).

use glam::Vec4;

use crate::compile::trials::Trials;
use crate::data::NONE;
use crate::rig::four_node::QuadPlan;

/// A translation's tolerance against a rotation's at the same reach: translations take the
/// smaller share (measured on the ACL comparison's clips: 0.35 stores 1–2 % fewer bytes on
/// Rig368 and Long65 than 1, and at most 1 % more elsewhere).
const TRANSLATION_SHARE: f32 = 0.35;

/// The tolerances a variable choice's layouts were chosen at: each lane's per unit of bound
/// ([`Reach`]), the bound, and each group's step of the factor.
pub(crate) struct Tolerances {
    pub(crate) reach: Reach,
    pub(crate) bound: f32,
    /// Per quad and group, `k` of the factor `2^(k / 8)`.
    pub(crate) steps: Vec<[i32; 3]>,
}

impl Tolerances {
    /// The lane tolerances of quad `qi`'s group `g` at step `k`.
    pub(crate) fn at(&self, qi: usize, g: usize, k: i32) -> Vec4 {
        #[expect(clippy::cast_precision_loss, reason = "small whole numbers")]
        let factor = (k as f32 / 8.0).exp2() * self.bound;
        self.reach.tolerance(qi, g) * factor
    }
}

/// How far each lane's error carries: per quad and group, the factor that turns the bound
/// into the lane's own tolerance.
pub(crate) struct Reach {
    /// Per quad: translation, scale and rotation factors per lane.
    factors: Vec<[Vec4; 3]>,
}

impl Reach {
    /// From the clip's pose at the first measured time: each node's farthest descendant
    /// (plus the shell) and its parent's scale. A clip with no measured time (no key: nothing
    /// moves) reaches the shell alone, at unit scale.
    pub(crate) fn new(lossless: &QuadPlan, trials: &Trials, shell: f32) -> Self {
        let world = &trials.first_world;
        let position = |n: usize| {
            world.get(n).map_or(glam::Vec3::ZERO, |m| {
                Vec4::from_slice(&m[12..16]).truncate()
            })
        };
        let scale = |n: u32| {
            let Some(m) = world.get(n as usize) else {
                // No parent, or no pose.
                return 1.0_f32;
            };
            (0..3)
                .map(|c| Vec4::from_slice(&m[c * 4..c * 4 + 4]).truncate().length())
                .fold(0.0, f32::max)
                .max(f32::MIN_POSITIVE)
        };
        let mut reach = vec![shell; trials.nodes];
        for q in lossless.quads.iter().rev() {
            for l in (0..q.lanes).rev() {
                let (n, p) = (q.nodes[l] as usize, q.parents[l]);
                if p != NONE {
                    let d = reach[n] + (position(n) - position(p as usize)).length();
                    reach[p as usize] = reach[p as usize].max(d);
                }
            }
        }
        let factors = lossless
            .quads
            .iter()
            .map(|q| {
                let lane = |f: &dyn Fn(usize) -> f32| {
                    Vec4::from_array(std::array::from_fn(
                        |l| if l < q.lanes { f(l) } else { 1.0 },
                    ))
                };
                let n = |l: usize| q.nodes[l] as usize;
                let parent_scale = |l: usize| scale(q.parents[l]);
                [
                    lane(&|l| TRANSLATION_SHARE / parent_scale(l)),
                    lane(&|l| scale(q.nodes[l]) / parent_scale(l) / reach[n(l)]),
                    lane(&|l| 0.5 / reach[n(l)]),
                ]
            })
            .collect();
        Self { factors }
    }

    /// Lane tolerances of quad `qi`'s group `g` per unit of bound.
    fn tolerance(&self, qi: usize, g: usize) -> Vec4 {
        self.factors[qi][g]
    }
}
