//! Rigs built without proptest: a deterministic generator and the rigs it makes.

#![allow(clippy::unwrap_used, clippy::expect_used, reason = "tests")]

use skel_anim::{
    AnimationData, Channel, ChannelPath, Clip, Handedness, Interpolation, MorphBinding, NodeRest,
    Sampler, SkeletonBinding,
};

use super::reference::*;

/// A tiny deterministic generator (xorshift64*) for building rigs without proptest.
#[derive(Debug, Clone)]
pub struct Rng(u64);

impl Rng {
    /// A generator from a non-zero seed.
    pub fn new(seed: u64) -> Self {
        Self(seed.max(1))
    }

    /// Uniform in `[lo, hi)`.
    pub fn range(&mut self, lo: f32, hi: f32) -> f32 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        let bits = self.0.wrapping_mul(0x2545_f491_4f6c_dd1d) >> 40;
        #[expect(clippy::cast_precision_loss, reason = "24 random bits fit an f32")]
        let unit = bits as f32 / (1u64 << 24) as f32;
        lo + (hi - lo) * unit
    }

    /// A unit quaternion.
    pub fn quat(&mut self) -> [f32; 4] {
        loop {
            let q = [0; 4].map(|_| self.range(-1.0, 1.0));
            let n = q.iter().map(|v| v * v).sum::<f32>().sqrt();
            if n > 0.2 {
                return q.map(|v| v / n);
            }
        }
    }
}

fn keys(rng: &mut Rng, count: usize, start: f32) -> Vec<f32> {
    let mut t = start;
    (0..count)
        .map(|_| {
            let k = t;
            t += rng.range(0.1, 0.5);
            k
        })
        .collect()
}

/// Values for one sampler: `count` keys of `components` floats (× 3 for CUBICSPLINE), made by
/// `value` for values and `tangent` for tangents.
fn values(
    count: usize,
    interpolation: Interpolation,
    mut value: impl FnMut() -> Vec<f32>,
    mut tangent: impl FnMut() -> Vec<f32>,
) -> Vec<f32> {
    let mut out = Vec::new();
    for _ in 0..count {
        if interpolation == Interpolation::CubicSpline {
            out.extend(tangent());
            out.extend(value());
            out.extend(tangent());
        } else {
            out.extend(value());
        }
    }
    out
}

/// A generated skinned, morphed rig: node 0 is the mesh (a root with `morph_targets` targets),
/// nodes `1..=joint_count` the joints of a branching tree, stored children-first in places so
/// that array order is not a topological order. One clip animates translation, rotation and
/// scale of every joint (interpolations rotate through STEP, LINEAR and CUBICSPLINE) and the
/// mesh's morph weights. Inverse binds invert the rest joint worlds.
pub fn generated_rig(joint_count: usize, morph_targets: usize, seed: u64) -> AnimationData {
    let mut rng = Rng::new(seed);
    // Joint j (0-based) of the tree hangs under joint parent_of(j) < j; storing joint j at node
    // index 1 + (joint_count - 1 - j) puts every child before its parent in the array.
    let node_of = |j: usize| 1 + (joint_count - 1 - j);
    let parent_of = |j: usize| if j.is_multiple_of(5) { j / 3 } else { j - 1 };
    let mut nodes = vec![NodeRest::new("mesh", None); joint_count + 1];
    for j in 0..joint_count {
        let mut n = NodeRest::new(format!("joint{j}"), (j > 0).then(|| node_of(parent_of(j))));
        n.translation = [
            rng.range(-1.0, 1.0),
            rng.range(0.2, 1.0),
            rng.range(-1.0, 1.0),
        ];
        n.rotation = rng.quat();
        n.scale = [
            rng.range(0.8, 1.2),
            rng.range(0.8, 1.2),
            rng.range(0.8, 1.2),
        ];
        nodes[node_of(j)] = n;
    }
    let interps = [
        Interpolation::Linear,
        Interpolation::Step,
        Interpolation::CubicSpline,
    ];
    let mut samplers = Vec::new();
    let mut channels = Vec::new();
    for j in 0..joint_count {
        let node = node_of(j);
        for (p, path) in [
            ChannelPath::Translation,
            ChannelPath::Rotation,
            ChannelPath::Scale,
        ]
        .into_iter()
        .enumerate()
        {
            let interpolation = interps[(j + p) % 3];
            let count = 2 + (j + p) % 7;
            let start = rng.range(0.0, 0.2);
            let input = keys(&mut rng, count, start);
            let mut r2 = rng.clone();
            // Consecutive rotation keys in one hemisphere keep CUBICSPLINE rotations away from
            // the zero quaternion.
            let mut prev = [0.0, 0.0, 0.0, 1.0_f32];
            let output = match path {
                ChannelPath::Translation => values(
                    count,
                    interpolation,
                    || {
                        vec![
                            rng.range(-1.0, 1.0),
                            rng.range(0.0, 1.0),
                            rng.range(-1.0, 1.0),
                        ]
                    },
                    || vec![r2.range(-1.0, 1.0); 3],
                ),
                ChannelPath::Rotation => values(
                    count,
                    interpolation,
                    || {
                        let mut q = rng.quat();
                        if q.iter().zip(prev).map(|(a, b)| a * b).sum::<f32>() < 0.0 {
                            q = q.map(|v| -v);
                        }
                        prev = q;
                        q.to_vec()
                    },
                    || vec![r2.range(-0.2, 0.2); 4],
                ),
                _ => values(
                    count,
                    interpolation,
                    || vec![rng.range(0.7, 1.3); 3],
                    || vec![r2.range(-0.3, 0.3); 3],
                ),
            };
            channels.push(Channel {
                sampler: samplers.len(),
                node,
                path,
            });
            samplers.push(Sampler::new(input, output, interpolation).unwrap());
        }
    }
    if morph_targets > 0 {
        let count = 5;
        let input = keys(&mut rng, count, 0.0);
        let output = (0..count * morph_targets)
            .map(|_| rng.range(0.0, 1.0))
            .collect();
        channels.push(Channel {
            sampler: samplers.len(),
            node: 0,
            path: ChannelPath::Weights,
        });
        samplers.push(Sampler::new(input, output, Interpolation::Linear).unwrap());
    }
    let mut data = AnimationData {
        nodes,
        clips: vec![Clip::new("generated", samplers, channels)],
        skeletons: vec![],
        morph_bindings: if morph_targets > 0 {
            vec![MorphBinding {
                node: 0,
                default_weights: vec![0.0; morph_targets],
            }]
        } else {
            vec![]
        },
        handedness: Handedness::LeftHanded,
    };
    let joints: Vec<usize> = (0..joint_count).map(node_of).collect();
    let ibm = inverse_binds_of_rest(&data, &joints);
    data.skeletons = vec![SkeletonBinding::new(0, 0, joints, ibm).unwrap()];
    data
}
