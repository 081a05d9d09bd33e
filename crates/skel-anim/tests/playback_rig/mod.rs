//! A generated rig for the playback tests (groups, blending, cross-fades, instances): a chain of
//! joints with smooth, known motion, scale tracks on every joint, a "hand" that only one clip
//! animates, sign-flipped quaternion keys, morph weights and a zero-length clip.

#![allow(
    dead_code,
    reason = "each test binary uses a different part of the rig"
)]

use std::f32::consts::PI;

use skel_anim::{
    AnimationData, Channel, ChannelPath, Clip, Handedness, Interpolation, MorphBinding, NodeRest,
    R_OFF, S_OFF, Sampler, SkeletonBinding, T_OFF, TRS_STRIDE, evaluate_sampler,
};

/// Clip indices of [`rig`].
pub const WALK: usize = 0;
pub const RUN: usize = 1;
pub const WAVE: usize = 2;
pub const STILL: usize = 3;

/// Every clip but STILL lasts this long (seconds).
pub const DURATION: f32 = 2.0;
/// Keys per second of the generated clips.
pub const KEYS_PER_S: f32 = 30.0;
/// Default morph weights of the mesh.
pub const MORPH_DEFAULT: [f32; 2] = [0.1, 0.2];

/// How many of the last joints make up the "hand" (only WAVE animates them alone).
pub const HAND: usize = 3;

/// The mesh node of a rig with `joints` joints.
pub fn mesh_node(joints: usize) -> usize {
    joints
}

fn axis_angle(axis: [f32; 3], angle: f32) -> [f32; 4] {
    let (s, c) = (angle / 2.0).sin_cos();
    [axis[0] * s, axis[1] * s, axis[2] * s, c]
}

fn sampler(components: usize, f: impl Fn(f32) -> Vec<f32>) -> Sampler {
    let keys = (DURATION * KEYS_PER_S) as usize + 1;
    let input: Vec<f32> = (0..keys).map(|k| k as f32 / KEYS_PER_S).collect();
    let output: Vec<f32> = input.iter().flat_map(|&t| f(t)).collect();
    assert_eq!(output.len(), keys * components);
    Sampler::new(input, output, Interpolation::Linear).unwrap()
}

/// A chain of `joints` joints (node 0 the root, each the parent of the next), then the skinned
/// mesh node (a root) carrying two morph targets. Clips:
/// - WALK: root translation, rotation and scale of every joint, morph weights;
/// - RUN: root translation, rotation (keys of odd joints stored as `-q`) and scale of every
///   joint;
/// - WAVE: rotation of the last [`HAND`] joints only;
/// - STILL: one key at t = 0 (zero length) on the root translation.
pub fn rig(joints: usize) -> AnimationData {
    assert!(joints > HAND);
    let mut nodes = Vec::new();
    for j in 0..joints {
        let mut node = NodeRest::new(format!("joint{j}"), j.checked_sub(1));
        node.translation = if j == 0 {
            [0.0, 0.0, 0.0]
        } else {
            [0.0, 1.0, 0.0]
        };
        node.rotation = axis_angle([0.0, 0.0, 1.0], 0.1 * j as f32);
        nodes.push(node);
    }
    nodes.push(NodeRest::new("mesh", None));

    let mut walk = Clip::new("walk", vec![], vec![]);
    let mut run = Clip::new("run", vec![], vec![]);
    let mut wave = Clip::new("wave", vec![], vec![]);
    let add = |clip: &mut Clip, node: usize, path: ChannelPath, s: Sampler| {
        clip.channels.push(Channel {
            sampler: clip.samplers.len(),
            node,
            path,
        });
        clip.samplers.push(s);
    };
    add(
        &mut walk,
        0,
        ChannelPath::Translation,
        sampler(3, |t| vec![(PI * t).sin(), 0.0, 0.5 * t]),
    );
    add(
        &mut run,
        0,
        ChannelPath::Translation,
        sampler(3, |t| vec![0.0, 0.3 * (2.0 * PI * t).sin(), 1.5 * t]),
    );
    for j in 0..joints {
        let phase = j as f32;
        add(
            &mut walk,
            j,
            ChannelPath::Rotation,
            sampler(4, move |t| {
                axis_angle([0.0, 0.0, 1.0], 0.6 * (PI * t + phase).sin()).to_vec()
            }),
        );
        add(
            &mut walk,
            j,
            ChannelPath::Scale,
            sampler(3, move |t| {
                let s = 1.0 + 0.1 * (PI * t + phase).sin();
                vec![s, s, s]
            }),
        );
        let flip = if j % 2 == 1 { -1.0 } else { 1.0 };
        add(
            &mut run,
            j,
            ChannelPath::Rotation,
            sampler(4, move |t| {
                axis_angle([1.0, 0.0, 0.0], 0.9 * (PI * t + phase).sin())
                    .iter()
                    .map(|v| v * flip)
                    .collect()
            }),
        );
        add(
            &mut run,
            j,
            ChannelPath::Scale,
            sampler(3, move |t| {
                vec![1.0, 1.0 + 0.2 * (PI * t + phase).cos(), 1.0]
            }),
        );
    }
    for j in joints - HAND..joints {
        let phase = j as f32;
        add(
            &mut wave,
            j,
            ChannelPath::Rotation,
            sampler(4, move |t| {
                axis_angle([0.0, 1.0, 0.0], 1.2 * (PI * t + phase).sin()).to_vec()
            }),
        );
    }
    let mesh = mesh_node(joints);
    add(
        &mut walk,
        mesh,
        ChannelPath::Weights,
        sampler(2, |t| {
            let s = (PI * t).sin();
            vec![0.5 + 0.5 * s, 0.5 - 0.5 * s]
        }),
    );
    let still = Clip::new(
        "still",
        vec![Sampler::new(vec![0.0], vec![0.0, 0.0, 3.0], Interpolation::Linear).unwrap()],
        vec![Channel {
            sampler: 0,
            node: 0,
            path: ChannelPath::Translation,
        }],
    );

    AnimationData {
        nodes,
        clips: vec![walk, run, wave, still],
        skeletons: vec![SkeletonBinding::new(0, mesh, (0..joints).collect(), vec![]).unwrap()],
        morph_bindings: vec![MorphBinding {
            node: mesh,
            default_weights: MORPH_DEFAULT.to_vec(),
        }],
        handedness: Handedness::LeftHanded,
    }
}

/// The value channel `path` of `node` has in `clip` at `t` (the last such channel), if any.
pub fn sample(
    data: &AnimationData,
    clip: usize,
    node: usize,
    path: ChannelPath,
    t: f32,
) -> Option<Vec<f32>> {
    let c = &data.clips[clip];
    let ch = c
        .channels
        .iter()
        .rev()
        .find(|ch| ch.node == node && ch.path == path)?;
    let s = &c.samplers[ch.sampler];
    let mut out = vec![0.0; s.components()];
    evaluate_sampler(
        s,
        t,
        s.components(),
        path == ChannelPath::Rotation,
        &mut out,
        0,
    );
    Some(out)
}

/// The blending rule written out in f64, independently of the library: per node and path,
/// contributors are the layers (clip, weight, time) with weight > 0 whose clip animates it;
/// rotations are flipped into the first contributor's hemisphere; weights are normalised by
/// their sum when it is ≥ 1, else the rest value fills in; rotations are normalised.
/// Returns the TRS records of every node.
pub fn reference_blend(data: &AnimationData, layers: &[(usize, f32, f32)]) -> Vec<f64> {
    let mut out = Vec::with_capacity(data.nodes.len() * TRS_STRIDE);
    for (node, rest) in data.nodes.iter().enumerate() {
        let mut rec = [0.0_f64; TRS_STRIDE];
        for (path, offset, rest_value) in [
            (ChannelPath::Translation, T_OFF, &rest.translation[..]),
            (ChannelPath::Rotation, R_OFF, &rest.rotation[..]),
            (ChannelPath::Scale, S_OFF, &rest.scale[..]),
        ] {
            let rest_value: Vec<f64> = rest_value.iter().map(|&v| f64::from(v)).collect();
            let contributors: Vec<(f64, Vec<f64>)> = layers
                .iter()
                .filter(|&&(_, w, _)| w > 0.0)
                .filter_map(|&(clip, w, t)| {
                    sample(data, clip, node, path, t)
                        .map(|v| (f64::from(w), v.iter().map(|&x| f64::from(x)).collect()))
                })
                .collect();
            let value = blend_values(&contributors, &rest_value, path == ChannelPath::Rotation);
            rec[offset..offset + value.len()].copy_from_slice(&value);
        }
        out.extend_from_slice(&rec);
    }
    out
}

/// One property's blend (see [`reference_blend`]).
pub fn blend_values(contributors: &[(f64, Vec<f64>)], rest: &[f64], rotation: bool) -> Vec<f64> {
    let Some((_, first)) = contributors.first() else {
        return rest.to_vec();
    };
    let dot = |a: &[f64], b: &[f64]| a.iter().zip(b).map(|(x, y)| x * y).sum::<f64>();
    let total: f64 = contributors.iter().map(|(w, _)| w).sum();
    let mut sum = vec![0.0; rest.len()];
    let mut add = |w: f64, v: &[f64]| {
        let sign = if rotation && dot(v, first) < 0.0 {
            -1.0
        } else {
            1.0
        };
        for (s, x) in sum.iter_mut().zip(v) {
            *s += sign * w * x;
        }
    };
    for (w, v) in contributors {
        add(*w, v);
    }
    if total < 1.0 {
        add(1.0 - total, rest);
    } else {
        sum.iter_mut().for_each(|s| *s /= total);
    }
    if rotation {
        let len = dot(&sum, &sum).sqrt();
        sum.iter_mut().for_each(|s| *s /= len);
    }
    sum
}

/// Largest absolute difference between two equally long float slices.
pub fn max_abs_diff(a: &[f32], b: &[f32]) -> f32 {
    assert_eq!(a.len(), b.len());
    a.iter()
        .zip(b)
        .map(|(x, y)| (x - y).abs())
        .fold(0.0, f32::max)
}

/// Largest difference between two equally long float slices, each relative to
/// `max(1, |b|)`: rounding of f32 values of magnitude 8–16 is already 1e-6 in absolute terms.
pub fn max_rel_diff(a: &[f32], b: &[f32]) -> f32 {
    assert_eq!(a.len(), b.len());
    a.iter()
        .zip(b)
        .map(|(x, y)| (x - y).abs() / y.abs().max(1.0))
        .fold(0.0, f32::max)
}

/// Largest absolute difference between an f32 slice and an f64 reference.
pub fn max_abs_diff_f64(a: &[f32], b: &[f64]) -> f64 {
    assert_eq!(a.len(), b.len());
    a.iter()
        .zip(b)
        .map(|(&x, y)| (f64::from(x) - y).abs())
        .fold(0.0, f64::max)
}

/// The rotation of `node` as a quaternion, from a TRS buffer; `q` and `-q` compare equal via
/// [`quat_distance`].
pub fn quat_distance(a: &[f32], b: &[f32]) -> f32 {
    let d: f32 = a.iter().zip(b).map(|(x, y)| x * y).sum();
    1.0 - d.abs().min(1.0)
}
