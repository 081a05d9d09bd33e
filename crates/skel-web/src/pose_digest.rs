//! The pose the browser check compares across targets: the same CPU code, compiled natively
//! and to wasm32, posing the same glTF at the same times must give the same numbers (within
//! float rounding). The page computes it under `?test=1`; `cargo xtask web --check` computes
//! it natively and compares.

use skel::gltf::{CpuPoser, GltfAsset, LoadOptions, load_slice};

use crate::WebError;

/// Every stored vertex is this many apart (keeps the digest a few kilobytes).
pub const VERTEX_STRIDE: usize = 7;

/// Node world matrices and skinned vertex positions of one asset at a few times.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct PoseDigest {
    /// Per time, every node's world matrix (16 floats, column-major), node order.
    pub nodes: Vec<f32>,
    /// Per time, every [`VERTEX_STRIDE`]-th vertex of every primitive after morphing and
    /// skinning (x, y, z).
    pub positions: Vec<f32>,
    /// The rest pose's bounding-box diagonal over every primitive: the tolerance's scale.
    pub diagonal: f32,
}

/// Poses `clip` (by name; the first clip when absent, the rest pose for an asset without
/// clips) of the glTF `glb` at each of `times` seconds on the CPU, in glTF's right-handed space.
///
/// ```
/// let digest = skel_web::pose_digest(skel::DEFAULT_CHARACTER, Some("Walk"), &[0.0, 0.5])?;
/// assert!(digest.diagonal > 0.0);
/// assert_eq!(digest.nodes.len() % 32, 0); // two times × 16 floats per node
/// # Ok::<(), skel_web::WebError>(())
/// ```
///
/// # Errors
/// [`WebError::Pose`] when the bytes are not a glTF skel can load or the clip is unknown.
pub fn pose_digest(glb: &[u8], clip: Option<&str>, times: &[f32]) -> Result<PoseDigest, WebError> {
    let failed = |e: &dyn std::fmt::Display| WebError::Pose(e.to_string());
    let options = LoadOptions {
        handedness: skel::anim::Handedness::RightHanded,
        decode_images: false,
    };
    let asset: GltfAsset = load_slice(glb, None, &options).map_err(|e| failed(&e))?;
    let clip_index = match clip {
        Some(name) => Some(
            asset
                .clip_index(name)
                .ok_or_else(|| failed(&format!("no clip named {name:?}")))?,
        ),
        None => (!asset.animation.clips.is_empty()).then_some(0),
    };
    let mut poser = CpuPoser::new(&asset).map_err(|e| failed(&e))?;
    let mut digest = PoseDigest::default();
    poser.pose(&asset, None, 0.0).map_err(|e| failed(&e))?;
    let (mut min, mut max) = (glam::Vec3::splat(f32::MAX), glam::Vec3::splat(f32::MIN));
    for p in 0..asset.primitives.len() {
        for v in poser.positions(p).unwrap_or_default() {
            min = min.min(*v);
            max = max.max(*v);
        }
    }
    digest.diagonal = if min.x <= max.x {
        (max - min).length()
    } else {
        0.0
    };
    for &t in times {
        poser.pose(&asset, clip_index, t).map_err(|e| failed(&e))?;
        for m in poser.node_world_matrices() {
            digest.nodes.extend_from_slice(&m.to_cols_array());
        }
        for p in 0..asset.primitives.len() {
            for v in poser
                .positions(p)
                .unwrap_or_default()
                .iter()
                .step_by(VERTEX_STRIDE)
            {
                digest.positions.extend_from_slice(&v.to_array());
            }
        }
    }
    Ok(digest)
}

/// The largest difference between two digests of the same asset and times, as a fraction
/// of `a`'s diagonal: `(nodes, positions)`. `None` when their shapes differ.
#[must_use]
pub fn digest_difference(a: &PoseDigest, b: &PoseDigest) -> Option<(f64, f64)> {
    if a.nodes.len() != b.nodes.len() || a.positions.len() != b.positions.len() {
        return None;
    }
    let worst = |x: &[f32], y: &[f32]| {
        x.iter()
            .zip(y)
            .map(|(p, q)| (f64::from(*p) - f64::from(*q)).abs())
            .fold(0.0, f64::max)
            / f64::from(a.diagonal.max(f32::MIN_POSITIVE))
    };
    Some((worst(&a.nodes, &b.nodes), worst(&a.positions, &b.positions)))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_digest_is_the_clips_pose_and_moves_with_time() {
        let times = [0.0, 0.4];
        let a = pose_digest(skel::DEFAULT_CHARACTER, Some("Walk"), &times).unwrap();
        // The nodes are the clip's world matrices as skel-anim's reference steps compute
        // them (sample, then local → world), not the poser's own pass.
        let options = LoadOptions {
            handedness: skel::anim::Handedness::RightHanded,
            decode_images: false,
        };
        let asset = load_slice(skel::DEFAULT_CHARACTER, None, &options).unwrap();
        let data = &asset.animation;
        let clip = asset.clip_index("Walk").unwrap();
        let count = data.nodes.len();
        assert_eq!(a.nodes.len(), times.len() * count * 16);
        for (k, &t) in times.iter().enumerate() {
            let mut scratch = skel::anim::PoseScratch::new(data).unwrap();
            skel::anim::reset_to_rest(data, &mut scratch);
            skel::anim::apply_clip(data, clip, t, &mut scratch);
            skel::anim::compute_world_matrices(data, &mut scratch);
            for (n, m) in scratch.world.iter().enumerate() {
                let got = &a.nodes[(k * count + n) * 16..(k * count + n + 1) * 16];
                for (x, y) in got.iter().zip(m.to_cols_array()) {
                    assert!(
                        (x - y).abs() <= 1e-6 * a.diagonal,
                        "t {t}, node {n}: {x} vs {y}"
                    );
                }
            }
        }
        // The difference measures: one matrix entry moved by a tenth of the diagonal.
        let mut moved = a.clone();
        moved.nodes[12] += 0.1 * a.diagonal;
        let (nodes, positions) = digest_difference(&a, &moved).unwrap();
        assert!(
            (nodes - 0.1).abs() < 1e-6 && positions == 0.0,
            "{nodes} {positions}"
        );
        let half = a.positions.len() / 2;
        let (at0, at4) = a.positions.split_at(half);
        assert!(
            at0.iter()
                .zip(at4)
                .any(|(p, q)| (p - q).abs() > 1e-3 * a.diagonal)
        );
    }

    #[test]
    fn an_unknown_clip_or_bad_bytes_is_a_typed_error() {
        assert!(matches!(
            pose_digest(skel::DEFAULT_CHARACTER, Some("Moonwalk"), &[0.0]),
            Err(WebError::Pose(_))
        ));
        assert!(matches!(
            pose_digest(b"not a glb", None, &[0.0]),
            Err(WebError::Pose(_))
        ));
    }
}
