//! Many characters over one asset: shared keyframes (pointer identity), independent clocks and
//! scratch, `tick_all` equal to ticking each, and (feature `rayon`) `par_tick_all` bit-identical
//! to the serial path. An ignored test prints the parallel speed-up.

#![allow(clippy::unwrap_used, clippy::expect_used, reason = "tests")]

mod playback_rig;

use std::sync::Arc;

use playback_rig::{RUN, WALK, WAVE, rig};
use skel_anim::{
    AnimError, AnimationController, AnimationData, NullSink, RecordingSink, WeightedBlend,
    instantiate, tick_all,
};

fn data() -> Arc<AnimationData> {
    Arc::new(rig(8))
}

/// A crowd whose members differ: clip, start time, speed and loop mode.
fn crowd(data: &Arc<AnimationData>, count: usize) -> Vec<AnimationController> {
    let mut crowd = instantiate(data.clone(), Some(WALK), count).unwrap();
    for (i, c) in crowd.iter_mut().enumerate() {
        c.set_clip(Some([WALK, RUN, WAVE][i % 3])).unwrap();
        c.time = (i as f32 * 0.137) % 2.0;
        c.speed_ratio = 0.5 + (i % 5) as f32 * 0.25 - if i % 7 == 0 { 2.0 } else { 0.0 };
        c.looping = i % 4 != 0;
    }
    crowd
}

#[test]
fn instances_share_the_keyframes_not_copies() {
    let data = data();
    let crowd = instantiate(data.clone(), Some(RUN), 3).unwrap();
    let output = data.clips[RUN].samplers[0].output().as_ptr();
    for c in &crowd {
        assert!(Arc::ptr_eq(c.data(), &data));
        assert!(std::ptr::eq(
            c.data().clips[RUN].samplers[0].output().as_ptr(),
            output
        ));
        assert!(std::ptr::eq(
            c.data().clips[WALK].samplers[3].input().as_ptr(),
            data.clips[WALK].samplers[3].input().as_ptr()
        ));
        assert_eq!(c.clip(), Some(RUN));
    }
    // One compiled rig for the whole crowd: it holds the data once, the instances hold it.
    assert_eq!(Arc::strong_count(&data), 2);
    assert!(crowd.iter().all(|c| Arc::ptr_eq(c.rig(), crowd[0].rig())));
    assert_eq!(Arc::strong_count(crowd[0].rig()), 3);
    // Each has its own scratch.
    assert!(!std::ptr::eq(
        crowd[0].scratch().trs.as_ptr(),
        crowd[1].scratch().trs.as_ptr()
    ));
    assert!(matches!(
        instantiate(data, Some(9), 2),
        Err(AnimError::NoSuchClip { clip: 9, .. })
    ));
}

#[test]
fn instances_are_independent() {
    let data = data();
    let mut crowd = instantiate(data.clone(), Some(WALK), 2).unwrap();
    crowd[0].speed_ratio = 3.0;
    crowd[0].set_clip(Some(RUN)).unwrap();
    let mut sinks = vec![RecordingSink::default(), RecordingSink::default()];
    for _ in 0..30 {
        tick_all(&mut crowd, 16.0, &mut sinks).unwrap();
    }
    // Instance 1 is exactly what a lone controller playing the walk would show.
    let mut lone = AnimationController::new(data).unwrap();
    lone.set_clip(Some(WALK)).unwrap();
    let mut lone_sink = RecordingSink::default();
    for _ in 0..30 {
        lone.tick(16.0, &mut lone_sink);
    }
    assert_eq!(crowd[1].time, lone.time);
    assert_eq!(sinks[1].bone_matrices, lone_sink.bone_matrices);
    assert_eq!(crowd[1].world_matrices(), lone.world_matrices());
    assert_ne!(crowd[0].time, crowd[1].time);
    assert_ne!(sinks[0].bone_matrices, sinks[1].bone_matrices);
}

#[test]
fn tick_all_is_ticking_each_and_needs_one_sink_each() {
    let data = data();
    let mut a = crowd(&data, 12);
    let mut b = a.clone();
    let mut sinks_a = vec![RecordingSink::default(); 12];
    let mut sinks_b = vec![RecordingSink::default(); 12];
    for _ in 0..20 {
        tick_all(&mut a, 21.0, &mut sinks_a).unwrap();
        for (c, s) in b.iter_mut().zip(&mut sinks_b) {
            c.tick(21.0, s);
        }
    }
    for (x, y) in sinks_a.iter().zip(&sinks_b) {
        assert_eq!(x.bone_matrices, y.bone_matrices);
        assert_eq!(x.morph_weights, y.morph_weights);
    }
    let before: Vec<f32> = a.iter().map(|c| c.time).collect();
    assert_eq!(
        tick_all(&mut a, 21.0, &mut sinks_a[..11]),
        Err(AnimError::LengthMismatch {
            what: "sinks (one per animated instance)",
            expected: 12,
            got: 11
        })
    );
    let after: Vec<f32> = a.iter().map(|c| c.time).collect();
    assert_eq!(before, after, "nothing is ticked on a mismatch");
}

#[test]
fn blends_tick_as_instances_too() {
    let data = data();
    let one = WeightedBlend::with_weights(data, &[(WALK, 0.6), (RUN, 0.7)]).unwrap();
    let mut blends = vec![one; 4];
    for (i, b) in blends.iter_mut().enumerate() {
        b.layers_mut()[0].clock_mut().seek(i as f32 * 0.3);
    }
    let mut sinks = vec![RecordingSink::default(); 4];
    tick_all(&mut blends, 10.0, &mut sinks).unwrap();
    assert_ne!(sinks[0].bone_matrices, sinks[1].bone_matrices);
    let info = allocation_counter::measure(|| {
        for _ in 0..50 {
            tick_all(&mut blends, 10.0, &mut sinks).unwrap();
        }
    });
    assert_eq!(info.count_total, 0, "{info:?}");
}

#[cfg(feature = "rayon")]
#[test]
fn parallel_ticks_are_bit_identical_to_serial_ones() {
    let data = data();
    let mut serial = crowd(&data, 301);
    let mut parallel = serial.clone();
    let mut serial_sinks = vec![RecordingSink::default(); 301];
    let mut parallel_sinks = vec![RecordingSink::default(); 301];
    for frame in 0..25 {
        let dt = 16.0 + frame as f32 * 1.37;
        tick_all(&mut serial, dt, &mut serial_sinks).unwrap();
        skel_anim::par_tick_all(&mut parallel, dt, &mut parallel_sinks).unwrap();
        for (i, (s, p)) in serial_sinks.iter().zip(&parallel_sinks).enumerate() {
            let bits = |v: &Vec<Vec<f32>>| -> Vec<u32> {
                v.concat().iter().map(|x| x.to_bits()).collect()
            };
            let matrix_bits = |v: &Vec<Vec<skel_anim::glam::Mat4>>| -> Vec<u32> {
                v.concat()
                    .iter()
                    .flat_map(|m| m.to_cols_array())
                    .map(f32::to_bits)
                    .collect()
            };
            assert_eq!(
                matrix_bits(&s.bone_matrices),
                matrix_bits(&p.bone_matrices),
                "instance {i}, frame {frame}"
            );
            assert_eq!(
                bits(&s.morph_weights),
                bits(&p.morph_weights),
                "instance {i}, frame {frame}"
            );
        }
    }
    assert!(matches!(
        skel_anim::par_tick_all(&mut parallel, 1.0, &mut parallel_sinks[..3]),
        Err(AnimError::LengthMismatch { .. })
    ));
}

#[test]
fn serial_ticks_of_a_crowd_allocate_nothing() {
    let data = data();
    let mut crowd = crowd(&data, 50);
    let mut sinks = vec![NullSink; 50];
    let info = allocation_counter::measure(|| {
        for _ in 0..20 {
            tick_all(&mut crowd, 16.0, &mut sinks).unwrap();
        }
    });
    assert_eq!(info.count_total, 0, "{info:?}");
}
