//! Weighted blending: exactness at the corners ((1, 0) is the first clip bit for bit; a clip
//! blended with itself is itself), per-property normalisation with rest fill-in, quaternion
//! hemisphere alignment, morph weights, bone-control hooks under blending (visibility beats
//! scale tracks) and zero allocations per tick. (The cost of a blend is measured by the benches:
//! `layer_stack_frames` and `cargo bench -p skel-gltf`.)

#![allow(clippy::unwrap_used, clippy::expect_used, reason = "tests")]

mod common;
mod playback_rig;

use std::sync::Arc;

use common::flat;
use playback_rig::{
    DURATION, HAND, MORPH_DEFAULT, RUN, STILL, WALK, WAVE, max_abs_diff, max_abs_diff_f64,
    max_rel_diff, quat_distance, reference_blend, rig,
};
use skel_anim::glam::{Mat4, Vec3};
use skel_anim::{
    AnimError, AnimationController, AnimationData, Channel, ChannelPath, Clip, Handedness,
    Interpolation, NodeRest, NullSink, PoseHook, R_OFF, RecordingSink, S_OFF, Sampler,
    SkeletonBinding, T_OFF, TRS_STRIDE, WeightedBlend, parse_blend_spec,
};

const JOINTS: usize = 8;

fn data() -> Arc<AnimationData> {
    Arc::new(rig(JOINTS))
}

/// Times that hit keys exactly, fall between keys, sit at 0 and at the very end.
const TIMES: [f32; 7] = [0.0, 0.01, 1.0 / 30.0, 0.5, 1.234, 1.99, DURATION];

fn blend_at(blend: &mut WeightedBlend, times: &[f32]) -> RecordingSink {
    for (layer, &t) in blend.layers_mut().iter_mut().zip(times) {
        layer.clock_mut().seek(t);
    }
    let mut sink = RecordingSink::default();
    blend.evaluate(&mut sink);
    sink
}

fn clip_at(data: &Arc<AnimationData>, clip: usize, t: f32) -> (RecordingSink, Vec<f32>) {
    let mut controller = AnimationController::new(data.clone()).unwrap();
    let mut sink = RecordingSink::default();
    controller.evaluate_at(Some(clip), t, &mut sink).unwrap();
    (sink, controller.scratch().trs.clone())
}

#[test]
fn weights_one_and_zero_reproduce_the_first_clip_bit_for_bit() {
    // Bitwise, not within a tolerance: a property with a single contributor at weight >= 1 is
    // copied as sampled (no multiply, no renormalisation), and the other layer is skipped, so
    // the blend runs exactly the float operations of the single-clip controller.
    let data = data();
    for (first, second) in [(WALK, RUN), (RUN, WALK), (WALK, WAVE), (WAVE, WALK)] {
        let mut blend =
            WeightedBlend::with_weights(data.clone(), &[(first, 1.0), (second, 0.0)]).unwrap();
        for t in TIMES {
            let got = blend_at(&mut blend, &[t, 0.7]);
            let (want, want_trs) = clip_at(&data, first, t);
            assert_eq!(
                blend.scratch().trs,
                want_trs,
                "TRS of clip {first} at {t} s"
            );
            assert_eq!(
                got.bone_matrices, want.bone_matrices,
                "clip {first} at {t} s"
            );
            assert_eq!(
                got.morph_weights, want.morph_weights,
                "clip {first} at {t} s"
            );
        }
    }
}

#[test]
fn a_clip_blended_with_itself_is_that_clip() {
    let data = data();
    for clip in [WALK, RUN, WAVE] {
        let mut blend =
            WeightedBlend::with_weights(data.clone(), &[(clip, 0.5), (clip, 0.5)]).unwrap();
        for t in TIMES {
            let got = blend_at(&mut blend, &[t, t]);
            let (want, _) = clip_at(&data, clip, t);
            // Summing two halves and renormalising rounds: within 1e-6 of each element's size.
            let diff = max_rel_diff(flat(&got.bone_matrices[0]), flat(&want.bone_matrices[0]));
            assert!(
                diff <= 1e-6,
                "clip {clip} at {t} s: bones differ by {diff} (relative)"
            );
            assert!(max_abs_diff(&got.morph_weights[0], &want.morph_weights[0]) <= 1e-6);
        }
    }
}

#[test]
fn three_clips_match_the_f64_reference_rule() {
    let data = data();
    for weights in [
        [0.2, 0.3, 0.5],
        [1.0, 1.0, 1.0],
        [0.1, 0.2, 0.1],
        [2.0, 0.5, 0.0],
    ] {
        let layers = [(WALK, weights[0]), (RUN, weights[1]), (WAVE, weights[2])];
        let mut blend = WeightedBlend::with_weights(data.clone(), &layers).unwrap();
        for (i, t) in TIMES.iter().enumerate() {
            let times = [
                *t,
                TIMES[(i + 2) % TIMES.len()],
                TIMES[(i + 4) % TIMES.len()],
            ];
            blend_at(&mut blend, &times);
            let reference: Vec<(usize, f32, f32)> = layers
                .iter()
                .zip(times)
                .map(|(&(c, w), t)| (c, w, t))
                .collect();
            let want = reference_blend(&data, &reference);
            let diff = max_abs_diff_f64(&blend.scratch().trs, &want);
            assert!(
                diff <= 2e-6,
                "weights {weights:?}, times {times:?}: TRS off by {diff}"
            );
        }
    }
}

#[test]
fn a_hand_only_clip_does_not_halve_the_body() {
    // WALK at 1 and WAVE (hand joints only) at 1: the body is exactly WALK, the hand is the
    // even mix of the two — not every bone at half strength against the rest pose.
    let data = data();
    let mut blend = WeightedBlend::with_weights(data.clone(), &[(WALK, 1.0), (WAVE, 1.0)]).unwrap();
    let t = 0.7;
    blend_at(&mut blend, &[t, t]);
    let (_, walk_trs) = clip_at(&data, WALK, t);
    let trs = &blend.scratch().trs;
    let body = (JOINTS - HAND) * TRS_STRIDE;
    assert_eq!(&trs[..body], &walk_trs[..body], "body bones are the walk");
    let (_, wave_trs) = clip_at(&data, WAVE, t);
    for j in JOINTS - HAND..JOINTS {
        let r = j * TRS_STRIDE + R_OFF;
        let (q, w, v) = (&trs[r..r + 4], &walk_trs[r..r + 4], &wave_trs[r..r + 4]);
        let mid: Vec<f32> = w.iter().zip(v).map(|(a, b)| a + b).collect();
        let n = mid.iter().map(|x| x * x).sum::<f32>().sqrt();
        let mid: Vec<f32> = mid.iter().map(|x| x / n).collect();
        assert!(
            quat_distance(q, &mid) < 1e-6,
            "hand joint {j} is the even mix"
        );
        assert!(
            quat_distance(q, w) > 1e-3,
            "hand joint {j} moved away from the walk"
        );
        // Scale is animated by the walk alone: full strength.
        let s = j * TRS_STRIDE + S_OFF;
        assert_eq!(&trs[s..s + 3], &walk_trs[s..s + 3]);
    }
}

#[test]
fn below_weight_one_the_rest_pose_fills_in() {
    let data = data();
    let mut blend = WeightedBlend::with_weights(data.clone(), &[(WALK, 0.25)]).unwrap();
    let t = 0.5;
    let sink = blend_at(&mut blend, &[t]);
    let (_, walk) = clip_at(&data, WALK, t);
    let trs = &blend.scratch().trs;
    // Root translation: the rest is 0, so a quarter of the walk's.
    for c in 0..3 {
        let want = 0.25 * walk[T_OFF + c];
        assert!((trs[T_OFF + c] - want).abs() < 1e-6, "translation {c}");
    }
    // Scale: rest 1.
    let s = 2 * TRS_STRIDE + S_OFF;
    let want = 0.25 * walk[s] + 0.75;
    assert!((trs[s] - want).abs() < 1e-6);
    // Morph weights: towards the mesh's defaults.
    for (i, &d) in MORPH_DEFAULT.iter().enumerate() {
        let (walk_sink, _) = clip_at(&data, WALK, t);
        let want = 0.25 * walk_sink.morph_weights[0][i] + 0.75 * d;
        assert!(
            (sink.morph_weights[0][i] - want).abs() < 1e-6,
            "morph weight {i}"
        );
    }
    // And at weight 0 everything is the rest pose.
    blend.set_weight(0, 0.0).unwrap();
    let sink = blend_at(&mut blend, &[t]);
    let mut rest = AnimationController::new(data.clone()).unwrap();
    let mut rest_sink = RecordingSink::default();
    rest.evaluate_at(None, 0.0, &mut rest_sink).unwrap();
    assert_eq!(sink.bone_matrices, rest_sink.bone_matrices);
    assert_eq!(sink.morph_weights, rest_sink.morph_weights);
}

fn z_rotation(angle: f32) -> [f32; 4] {
    [0.0, 0.0, (angle / 2.0).sin(), (angle / 2.0).cos()]
}

/// One node rotated about z by two single-key clips: "a" by 0.8 rad, "b" by 1.0 rad with its key
/// stored as `-q` (the same rotation, the other hemisphere, as exporters sometimes write it).
fn opposite_signs() -> Arc<AnimationData> {
    let clip = |name: &str, q: [f32; 4]| {
        let s = Sampler::new(vec![0.0], q.to_vec(), Interpolation::Linear).unwrap();
        Clip::new(
            name,
            vec![s],
            vec![Channel {
                sampler: 0,
                node: 0,
                path: ChannelPath::Rotation,
            }],
        )
    };
    Arc::new(AnimationData {
        nodes: vec![NodeRest::new("root", None), NodeRest::new("mesh", None)],
        clips: vec![
            clip("a", z_rotation(0.8)),
            clip("b", z_rotation(1.0).map(|v| -v)),
        ],
        skeletons: vec![SkeletonBinding::new(0, 1, vec![0], vec![]).unwrap()],
        morph_bindings: vec![],
        handedness: Handedness::RightHanded,
    })
}

/// The rotation angle about z of a unit quaternion `[0, 0, z, w]`, whatever its sign.
fn z_angle(q: &[f32]) -> f32 {
    2.0 * q[2].atan2(q[3]).rem_euclid(std::f32::consts::PI)
}

#[test]
fn quaternions_from_opposite_hemispheres_blend_along_the_short_arc() {
    // Without hemisphere alignment 0.5·q(0.8) + 0.5·(-q(1.0)) is a short vector pointing
    // nowhere near either rotation.
    let data = opposite_signs();
    let a = data.clips[0].samplers[0].output().to_vec();
    let b = data.clips[1].samplers[0].output().to_vec();
    for (wa, wb, want_angle) in [
        (0.5, 0.5, Some(0.9)),
        (1.0, 1.0, Some(0.9)),
        (0.25, 0.25, None),
        (0.3, 0.6, None),
        (0.1, 0.3, None),
        (0.0, 0.5, Some(0.5)),
    ] {
        let mut blend = WeightedBlend::with_weights(data.clone(), &[(0, wa), (1, wb)]).unwrap();
        blend.evaluate(&mut NullSink);
        let r = &blend.scratch().trs[R_OFF..R_OFF + 4];
        let to64 = |q: &[f32]| q.iter().map(|&v| f64::from(v)).collect::<Vec<_>>();
        let contributors: Vec<(f64, Vec<f64>)> = [(wa, &a), (wb, &b)]
            .into_iter()
            .filter(|(w, _)| *w > 0.0)
            .map(|(w, q)| (f64::from(w), to64(q)))
            .collect();
        let want = playback_rig::blend_values(&contributors, &[0.0, 0.0, 0.0, 1.0], true);
        let diff = max_abs_diff_f64(r, &want);
        assert!(diff < 1e-6, "weights ({wa}, {wb}): {r:?} against {want:?}");
        if let Some(angle) = want_angle {
            // Equal weights of two rotations about one axis (or one against the identity)
            // average their angles.
            assert!(
                (z_angle(r) - angle).abs() < 1e-5,
                "weights ({wa}, {wb}): angle {} rad, want {angle}",
                z_angle(r)
            );
        }
    }
}

/// Hides joint `hidden` after channels (visibility), and moves joint `moved` to `offset` before
/// channels (a position override), as bone control does.
#[derive(Debug)]
struct TestHook {
    hidden: usize,
    moved: usize,
    offset: [f32; 3],
}

impl PoseHook for TestHook {
    fn before_channels(&self, trs: &mut [f32]) {
        let t = self.moved * TRS_STRIDE + T_OFF;
        trs[t..t + 3].copy_from_slice(&self.offset);
    }
    fn after_channels(&self, trs: &mut [f32]) {
        let s = self.hidden * TRS_STRIDE + S_OFF;
        trs[s..s + 3].fill(0.0);
    }
}

fn linear_part_is_zero(bones: &[Mat4], bone: usize) -> bool {
    let m = bones[bone];
    [m.x_axis, m.y_axis, m.z_axis]
        .iter()
        .all(|c| c.truncate() == Vec3::ZERO)
}

#[test]
fn a_hidden_bone_stays_hidden_under_a_blend_of_clips_with_scale_tracks() {
    let data = data();
    let hidden = 3;
    for layers in [
        vec![(WALK, 0.5), (RUN, 0.5)],
        vec![(WALK, 1.0), (WAVE, 1.0), (RUN, 0.2)],
        vec![(RUN, 0.3)],
    ] {
        assert!(data.is_animated(hidden, ChannelPath::Scale));
        let mut blend = WeightedBlend::with_weights(data.clone(), &layers).unwrap();
        let mut sink = RecordingSink::default();
        blend.tick(300.0, &mut sink);
        assert!(
            !linear_part_is_zero(&sink.bone_matrices[0], hidden),
            "without the hook the scale tracks show the bone"
        );
        blend.set_pose_hook(Some(Arc::new(TestHook {
            hidden,
            moved: 0,
            offset: [0.0; 3],
        })));
        for _ in 0..10 {
            blend.tick(70.0, &mut sink);
            for bone in hidden..JOINTS {
                assert!(
                    linear_part_is_zero(&sink.bone_matrices[0], bone),
                    "{layers:?}: bone {bone} (at or under the hidden one) is hidden"
                );
            }
            assert!(!linear_part_is_zero(&sink.bone_matrices[0], hidden - 1));
        }
    }
}

#[test]
fn overrides_before_channels_are_the_rest_that_fills_in() {
    // The root translation is animated by WALK; at weight 0.5 the other half comes from the
    // override, not from the rest pose. Node 1's translation is animated by no clip: the
    // override holds.
    let data = data();
    let offset = [4.0, 5.0, 6.0];
    for (moved, animated) in [(0, true), (1, false)] {
        let mut blend = WeightedBlend::with_weights(data.clone(), &[(WALK, 0.5)]).unwrap();
        blend.set_pose_hook(Some(Arc::new(TestHook {
            hidden: JOINTS, // the mesh node: nothing visible changes
            moved,
            offset,
        })));
        let t = 0.5;
        blend_at(&mut blend, &[t]);
        let (_, walk) = clip_at(&data, WALK, t);
        let trs = &blend.scratch().trs;
        for (c, &o) in offset.iter().enumerate() {
            let at = moved * TRS_STRIDE + T_OFF + c;
            let want = if animated {
                0.5 * walk[at] + 0.5 * o
            } else {
                o
            };
            assert!((trs[at] - want).abs() < 1e-6, "node {moved} component {c}");
        }
    }
}

#[test]
fn bad_weights_count_as_zero_and_bad_indices_are_errors() {
    let data = data();
    let mut blend = WeightedBlend::with_weights(
        data.clone(),
        &[(WALK, f32::NAN), (RUN, -1.0), (WAVE, f32::INFINITY)],
    )
    .unwrap();
    assert!(blend.layers().iter().all(|l| l.weight() == 0.0));
    let mut sink = RecordingSink::default();
    blend.tick(100.0, &mut sink);
    let (rest, _) = {
        let mut c = AnimationController::new(data.clone()).unwrap();
        let mut s = RecordingSink::default();
        c.evaluate_at(None, 0.0, &mut s).unwrap();
        (s, ())
    };
    assert_eq!(sink.bone_matrices, rest.bone_matrices);
    assert_eq!(
        blend.set_weight(3, 1.0),
        Err(AnimError::NoSuchLayer {
            layer: 3,
            layer_count: 3
        })
    );
    assert_eq!(
        blend.add_layer(9, 1.0),
        Err(AnimError::NoSuchClip {
            clip: 9,
            clip_count: 4
        })
    );
    let removed = blend.remove_layer(1).unwrap();
    assert_eq!(removed.clip(), RUN);
    assert_eq!(blend.layers().len(), 2);
}

#[test]
fn a_zero_length_clip_blends_its_only_key() {
    let data = data();
    let mut blend =
        WeightedBlend::with_weights(data.clone(), &[(STILL, 0.5), (WALK, 0.5)]).unwrap();
    blend.tick(1e6, &mut NullSink);
    assert_eq!(blend.layers()[0].clock().time(), 0.0);
    let walk_t = blend.layers()[1].clock().time();
    let (_, walk) = clip_at(&data, WALK, walk_t);
    let z = blend.scratch().trs[T_OFF + 2];
    assert!((z - (0.5 * 3.0 + 0.5 * walk[T_OFF + 2])).abs() < 1e-6);
}

#[test]
fn a_duplicate_channel_in_one_clip_is_overridden_by_the_later_one_as_in_the_controller() {
    let mut data = rig(JOINTS);
    let clip = &mut data.clips[WALK];
    let late = Sampler::new(
        vec![0.0, 1.0],
        vec![7.0, 0.0, 0.0, 9.0, 0.0, 0.0],
        Interpolation::Linear,
    )
    .unwrap();
    clip.samplers.push(late);
    clip.channels.push(Channel {
        sampler: clip.samplers.len() - 1,
        node: 0,
        path: ChannelPath::Translation,
    });
    let data = Arc::new(data);
    let mut blend = WeightedBlend::with_weights(data.clone(), &[(WALK, 1.0)]).unwrap();
    blend_at(&mut blend, &[0.5]);
    let (_, want) = clip_at(&data, WALK, 0.5);
    assert_eq!(blend.scratch().trs, want);
    assert_eq!(blend.scratch().trs[T_OFF], 8.0);
}

#[test]
fn blend_specs_name_clips_by_name_or_index() {
    let data = rig(JOINTS);
    assert_eq!(
        parse_blend_spec(&data, "walk=0.5,1=0.25, wave = 1").unwrap(),
        vec![(WALK, 0.5), (RUN, 0.25), (WAVE, 1.0)]
    );
    for bad in [
        "", "walk", "jump=1", "walk=-1", "walk=NaN", "4=1", "walk=1,",
    ] {
        assert!(
            matches!(
                parse_blend_spec(&data, bad),
                Err(AnimError::BadBlendSpec { .. })
            ),
            "{bad:?} is rejected"
        );
    }
}

#[test]
fn the_counter_sees_allocations() {
    let info = allocation_counter::measure(|| {
        drop(std::hint::black_box(vec![1.0_f32; 16]));
    });
    assert_eq!(info.count_total, 1, "the counting allocator is installed");
}

#[test]
fn a_tick_of_a_blend_of_three_clips_allocates_nothing() {
    let data = data();
    let mut blend =
        WeightedBlend::with_weights(data, &[(WALK, 0.5), (RUN, 0.3), (WAVE, 0.6)]).unwrap();
    blend.set_pose_hook(Some(Arc::new(TestHook {
        hidden: 5,
        moved: 1,
        offset: [0.0, 2.0, 0.0],
    })));
    blend.layers_mut()[1].clock_mut().set_speed_ratio(-1.5);
    blend.layers_mut()[2].clock_mut().set_looping(false);
    // The recording sink grows on its first use; after that it only copies.
    let mut sink = RecordingSink::default();
    blend.tick(16.0, &mut sink);
    let info = allocation_counter::measure(|| {
        for frame in 0..600 {
            blend.tick(16.6, &mut sink);
            if frame == 300 {
                blend.set_weight(0, 1.0).unwrap();
                blend.capture_snapshot();
                blend.set_snapshot_weight(0.5);
            }
        }
    });
    assert_eq!(
        info.count_total, 0,
        "allocations during 600 ticks: {info:?}"
    );
}
