//! Additive groups' snapshots: the frozen change (per property, the delta the group's snapshot
//! and members applied at their weights) against an f64 reference on random rigs, stacks,
//! weights and masks, captured twice (the second capture holding the first snapshot) and added
//! as one more member at its weight × the group's weight and mask; a capture leaves the pose as
//! it was; and the snapshot at weight 1 holds the pose its members showed.
#![allow(clippy::unwrap_used, clippy::expect_used, reason = "tests")]

mod common;

use std::sync::Arc;

use common::groups::{
    MaskSpec, Prop, add, animates, arb_mask, arb_rig, check_pose, mask, mask_weights, prop_value,
};
use proptest::prelude::*;
use proptest::sample::Index;
use skel_anim::{
    AnimationData, ChannelPath, GroupDesc, LayerDesc, NullSink, Player, Reference, Rig,
};

/// One member: clip, mask, and its weight in each of the three phases.
type Member = (Index, Option<MaskSpec>, [f32; 3]);

/// The stack: a base blend layer of clip `base`, then one additive group (weight, mask) whose
/// members play at `times[k]` with weights `w[k]` in phase `k`; snapshot weights after the
/// first and the second capture.
struct Case {
    base: usize,
    group_weight: f32,
    group_mask: Option<MaskSpec>,
    members: Vec<(usize, Option<MaskSpec>, [f32; 3])>,
    times: [f32; 3],
    snapshot_weights: [f32; 2],
}

/// The player of `case`, with the descriptions the reference reads.
fn player(rig: &Arc<Rig>, data: &AnimationData, case: &Case) -> Option<(Player, Vec<LayerDesc>)> {
    let n = data.nodes.len();
    let mut p = Player::new(rig);
    p.add_layer(LayerDesc::new(case.base)).ok()?;
    let mut g = GroupDesc::new().additive().weight(case.group_weight);
    if let Some(m) = &case.group_mask {
        g = g.mask(mask(m, n));
    }
    let g = p.add_group(g).ok()?;
    let mut descs = Vec::new();
    for (clip, m, _) in &case.members {
        let mut d = LayerDesc::new(*clip)
            .group(g)
            .additive(Reference::default());
        if let Some(m) = m {
            d = d.mask(mask(m, n));
        }
        p.add_layer(d.clone()).ok()?;
        descs.push(d);
    }
    Some((p, descs))
}

/// Puts every layer at `t` (clamped to its clip) and the members at their weights of phase `k`.
fn phase(p: &mut Player, case: &Case, k: usize) {
    for (i, layer) in p.layers_mut().iter_mut().enumerate() {
        let end = layer.clock().to();
        layer.clock_mut().seek(case.times[k].min(end));
        if i > 0 {
            layer.set_weight(case.members[i - 1].2[k]);
        }
    }
}

/// The f64 rule for property `prop`: the base clip (or rest), then the group's snapshot (the
/// change of phase 1 at the first snapshot weight, then phase 2's members, frozen) at the
/// second snapshot weight × the group's, then phase 3's members at their weights × the group's.
fn reference(data: &AnimationData, case: &Case, members: &[LayerDesc], prop: Prop) -> Vec<f64> {
    let rotation = matches!(prop, Some((_, ChannelPath::Rotation)));
    let node = prop.map_or(0, |p| p.0);
    let get = |c: Option<usize>, time: f32| prop_value(data, prop, c, time);
    let animates = |c: usize| animates(data, prop, c);
    let at = |c: usize, k: usize| case.times[k].clamp(0.0, data.clips[c].duration());
    let none: Vec<f64> = match prop {
        Some((_, ChannelPath::Rotation)) => vec![0.0, 0.0, 0.0, 1.0],
        None => vec![0.0; 2],
        _ => vec![0.0; 3],
    };
    let members_of = |v: Vec<f64>, k: usize, gain: f64| {
        members.iter().zip(&case.members).fold(v, |v, (l, m)| {
            let w = f64::from(m.2[k]) * mask_weights(data, l.mask.as_ref())[node] * gain;
            if w == 0.0 || !animates(l.clip) {
                return v;
            }
            let value = get(Some(l.clip), at(l.clip, k));
            add(&v, &value, &get(Some(l.clip), 0.0), w, rotation)
        })
    };
    let snapshot = |v: Vec<f64>, change: &[f64], w: f64| {
        if w == 0.0 {
            v
        } else {
            add(&v, change, &none, w, rotation)
        }
    };
    let [ws1, ws2] = case.snapshot_weights.map(f64::from);
    let first = members_of(none.clone(), 0, 1.0);
    let second = members_of(snapshot(none.clone(), &first, ws1), 1, 1.0);
    let gain =
        f64::from(case.group_weight) * mask_weights(data, group_mask(data, case).as_ref())[node];
    let below = get(Some(case.base), at(case.base, 2));
    members_of(snapshot(below, &second, ws2 * gain), 2, gain)
}

fn group_mask(data: &AnimationData, case: &Case) -> Option<skel_anim::Mask> {
    case.group_mask.as_ref().map(|m| mask(m, data.nodes.len()))
}

fn arb_member() -> impl Strategy<Value = Member> {
    (
        any::<Index>(),
        arb_mask(),
        [
            prop_oneof![Just(1.0f32), -1.0f32..1.5],
            prop_oneof![Just(0.0f32), -1.0f32..1.5],
            prop_oneof![Just(0.0f32), -1.0f32..1.5],
        ],
    )
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(256))]

    #[test]
    fn the_frozen_change_matches_the_f64_reference(
        data in arb_rig(),
        base in any::<Index>(),
        group in (prop_oneof![Just(1.0f32), -1.0f32..1.5], arb_mask()),
        members in prop::collection::vec(arb_member(), 1..4),
        times in [0.0f32..2.0, 0.0f32..2.0, 0.0f32..2.0],
        snapshot_weights in [prop_oneof![Just(1.0f32), 0.0f32..1.5], prop_oneof![Just(1.0f32), 0.0f32..1.5]],
    ) {
        let c = data.clips.len();
        let case = Case {
            base: base.index(c),
            group_weight: group.0,
            group_mask: group.1,
            members: members.iter().map(|(clip, m, w)| (clip.index(c), *m, *w)).collect(),
            times,
            snapshot_weights,
        };
        let rig = Rig::new(Arc::new(data.clone())).unwrap();
        let Some((mut p, descs)) = player(&rig, &data, &case) else { return Ok(()) };
        phase(&mut p, &case, 0);
        p.capture_group_snapshot(0).unwrap();
        p.set_group_snapshot_weight(0, case.snapshot_weights[0]).unwrap();
        phase(&mut p, &case, 1);
        p.capture_group_snapshot(0).unwrap();
        p.set_group_snapshot_weight(0, case.snapshot_weights[1]).unwrap();
        phase(&mut p, &case, 2);
        p.evaluate(&mut NullSink);
        check_pose(&data, &p, |prop| reference(&data, &case, &descs, prop))?;
    }

    #[test]
    fn a_capture_leaves_the_pose_and_the_snapshot_holds_it(
        data in arb_rig(),
        members in prop::collection::vec(arb_member(), 1..4),
        t in 0.0f32..2.0,
    ) {
        let c = data.clips.len();
        let case = Case {
            base: 0,
            group_weight: 1.0,
            group_mask: None,
            members: members.iter().map(|(clip, m, w)| (clip.index(c), *m, *w)).collect(),
            times: [t; 3],
            snapshot_weights: [1.0; 2],
        };
        let rig = Rig::new(Arc::new(data.clone())).unwrap();
        let Some((mut p, _)) = player(&rig, &data, &case) else { return Ok(()) };
        phase(&mut p, &case, 0);
        p.evaluate(&mut NullSink);
        let shown = (p.scratch().trs.clone(), p.morph_weights(0).unwrap().to_vec());
        let world = p.world_matrices().to_vec();
        p.capture_group_snapshot(0).unwrap();
        prop_assert_eq!(&shown.0, &p.scratch().trs);
        prop_assert_eq!(&shown.1[..], p.morph_weights(0).unwrap());
        // The members off, the snapshot on: the same pose (at group weight 1 the frozen change
        // is the members' changes composed; within f32 rounding, a rotation's sign aside).
        p.set_group_snapshot_weight(0, 1.0).unwrap();
        for layer in &mut p.layers_mut()[1..] {
            layer.set_weight(0.0);
        }
        p.evaluate(&mut NullSink);
        let within = |x: &[f32], y: &[f32]| {
            x.iter().zip(y).all(|(a, b)| (a - b).abs() <= 2e-4 * b.abs().max(1.0))
        };
        let held = p.world_matrices().to_vec();
        prop_assert!(within(common::flat(&held), common::flat(&world)), "{:?} vs {:?}", held, world);
        prop_assert!(within(p.morph_weights(0).unwrap(), &shown.1));
        p.clear_group_snapshot(0).unwrap();
        prop_assert!(!p.groups()[0].has_snapshot());
    }
}
