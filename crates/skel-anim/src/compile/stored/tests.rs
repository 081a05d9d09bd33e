//! What the format refuses that a file could say: written from a real compressed plan, then
//! the plan changed where bytes could be corrupt.

#![allow(clippy::unwrap_used, reason = "tests")]

use std::sync::Arc;

use crate::compile::test_chain::chain;
use crate::rig::four_node::QuadPlan;
use crate::sample::four_node::{R_ROWS, ROWS};
use crate::sample::packed::{GROUPS, Width};
use crate::{AnimError, AnimationData, ChannelPath, Clip, Compression, KeyFormat, Rig, RigOptions};

fn compressed() -> Arc<Rig> {
    compressed_with(KeyFormat::Variable, 1e-3)
}

fn compressed_with(keys: KeyFormat, bound: f32) -> Arc<Rig> {
    compress(chain(), keys, bound)
}

fn compress(data: AnimationData, keys: KeyFormat, bound: f32) -> Arc<Rig> {
    let options = RigOptions {
        compression: Some(Compression {
            bound,
            keys,
            ..Compression::default()
        }),
        ..RigOptions::default()
    };
    Rig::with_options(Arc::new(data), &options).unwrap()
}

/// `plan` (the compressed plan of `rig`'s clip 0, perhaps changed) stored and attached to a
/// copy of `rig`'s data.
fn attach(rig: &Rig, plan: &QuadPlan) -> Result<AnimationData, AnimError> {
    let report = rig.clip_compression(0).copied().unwrap();
    let keys = super::store(0, plan, &report, &rig.data.nodes)?;
    let mut data = (*rig.data).clone();
    data.attach_stored_keys(0, keys)?;
    Ok(data)
}

/// Asserts that attaching `plan` is refused for a reason naming `why`.
fn refused(rig: &Rig, plan: &QuadPlan, why: &str) {
    let e = attach(rig, plan).unwrap_err();
    assert!(
        matches!(&e, AnimError::BadStoredKeys { reason, .. } if reason.contains(why)),
        "{e}"
    );
}

/// The decoded keys' bits of clip 0 of `rig`.
fn key_bits(rig: &Rig) -> Vec<[u32; 4]> {
    let plan = rig.plan.clips[0].quads.as_ref().unwrap().unpacked();
    plan.keys
        .iter()
        .map(|k| k.to_array().map(f32::to_bits))
        .collect()
}

/// A keyed rotation whose decoded keys are far from unit length (a clip minimum of 10²⁰,
/// written consistently with its segments' decoding) is refused when attached.
#[test]
fn a_rotation_far_from_unit_length_is_refused() {
    let rig = compressed();
    let mut plan = rig.plan.clips[0].quads.clone().unwrap();
    let packed = plan.packed.as_mut().unwrap();
    let g = packed.quads[0][2];
    assert_eq!(
        g.width,
        Width::Lanes,
        "the chain's rotations are bit-packed"
    );
    let group = packed.lanes.groups[g.first as usize];
    let lane = (0..4).find(|&l| !group.held.test(l)).unwrap();
    packed.lanes.clip_ranges[g.first as usize].min[0][lane] = 1e20;
    let first = group.first_segment as usize;
    for s in first..first + super::layout::segment_count(9, group.shift) {
        packed.lanes.segments[s].low[0][lane] = 1e20;
    }
    let report = rig.clip_compression(0).copied().unwrap();
    let keys = super::store(0, &plan, &report, &rig.data.nodes).unwrap();
    let mut data = (*rig.data).clone();
    let e = data.attach_stored_keys(0, keys).unwrap_err();
    assert!(
        matches!(&e, AnimError::BadStoredKeys { reason, .. } if reason.contains("unit length")),
        "{e}"
    );
    assert_eq!(data, *rig.data);
}

/// A held rotation (every key the same, its rows in the record) is checked for unit length
/// row by row: `y`, `z` or `w` far off is refused, where each row alone decides it (the other
/// rows, and the unkeyed scale's, would pass).
#[test]
fn a_held_rotation_far_from_unit_length_is_refused_by_any_row() {
    let rig = compressed();
    let held = |bad: Option<usize>| {
        let mut plan = rig.plan.clips[0].quads.clone().unwrap();
        plan.packed.as_mut().unwrap().quads[0][2].width = Width::Held;
        let q = &mut plan.quads[0];
        for l in 0..q.lanes {
            for c in 0..4 {
                q.held[R_ROWS + c][l] = if c == 0 { 1.0 } else { 0.0 };
            }
        }
        if let Some(c) = bad {
            q.held[R_ROWS + c][0] = 3.0;
        }
        plan
    };
    let data = attach(&rig, &held(None)).unwrap();
    let again = Rig::new(Arc::new(data)).unwrap();
    let q = &again.plan.clips[0].quads.as_ref().unwrap().quads[0];
    assert!(q.r_const, "the rotations are held");
    assert_eq!(q.held[R_ROWS].x, 1.0);
    for c in 1..4 {
        refused(&rig, &held(Some(c)), "unit length");
    }
}

/// A lane no track keys (a padding lane of the last quad) that moves in a bit-packed group
/// is refused: the clip's samplers have nothing for it.
#[test]
fn an_unkeyed_lane_that_moves_in_a_bit_packed_group_is_refused() {
    let rig = compressed();
    let mut plan = rig.plan.clips[0].quads.clone().unwrap();
    let q = plan.quads[1].clone();
    assert_eq!(q.lanes, 1, "the chain's last quad has one node");
    let packed = plan.packed.as_mut().unwrap();
    let g = packed.quads[1]
        .iter()
        .find(|g| g.width == Width::Lanes)
        .copied()
        .unwrap();
    let group = &mut packed.lanes.groups[g.first as usize];
    assert!(group.held.test(1), "a padding lane holds");
    group.held.set(1, false);
    refused(&rig, &plan, "which the clip does not key");
}

/// A lane no track keys whose value in an 8-bit, 16-bit or f32 group is off its rest (the
/// identity here) is refused, whichever group and row it is in.
#[test]
fn an_unkeyed_lane_off_its_rest_in_a_quantised_group_is_refused() {
    let mut seen = Vec::new();
    for (keys, bound) in [(KeyFormat::Fixed, 1e-3), (KeyFormat::Fixed, 1e-9)] {
        let rig = compressed_with(keys, bound);
        let plan = rig.plan.clips[0].quads.clone().unwrap();
        let groups = plan.packed.as_ref().unwrap().quads[1];
        for (gi, g) in groups.iter().enumerate() {
            let rows = GROUPS[gi].1;
            for row in [0, rows - 1] {
                let mut bad = plan.clone();
                let packed = bad.packed.as_mut().unwrap();
                match g.width {
                    Width::Bits8 | Width::Bits16 => {
                        packed.ranges[g.range as usize + row].min[2] += 0.5;
                    }
                    Width::F32 => packed.f32s[g.first as usize + row][2] += 0.5,
                    Width::Held | Width::Lanes => continue,
                }
                seen.push(g.width);
                refused(&rig, &bad, "which the clip does not key");
            }
        }
    }
    for width in [Width::Bits8, Width::F32] {
        assert!(seen.contains(&width), "{width:?} checked: {seen:?}");
    }
}

/// Bounds too fine for 8 or 16 bits: f32 groups (fixed widths) and lanes of 22 bits or more
/// (variable widths; rows past 57 bits) are stored and read back bit for bit, their counts
/// reported.
#[test]
fn f32_groups_and_the_widest_lanes_round_trip() {
    for (keys, bound) in [(KeyFormat::Fixed, 1e-9), (KeyFormat::Variable, 6e-7)] {
        let rig = compressed_with(keys, bound);
        let plan = rig.plan.clips[0].quads.as_ref().unwrap();
        let packed = plan.packed.as_ref().unwrap();
        let widths: Vec<Width> = packed.quads.iter().flatten().map(|g| g.width).collect();
        if keys == KeyFormat::Fixed {
            assert!(widths.contains(&Width::F32), "{widths:?}");
        } else {
            let widest = packed
                .lanes
                .segments
                .iter()
                .flat_map(|s| s.masks)
                .max()
                .unwrap();
            // 22 bits or more: three lanes of a row then pass 57 bits, the reader's wide path.
            assert!(
                widest >= (1 << 22) - 1,
                "a lane of 22 bits or more: {widest:#x}"
            );
        }
        let again = Rig::new(Arc::new(attach(&rig, plan).unwrap())).unwrap();
        assert_eq!(key_bits(&again), key_bits(&rig));
        let (want, got) = (
            rig.clip_compression(0).unwrap(),
            again.clip_compression(0).unwrap(),
        );
        assert_eq!(
            (got.bits8, got.bits16, got.packed, got.float32, got.held),
            (
                want.bits8,
                want.bits16,
                want.packed,
                want.float32,
                want.held
            )
        );
    }
}

/// A held translation whose keyed lane is off its rest in one row only (`x`, `y` or `z`)
/// stores that lane, and plays it back.
#[test]
fn a_held_lane_off_its_rest_in_any_one_row_is_stored() {
    let rig = compressed();
    for row in 0..3 {
        let mut plan = rig.plan.clips[0].quads.clone().unwrap();
        plan.packed.as_mut().unwrap().quads[0][0].width = Width::Held;
        let q = &mut plan.quads[0];
        for l in 0..q.lanes {
            for c in 0..3 {
                q.held[c][l] = super::layout::implied(q, &rig.data.nodes, 0, l, c);
            }
        }
        q.held[row][0] += 0.5;
        let again = Rig::new(Arc::new(attach(&rig, &plan).unwrap())).unwrap();
        let played = &again.plan.clips[0].quads.as_ref().unwrap().quads[0];
        assert!(played.t_const, "row {row}: the translations are held");
        assert_eq!(
            played.held[..3]
                .iter()
                .map(|r| r.to_array())
                .collect::<Vec<_>>(),
            plan.quads[0].held[..3]
                .iter()
                .map(|r| r.to_array())
                .collect::<Vec<_>>(),
            "row {row}"
        );
    }
}

/// A keyed lane that holds still off its rest in a bit-packed translation group (node 1 of
/// the chain, moved to one place) keeps its value through the bytes.
#[test]
fn a_keyed_lane_held_off_its_rest_in_a_bit_packed_group_round_trips() {
    let mut data = chain();
    let clip = &mut data.clips[0];
    let channel = clip
        .channels
        .iter()
        .find(|c| c.node == 1 && c.path == ChannelPath::Translation)
        .copied()
        .unwrap();
    let sampler = &mut clip.samplers[channel.sampler];
    for key in sampler.output_mut().chunks_exact_mut(3) {
        key.copy_from_slice(&[0.2, 0.3, -0.1]);
    }
    let rig = compress(data, KeyFormat::Variable, 1e-3);
    let plan = rig.plan.clips[0].quads.as_ref().unwrap();
    let packed = plan.packed.as_ref().unwrap();
    let g = packed.quads[0][0];
    assert_eq!(g.width, Width::Lanes);
    assert!(packed.lanes.groups[g.first as usize].held.test(1));
    let again = Rig::new(Arc::new(attach(&rig, plan).unwrap())).unwrap();
    assert_eq!(key_bits(&again), key_bits(&rig));
}

/// A compressed rig's clip that keys no translation, rotation or scale has nothing to store.
#[test]
fn a_clip_that_keys_no_transform_stores_nothing() {
    let mut data = chain();
    data.clips.push(Clip::new("still", Vec::new(), Vec::new()));
    let rig = compress(data, KeyFormat::Fixed, 1e-3);
    // Compressed, with a layout of held rest values, and no keys to account for.
    assert_eq!(rig.clip_compression(1).map(|r| r.raw_bytes), Some(0));
    let plan = rig.plan.clips[1].quads.as_ref().unwrap();
    assert!(plan.packed.is_some());
    assert_eq!(rig.stored_keys(1).unwrap(), None);
}

/// Keys written for a clip of other key counts or another number of quads are refused for
/// that reason, before anything else is read.
#[test]
fn keys_of_another_layout_are_refused_for_it() {
    let rig = compressed();
    let report = rig.clip_compression(0).copied().unwrap();
    let plan = rig.plan.clips[0].quads.as_ref().unwrap();
    let keys = super::store(0, plan, &report, &rig.data.nodes).unwrap();
    let layout = crate::rig::plan::lossless_clip(&rig.data, 0).unwrap();
    let lossless = layout.quads.unwrap();
    assert!(super::load(0, &keys, &lossless, &rig.data.nodes).is_ok());
    let mut fewer_keys = lossless.clone();
    fewer_keys.keys.truncate(lossless.keys.len() - ROWS);
    let mut fewer_quads = lossless;
    fewer_quads.quads.pop();
    for other in [fewer_keys, fewer_quads] {
        let e = super::load(0, &keys, &other, &rig.data.nodes).unwrap_err();
        assert!(
            matches!(&e, AnimError::BadStoredKeys { reason, .. } if reason.contains("written for")),
            "{e}"
        );
    }
}

/// A rotation no track keys, at a rest that is neither the identity nor exactly unit (with
/// a negative `w`), holds in a bit-packed group as the compressor's arithmetic turned it: the
/// writer finds it at its rest and the reader rebuilds it bit for bit.
#[test]
fn an_unkeyed_rotation_at_any_rest_round_trips() {
    let mut data = chain();
    data.clips[0]
        .channels
        .retain(|c| !(c.node == 3 && c.path == ChannelPath::Rotation));
    data.nodes[3].rotation = [0.1, -0.2, 0.3, -0.93];
    let mut widths = Vec::new();
    for bound in [1e-2, 1e-3, 1e-4] {
        let rig = compress(data.clone(), KeyFormat::Variable, bound);
        let plan = rig.plan.clips[0].quads.as_ref().unwrap();
        assert!(!plan.quads[0].r_keyed.test(3));
        widths.push(plan.packed.as_ref().unwrap().quads[0][2].width);
        let again = Rig::new(Arc::new(attach(&rig, plan).unwrap())).unwrap();
        assert_eq!(key_bits(&again), key_bits(&rig));
    }
    assert!(widths.contains(&Width::Lanes), "{widths:?}");
}
