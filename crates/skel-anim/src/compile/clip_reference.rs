//! The clip as glTF defines it, evaluated in f64: what a compressed clip's error is measured
//! against. skel's own lossless playback is f32 and interpolates rotations with its own slerp;
//! measured against it, a compressed clip could spend the error that playback already has and
//! still be reported within the bound. Against this, the bound is a promise about the clip.
//!
//! Sampling follows glTF 2.0 §3.11 and Appendix C: STEP holds the key; LINEAR lerps
//! translations and scales and slerps rotations exactly, along the shorter arc; CUBICSPLINE is
//! the Hermite spline with tangents scaled by the key interval, a rotation normalised after it.
//! Before the first key and after the last the end values hold. A later channel on the same
//! node and property wins, as in the player.

use crate::data::hierarchy::compute_topo_order;
use crate::{AnimationData, ChannelPath, Clip, Handedness, Interpolation, NodeRest, Sampler};

/// A column-major 4×4 matrix in f64.
pub type Matrix64 = [f64; 16];

/// The identity.
pub const IDENTITY64: Matrix64 = [
    1.0, 0.0, 0.0, 0.0, //
    0.0, 1.0, 0.0, 0.0, //
    0.0, 0.0, 1.0, 0.0, //
    0.0, 0.0, 0.0, 1.0,
];

/// One clip of a hierarchy, ready to evaluate in f64 at any time, and the shell distance of
/// each node in its own frame: the model's shell with the static scale above the node taken
/// out ([`ClipReference::shell_of`]).
#[derive(Debug, Clone)]
pub struct ClipReference<'a> {
    clip: &'a Clip,
    nodes: &'a [NodeRest],
    /// Parents before children.
    order: Vec<usize>,
    /// What the roots' matrices are multiplied by (the player's handedness, or the identity).
    root: Matrix64,
    /// Per node, the product of the static scales of its ancestors.
    static_scale: Vec<f64>,
}

impl<'a> ClipReference<'a> {
    /// `clip` over `nodes`, roots placed by `root`.
    #[must_use]
    pub fn new(nodes: &'a [NodeRest], clip: &'a Clip, root: Matrix64) -> Self {
        let order = compute_topo_order(nodes).unwrap_or_else(|_| (0..nodes.len()).collect());
        let mut scaled = vec![false; nodes.len()];
        for ch in &clip.channels {
            if ch.path == ChannelPath::Scale
                && let Some(s) = scaled.get_mut(ch.node)
            {
                *s = true;
            }
        }
        let mut static_scale = vec![1.0_f64; nodes.len()];
        for &n in &order {
            let Some(p) = nodes[n].parent.filter(|&p| p < nodes.len()) else {
                continue;
            };
            // A parent's scale that the clip animates counts in the error (it moves the
            // shell); one it leaves alone is the asset's choice of unit and is taken out.
            // Non-uniform: its largest component, so the shell is at most its distance on
            // every axis.
            let own = if scaled[p] {
                1.0
            } else {
                nodes[p]
                    .scale
                    .iter()
                    .map(|s| f64::from(s.abs()))
                    .fold(0.0, f64::max)
            };
            static_scale[n] = static_scale[p] * if own > 0.0 { own } else { 1.0 };
        }
        Self {
            clip,
            nodes,
            order,
            root,
            static_scale,
        }
    }

    /// Clip `clip` of `data` with its roots placed as a player places them (mirrored in x when
    /// left-handed, `Handedness`), so that its matrices stand beside a player's world
    /// matrices; `None` past the last clip.
    #[must_use]
    pub fn for_playback(data: &'a AnimationData, clip: usize) -> Option<Self> {
        let mut root = IDENTITY64;
        if data.handedness == Handedness::LeftHanded {
            root[0] = -1.0;
        }
        Some(Self::new(&data.nodes, data.clips.get(clip)?, root))
    }

    /// The shell distance of node `n` in the units of its world matrix's axes: the model's
    /// `shell` divided by the static scales above the node. Points at this distance along the
    /// columns of the node's world matrix lie `shell` from it in the model (times any scale
    /// the clip animates above it, and the node's own scale), so the error is in the model's
    /// units whatever scale the asset's armature node carries (RobotExpressive's is 100:
    /// without this, its 3 cm shell would be 3 m).
    #[must_use]
    pub fn shell_of(&self, n: usize, shell: f64) -> f64 {
        shell / self.static_scale.get(n).copied().unwrap_or(1.0)
    }

    /// Every node's world matrix at time `t`, into `world` (resized to the node count).
    pub fn world_at(&self, t: f32, world: &mut Vec<Matrix64>) {
        let mut trs: Vec<([f64; 3], [f64; 4], [f64; 3])> = self
            .nodes
            .iter()
            .map(|n| {
                (
                    n.translation.map(f64::from),
                    n.rotation.map(f64::from),
                    n.scale.map(f64::from),
                )
            })
            .collect();
        for ch in &self.clip.channels {
            let (Some(sampler), Some(node)) =
                (self.clip.samplers.get(ch.sampler), trs.get_mut(ch.node))
            else {
                continue;
            };
            match ch.path {
                ChannelPath::Translation => node.0 = sample(sampler, t, false),
                ChannelPath::Rotation => node.1 = sample(sampler, t, true),
                ChannelPath::Scale => node.2 = sample(sampler, t, false),
                ChannelPath::Weights => {}
            }
        }
        world.clear();
        world.resize(self.nodes.len(), IDENTITY64);
        for &n in &self.order {
            let (t, r, s) = trs[n];
            let parent = match self.nodes[n].parent {
                Some(p) if p < world.len() => world[p],
                _ => self.root,
            };
            world[n] = mul(&parent, &compose(t, r, s));
        }
    }
}

/// `sampler` at `t` in f64, `N` components (3 or 4; a rotation's normalised).
fn sample<const N: usize>(sampler: &Sampler, t: f32, rotation: bool) -> [f64; N] {
    let (input, output) = (sampler.input(), sampler.output());
    let c = sampler.components();
    let cubic = sampler.interpolation() == Interpolation::CubicSpline;
    let per_key = if cubic { 3 } else { 1 };
    // Key `k`'s element `slot` (a cubic key's in-tangent, value, out-tangent).
    let element = |k: usize, slot: usize| -> [f64; N] {
        let at = (k * per_key + slot) * c;
        std::array::from_fn(|i| {
            output
                .get(at + i)
                .filter(|_| i < c)
                .map_or(0.0, |&v| f64::from(v))
        })
    };
    let value = usize::from(cubic);
    let Some(last) = input.len().checked_sub(1) else {
        return [0.0; N];
    };
    let k = input.partition_point(|&x| x <= t);
    let v = if k == 0 || t.is_nan() {
        element(0, value)
    } else if k > last {
        element(last, value)
    } else {
        let k = k - 1;
        let (t0, t1) = (f64::from(input[k]), f64::from(input[k + 1]));
        let td = t1 - t0;
        let u = if td > 0.0 {
            (f64::from(t) - t0) / td
        } else {
            0.0
        };
        match sampler.interpolation() {
            Interpolation::Step => element(k, 0),
            Interpolation::Linear if rotation => slerp(element(k, 0), element(k + 1, 0), u),
            Interpolation::Linear => {
                let (a, b) = (element(k, 0), element(k + 1, 0));
                std::array::from_fn(|i| a[i] + (b[i] - a[i]) * u)
            }
            Interpolation::CubicSpline => {
                let (u2, u3) = (u * u, u * u * u);
                let (vk, bk) = (element(k, 1), element(k, 2));
                let (vk1, ak1) = (element(k + 1, 1), element(k + 1, 0));
                std::array::from_fn(|i| {
                    (2.0 * u3 - 3.0 * u2 + 1.0) * vk[i]
                        + td * (u3 - 2.0 * u2 + u) * bk[i]
                        + (-2.0 * u3 + 3.0 * u2) * vk1[i]
                        + td * (u3 - u2) * ak1[i]
                })
            }
        }
    };
    if rotation { normalise(v) } else { v }
}

/// `v` over its length (unchanged when zero).
fn normalise<const N: usize>(v: [f64; N]) -> [f64; N] {
    let n = v.iter().map(|x| x * x).sum::<f64>().sqrt();
    if n > 0.0 { v.map(|x| x / n) } else { v }
}

/// The spherical interpolation of glTF 2.0 Appendix C, along the shorter arc, of the keys made
/// unit first (f32 keys a few ulps off unit length put their dot product past 1, where `acos`
/// would see no turn: CesiumMan's torso keys); the lerp where the keys are too close for
/// `sin θ` to divide by.
fn slerp<const N: usize>(a: [f64; N], b: [f64; N], u: f64) -> [f64; N] {
    let (a, b) = (normalise(a), normalise(b));
    let dot: f64 = a.iter().zip(&b).map(|(x, y)| x * y).sum();
    let sign = if dot < 0.0 { -1.0 } else { 1.0 };
    let theta = (dot * sign).min(1.0).acos();
    let (wa, wb) = if theta < 1e-9 {
        (1.0 - u, sign * u)
    } else {
        let s = theta.sin();
        (((1.0 - u) * theta).sin() / s, sign * (u * theta).sin() / s)
    };
    normalise(std::array::from_fn(|i| wa * a[i] + wb * b[i]))
}

/// `T · R · S` of a unit quaternion `[x, y, z, w]` (glTF 2.0 §3.5.2).
fn compose(t: [f64; 3], r: [f64; 4], s: [f64; 3]) -> Matrix64 {
    let [x, y, z, w] = r;
    let cols = [
        [
            1.0 - 2.0 * (y * y + z * z),
            2.0 * (x * y + z * w),
            2.0 * (x * z - y * w),
        ],
        [
            2.0 * (x * y - z * w),
            1.0 - 2.0 * (x * x + z * z),
            2.0 * (y * z + x * w),
        ],
        [
            2.0 * (x * z + y * w),
            2.0 * (y * z - x * w),
            1.0 - 2.0 * (x * x + y * y),
        ],
    ];
    let mut m = IDENTITY64;
    for c in 0..3 {
        for row in 0..3 {
            m[c * 4 + row] = cols[c][row] * s[c];
        }
        m[12 + c] = t[c];
    }
    m
}

/// `a · b`, column-major.
fn mul(a: &Matrix64, b: &Matrix64) -> Matrix64 {
    std::array::from_fn(|i| {
        let (c, r) = (i / 4, i % 4);
        (0..4).map(|k| a[k * 4 + r] * b[c * 4 + k]).sum()
    })
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, reason = "tests")]

    use super::*;
    use crate::Channel;

    fn clip(interpolation: Interpolation, output: Vec<f32>, path: ChannelPath) -> Clip {
        let sampler = Sampler::new(vec![0.0, 1.0], output, interpolation).unwrap();
        let channels = vec![Channel {
            sampler: 0,
            node: 1,
            path,
        }];
        Clip::new("c", vec![sampler], channels)
    }

    fn nodes(parent_scale: f32) -> Vec<NodeRest> {
        let mut armature = NodeRest::new("armature", None);
        armature.scale = [parent_scale; 3];
        vec![armature, NodeRest::new("joint", Some(0))]
    }

    #[test]
    fn a_rotation_turns_at_a_constant_rate_and_translations_lerp() {
        // A quarter turn about z over one second: at 1/3 s the joint is turned 30°, exactly.
        let h = std::f32::consts::FRAC_1_SQRT_2;
        let c = clip(
            Interpolation::Linear,
            vec![0.0, 0.0, 0.0, 1.0, 0.0, 0.0, h, h],
            ChannelPath::Rotation,
        );
        let n = nodes(1.0);
        let r = ClipReference::new(&n, &c, IDENTITY64);
        let mut w = Vec::new();
        r.world_at(1.0 / 3.0, &mut w);
        let angle = w[1][1].atan2(w[1][0]);
        assert!(
            (angle - std::f64::consts::FRAC_PI_6).abs() < 1e-7,
            "{angle}"
        );
        let c = clip(
            Interpolation::Linear,
            vec![0.0, 0.0, 0.0, 2.0, 4.0, 6.0],
            ChannelPath::Translation,
        );
        let r = ClipReference::new(&n, &c, IDENTITY64);
        r.world_at(0.25, &mut w);
        assert_eq!(&w[1][12..15], &[0.5, 1.0, 1.5]);
        // Held past the ends.
        r.world_at(7.0, &mut w);
        assert_eq!(&w[1][12..15], &[2.0, 4.0, 6.0]);
    }

    #[test]
    fn step_holds_and_cubic_splines_follow_hermite() {
        let n = nodes(1.0);
        let c = clip(
            Interpolation::Step,
            vec![1.0, 0.0, 0.0, 3.0, 0.0, 0.0],
            ChannelPath::Translation,
        );
        let mut w = Vec::new();
        ClipReference::new(&n, &c, IDENTITY64).world_at(0.99, &mut w);
        assert_eq!(w[1][12], 1.0);
        // Values 0 and 1, out-tangent 3 at the first key, in-tangent 0 at the second: at u = ½
        // Hermite gives ½ + (⅛ − ½ + ½)·3 = 0.875.
        let c = clip(
            Interpolation::CubicSpline,
            vec![
                0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 3.0, 0.0, 0.0, //
                0.0, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0, 0.0, 0.0,
            ],
            ChannelPath::Translation,
        );
        ClipReference::new(&n, &c, IDENTITY64).world_at(0.5, &mut w);
        assert!((w[1][12] - 0.875).abs() < 1e-12, "{}", w[1][12]);
    }

    #[test]
    fn the_shell_leaves_out_static_scale_above_and_keeps_animated_scale() {
        let n = nodes(100.0);
        let rotation = clip(
            Interpolation::Linear,
            vec![0.0, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0, 1.0],
            ChannelPath::Rotation,
        );
        let r = ClipReference::new(&n, &rotation, IDENTITY64);
        assert_eq!(r.shell_of(1, 0.03), 0.0003);
        assert_eq!(r.shell_of(0, 0.03), 0.03);
        // The armature's scale animated: it counts.
        let mut scaled = rotation.clone();
        scaled.channels[0].node = 0;
        scaled.channels[0].path = ChannelPath::Scale;
        scaled.samplers[0] =
            Sampler::new(vec![0.0, 1.0], vec![100.0; 6], Interpolation::Linear).unwrap();
        let r = ClipReference::new(&n, &scaled, IDENTITY64);
        assert_eq!(r.shell_of(1, 0.03), 0.03);
    }
}
