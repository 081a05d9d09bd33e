//! Layer-group helpers shared by the group tests: a random rig with four clips and a
//! two-target mesh, random masks, the masks' per-node weights and the additive rule in f64.

use proptest::prelude::*;
use proptest::sample::Index;
use skel_anim::{
    AnimationData, Channel, ChannelPath, Clip, Handedness, Interpolation, Mask, MorphBinding,
    NodeRest, Player, Sampler,
};

use super::{
    ChannelSpec, arb_channel, arb_forest, arb_rest, channels_of, nodes_from_rests, pose_f64,
};

/// A random forest with four random clips; node 0 carries a two-target mesh whose weights
/// clips 1 and 3 animate.
pub fn arb_rig() -> impl Strategy<Value = AnimationData> {
    arb_forest(6).prop_flat_map(|parents| {
        let n = parents.len();
        (
            Just(parents),
            prop::collection::vec(arb_rest(), n),
            prop::collection::vec(prop::collection::vec(arb_channel(), 1..7), 4),
            prop::collection::vec(0.0f32..1.0, 12),
            any::<bool>(),
        )
            .prop_map(|(parents, rests, clips, morph, shared)| {
                let n = parents.len();
                let nodes = nodes_from_rests(&parents, rests);
                let clips = clips
                    .into_iter()
                    .enumerate()
                    .map(|(c, specs)| {
                        let weights = (c % 2 == 1).then(|| &morph[(c / 2) * 6..(c / 2) * 6 + 6]);
                        let clip = clip(format!("c{c}"), specs, n, weights);
                        if shared {
                            super::clips::on_shared_times(&clip)
                        } else {
                            clip
                        }
                    })
                    .collect();
                AnimationData {
                    nodes,
                    clips,
                    skeletons: vec![],
                    morph_bindings: vec![MorphBinding {
                        node: 0,
                        default_weights: vec![0.25, 0.5],
                    }],
                    handedness: Handedness::RightHanded,
                }
            })
    })
}

pub fn clip(name: String, specs: Vec<ChannelSpec>, n: usize, weights: Option<&[f32]>) -> Clip {
    let (mut samplers, mut channels) = channels_of(specs, n);
    if let Some(w) = weights {
        channels.push(Channel {
            sampler: samplers.len(),
            node: 0,
            path: ChannelPath::Weights,
        });
        let s = Sampler::new(vec![0.0, 0.7, 1.6], w.to_vec(), Interpolation::Linear).unwrap();
        samplers.push(s);
    }
    Clip::new(name, samplers, channels)
}

/// A random mask: one include root, one exclude root, one joint weight.
pub type MaskSpec = (Option<Index>, Option<Index>, Option<(Index, f32)>);

pub fn arb_mask() -> impl Strategy<Value = Option<MaskSpec>> {
    prop::option::weighted(
        0.4,
        (
            any::<Option<Index>>(),
            any::<Option<Index>>(),
            prop::option::of((any::<Index>(), 0.0f32..1.0)),
        ),
    )
}

pub fn mask(spec: &MaskSpec, n: usize) -> Mask {
    let (include, exclude, joint) = spec;
    let mut m = Mask::default()
        .include(include.iter().map(|i| i.index(n)))
        .exclude(exclude.iter().map(|i| i.index(n)));
    if let Some((node, w)) = joint {
        m = m.joint_weight(node.index(n), *w);
    }
    m
}

/// The property a reference follows: a node's translation, rotation or scale, or (`None`) the
/// first morph binding's weights.
pub type Prop = Option<(usize, ChannelPath)>;

/// `prop` of the f64 pose of `clip` (the rest pose for `None`) at `time`.
pub fn prop_value(data: &AnimationData, prop: Prop, clip: Option<usize>, time: f32) -> Vec<f64> {
    let (trs, w) = pose_f64(data, clip, time);
    match prop {
        None => w[0].clone(),
        Some((n, ChannelPath::Translation)) => trs[n].t.to_vec(),
        Some((n, ChannelPath::Rotation)) => trs[n].r.to_vec(),
        Some((n, _)) => trs[n].s.to_vec(),
    }
}

/// Whether `clip` has a channel for `prop`.
pub fn animates(data: &AnimationData, prop: Prop, clip: usize) -> bool {
    data.clips[clip].channels.iter().any(|ch| match prop {
        None => ch.path == ChannelPath::Weights,
        Some((n, p)) => ch.node == n && ch.path == p,
    })
}

/// Mask weight per node, from the mask's definition (for the reference).
pub fn mask_weights(data: &AnimationData, m: Option<&Mask>) -> Vec<f64> {
    let n = data.nodes.len();
    let Some(m) = m else {
        return vec![1.0; n];
    };
    let under = |node: usize, roots: &[usize]| {
        let mut cur = Some(node);
        while let Some(c) = cur {
            if roots.contains(&c) {
                return true;
            }
            cur = data.nodes[c].parent;
        }
        false
    };
    (0..n)
        .map(|node| {
            if let Some(&(_, w)) = m.joint_weights.iter().rev().find(|(j, _)| *j == node) {
                return f64::from(w);
            }
            let inc = m.include.is_empty() || under(node, &m.include);
            if inc && !under(node, &m.exclude) {
                1.0
            } else {
                0.0
            }
        })
        .collect()
}

/// The additive rule: `v · (conj(r) · x)^w` for rotations, `v + w · (x − r)` otherwise.
pub fn add(v: &[f64], x: &[f64], r: &[f64], w: f64, rotation: bool) -> Vec<f64> {
    if !rotation {
        return v
            .iter()
            .zip(x)
            .zip(r)
            .map(|((v, x), r)| v + w * (x - r))
            .collect();
    }
    let q = glam::DQuat::from_slice(v);
    let delta = glam::DQuat::from_slice(r).conjugate() * glam::DQuat::from_slice(x);
    let delta = if delta.w < 0.0 { -delta } else { delta };
    let (axis, angle) = delta.to_axis_angle();
    let powered = glam::DQuat::from_axis_angle(axis, angle * w);
    (q * powered).normalize().to_array().to_vec()
}

pub fn close(got: &[f32], want: &[f64], rotation: bool, tol: f64) -> bool {
    let d: f64 = got.iter().zip(want).map(|(g, w)| f64::from(*g) * w).sum();
    let s = if rotation && d < 0.0 { -1.0 } else { 1.0 };
    got.iter()
        .zip(want)
        .all(|(g, w)| (f64::from(*g) - s * w).abs() <= tol * w.abs().max(1.0))
}

/// Every property of the player's last pose against `want`.
pub fn check_pose(
    data: &AnimationData,
    p: &Player,
    want: impl Fn(Prop) -> Vec<f64>,
) -> Result<(), TestCaseError> {
    let trs = &p.scratch().trs;
    for node in 0..data.nodes.len() {
        for (path, off, len) in [
            (ChannelPath::Translation, 0, 3),
            (ChannelPath::Rotation, 3, 4),
            (ChannelPath::Scale, 7, 3),
        ] {
            let want = want(Some((node, path)));
            let got = &trs[node * 12 + off..node * 12 + off + len];
            let rotation = path == ChannelPath::Rotation;
            prop_assert!(
                close(got, &want, rotation, 2e-4),
                "node {} {:?}: {:?} vs {:?}",
                node,
                path,
                got,
                want
            );
        }
    }
    let want = want(None);
    let got = p.morph_weights(0).unwrap();
    prop_assert!(
        close(got, &want, false, 2e-4),
        "morph: {:?} vs {:?}",
        got,
        want
    );
    Ok(())
}
