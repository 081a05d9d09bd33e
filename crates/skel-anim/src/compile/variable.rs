//! [`KeyFormat::Variable`](crate::KeyFormat)'s search: every moving group bit-packed
//! (`sample/lane_bits.rs`), each lane and segment at the fewest bits that keep its own error
//! within a tolerance, the bound scaled by how far the lane's error carries ([`Reach`]: a
//! rotation's to the joint's farthest descendant plus the shell, a translation's by its
//! parent's scale). One factor on every tolerance is bisected, the largest whose whole clip
//! stays within the bound kept; then, parents first, each group tries a coarser factor of its
//! own, or being held, where the error left allows.

use glam::Vec4;

use crate::compile::choice::{Choice, Groups};
use crate::compile::trials::Trials;
use crate::data::NONE;
use crate::math::interpolate;
use crate::rig::four_node::QuadPlan;
use crate::rig::options::Compression;
use crate::sample::packed::Width;

/// The tolerance factor is `2^(k / 8)` for whole `k` in this range, bisected.
const FACTOR_STEPS: (i32, i32) = (-64, 24);

/// A translation's tolerance against a rotation's at the same reach: translations take the
/// smaller share (measured on the ACL comparison's clips: 0.35 stores 1–2 % fewer bytes on
/// Rig368 and Long65 than 1, and at most 1 % more elsewhere).
const TRANSLATION_SHARE: f32 = 0.35;

/// Steps of `k` tried coarser, group by group, after the bisection: 16, 2, 2^¼ and 2^⅛
/// times the tolerance.
const COARSER: [i32; 4] = [32, 8, 2, 1];

/// The choice within `bound`, its plan and `nlerp`, from `lossless_choice` and its plan
/// `current` (lossless keys, the rotations of quads in `nlerp` by normalised lerp), which it
/// returns where no factor keeps the bound.
pub(crate) fn search_variable(
    trials: &mut Trials,
    groups: &Groups<'_>,
    c: &Compression,
    bound: f32,
    nlerp: Vec<bool>,
    (lossless_choice, current): (Choice, QuadPlan),
) -> (Choice, QuadPlan, Vec<bool>) {
    let (lossless, sources) = (groups.lossless, &groups.sources);
    // The largest tolerance factor whose clip stays within the bound.
    let reach = Reach::new(lossless, trials, c.shell);
    let layout = |qi: usize, g: usize, k: i32| {
        #[expect(clippy::cast_precision_loss, reason = "small whole numbers")]
        let factor = (k as f32 / 8.0).exp2() * bound;
        sources[qi][g]
            .as_ref()
            .map(|src| src.layout(reach.tolerance(qi, g) * factor))
    };
    let packed_widths = groups.every_moving(Width::Lanes).widths;
    let choose = |k: i32| Choice {
        widths: packed_widths.clone(),
        layouts: (0..sources.len())
            .map(|qi| std::array::from_fn(|g| layout(qi, g, k)))
            .collect(),
    };
    let (mut lo, mut hi) = FACTOR_STEPS;
    let mut best: Option<(i32, Choice, QuadPlan)> = None;
    while lo <= hi {
        let k = lo + (hi - lo) / 2;
        let choice = choose(k);
        let trial = groups.build(&choice, &nlerp);
        if trials.try_plan(&trial, &current, 0, bound) {
            best = Some((k, choice, trial));
            lo = k + 1;
        } else {
            hi = k - 1;
        }
    }
    let (choice, plan) = match best {
        Some((k, mut choice, mut plan)) => {
            trials.accept(&plan);
            // Then group by group, parents first: a coarser factor where the error left
            // allows it, or held at the first key where no lane takes bits anywhere.
            for qi in 0..choice.widths.len() {
                for g in 0..3 {
                    let Some(now) = &choice.layouts[qi][g] else {
                        continue;
                    };
                    if now.widths.iter().flatten().all(|&w| w == 0) {
                        choice.widths[qi][g] = Width::Held;
                        let trial = groups.build(&choice, &nlerp);
                        if trials.try_plan(&trial, &plan, qi, bound) {
                            plan = trial;
                            choice.layouts[qi][g] = None;
                            continue;
                        }
                        choice.widths[qi][g] = Width::Lanes;
                    }
                    for coarser in COARSER {
                        let Some(l) = layout(qi, g, k + coarser) else {
                            break;
                        };
                        let before = choice.layouts[qi][g].replace(l);
                        let trial = groups.build(&choice, &nlerp);
                        if trials.try_plan(&trial, &plan, qi, bound) {
                            plan = trial;
                            break;
                        }
                        choice.layouts[qi][g] = before;
                    }
                }
            }
            (choice, plan)
        }
        None => (lossless_choice, current),
    };
    (choice, plan, nlerp)
}

/// How far each lane's error carries: per quad and group, the factor that turns the bound
/// into the lane's own tolerance.
struct Reach {
    /// Per quad: translation, scale and rotation factors per lane.
    factors: Vec<[Vec4; 3]>,
}

impl Reach {
    /// From the lossless pose at the first measured time: each node's farthest descendant
    /// (plus the shell) and its parent's scale.
    fn new(lossless: &QuadPlan, trials: &Trials, shell: f32) -> Self {
        let world = interpolate::matrices(&trials.reference[..trials.nodes * 16]);
        let position = |n: usize| Vec4::from_slice(&world[n][12..16]).truncate();
        let scale = |n: u32| {
            if n == NONE {
                return 1.0_f32;
            }
            let m = &world[n as usize];
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
