//! A choice of how each group of a clip's quads is stored, and the plan it makes: what both
//! searches of the compressor build and play.

use crate::compile::bit_rates::{GroupSource, Layout};
use crate::compile::tolerances::Tolerances;
use crate::rig::four_node::{QuadPlan, fix_if_constant, hold_constants};
use crate::sample::four_node::ROWS;
use crate::sample::packed::{GROUPS, PackedKeys, Width};

/// How each group of each quad is stored, and the layouts of the bit-packed ones.
pub(crate) struct Choice {
    pub(crate) widths: Vec<[Width; 3]>,
    pub(crate) layouts: Vec<[Option<Layout>; 3]>,
    /// The tolerances the layouts were chosen at, where they were.
    pub(crate) tolerances: Option<Tolerances>,
}

/// A clip's lossless quads, where each quad's keys end, and its moving groups ready to
/// bit-pack: what every choice is built from.
pub(crate) struct Groups<'a> {
    pub(crate) lossless: &'a QuadPlan,
    pub(crate) ends: Vec<usize>,
    /// Per quad, its translation, scale and rotation groups where they move.
    pub(crate) sources: Vec<[Option<GroupSource>; 3]>,
}

impl<'a> Groups<'a> {
    pub(crate) fn new(lossless: &'a QuadPlan) -> Self {
        let ends: Vec<usize> = lossless
            .quads
            .iter()
            .skip(1)
            .map(|q| q.first)
            .chain([lossless.keys.len()])
            .collect();
        let sources = lossless
            .quads
            .iter()
            .zip(&ends)
            .map(|(q, &end)| {
                let keys = &lossless.keys[q.first..end];
                let moving = [!q.t_const, !q.s_const, !q.r_const];
                std::array::from_fn(|g| {
                    moving[g].then(|| GroupSource::new(keys, GROUPS[g].0, g == 2))
                })
            })
            .collect();
        Self {
            lossless,
            ends,
            sources,
        }
    }

    /// Every moving group stored as `width`, the others held.
    pub(crate) fn every_moving(&self, width: Width) -> Choice {
        Choice {
            widths: self
                .sources
                .iter()
                .map(|s| {
                    s.each_ref()
                        .map(|g| if g.is_some() { width } else { Width::Held })
                })
                .collect(),
            layouts: self.sources.iter().map(|_| [None, None, None]).collect(),
            tolerances: None,
        }
    }

    /// The lossless plan stored as `choice` says (groups held by it made constant at their
    /// first key), the rotations of quads flagged in `nlerp` by normalised lerp.
    pub(crate) fn build(&self, choice: &Choice, nlerp: &[bool]) -> QuadPlan {
        let (lossless, ends, sources) = (self.lossless, &self.ends, &self.sources);
        let mut quads = lossless.quads.clone();
        let mut fixed = Vec::new();
        let mut packed = PackedKeys {
            nlerp: nlerp.to_vec(),
            // Quads whose rotations are constant never interpolate: either rule suits them.
            uniform: uniform(lossless, nlerp),
            lossless_len: lossless.keys.len(),
            ..PackedKeys::default()
        };
        for (qi, (q, &end)) in quads.iter_mut().zip(ends).enumerate() {
            let widths = choice.widths[qi];
            let keys = &lossless.keys[q.first..end];
            let held = widths.map(|w| w == Width::Held);
            if held != [q.t_const, q.s_const, q.r_const] {
                [q.t_const, q.s_const, q.r_const] = held;
                hold_constants(q, &keys[..ROWS]);
            }
            // At most one fixed quad per quad: the count fits as the lossless plan's did.
            let _ = fix_if_constant(q, &mut fixed);
            let groups = std::array::from_fn(|g| {
                let lanes = match (&sources[qi][g], &choice.layouts[qi][g]) {
                    (Some(src), Some(layout)) if widths[g] == Width::Lanes => {
                        src.encode(layout, &mut packed.lanes)
                    }
                    _ => 0,
                };
                packed.push_group(keys, GROUPS[g], widths[g], lanes)
            });
            packed.quads.push(groups);
        }
        QuadPlan {
            quads,
            keys: Vec::new(),
            fixed,
            packed: Some(packed),
        }
    }
}

/// The rotation rule every quad of `lossless` that interpolates rotations shares, if they
/// share one.
pub(crate) fn uniform(
    lossless: &QuadPlan,
    nlerp: &[bool],
) -> Option<crate::sample::four_node::Rot> {
    uniform_of(&lossless.quads, nlerp)
}

/// The rotation rule every quad of `quads` whose rotations move shares (`nlerp`: each quad's
/// flag), if they share one: quads with constant rotations never interpolate, so either rule
/// suits them.
pub(crate) fn uniform_of(
    quads: &[crate::sample::four_node::Quad],
    nlerp: &[bool],
) -> Option<crate::sample::four_node::Rot> {
    let mut moving = quads.iter().zip(nlerp).filter(|(q, _)| !q.r_const);
    if moving.clone().all(|(_, &n)| n) {
        Some(crate::sample::four_node::NLERP)
    } else if moving.all(|(_, &n)| !n) {
        Some(crate::sample::four_node::SLERP)
    } else {
        None
    }
}
