//! Property tracks (material colours, visibility, …) through the player: sampled on the clip's
//! timeline and blended by the joints' rules, against an f64 reference.

use std::sync::Arc;

use proptest::prelude::*;
use skel_anim::{
    AnimError, AnimationData, Channel, ChannelPath, Clip, GroupDesc, Handedness, Interpolation,
    LayerDesc, Mask, NodeRest, Player, PropertyKind, PropertyPose, PropertyTrack, Reference, Rig,
    Sampler,
};

const COLOUR: usize = 0;
const VISIBLE: usize = 1;
const REST_COLOUR: [f32; 4] = [0.2, 0.4, 0.6, 1.0];

/// A clip whose colour goes linearly from `a` to `b` over one second and whose visibility
/// steps to `flip` at 0.5 s; a translation channel on node 1 so that it animates a joint too.
fn clip(name: &str, a: [f32; 4], b: [f32; 4], flip: bool) -> Result<Clip, AnimError> {
    let colour = Sampler::new(vec![0.0, 1.0], [a, b].concat(), Interpolation::Linear)?;
    let visible = Sampler::new(
        vec![0.0, 0.5],
        vec![1.0, if flip { 0.0 } else { 1.0 }],
        Interpolation::Step,
    )?;
    let move_x = Sampler::new(vec![0.0, 1.0], vec![0.0; 6], Interpolation::Linear)?;
    Ok(Clip::new(
        name,
        vec![colour, visible, move_x],
        vec![Channel {
            sampler: 2,
            node: 1,
            path: ChannelPath::Translation,
        }],
    )
    .with_properties([
        PropertyTrack {
            slot: COLOUR,
            kind: PropertyKind::Float(4),
            sampler: 0,
            rest: REST_COLOUR,
            node: None,
        },
        PropertyTrack {
            slot: VISIBLE,
            kind: PropertyKind::Bool,
            sampler: 1,
            rest: [1.0, 0.0, 0.0, 0.0],
            node: Some(1),
        },
    ]))
}

fn rig(clips: Vec<Clip>) -> Result<Arc<Rig>, AnimError> {
    Rig::new(Arc::new(AnimationData {
        nodes: vec![NodeRest::new("root", None), NodeRest::new("arm", Some(0))],
        clips,
        skeletons: vec![],
        morph_bindings: vec![],
        handedness: Handedness::RightHanded,
    }))
}

fn lerp64(a: [f32; 4], b: [f32; 4], t: f32) -> [f64; 4] {
    let t = f64::from(t.clamp(0.0, 1.0));
    std::array::from_fn(|k| f64::from(a[k]) + (f64::from(b[k]) - f64::from(a[k])) * t)
}

fn colour_strategy() -> impl Strategy<Value = [f32; 4]> {
    prop::array::uniform4(-2.0f32..2.0)
}

fn close(got: [f32; 4], want: [f64; 4]) -> Result<(), TestCaseError> {
    for k in 0..4 {
        prop_assert!(
            (f64::from(got[k]) - want[k]).abs() < 1e-5,
            "component {k}: {got:?} against {want:?}"
        );
    }
    Ok(())
}

proptest! {
    /// Two blend layers: the normalised weighted average at a total of 1 or more, the rest
    /// value filling below 1; the visibility (a bool) is the heavier layer's.
    #[test]
    fn two_blend_layers_average_floats_and_pick_the_heavier_bool(
        a0 in colour_strategy(), b0 in colour_strategy(),
        a1 in colour_strategy(), b1 in colour_strategy(),
        w0 in 0.0f32..1.5, w1 in 0.0f32..1.5,
        t0 in 0.0f32..0.99, t1 in 0.0f32..0.99,
    ) {
        let rig = rig(vec![clip("a", a0, b0, true)?, clip("b", a1, b1, false)?])?;
        let mut player = Player::new(&rig);
        player.add_layer(LayerDesc::new(0).weight(w0).start(t0))?;
        player.add_layer(LayerDesc::new(1).weight(w1).start(t1))?;
        let mut pose = PropertyPose::new(&rig.data().clips);
        player.sample_properties(&mut pose);

        let (v0, v1) = (lerp64(a0, b0, t0), lerp64(a1, b1, t1));
        let (w0d, w1d) = (f64::from(w0), f64::from(w1));
        let total = w0d + w1d;
        let want: [f64; 4] = std::array::from_fn(|k| {
            let sum = w0d * v0[k] + w1d * v1[k];
            if total >= 1.0 { sum / total } else { sum + (1.0 - total) * f64::from(REST_COLOUR[k]) }
        });
        if total > 0.0 {
            close(pose.value(COLOUR).unwrap(), want)?;
        } else {
            close(pose.value(COLOUR).unwrap(), REST_COLOUR.map(f64::from))?;
        }
        // Layer 0 hides at 0.5 s, layer 1 never does.
        let hidden0 = t0 >= 0.5;
        let want_visible = if w0 == 0.0 && w1 == 0.0 {
            true
        } else if w0 > w1 { !hidden0 } else { true };
        prop_assert_eq!(pose.bool(VISIBLE), Some(want_visible));
        prop_assert_eq!(pose.is_animated(COLOUR), total > 0.0);
    }

    /// An additive layer adds `w · (v − reference)`, its reference being its own clip at 0.
    #[test]
    fn additive_layers_add_the_difference_from_their_reference(
        a0 in colour_strategy(), b0 in colour_strategy(),
        a1 in colour_strategy(), b1 in colour_strategy(),
        w in -1.0f32..1.5, t0 in 0.0f32..0.99, t1 in 0.0f32..0.99,
    ) {
        let rig = rig(vec![clip("a", a0, b0, false)?, clip("b", a1, b1, false)?])?;
        let mut player = Player::new(&rig);
        player.add_layer(LayerDesc::new(0).start(t0))?;
        player.add_layer(LayerDesc::new(1).weight(w).start(t1).additive(Reference::default()))?;
        let mut pose = PropertyPose::new(&rig.data().clips);
        player.sample_properties(&mut pose);
        let (v0, v1, r1) = (lerp64(a0, b0, t0), lerp64(a1, b1, t1), lerp64(a1, b1, 0.0));
        let want: [f64; 4] = std::array::from_fn(|k| v0[k] + f64::from(w) * (v1[k] - r1[k]));
        close(pose.value(COLOUR).unwrap(), want)?;
    }

    /// An override group lays its members' blend over the base by its weight; a mask that
    /// leaves out the visibility's node keeps the base's visibility.
    #[test]
    fn override_groups_lerp_by_their_weight_and_masks_weigh_node_properties(
        a0 in colour_strategy(), b0 in colour_strategy(),
        a1 in colour_strategy(), b1 in colour_strategy(),
        gw in 0.0f32..1.0, t0 in 0.0f32..0.99, t1 in 0.0f32..0.99,
    ) {
        let rig = rig(vec![clip("a", a0, b0, false)?, clip("b", a1, b1, true)?])?;
        let mut player = Player::new(&rig);
        player.add_layer(LayerDesc::new(0).start(t0))?;
        let g = player.add_group(GroupDesc::new().weight(gw).mask(Mask::default().include([0]).exclude([1])))?;
        player.add_layer(LayerDesc::new(1).start(t1).group(g))?;
        let mut pose = PropertyPose::new(&rig.data().clips);
        player.sample_properties(&mut pose);
        let (v0, v1) = (lerp64(a0, b0, t0), lerp64(a1, b1, t1));
        let gwd = f64::from(gw);
        let want: [f64; 4] = std::array::from_fn(|k| v0[k] + gwd * (v1[k] - v0[k]));
        close(pose.value(COLOUR).unwrap(), want)?;
        // Clip b hides node 1 after 0.5 s, but the group's mask leaves node 1 out.
        prop_assert_eq!(pose.bool(VISIBLE), Some(true));
    }
}

#[test]
fn properties_follow_the_clock_through_ticks() -> Result<(), AnimError> {
    let rig = rig(vec![clip("a", [0.0; 4], [1.0; 4], true)?])?;
    let mut player = Player::new(&rig);
    player.add_layer(LayerDesc::new(0))?;
    let mut pose = PropertyPose::new(&rig.data().clips);
    let mut sink = skel_anim::NullSink;
    player.tick(0.25, &mut sink);
    player.sample_properties(&mut pose);
    assert!((pose.value(COLOUR).unwrap()[0] - 0.25).abs() < 1e-6);
    assert_eq!(pose.bool(VISIBLE), Some(true));
    player.tick(0.5, &mut sink);
    player.sample_properties(&mut pose);
    assert!((pose.value(COLOUR).unwrap()[2] - 0.75).abs() < 1e-6);
    assert_eq!(pose.bool(VISIBLE), Some(false));
    assert_eq!(pose.kind(COLOUR), Some(PropertyKind::Float(4)));
    Ok(())
}

#[test]
fn a_property_track_with_a_missing_or_narrow_sampler_is_refused() -> Result<(), AnimError> {
    let mut c = clip("a", [0.0; 4], [1.0; 4], false)?;
    c.properties[0].sampler = 9;
    assert!(matches!(
        rig(vec![c]),
        Err(AnimError::BadPropertyTrack { property: 0, .. })
    ));
    let mut c = clip("a", [0.0; 4], [1.0; 4], false)?;
    c.properties[0].sampler = 1; // one component, colour needs four
    assert!(matches!(
        rig(vec![c]),
        Err(AnimError::BadPropertyTrack { property: 0, .. })
    ));
    Ok(())
}
