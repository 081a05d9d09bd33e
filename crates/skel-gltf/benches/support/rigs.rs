//! Generated rigs for the sizes no shared asset has: a 67-joint humanoid walk and a 368-joint
//! rig (a humanoid with fingers, face and extra chains). Deterministic: the same call builds the
//! same data. Keys are laid out as glTF exporters write them: one key-time array per clip,
//! shared by every channel (as separate but equal `Vec`s, the way a loader hands them over).

use glam::{Mat4, Quat, Vec3};
use skel_anim::{
    AnimationData, Channel, ChannelPath, Clip, Handedness, Interpolation, NodeRest, Sampler,
    SkeletonBinding,
};

/// What a generated clip animates.
#[derive(Debug, Clone, Copy)]
pub struct RigSpec {
    /// Joint count (the skinned mesh node comes on top).
    pub joints: usize,
    /// Clip length in seconds.
    pub duration: f32,
    /// Keys per second (glTF exporters sample at 24–60).
    pub keys_per_second: f32,
    /// Every `n`-th joint also gets a translation channel (the root always does).
    pub translation_every: usize,
    /// Every `n`-th joint also gets a scale channel (0: none).
    pub scale_every: usize,
}

/// The 67-joint walk: rotations on every joint, translation on the root, 30 keys/s over 1 s.
pub const WALK_67: RigSpec = RigSpec {
    joints: 67,
    duration: 1.0,
    keys_per_second: 30.0,
    translation_every: 0,
    scale_every: 0,
};

/// The 368-joint rig: rotations everywhere, translations on every 4th joint, scale on every
/// 16th, 30 keys/s over 2 s.
pub const RIG_368: RigSpec = RigSpec {
    joints: 368,
    duration: 2.0,
    keys_per_second: 30.0,
    translation_every: 4,
    scale_every: 16,
};

/// Parent of each joint: a spine of 6 from the root, then limbs of 4 hanging from spine joints
/// and fingers of 3 from limb ends, until `count` joints exist (a tree of humanoid depth).
fn parents(count: usize) -> Vec<Option<usize>> {
    let mut parents: Vec<Option<usize>> = vec![None];
    let spine = 6.min(count);
    for j in 1..spine {
        parents.push(Some(j - 1));
    }
    let mut attach = 0usize;
    while parents.len() < count {
        // A limb of up to 4 joints from a spine joint, then up to 5 fingers of 3 from its end.
        let base = attach % spine;
        attach += 1;
        let mut prev = base;
        for _ in 0..4 {
            if parents.len() == count {
                break;
            }
            parents.push(Some(prev));
            prev = parents.len() - 1;
        }
        let hand = prev;
        for _ in 0..5 {
            let mut p = hand;
            for _ in 0..3 {
                if parents.len() == count {
                    break;
                }
                parents.push(Some(p));
                p = parents.len() - 1;
            }
        }
    }
    parents
}

/// Rest rotation of joint `j`: a small tilt about an axis that depends on `j`.
fn rest_rotation(j: usize) -> Quat {
    let a = j as f32 * 0.7;
    Quat::from_axis_angle(
        Vec3::new(a.sin(), a.cos(), 0.3).normalize(),
        0.1 + 0.05 * (j % 5) as f32,
    )
}

/// The animated rotation of joint `j` at phase `p` (0..1 over the clip): a swing of up to
/// 0.5 rad about a joint-specific axis, on top of the rest rotation.
fn swing(j: usize, p: f32) -> Quat {
    let phase = p * std::f32::consts::TAU + j as f32 * 0.37;
    let axis = Vec3::new((j as f32 * 1.3).cos(), 0.5, (j as f32 * 0.9).sin()).normalize();
    rest_rotation(j) * Quat::from_axis_angle(axis, 0.5 * phase.sin())
}

/// Builds the rig and its one clip ("walk"); a skinned mesh node (identity, at the root) binds
/// every joint with inverse-bind matrices taken from the rest pose.
#[must_use]
pub fn generate(spec: RigSpec) -> AnimationData {
    let parents = parents(spec.joints);
    let mut nodes: Vec<NodeRest> = parents
        .iter()
        .enumerate()
        .map(|(j, &parent)| {
            let mut n = NodeRest::new(format!("joint{j}"), parent);
            n.translation = if parent.is_some() {
                [0.0, 0.1, 0.02]
            } else {
                [0.0, 1.0, 0.0]
            };
            n.rotation = rest_rotation(j).to_array();
            n
        })
        .collect();
    let mesh = nodes.len();
    nodes.push(NodeRest::new("mesh", None));

    // Inverse bind matrices: the inverse of each joint's rest world matrix.
    let mut world = vec![Mat4::IDENTITY; spec.joints];
    for j in 0..spec.joints {
        let n = &nodes[j];
        let local = Mat4::from_scale_rotation_translation(
            Vec3::from_array(n.scale),
            Quat::from_array(n.rotation),
            Vec3::from_array(n.translation),
        );
        world[j] = parents[j].map_or(local, |p| world[p] * local);
    }
    let ibm: Vec<f32> = world
        .iter()
        .flat_map(|m| m.inverse().to_cols_array())
        .collect();

    #[expect(
        clippy::cast_possible_truncation,
        clippy::cast_sign_loss,
        reason = "a few dozen keys"
    )]
    let keys = (spec.duration * spec.keys_per_second).round() as usize + 1;
    let times: Vec<f32> = (0..keys)
        .map(|k| spec.duration * k as f32 / (keys - 1) as f32)
        .collect();
    let mut samplers = Vec::new();
    let mut channels = Vec::new();
    let mut push = |values: Vec<f32>, node: usize, path: ChannelPath| {
        let sampler = Sampler::new(times.clone(), values, Interpolation::Linear)
            .expect("generated keys are valid");
        channels.push(Channel {
            sampler: samplers.len(),
            node,
            path,
        });
        samplers.push(sampler);
    };
    for (j, node) in nodes.iter().take(spec.joints).enumerate() {
        let phase = |k: usize| k as f32 / (keys - 1) as f32;
        if j == 0 || (spec.translation_every > 0 && j % spec.translation_every == 0) {
            let base = Vec3::from_array(node.translation);
            let values = (0..keys)
                .flat_map(|k| {
                    let p = phase(k) * std::f32::consts::TAU;
                    (base + Vec3::new(0.02 * p.sin(), 0.03 * (2.0 * p).cos(), 0.0)).to_array()
                })
                .collect();
            push(values, j, ChannelPath::Translation);
        }
        let values = (0..keys)
            .flat_map(|k| swing(j, phase(k)).to_array())
            .collect();
        push(values, j, ChannelPath::Rotation);
        if spec.scale_every > 0 && j % spec.scale_every == 0 {
            let values = (0..keys)
                .flat_map(|k| {
                    let s = 1.0 + 0.05 * (phase(k) * std::f32::consts::TAU).sin();
                    [s, s, s]
                })
                .collect();
            push(values, j, ChannelPath::Scale);
        }
    }
    let binding = SkeletonBinding::new(0, mesh, (0..spec.joints).collect(), ibm)
        .expect("16 floats per joint");
    AnimationData {
        nodes,
        clips: vec![Clip::new("walk", samplers, channels)],
        skeletons: vec![binding],
        morph_bindings: vec![],
        handedness: Handedness::LeftHanded,
    }
}
