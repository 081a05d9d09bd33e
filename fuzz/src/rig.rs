//! The rigs the `controller_api` target drives: a small one built here in code (every
//! interpolation, every channel path, a non-joint node inside the skin, morph weights, a clip of
//! zero length and one that starts late), and the project's default character fixture.

use std::path::PathBuf;
use std::sync::{Arc, OnceLock};

use skel_anim::{
    AnimError, AnimationData, Channel, ChannelPath, Clip, Handedness, Interpolation, MorphBinding,
    NodeRest, Sampler, SkeletonBinding,
};
use skel_gltf::{LoadOptions, load_slice};

/// The fixture driven next to the code rig (written by `cargo xtask fixtures`).
pub const FIXTURE: &str = "default_character.glb";

fn sampler(
    input: &[f32],
    output: &[f32],
    interpolation: Interpolation,
) -> Result<Sampler, AnimError> {
    Sampler::new(input.to_vec(), output.to_vec(), interpolation)
}

fn channel(sampler: usize, node: usize, path: ChannelPath) -> Channel {
    Channel {
        sampler,
        node,
        path,
    }
}

/// A 4-joint rig skinning a mesh with two morph targets:
///
/// ```text
/// 0 hips ─ 1 spine ─┬─ 2 head ─ 3 hat (not a joint) ─ 4 feather
///                   └─ 5 arm
/// 6 mesh (skinned by joints [0, 1, 2, 5, 4], two morph targets)
/// ```
///
/// Clips: `walk` (LINEAR translation, LINEAR rotation, STEP scale), `wave` (CUBICSPLINE
/// rotation, LINEAR weights), `blink` (one key: zero duration), `late` (keys from 2 s to 3 s).
///
/// # Errors
/// Only if this function is wrong (the data is fixed).
pub fn code_rig() -> Result<AnimationData, AnimError> {
    let mut nodes = vec![
        NodeRest::new("hips", None),
        NodeRest::new("spine", Some(0)),
        NodeRest::new("head", Some(1)),
        NodeRest::new("hat", Some(2)),
        NodeRest::new("feather", Some(3)),
        NodeRest::new("arm", Some(1)),
        NodeRest::new("mesh", None),
    ];
    nodes[0].translation = [0.0, 1.0, 0.0];
    nodes[1].translation = [0.0, 0.5, 0.0];
    nodes[2].translation = [0.0, 0.5, 0.0];
    nodes[2].rotation = [0.0, 0.382_683_43, 0.0, 0.923_879_5];
    nodes[3].scale = [1.5, 1.5, 1.5];
    nodes[4].translation = [0.0, 0.2, 0.0];
    nodes[5].translation = [0.4, 0.3, 0.0];

    let half = std::f32::consts::FRAC_1_SQRT_2;
    let walk = Clip::new(
        "walk",
        vec![
            sampler(
                &[0.0, 0.5, 1.0],
                &[0.0, 1.0, 0.0, 0.0, 1.1, 0.3, 0.0, 1.0, 0.6],
                Interpolation::Linear,
            )?,
            sampler(
                &[0.0, 1.0],
                &[0.0, 0.0, 0.0, 1.0, 0.0, 0.0, half, half],
                Interpolation::Linear,
            )?,
            sampler(
                &[0.0, 0.25, 0.75],
                &[1.0, 1.0, 1.0, 1.2, 1.2, 1.2, 0.8, 0.8, 0.8],
                Interpolation::Step,
            )?,
        ],
        vec![
            channel(0, 0, ChannelPath::Translation),
            channel(1, 1, ChannelPath::Rotation),
            channel(2, 5, ChannelPath::Scale),
        ],
    );
    // CUBICSPLINE: in-tangent, value, out-tangent per key.
    let wave_rotation = [
        0.0, 0.0, 0.0, 0.0, /**/ 0.0, 0.0, 0.0, 1.0, /**/ 0.0, 0.0, 1.0, 0.0, //
        0.0, 0.0, -1.0, 0.0, /**/ 0.0, 0.0, half, half, /**/ 0.0, 0.0, 0.0, 0.0,
    ];
    let wave = Clip::new(
        "wave",
        vec![
            sampler(&[0.0, 1.5], &wave_rotation, Interpolation::CubicSpline)?,
            sampler(
                &[0.0, 0.75, 1.5],
                &[0.0, 0.0, 1.0, 0.5, 0.0, 1.0],
                Interpolation::Linear,
            )?,
        ],
        vec![
            channel(0, 5, ChannelPath::Rotation),
            channel(1, 6, ChannelPath::Weights),
        ],
    );
    let blink = Clip::new(
        "blink",
        vec![sampler(&[0.0], &[1.0, 1.0], Interpolation::Step)?],
        vec![channel(0, 6, ChannelPath::Weights)],
    );
    let late = Clip::new(
        "late",
        vec![sampler(
            &[2.0, 3.0],
            &[0.0, 0.2, 0.0, 0.0, 0.6, 0.0],
            Interpolation::Linear,
        )?],
        vec![channel(0, 4, ChannelPath::Translation)],
    );
    Ok(AnimationData {
        nodes,
        clips: vec![walk, wave, blink, late],
        skeletons: vec![SkeletonBinding::new(0, 6, vec![0, 1, 2, 5, 4], vec![])?],
        morph_bindings: vec![MorphBinding {
            node: 6,
            default_weights: vec![0.25, 0.0],
        }],
        handedness: Handedness::LeftHanded,
    })
}

/// Where [`FIXTURE`] lives in the repository.
#[must_use]
pub fn fixture_path() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../fixtures")
        .join(FIXTURE)
}

/// The animation data of [`FIXTURE`], loaded once per process; `None` (after one loud line on
/// stderr) when the file is missing or does not load, so that the code rig is still fuzzed.
#[must_use]
pub fn fixture_rig() -> Option<Arc<AnimationData>> {
    static RIG: OnceLock<Option<Arc<AnimationData>>> = OnceLock::new();
    RIG.get_or_init(|| {
        let path = fixture_path();
        let loaded = std::fs::read(&path)
            .map_err(|e| e.to_string())
            .and_then(|bytes| {
                load_slice(&bytes, None, &LoadOptions::default()).map_err(|e| e.to_string())
            });
        match loaded {
            Ok(asset) => Some(Arc::new(asset.animation)),
            Err(e) => {
                eprintln!(
                    "skel-fuzz: WARNING: fixture {} unavailable ({e}); fuzzing the code rig only \
                     (run `cargo xtask fixtures`)",
                    path.display()
                );
                None
            }
        }
    })
    .clone()
}
