//! [`KeyFormat::Variable`](crate::KeyFormat)'s search: every moving group bit-packed
//! (`sample/lane_bits.rs`), each lane and segment at the fewest bits that keep its own error
//! within a tolerance, the bound scaled by how far the lane's error carries ([`Reach`]: a
//! rotation's to the joint's farthest descendant plus the shell, a translation's by its
//! parent's scale). One factor on every tolerance is bisected, the largest whose whole clip
//! stays within the bound kept; then, leaves first, each group tries a coarser factor of its
//! own, or being held, where the error left allows ([`search_variable`]). Last
//! ([`refine_segments`], measured where the result is checked), leaves first, each segment
//! tries a coarser factor than its group's, and each lane of it fewer bits, where the error
//! at the times its keys play allows: a long clip's quiet stretches and short chains take
//! the error the whole-clip factor left unused.

use crate::compile::bit_rates::{GroupSource, Layout};
use crate::compile::choice::{Choice, Groups};
use crate::compile::tolerances::{Reach, Tolerances};
use crate::compile::trials::Trials;
use crate::data::NONE;
use crate::rig::four_node::QuadPlan;
use crate::rig::options::Compression;
use crate::sample::lane_bits::{LaneMark, LaneSegment, WHOLE_CLIP};
use crate::sample::packed::Width;

/// The tolerance factor is `2^(k / 8)` for whole `k` in this range, bisected.
const FACTOR_STEPS: (i32, i32) = (-64, 24);

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
    let sources = &groups.sources;
    let mut tolerances = Tolerances {
        reach: Reach::new(groups.lossless, trials, c.shell),
        bound,
        steps: Vec::new(),
    };
    let layout = |tolerances: &Tolerances, qi: usize, g: usize, k: i32| {
        sources[qi][g]
            .as_ref()
            .map(|src| src.layout(tolerances.at(qi, g, k)))
    };
    let packed_widths = groups.every_moving(Width::Lanes).widths;
    let choose = |k: i32| Choice {
        widths: packed_widths.clone(),
        layouts: (0..sources.len())
            .map(|qi| std::array::from_fn(|g| layout(&tolerances, qi, g, k)))
            .collect(),
        tolerances: None,
    };
    // The largest tolerance factor whose clip stays within the bound.
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
    let Some((k, mut choice, mut plan)) = best else {
        return (lossless_choice, current, nlerp);
    };
    trials.accept(&plan);
    tolerances.steps = vec![[k; 3]; choice.widths.len()];
    // Then group by group, leaves first (a coarser child leaves its parents' slack alone,
    // where a coarser parent takes it from every descendant): a coarser factor where the
    // error left allows it, or held at the first key where no lane takes bits anywhere.
    for qi in (0..choice.widths.len()).rev() {
        for (g, src) in sources[qi].iter().enumerate() {
            let (Some(src), Some(now)) = (src, &choice.layouts[qi][g]) else {
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
                let l = src.layout(tolerances.at(qi, g, k + coarser));
                let Some(undo) = patch_group(&mut plan, qi, g, src, &l) else {
                    break;
                };
                let times = 0..trials.times();
                if trials.try_in_place(&mut plan, qi, bound, times, |p| undo.apply(p)) {
                    choice.layouts[qi][g] = Some(l);
                    tolerances.steps[qi][g] = k + coarser;
                    break;
                }
            }
        }
    }
    choice.tolerances = Some(tolerances);
    // The plan again without the trials' leftovers in its stream.
    let plan = groups.build(&choice, &nlerp);
    (choice, plan, nlerp)
}

/// The last pass of [`KeyFormat::Variable`](crate::KeyFormat)'s search, on `choice` and its
/// plan `plan` (already within `bound` in `trials`, the rotations of quads in `nlerp` by
/// normalised lerp): leaves first, each segment of each bit-packed group at a coarser factor
/// than its group's where the error left at the times its keys play allows, then each lane
/// of it fewer bits while the error allows. Each trial re-encodes the one segment in place,
/// at the end of `plan`'s stream; the plan is built again from the choice at the end.
pub(crate) fn refine_segments(
    trials: &mut Trials,
    groups: &Groups<'_>,
    choice: &mut Choice,
    plan: &mut QuadPlan,
    nlerp: &[bool],
    bound: f32,
) {
    let Some(tolerances) = choice.tolerances.take() else {
        return;
    };
    let bits = |w: &[u8; 4]| w.iter().map(|&b| u32::from(b)).sum::<u32>();
    for (qi, q) in groups.lossless.quads.iter().enumerate().rev() {
        if q.timeline == NONE {
            continue;
        }
        for g in 0..3 {
            let (Some(src), Some(layout), Width::Lanes) = (
                &groups.sources[qi][g],
                &mut choice.layouts[qi][g],
                choice.widths[qi][g],
            ) else {
                continue;
            };
            // A whole-clip group's one segment is at its group's factor already.
            let coarser: &[i32] = if layout.shift == WHOLE_CLIP {
                &[]
            } else {
                &COARSER
            };
            for s in 0..layout.widths.len() {
                let keys = src.segment_keys(layout, s);
                let times = trials.times_touching(q.timeline as usize, keys.clone());
                let mut attempt = |layout: &mut Layout, w: [u8; 4]| {
                    let before = layout.widths[s];
                    layout.set_segment(s, w, keys.len());
                    let kept = patch_segment(plan, qi, g, s, src, layout).is_some_and(|undo| {
                        trials.try_in_place(plan, qi, bound, times.clone(), |p| undo.apply(p))
                    });
                    if !kept {
                        layout.set_segment(s, before, keys.len());
                    }
                    kept
                };
                for &step in coarser {
                    let tolerance = tolerances.at(qi, g, tolerances.steps[qi][g] + step);
                    let Some(w) = src.segment_widths(layout, s, tolerance) else {
                        break;
                    };
                    if bits(&w) < bits(&layout.widths[s]) && attempt(layout, w) {
                        break;
                    }
                }
                // Then lane by lane: the fewest bits the error allows, bisected.
                for l in 0..4 {
                    for fewer in [8, 4, 2, 1] {
                        let mut w = layout.widths[s];
                        if w[l] >= fewer {
                            w[l] -= fewer;
                            attempt(layout, w);
                        }
                    }
                }
            }
        }
    }
    choice.tolerances = Some(tolerances);
    // The plan again without the trials' leftovers in its stream.
    *plan = groups.build(choice, nlerp);
}

/// What puts a group [`patch_group`] replaced back.
struct GroupUndo {
    qi: usize,
    g: usize,
    first: u32,
    mark: LaneMark,
}

impl GroupUndo {
    fn apply(self, plan: &mut QuadPlan) {
        if let Some(packed) = plan.packed.as_mut() {
            packed.quads[self.qi][self.g].first = self.first;
            packed.lanes.truncate(self.mark);
        }
    }
}

/// Quad `qi`'s bit-packed group `g` of `plan` encoded again from `src` at `layout`: appended
/// to the stream, the quad pointing at it.
fn patch_group(
    plan: &mut QuadPlan,
    qi: usize,
    g: usize,
    src: &GroupSource,
    layout: &Layout,
) -> Option<GroupUndo> {
    let packed = plan.packed.as_mut()?;
    let mark = packed.lanes.mark();
    let first = packed.quads[qi][g].first;
    packed.quads[qi][g].first = src.encode(layout, &mut packed.lanes);
    Some(GroupUndo { qi, g, first, mark })
}

/// What puts a segment [`patch_segment`] replaced back.
struct SegmentUndo {
    index: usize,
    record: LaneSegment,
    mark: LaneMark,
}

impl SegmentUndo {
    fn apply(self, plan: &mut QuadPlan) {
        if let Some(packed) = plan.packed.as_mut() {
            packed.lanes.segments[self.index] = self.record;
            packed.lanes.truncate(self.mark);
        }
    }
}

/// Segment `s` of quad `qi`'s bit-packed group `g` in `plan` encoded again at `layout`: its
/// fields appended to the stream, its record replaced.
fn patch_segment(
    plan: &mut QuadPlan,
    qi: usize,
    g: usize,
    s: usize,
    src: &GroupSource,
    layout: &Layout,
) -> Option<SegmentUndo> {
    let packed = plan.packed.as_mut()?;
    let group = packed.lanes.groups[packed.quads[qi][g].first as usize];
    let index = group.first_segment as usize + s;
    let mark = packed.lanes.mark();
    let fresh = src.encode_segment(layout, s, &mut packed.lanes)?;
    let record = std::mem::replace(&mut packed.lanes.segments[index], fresh);
    Some(SegmentUndo {
        index,
        record,
        mark,
    })
}
