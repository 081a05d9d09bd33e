//! The compression bound's metric, written again for the tests (independently of
//! `skel_anim::shell`): the clip as glTF defines it in f64 ([`clip_world_f64`], from the
//! reference implementation beside this file), and the virtual-shell error in the model's
//! units: points at `shell` from each node along its world axes, the static scale of its
//! ancestors (a scale the clip does not animate) taken out, animated scale kept.

use skel_anim::{AnimationData, ChannelPath};

use super::reference::{M64, pose_f64, world_f64};

/// Every node's world matrix of clip `clip` at time `t`, in f64 (roots placed by the data's
/// handedness, as the player places them).
pub fn clip_world_f64(data: &AnimationData, clip: usize, t: f32) -> Vec<M64> {
    world_f64(data, &pose_f64(data, Some(clip), t).0)
}

/// Per node, `shell` over the product of its ancestors' scales that clip `clip` does not
/// animate (a non-uniform one by its largest component): the shell along its world axes.
pub fn model_shells(data: &AnimationData, clip: usize, shell: f64) -> Vec<f64> {
    let animated = |n: usize| {
        data.clips[clip]
            .channels
            .iter()
            .any(|c| c.node == n && c.path == ChannelPath::Scale)
    };
    (0..data.nodes.len())
        .map(|n| {
            let mut divisor = 1.0_f64;
            let mut at = data.nodes[n].parent;
            while let Some(p) = at {
                if !animated(p) {
                    let s = data.nodes[p]
                        .scale
                        .iter()
                        .map(|v| f64::from(v.abs()))
                        .fold(0.0, f64::max);
                    if s > 0.0 {
                        divisor *= s;
                    }
                }
                at = data.nodes[p].parent;
            }
            shell / divisor
        })
        .collect()
}

/// The farthest a point at `shell` along one of `got`'s axes lies from its place under
/// `want`: `max_k |(t_got + shell·c_k(got)) − (t_want + shell·c_k(want))|`, in f64. A NaN
/// counts as infinitely far.
pub fn model_shell_error(want: &M64, got: &[f32], shell: f64) -> f64 {
    assert_eq!(got.len(), 16, "a matrix is 16 floats");
    let mut worst = 0.0_f64;
    for axis in 0..3 {
        let d: f64 = (0..3)
            .map(|r| {
                let point = |t: f64, c: f64| t + shell * c;
                let g = point(f64::from(got[12 + r]), f64::from(got[axis * 4 + r]));
                let w = point(want[12 + r], want[axis * 4 + r]);
                (g - w).powi(2)
            })
            .sum::<f64>()
            .sqrt();
        worst = if d.is_nan() {
            f64::INFINITY
        } else {
            worst.max(d)
        };
    }
    worst
}
