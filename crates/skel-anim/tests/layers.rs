//! The player's layer rules against an f64 reference on random rigs and stacks, and the
//! identities every layered blend must keep: one blend layer of weight 1 is the clip, an
//! additive layer of weight 0 or a clip added over itself at its reference time leaves the base,
//! complementary masks give each side exactly, weight −1 cancels +1, a float mask of 0.5 is half
//! the weight, cross-fades never pop and keep their weights summing to 1.
#![allow(clippy::unwrap_used, clippy::expect_used, reason = "tests")]

mod common;

use std::sync::Arc;

use common::groups::{clip, mask_weights};
use common::{Trs64, arb_channel, arb_forest, arb_rest, nodes_from_rests, pose_f64};
use proptest::prelude::*;
use proptest::sample::Index;
use skel_anim::{
    AnimationData, ChannelPath, FadeSync, Handedness, LayerDesc, Mask, NullSink, Player, Reference,
    Rig,
};

/// A random forest with three random clips over it.
fn arb_rig() -> impl Strategy<Value = AnimationData> {
    arb_forest(7).prop_flat_map(|parents| {
        let n = parents.len();
        (
            Just(parents),
            prop::collection::vec(arb_rest(), n),
            prop::collection::vec(prop::collection::vec(arb_channel(), 1..8), 3),
        )
            .prop_map(|(parents, rests, clips)| {
                let n = parents.len();
                let nodes = nodes_from_rests(&parents, rests);
                let clips = clips
                    .into_iter()
                    .enumerate()
                    .map(|(c, specs)| clip(format!("c{c}"), specs, n, None))
                    .collect();
                AnimationData {
                    nodes,
                    clips,
                    skeletons: vec![],
                    morph_bindings: vec![],
                    handedness: Handedness::RightHanded,
                }
            })
    })
}

/// [`arb_rig`] or, half the time, the same rig with every clip's channels resampled onto one
/// key-time array as LINEAR or STEP keys (what exporters write, and what the player layers four
/// nodes at a time): both of the player's layer passes meet the same rules.
fn arb_any_rig() -> impl Strategy<Value = AnimationData> {
    (arb_rig(), any::<bool>()).prop_map(|(mut data, shared)| {
        if shared {
            for clip in &mut data.clips {
                *clip = common::clips::on_shared_times(clip);
            }
        }
        data
    })
}

/// A random mask: include roots, exclude roots, one joint weight.
type MaskSpec = (Vec<Index>, Vec<Index>, Option<(Index, f32)>);

/// One random layer: clip, mode, weight, reference, mask.
#[derive(Debug, Clone)]
struct LayerSpec {
    clip: Index,
    additive: bool,
    weight: f32,
    reference: Option<(Index, f32)>,
    mask: Option<MaskSpec>,
}

fn arb_layer() -> impl Strategy<Value = LayerSpec> {
    (
        any::<Index>(),
        any::<bool>(),
        -1.5f32..1.5,
        prop::option::of((any::<Index>(), 0.0f32..3.0)),
        prop::option::of((
            prop::collection::vec(any::<Index>(), 0..2),
            prop::collection::vec(any::<Index>(), 0..2),
            prop::option::of((any::<Index>(), 0.0f32..1.0)),
        )),
    )
        .prop_map(|(clip, additive, weight, reference, mask)| LayerSpec {
            clip,
            additive,
            weight: if additive { weight } else { weight.abs() },
            reference,
            mask,
        })
}

fn desc(spec: &LayerSpec, data: &AnimationData) -> LayerDesc {
    let (n, c) = (data.nodes.len(), data.clips.len());
    let mut d = LayerDesc::new(spec.clip.index(c)).weight(spec.weight);
    if spec.additive {
        d = d.additive(
            spec.reference
                .map_or(Reference::default(), |(clip, time)| Reference {
                    clip: Some(clip.index(c)),
                    time,
                }),
        );
    }
    if let Some((include, exclude, joint)) = &spec.mask {
        let mut mask = Mask::default()
            .include(include.iter().map(|i| i.index(n)))
            .exclude(exclude.iter().map(|i| i.index(n)));
        if let Some((node, w)) = joint {
            mask = mask.joint_weight(node.index(n), *w);
        }
        d = d.mask(mask);
    }
    d
}

/// The f64 rule of the player's module docs, property by property.
fn reference_f64(
    data: &AnimationData,
    layers: &[LayerDesc],
    t: f32,
    masks: &[Vec<f64>],
) -> Vec<Trs64> {
    let (rest, _) = pose_f64(data, None, 0.0);
    let duration = |c: usize| data.clips[c].duration();
    let poses: Vec<Vec<Trs64>> = layers
        .iter()
        .map(|l| pose_f64(data, Some(l.clip), t.clamp(0.0, duration(l.clip))).0)
        .collect();
    let animates = |clip: usize, node: usize, path: ChannelPath| {
        data.clips[clip]
            .channels
            .iter()
            .any(|ch| ch.node == node && ch.path == path)
    };
    let mut out = rest.clone();
    for node in 0..data.nodes.len() {
        for path in [
            ChannelPath::Translation,
            ChannelPath::Rotation,
            ChannelPath::Scale,
        ] {
            let get = |trs: &Trs64| -> Vec<f64> {
                match path {
                    ChannelPath::Translation => trs.t.to_vec(),
                    ChannelPath::Rotation => trs.r.to_vec(),
                    _ => trs.s.to_vec(),
                }
            };
            let rotation = path == ChannelPath::Rotation;
            let rest_v = get(&rest[node]);
            let mut sum = vec![0.0; rest_v.len()];
            let (mut total, mut count, mut first): (f64, usize, Vec<f64>) = (0.0, 0, vec![]);
            for (i, l) in layers.iter().enumerate() {
                let w = f64::from(l.weight) * masks[i][node];
                if matches!(l.mode, skel_anim::LayerMode::Blend)
                    && w > 0.0
                    && animates(l.clip, node, path)
                {
                    let v = get(&poses[i][node]);
                    if count == 0 {
                        first = v.clone();
                    }
                    let dot: f64 = v.iter().zip(&first).map(|(a, b)| a * b).sum();
                    let sign = if rotation && dot < 0.0 { -1.0 } else { 1.0 };
                    for (s, x) in sum.iter_mut().zip(&v) {
                        *s += sign * w * x;
                    }
                    total += w;
                    count += 1;
                }
            }
            let mut v = if count == 0 {
                rest_v.clone()
            } else if count == 1 && total >= 1.0 {
                first.clone()
            } else if total < 1.0 {
                let dot: f64 = rest_v.iter().zip(&first).map(|(a, b)| a * b).sum();
                let sign = if rotation && dot < 0.0 { -1.0 } else { 1.0 };
                sum.iter()
                    .zip(&rest_v)
                    .map(|(s, r)| s + sign * (1.0 - total) * r)
                    .collect()
            } else if rotation {
                sum
            } else {
                sum.iter().map(|s| s / total).collect()
            };
            if rotation {
                v = common::normalize_f64(&v);
            }
            for (i, l) in layers.iter().enumerate() {
                let skel_anim::LayerMode::Additive(r) = l.mode else {
                    continue;
                };
                let w = f64::from(l.weight) * masks[i][node];
                if w == 0.0 || !animates(l.clip, node, path) {
                    continue;
                }
                let rc = r.clip.unwrap_or(l.clip);
                let refv = get(&pose_f64(data, Some(rc), r.time.clamp(0.0, duration(rc))).0[node]);
                let x = get(&poses[i][node]);
                if rotation {
                    let q = glam::DQuat::from_slice(&v);
                    let delta =
                        glam::DQuat::from_slice(&refv).conjugate() * glam::DQuat::from_slice(&x);
                    let delta = if delta.w < 0.0 { -delta } else { delta };
                    let (axis, angle) = delta.to_axis_angle();
                    let powered = glam::DQuat::from_axis_angle(axis, angle * w);
                    v = (q * powered).normalize().to_array().to_vec();
                } else {
                    for ((o, a), b) in v.iter_mut().zip(&x).zip(&refv) {
                        *o += w * (a - b);
                    }
                }
            }
            let o = &mut out[node];
            match path {
                ChannelPath::Translation => o.t = [v[0], v[1], v[2]],
                ChannelPath::Rotation => o.r = [v[0], v[1], v[2], v[3]],
                _ => o.s = [v[0], v[1], v[2]],
            }
        }
    }
    out
}

fn player_with(rig: &Arc<Rig>, layers: &[LayerDesc], t: f32) -> Option<Player> {
    let mut player = Player::new(rig);
    for d in layers {
        player.add_layer(d.clone()).ok()?;
    }
    for layer in player.layers_mut() {
        let end = layer.clock().to();
        layer.clock_mut().seek(t.min(end));
    }
    player.evaluate(&mut NullSink);
    Some(player)
}

fn trs_close(got: &[f32], want: &[Trs64], tol: f64) -> Result<(), String> {
    for (node, w) in want.iter().enumerate() {
        let rec = &got[node * 12..node * 12 + 12];
        let wr = if (0..4).map(|i| f64::from(rec[3 + i]) * w.r[i]).sum::<f64>() < 0.0 {
            -1.0
        } else {
            1.0
        };
        let pairs =
            w.t.iter()
                .map(|&x| (x, 0))
                .chain(w.r.iter().map(|&x| (wr * x, 1)))
                .chain(w.s.iter().map(|&x| (x, 2)));
        for ((want, _), i) in pairs.zip([0, 1, 2, 3, 4, 5, 6, 7, 8, 9]) {
            let g = f64::from(rec[i]);
            if (g - want).abs() > tol * want.abs().max(1.0) {
                return Err(format!("node {node} element {i}: {g} vs {want}"));
            }
        }
    }
    Ok(())
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(256))]

    #[test]
    fn layered_pose_matches_the_f64_reference(
        data in arb_any_rig(),
        specs in prop::collection::vec(arb_layer(), 1..5),
        t in 0.0f32..3.0,
    ) {
        let layers: Vec<LayerDesc> = specs.iter().map(|s| desc(s, &data)).collect();
        let rig = Rig::new(Arc::new(data.clone())).unwrap();
        // Masks that select nothing are errors (tested below); skip such draws.
        let Some(player) = player_with(&rig, &layers, t) else { return Ok(()); };
        let masks: Vec<Vec<f64>> = layers.iter().map(|d| mask_weights(&data, d.mask.as_ref())).collect();
        let want = reference_f64(&data, &layers, t, &masks);
        trs_close(&player.scratch().trs, &want, 2e-4).map_err(TestCaseError::fail)?;
        // The world matrices the player placed (in the same pass, on the four-node path) are
        // the hierarchy of its TRS records.
        let mut player = player;
        let mut scratch = skel_anim::PoseScratch::for_rig(&rig);
        scratch.trs.copy_from_slice(&player.scratch().trs);
        skel_anim::compute_world_matrices(&data, &mut scratch);
        for (i, (a, b)) in common::flat(player.world_matrices()).iter().zip(common::flat(&scratch.world)).enumerate() {
            prop_assert!((a - b).abs() <= 1e-5 * b.abs().max(1.0), "world[{}]: {} vs {}", i, a, b);
        }
    }

    #[test]
    fn clips_on_one_key_time_array_take_the_four_node_pass(data in arb_rig()) {
        let mut data = data;
        for clip in &mut data.clips {
            *clip = common::clips::on_shared_times(clip);
        }
        let rig = Rig::new(Arc::new(data)).unwrap();
        for c in 0..rig.clip_count() {
            prop_assert!(rig.layers_four_nodes_at_a_time(c), "clip {c}");
        }
    }

    #[test]
    fn layer_identities_hold(data in arb_any_rig(), t in 0.0f32..3.0, root in any::<Index>()) {
        let rig = Rig::new(Arc::new(data.clone())).unwrap();
        let trs = |layers: &[LayerDesc]| player_with(&rig, layers, t).unwrap().scratch().trs.clone();
        let base = trs(&[LayerDesc::new(0)]);
        // One blend layer of weight 1 is the clip, bit for bit (the controller's pose).
        let mut c = skel_anim::AnimationController::from_rig(&rig);
        c.evaluate_at(Some(0), t.min(data.clips[0].duration()), &mut NullSink).unwrap();
        prop_assert_eq!(&base, &c.scratch().trs);
        // An additive layer of weight 0 leaves the base.
        let add0 = trs(&[LayerDesc::new(0), LayerDesc::new(1).weight(0.0).additive(Reference::default())]);
        prop_assert_eq!(&add0, &base);
        // A clip added over itself at its reference time is the base.
        let t1 = t.min(data.clips[1].duration());
        let own = Reference { clip: Some(1), time: t1 };
        let same = trs(&[LayerDesc::new(0), LayerDesc::new(1).additive(own)]);
        let want: Vec<Trs64> = base.chunks(12).map(|r| Trs64 {
            t: [r[0], r[1], r[2]].map(f64::from),
            r: [r[3], r[4], r[5], r[6]].map(f64::from),
            s: [r[7], r[8], r[9]].map(f64::from),
        }).collect();
        trs_close(&same, &want, 1e-5).map_err(TestCaseError::fail)?;
        // Weight −1 cancels weight +1.
        let cancel = trs(&[
            LayerDesc::new(0),
            LayerDesc::new(2).additive(Reference::default()),
            LayerDesc::new(2).weight(-1.0).additive(Reference::default()),
        ]);
        trs_close(&cancel, &want, 1e-4).map_err(TestCaseError::fail)?;
        // A float mask of 0.5 on every node is the layer at half weight.
        let n = data.nodes.len();
        let half_mask = (0..n).fold(Mask::default(), |m, node| m.joint_weight(node, 0.5));
        let masked = trs(&[LayerDesc::new(0), LayerDesc::new(1).mask(half_mask)]);
        let halved = trs(&[LayerDesc::new(0), LayerDesc::new(1).weight(0.5)]);
        prop_assert_eq!(masked, halved);
        // Complementary masks: A's pose inside the subtree, B's outside, exactly (when the
        // subtree is not the whole rig: then B's mask would select nothing, an error).
        let root = root.index(n);
        let inside_set = mask_weights(&data, Some(&Mask::default().include([root])));
        if inside_set.iter().all(|&w| w == 1.0) {
            return Ok(());
        }
        let inside = trs(&[
            LayerDesc::new(0).mask(Mask::default().include([root])),
            LayerDesc::new(1).mask(Mask::default().exclude([root])),
        ]);
        let a = base;
        let b = trs(&[LayerDesc::new(1)]);
        for node in 0..n {
            let want = if inside_set[node] == 1.0 { &a } else { &b };
            prop_assert_eq!(&inside[node * 12..node * 12 + 10], &want[node * 12..node * 12 + 10], "node {}", node);
        }
    }

    #[test]
    fn crossfades_never_pop_and_weights_sum_to_one(
        data in arb_any_rig(),
        steps in prop::collection::vec((0.0f32..0.2, any::<Option<Index>>()), 1..40),
    ) {
        let rig = Rig::new(Arc::new(data.clone())).unwrap();
        let mut player = Player::new(&rig);
        player.add_layer(LayerDesc::new(0)).unwrap();
        player.tick(0.0, &mut NullSink);
        for (dt, fade) in steps {
            if let Some(target) = fade {
                let before = player.scratch().trs.clone();
                player.crossfade_to(target.index(data.clips.len()), 0.5, FadeSync::Restart).unwrap();
                player.tick(0.0, &mut NullSink);
                // The fade starts from the pose on screen.
                let want: Vec<Trs64> = before.chunks(12).map(|r| Trs64 {
                    t: [r[0], r[1], r[2]].map(f64::from),
                    r: [r[3], r[4], r[5], r[6]].map(f64::from),
                    s: [r[7], r[8], r[9]].map(f64::from),
                }).collect();
                trs_close(&player.scratch().trs, &want, 1e-5).map_err(TestCaseError::fail)?;
            }
            player.tick(dt, &mut NullSink);
            let total: f32 = player.layers().iter().map(skel_anim::Layer::effective_weight).sum();
            prop_assert!((total - 1.0).abs() < 1e-5, "weights sum to {}", total);
        }
        // Once every fade has ended, one layer plays at full weight: the clip alone.
        player.tick(1.0, &mut NullSink);
        prop_assert_eq!(player.layers().len(), 1);
        prop_assert!(!player.is_fading());
    }
}
