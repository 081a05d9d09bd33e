//! proptest strategies for random hierarchies, rest poses, samplers and animated rigs.

#![allow(clippy::unwrap_used, clippy::expect_used, reason = "tests")]

use proptest::prelude::*;
use proptest::sample::Index;
use skel_anim::{
    AnimationData, Channel, ChannelPath, Clip, Handedness, Interpolation, NodeRest, Sampler,
    SkeletonBinding,
};

use super::reference::*;

// ---------------------------------------------------------------------------------------------
// proptest strategies
// ---------------------------------------------------------------------------------------------

/// Parent links of a random forest of 1..`max_nodes` nodes, in a shuffled node order (a child
/// may come before its parent in the array).
pub fn arb_forest(max_nodes: usize) -> impl Strategy<Value = Vec<Option<usize>>> {
    (1..=max_nodes).prop_flat_map(|n| {
        (
            prop::collection::vec((any::<Index>(), prop::bool::weighted(0.15)), n),
            Just((0..n).collect::<Vec<usize>>()).prop_shuffle(),
        )
            .prop_map(|(links, perm)| {
                // In canonical order node i hangs under some node < i (or is a root); perm[i]
                // is where canonical node i is stored.
                let mut parents = vec![None; links.len()];
                for (i, (pick, root)) in links.iter().enumerate() {
                    let parent = (i > 0 && !root).then(|| pick.index(i));
                    parents[perm[i]] = parent.map(|p| perm[p]);
                }
                parents
            })
    })
}

/// Named nodes `n0`, `n1`, … with `parents` and rest transforms `rests` (translation, rotation,
/// scale), as the rig strategies make them.
pub fn nodes_from_rests(
    parents: &[Option<usize>],
    rests: Vec<([f32; 3], [f32; 4], [f32; 3])>,
) -> Vec<NodeRest> {
    parents
        .iter()
        .zip(rests)
        .enumerate()
        .map(|(i, (&parent, (t, r, s)))| NodeRest {
            name: format!("n{i}"),
            parent,
            translation: t,
            rotation: r,
            scale: s,
        })
        .collect()
}

/// The samplers and channels of `specs` on a rig of `n` nodes, channel `i` reading sampler `i`.
pub fn channels_of(specs: Vec<ChannelSpec>, n: usize) -> (Vec<Sampler>, Vec<Channel>) {
    let mut samplers = Vec::new();
    let mut channels = Vec::new();
    for spec in specs {
        channels.push(Channel {
            sampler: samplers.len(),
            node: spec.node.index(n),
            path: spec.path,
        });
        samplers.push(spec.sampler);
    }
    (samplers, channels)
}

/// A unit quaternion (never degenerate).
pub fn arb_unit_quat() -> impl Strategy<Value = [f32; 4]> {
    prop::array::uniform4(-1.0_f32..1.0)
        .prop_filter("non-degenerate", |q| {
            q.iter().map(|v| v * v).sum::<f32>() > 0.04
        })
        .prop_map(|q| {
            let n = q.iter().map(|v| v * v).sum::<f32>().sqrt();
            q.map(|v| v / n)
        })
}

/// A rest transform: translation in ±2, unit rotation, scale in [0.5, 1.5].
pub fn arb_rest() -> impl Strategy<Value = ([f32; 3], [f32; 4], [f32; 3])> {
    (
        prop::array::uniform3(-2.0_f32..2.0),
        arb_unit_quat(),
        prop::array::uniform3(0.5_f32..1.5),
    )
}

/// One of the three interpolations.
pub fn arb_interpolation() -> impl Strategy<Value = Interpolation> {
    prop_oneof![
        Just(Interpolation::Step),
        Just(Interpolation::Linear),
        Just(Interpolation::CubicSpline),
    ]
}

/// Key times: `count` strictly increasing times starting in [0, 1], gaps in [0.05, 1].
pub fn arb_key_times(count: usize) -> impl Strategy<Value = Vec<f32>> {
    (
        0.0_f32..1.0,
        prop::collection::vec(0.05_f32..1.0, count.saturating_sub(1)),
    )
        .prop_map(|(start, gaps)| {
            let mut t = start;
            let mut times = vec![t];
            for g in gaps {
                t += g;
                times.push(t);
            }
            times
        })
}

/// A random translation, rotation or scale channel (the node is picked later from `Index`).
#[derive(Debug, Clone)]
pub struct ChannelSpec {
    /// Which node, out of however many the rig has.
    pub node: Index,
    /// Translation, rotation or scale.
    pub path: ChannelPath,
    /// The sampler.
    pub sampler: Sampler,
}

/// A random TRS sampler for `path` with 1..6 keys and a random interpolation. Rotation values
/// are unit quaternions with random signs (a sign flip is the same rotation, so LINEAR must take
/// the short arc); for CUBICSPLINE they are kept in one hemisphere with small tangents so that
/// the spline never passes near the zero quaternion (where normalising is ill-conditioned).
pub fn arb_trs_sampler(path: ChannelPath) -> impl Strategy<Value = Sampler> {
    (arb_interpolation(), 1_usize..6).prop_flat_map(move |(interpolation, count)| {
        let components = if path == ChannelPath::Rotation { 4 } else { 3 };
        let per_key = interpolation.outputs_per_key();
        (
            arb_key_times(count),
            prop::collection::vec(arb_unit_quat(), count),
            prop::collection::vec(any::<bool>(), count),
            prop::collection::vec(-1.0_f32..1.0, count * per_key * components),
        )
            .prop_map(move |(times, quats, flips, raw)| {
                let mut output = Vec::with_capacity(raw.len());
                let mut prev: Option<[f32; 4]> = None;
                for k in 0..count {
                    for slot in 0..per_key {
                        let is_value = per_key == 1 || slot == 1;
                        let r = &raw[(k * per_key + slot) * components..][..components];
                        match path {
                            ChannelPath::Rotation if is_value => {
                                let mut q = quats[k];
                                let cubic = interpolation == Interpolation::CubicSpline;
                                let dot = prev.map_or(1.0, |p| {
                                    p.iter().zip(q).map(|(a, b)| a * b).sum::<f32>()
                                });
                                if (cubic && dot < 0.0) || (!cubic && flips[k]) {
                                    q = q.map(|v| -v);
                                }
                                prev = Some(q);
                                output.extend(q);
                            }
                            ChannelPath::Rotation => output.extend(r.iter().map(|v| v * 0.25)),
                            ChannelPath::Scale if is_value => {
                                output.extend(r.iter().map(|v| 1.0 + 0.5 * v));
                            }
                            _ if is_value => output.extend(r.iter().map(|v| 3.0 * v)),
                            _ => output.extend(r.iter().map(|v| 2.0 * v)),
                        }
                    }
                }
                Sampler::new(times, output, interpolation).unwrap()
            })
    })
}

/// A random TRS channel.
pub fn arb_channel() -> impl Strategy<Value = ChannelSpec> {
    prop_oneof![
        Just(ChannelPath::Translation),
        Just(ChannelPath::Rotation),
        Just(ChannelPath::Scale),
    ]
    .prop_flat_map(|path| {
        (any::<Index>(), arb_trs_sampler(path)).prop_map(move |(node, sampler)| ChannelSpec {
            node,
            path,
            sampler,
        })
    })
}

/// A random rig: a shuffled forest with random rest transforms, a random clip of up to
/// `max_channels` TRS channels, a skeleton binding over a random subset of the nodes with
/// random inverse binds and a random mesh node, and a random handedness.
pub fn arb_animated_rig(
    max_nodes: usize,
    max_channels: usize,
) -> impl Strategy<Value = AnimationData> {
    arb_forest(max_nodes).prop_flat_map(move |parents| {
        let n = parents.len();
        (
            Just(parents),
            prop::collection::vec(arb_rest(), n),
            prop::collection::vec(arb_channel(), 0..=max_channels),
            prop::collection::vec(any::<Index>(), 1..6),
            prop::collection::vec(arb_rest(), 5),
            any::<Index>(),
            any::<bool>(),
        )
            .prop_map(
                |(parents, rests, specs, joint_picks, ibm_trs, mesh, left)| {
                    let n = parents.len();
                    let nodes = nodes_from_rests(&parents, rests);
                    let (samplers, channels) = channels_of(specs, n);
                    let joints: Vec<usize> = joint_picks.iter().map(|j| j.index(n)).collect();
                    let ibm = joints
                        .iter()
                        .enumerate()
                        .flat_map(|(i, _)| {
                            let (t, r, s) = ibm_trs[i % ibm_trs.len()];
                            to_f32(&compose_f32_in(t, r, s))
                        })
                        .collect();
                    AnimationData {
                        nodes,
                        clips: vec![Clip::new("random", samplers, channels)],
                        skeletons: vec![
                            SkeletonBinding::new(0, mesh.index(n), joints, ibm).unwrap(),
                        ],
                        morph_bindings: vec![],
                        handedness: if left {
                            Handedness::LeftHanded
                        } else {
                            Handedness::RightHanded
                        },
                    }
                },
            )
    })
}
