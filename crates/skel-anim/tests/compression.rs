//! Compressed clips (`RigOptions::compression`): the error of what plays stays within the bound
//! of the clip itself (measured here independently of the compressor, on the world matrices
//! players return, against the clip evaluated in f64 by `common::model_shell`),
//! compression does compress, lossless stays the default, bad options are typed errors,
//! layers work on compressed rigs, and ticks allocate nothing.

#![allow(clippy::unwrap_used, clippy::expect_used, reason = "tests")]

mod common;

use std::sync::Arc;

use common::model_shell::{clip_world_f64, model_shell_error, model_shells};
use common::motions::{Motion, fixed_motions, motion, smooth_rig};
use proptest::prelude::*;
use skel_anim::glam::Mat4;
use skel_anim::{
    AnimError, AnimationData, Compression, CpuKernels, KeyFormat, LayerDesc, NullSink, Player, Rig,
    RigOptions,
};

fn rig(data: &Arc<AnimationData>, compression: Option<Compression>) -> Arc<Rig> {
    let options = RigOptions {
        kernels: CpuKernels::Baseline,
        compression,
    };
    Rig::with_options(Arc::clone(data), &options).unwrap()
}

fn world_at(player: &mut Player, t: f32) -> Vec<Mat4> {
    player.evaluate_clip_at(Some(0), t, &mut NullSink).unwrap();
    player.world_matrices().to_vec()
}

/// Every key time and the quarter points between keys (where the compressor measures).
fn measured_times(keys: usize) -> Vec<f32> {
    let mut t: Vec<f32> = (0..keys.saturating_sub(1))
        .flat_map(|k| [0.0, 0.25, 0.5, 0.75].map(|f| (k as f32 + f) / 30.0))
        .collect();
    t.push((keys - 1) as f32 / 30.0);
    t
}

/// The virtual-shell error (ACL's metric), in f64: the farthest that the points at distance
/// `shell` along each node's axes move between the two poses.
fn shell_error(want: &[Mat4], got: &[Mat4], shell: f64) -> f64 {
    let mut worst = 0.0_f64;
    for (a, b) in want.iter().zip(got) {
        let want: Vec<f64> = a.to_cols_array().iter().map(|&v| f64::from(v)).collect();
        worst = worst.max(model_shell_error(
            &want.try_into().unwrap(),
            b.as_ref(),
            shell,
        ));
    }
    worst
}

/// The largest shell error of `compressed`'s playback against the clip itself (f64, glTF's
/// interpolation), in the model's units, over `times`.
fn worst_error(data: &AnimationData, compressed: &Arc<Rig>, times: &[f32], shell: f32) -> f64 {
    let shells = model_shells(data, 0, f64::from(shell));
    let mut player = Player::new(compressed);
    times.iter().fold(0.0, |worst, &t| {
        let want = clip_world_f64(data, 0, t);
        let got = world_at(&mut player, t);
        want.iter()
            .zip(&got)
            .zip(&shells)
            .fold(worst, |w, ((a, b), &d)| {
                w.max(model_shell_error(a, b.as_ref(), d))
            })
    })
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 40, ..ProptestConfig::default() })]

    /// What plays stays within the bound at every time the compressor measured (up to f32
    /// rounding of two different evaluations), and within twice the bound between them.
    #[test]
    fn compressed_playback_stays_within_the_bound(
        motions in prop::collection::vec(motion(), 2..14),
        keys in 3usize..24,
        loose in any::<bool>(),
        variable in any::<bool>(),
    ) {
        let c = Compression {
            bound: if loose { 1e-3 } else { 1e-4 },
            keys: if variable { KeyFormat::Variable } else { KeyFormat::Fixed },
            ..Compression::default()
        };
        let data = Arc::new(smooth_rig(&motions, keys));
        let compressed = rig(&data, Some(c));
        let report = *compressed.clip_compression(0).expect("the clip is compressed");
        prop_assert!(report.max_error <= c.bound, "{report:?}");
        let at_keys = worst_error(&data, &compressed, &measured_times(keys), c.shell);
        prop_assert!(at_keys <= f64::from(c.bound) + 2e-6, "{at_keys} > {} ({report:?})", c.bound);
        let end = (keys - 1) as f32 / 30.0;
        let off_grid: Vec<f32> = (0..).map(|i| i as f32 / 61.0).take_while(|&t| t <= end).collect();
        let between = worst_error(&data, &compressed, &off_grid, c.shell);
        prop_assert!(between <= 2.0 * f64::from(c.bound) + 2e-6, "{between} ({report:?})");
    }
}

#[test]
fn near_constant_groups_are_held_moving_ones_quantised_and_the_keys_shrink() {
    let data = Arc::new(smooth_rig(&fixed_motions(), 61));
    let c = Compression::default();
    let compressed = rig(&data, Some(c));
    let r = *compressed.clip_compression(0).unwrap();
    assert!(r.held >= 1, "the barely moving root is held: {r:?}");
    assert!(r.bits8 + r.bits16 >= 1, "something is quantised: {r:?}");
    assert!(r.compressed_bytes * 2 <= r.lossless_bytes, "{r:?}");
    assert!(r.ratio() > 1.0, "{r:?}");
    let off_grid: Vec<f32> = (0..122).map(|i| i as f32 / 61.0).collect();
    let e = worst_error(&data, &compressed, &off_grid, c.shell);
    assert!(e > 0.0, "lossy: the error is not zero");
    assert!(e <= 2.0 * f64::from(c.bound), "{e}");
    // The same rig with a bound too tight for anything but f32 keys stores them all.
    let tight = Compression {
        bound: 1e-12,
        nlerp: false,
        ..c
    };
    let exact = *rig(&data, Some(tight)).clip_compression(0).unwrap();
    assert_eq!(
        (exact.held, exact.bits8, exact.bits16),
        (0, 0, 0),
        "{exact:?}"
    );
}

#[test]
fn variable_bit_rates_store_fewer_bytes_within_the_same_bound() {
    let data = Arc::new(smooth_rig(&fixed_motions(), 61));
    let fixed = Compression::default();
    let variable = Compression {
        keys: KeyFormat::Variable,
        ..fixed
    };
    let (f, v) = (rig(&data, Some(fixed)), rig(&data, Some(variable)));
    let (rf, rv) = (
        *f.clip_compression(0).unwrap(),
        *v.clip_compression(0).unwrap(),
    );
    assert!(rv.packed >= 1 && rv.bits8 + rv.bits16 == 0, "{rv:?}");
    assert!(
        rv.compressed_bytes < rf.compressed_bytes,
        "{rv:?} vs {rf:?}"
    );
    assert!(rv.max_error <= variable.bound, "{rv:?}");
    let keys: Vec<f32> = (0..61).map(|i| i as f32 / 30.0).collect();
    let e = worst_error(&data, &v, &keys, variable.shell);
    assert!(e > 0.0 && e <= f64::from(variable.bound) + 2e-6, "{e}");
}

#[test]
fn lossless_is_the_default_and_bad_options_are_typed_errors() {
    let data = Arc::new(smooth_rig(&fixed_motions(), 10));
    let plain = Rig::new(Arc::clone(&data)).unwrap();
    assert!(plain.clip_compression(0).is_none());
    assert_eq!(RigOptions::default().compression, None);
    let compressed = rig(&data, Some(Compression::default()));
    assert!(compressed.clip_compression(0).is_some());
    assert!(
        compressed.clip_compression(1).is_none(),
        "past the last clip"
    );
    for (shell, bound) in [
        (0.03, 0.0),
        (0.03, -1.0),
        (f32::NAN, 1e-4),
        (0.03, f32::INFINITY),
        (0.0, 1e-4),
    ] {
        let c = Compression {
            shell,
            bound,
            ..Compression::default()
        };
        let options = RigOptions {
            compression: Some(c),
            ..RigOptions::default()
        };
        let err = Rig::with_options(Arc::clone(&data), &options).unwrap_err();
        assert!(
            matches!(err, AnimError::BadCompression { .. }),
            "{shell} {bound}: {err:?}"
        );
    }
}

#[test]
fn two_half_layers_of_a_compressed_clip_are_the_clip() {
    let data = Arc::new(smooth_rig(&fixed_motions(), 31));
    let compressed = rig(&data, Some(Compression::default()));
    assert!(compressed.layers_four_nodes_at_a_time(0));
    let mut single = Player::new(&compressed);
    let mut halves = Player::new(&compressed);
    for _ in 0..2 {
        halves
            .add_layer(LayerDesc {
                weight: 0.5,
                ..LayerDesc::new(0)
            })
            .unwrap();
    }
    for step in 0..20 {
        let t = step as f32 * 0.037;
        halves.seek(t);
        halves.evaluate(&mut NullSink);
        let want = world_at(&mut single, t);
        let got = halves.world_matrices();
        let diff = want.iter().zip(got).fold(0.0_f32, |m, (a, b)| {
            m.max(
                (*a - *b)
                    .abs()
                    .to_cols_array()
                    .into_iter()
                    .fold(0.0, f32::max),
            )
        });
        assert!(diff < 1e-5, "t {t}: {diff}");
    }
}

#[test]
fn compressed_ticks_allocate_nothing() {
    let data = Arc::new(smooth_rig(&fixed_motions(), 61));
    let compressed = Rig::with_options(
        data,
        &RigOptions {
            compression: Some(Compression::default()),
            ..RigOptions::default()
        },
    )
    .unwrap();
    let mut player = Player::new(&compressed);
    player.add_layer(LayerDesc::new(0)).unwrap();
    player.tick(0.0, &mut NullSink);
    let count = allocation_counter::measure(|| {
        for _ in 0..500 {
            player.tick(1.0 / 60.0, &mut NullSink);
        }
    })
    .count_total;
    assert_eq!(count, 0);
}

#[test]
fn an_additive_stack_on_a_compressed_rig_stays_near_the_lossless_stack() {
    let data = Arc::new(smooth_rig(&fixed_motions(), 31));
    let c = Compression::default();
    let stack = |rig: &Arc<Rig>| {
        let mut p = Player::new(rig);
        p.add_layer(LayerDesc::new(0)).unwrap();
        let additive = LayerDesc::new(0).additive(skel_anim::Reference::default());
        p.add_layer(LayerDesc {
            start: 0.3,
            ..additive
        })
        .unwrap();
        p
    };
    let (mut lossless, mut compressed) = (stack(&rig(&data, None)), stack(&rig(&data, Some(c))));
    let mut worst = 0.0_f64;
    for step in 0..25 {
        let t = step as f32 * 0.041;
        for p in [&mut lossless, &mut compressed] {
            p.seek(t);
            p.evaluate(&mut NullSink);
        }
        let want = lossless.world_matrices().to_vec();
        worst = worst.max(shell_error(
            &want,
            compressed.world_matrices(),
            f64::from(c.shell),
        ));
    }
    // Each of the two samples within the bound, and the product of the two.
    assert!(worst > 0.0, "the additive layer plays compressed keys too");
    assert!(worst <= 3.0 * f64::from(c.bound), "{worst}");
}

/// A character's cache of decoded keys changes nothing: a player that keeps playing (its
/// cache warm: hit on the later frames of each key interval, emptied when the clip changes)
/// poses bit for bit as a fresh player does at each time (its cache empty), for both key
/// formats, forwards, backwards, across clip changes and at the ends.
#[test]
fn a_warm_key_cache_poses_bit_for_bit_as_a_cold_one() {
    let mut data = smooth_rig(&fixed_motions(), 61);
    let mut other = fixed_motions();
    for m in &mut other {
        m.speed = -3.0;
        m.turn *= 0.5;
    }
    data.clips.push(smooth_rig(&other, 31).clips.remove(0));
    let data = Arc::new(data);
    // Forwards at 60 fps (two frames a key interval), a jump back, the other clip, back again.
    let mut plays: Vec<(usize, f32)> = (0..130).map(|f| (0, f as f32 / 60.0)).collect();
    plays.extend((0..40).map(|f| (0, 1.5 - f as f32 / 90.0)));
    plays.extend((0..50).map(|f| (1, f as f32 / 50.0)));
    plays.extend([
        (0, 0.0),
        (0, 2.0),
        (1, 1.0),
        (0, 1.0 / 60.0),
        (0, 2.0 / 60.0),
    ]);
    for keys in [KeyFormat::Fixed, KeyFormat::Variable] {
        let options = RigOptions {
            compression: Some(Compression {
                keys,
                ..Compression::default()
            }),
            ..RigOptions::default()
        };
        let rig = Rig::with_options(Arc::clone(&data), &options).unwrap();
        assert!(rig.clip_compression(0).is_some() && rig.clip_compression(1).is_some());
        let mut warm = Player::new(&rig);
        for &(clip, t) in &plays {
            warm.evaluate_clip_at(Some(clip), t, &mut NullSink).unwrap();
            let mut cold = Player::new(&rig);
            cold.evaluate_clip_at(Some(clip), t, &mut NullSink).unwrap();
            let bits = |m: &[Mat4]| {
                m.iter()
                    .flat_map(|m| m.to_cols_array().map(f32::to_bits))
                    .collect::<Vec<_>>()
            };
            assert_eq!(
                bits(warm.world_matrices()),
                bits(cold.world_matrices()),
                "{keys:?} clip {clip} at {t}"
            );
        }
    }
}

#[test]
fn a_clip_that_moves_nothing_compresses_with_either_key_format() {
    let still = Motion {
        parent: 0,
        offset: [0.0; 3],
        axis: [0.0; 3],
        shift: 0.0,
        turn: 0.0,
        grow: 0.0,
        speed: 0.5,
    };
    let data = Arc::new(smooth_rig(&[still.clone(), still], 3));
    for keys in [KeyFormat::Fixed, KeyFormat::Variable] {
        let c = Compression {
            keys,
            ..Compression::default()
        };
        let options = RigOptions {
            kernels: CpuKernels::Baseline,
            compression: Some(c),
        };
        let compressed = Rig::with_options(Arc::clone(&data), &options)
            .unwrap_or_else(|e| panic!("{keys:?}: {e}"));
        let (mut a, mut b) = (Player::new(&rig(&data, None)), Player::new(&compressed));
        for t in [0.0, 1.0 / 60.0, 1.0 / 30.0] {
            let e = shell_error(
                &world_at(&mut a, t),
                &world_at(&mut b, t),
                f64::from(c.shell),
            );
            assert_eq!(e, 0.0, "{keys:?}: nothing moves, nothing is lost");
        }
    }
}

/// `data` under a new root node (index 0) of static scale `scale`, as RobotExpressive's
/// joints sit under a scale-100 armature, every translation (rest and keys) divided by it:
/// the same model, its joints in units `scale` times larger.
fn under_armature(data: &AnimationData, scale: f32) -> AnimationData {
    let mut out = data.clone();
    for n in &mut out.nodes {
        n.translation = n.translation.map(|t| t / scale);
        n.parent = Some(n.parent.map_or(0, |p| p + 1));
    }
    out.nodes.insert(
        0,
        skel_anim::NodeRest {
            scale: [scale; 3],
            ..skel_anim::NodeRest::new("armature", None)
        },
    );
    let clip = &mut out.clips[0];
    for ch in &mut clip.channels {
        ch.node += 1;
        if ch.path == skel_anim::ChannelPath::Translation {
            let s = &clip.samplers[ch.sampler];
            let keys = s.output().iter().map(|v| v / scale).collect();
            clip.samplers[ch.sampler] =
                skel_anim::Sampler::new(s.input().to_vec(), keys, s.interpolation()).unwrap();
        }
    }
    out
}

/// The shell is in the model's units: under a static scale-100 armature the same model
/// compresses to about the same bytes within the bound of a 3 cm shell, where holding a shell
/// through the whole world matrix (3 m) would take many more bits; measured that way, its
/// error is far past the bound.
#[test]
fn a_static_scale_above_the_joints_leaves_the_shell_in_the_models_units() {
    let plain = Arc::new(smooth_rig(&fixed_motions(), 61));
    let scaled = Arc::new(under_armature(&plain, 100.0));
    let c = Compression {
        keys: KeyFormat::Variable,
        ..Compression::default()
    };
    let (a, b) = (rig(&plain, Some(c)), rig(&scaled, Some(c)));
    let (ra, rb) = (
        *a.clip_compression(0).unwrap(),
        *b.clip_compression(0).unwrap(),
    );
    assert!(rb.max_error <= c.bound, "{rb:?}");
    let times: Vec<f32> = (0..=480).map(|i| i as f32 / 240.0).collect();
    let model = worst_error(&scaled, &b, &times, c.shell);
    assert!(model <= f64::from(c.bound) + 2e-6, "{model}");
    assert!(
        rb.compressed_bytes * 4 <= ra.compressed_bytes * 5,
        "the same model, about the same bytes: {rb:?} against {ra:?}"
    );
    // The shell through the whole world matrix: 3 cm of the armature's units, 3 m of the model.
    let mut player = Player::new(&b);
    let whole = times.iter().fold(0.0_f64, |worst, &t| {
        let want = clip_world_f64(&scaled, 0, t);
        let got = world_at(&mut player, t);
        want.iter().zip(&got).fold(worst, |w, (m, g)| {
            w.max(model_shell_error(m, g.as_ref(), f64::from(c.shell)))
        })
    });
    assert!(whole > 10.0 * f64::from(c.bound), "{whole}");
}
