//! The `load_gltf` target's pipeline: bytes → [`skel_gltf::load_slice`] (both handedness
//! modes) → controller, blend and bone control over the data → every clip evaluated at a few
//! times → CPU skinning of every primitive.
//!
//! Malformed bytes must come back as a [`skel_gltf::GltfError`]; what loads must be consistent
//! enough for every later step to accept it without an error (the loader's contract with the
//! crates above it). Panics, and the `assert!`s below, are what libFuzzer reports.

use std::sync::Arc;

use skel_anim::{
    AnimationController, AnimationData, Handedness, NullSink, PoseSink, WeightedBlend,
    skin_vertices,
};
use skel_gltf::{GltfAsset, LoadOptions, PrimitiveData, load_slice};

/// Loads `bytes` in both handedness modes and runs everything that loads through the pose
/// pipeline and CPU skinning.
///
/// # Panics
/// When any step panics, or when data the loader accepted is rejected by a later step (that is
/// a bug: the loader must validate what the pipeline relies on).
pub fn exercise_asset(bytes: &[u8]) {
    // Images are decoded in one mode only: decoding does not depend on handedness.
    for (handedness, decode_images) in [
        (Handedness::LeftHanded, true),
        (Handedness::RightHanded, false),
    ] {
        let mut opts = LoadOptions::with_handedness(handedness);
        opts.decode_images = decode_images;
        match load_slice(bytes, None, &opts) {
            Ok(asset) => exercise_loaded(&asset),
            Err(e) => {
                // Formatting an error must not panic either.
                let _ = e.to_string();
            }
        }
    }
}

/// Times at which every clip is evaluated: the start, the middle, the end, past the end, before
/// the start.
fn sample_times(duration: f32) -> [f32; 5] {
    [0.0, duration * 0.5, duration, duration + 1.0, -1.0]
}

fn exercise_loaded(asset: &GltfAsset) {
    let data = Arc::new(asset.animation.clone());
    let mut controller = match AnimationController::new(Arc::clone(&data)) {
        Ok(c) => c,
        Err(e) => panic!("the loader returned animation data that does not validate: {e}"),
    };
    let mut sink = NullSink;
    let mut skinned = Skinned::default();

    // The rest pose, then every clip at a few times.
    evaluate(&mut controller, None, 0.0, &mut sink);
    skinned.skin_all(asset, &controller);
    for (c, clip) in data.clips.iter().enumerate() {
        for t in sample_times(clip.duration()) {
            evaluate(&mut controller, Some(c), t, &mut sink);
            skinned.skin_all(asset, &controller);
        }
    }

    // The clock path: play the last clip for a few frames, including bad frame times.
    if let Err(e) = controller.set_clip(data.clips.len().checked_sub(1)) {
        panic!("set_clip rejected the last clip: {e}");
    }
    for dt in [16.0, f32::NAN, -1000.0, f32::INFINITY, 1e9] {
        controller.tick(dt, &mut sink);
        assert!(
            controller.time.is_finite(),
            "tick({dt}) left a non-finite time"
        );
    }

    exercise_blend(&data, &mut sink);
    exercise_bone_control(&data, &mut sink);
    for p in &asset.primitives {
        // The GPU layout of the influences (4 or 8 per vertex) from the same data.
        let _ = p.gpu_influences();
    }
}

fn evaluate(
    controller: &mut AnimationController,
    clip: Option<usize>,
    time: f32,
    sink: &mut dyn PoseSink,
) {
    if let Err(e) = controller.evaluate_at(clip, time, sink) {
        panic!("evaluate_at({clip:?}, {time}) failed on a clip that exists: {e}");
    }
}

/// Every clip at once, half weight each, over a few ticks: the blend's channel maps are built
/// from whatever channels the file has (several on one property, weights on any node).
fn exercise_blend(data: &Arc<AnimationData>, sink: &mut dyn PoseSink) {
    let weights: Vec<(usize, f32)> = (0..data.clips.len()).map(|c| (c, 0.5)).collect();
    let mut blend = match WeightedBlend::with_weights(Arc::clone(data), &weights) {
        Ok(b) => b,
        Err(e) => panic!("WeightedBlend rejected validated data: {e}"),
    };
    for dt in [0.0, 16.0, 5000.0] {
        blend.tick(dt, sink);
    }
}

/// Bone control over the file's skins: discovery of parents through any hierarchy, an override
/// on every bone, and the eager bake.
fn exercise_bone_control(data: &Arc<AnimationData>, sink: &mut dyn PoseSink) {
    let bones = match skel_bone_control::enable_bone_control(data) {
        Ok(b) => b,
        Err(e) => panic!("enable_bone_control rejected validated data: {e}"),
    };
    for skeleton in bones.skeletons() {
        for b in 0..skeleton.bone_count() {
            if let Err(e) =
                skeleton.set_bone_pose_deferred(b, [0.0, 0.1, 0.0], [0.0, 0.0, 0.0, 1.0])
            {
                panic!("set_bone_pose_deferred({b}) failed on a bone that exists: {e}");
            }
        }
        skeleton.bake_skeleton(sink);
        if skeleton.bone_count() > 0 {
            // Reports a typed error for singular parents; must never panic.
            let _ = skeleton.set_bone_world_pose_deferred(0, [1.0, 2.0, 3.0], [0.0, 0.0, 0.0, 1.0]);
            let _ = skeleton.bone_world_pose(skeleton.bone_count() - 1);
            if let Err(e) = skeleton.set_bone_visible(0, false, sink) {
                panic!("set_bone_visible(0) failed on a bone that exists: {e}");
            }
        }
    }
}

/// Output buffers for CPU skinning, reused between primitives.
#[derive(Default)]
struct Skinned {
    positions: Vec<f32>,
    normals: Vec<f32>,
}

impl Skinned {
    /// Skins every primitive with the controller's last bone matrices and morph weights.
    fn skin_all(&mut self, asset: &GltfAsset, controller: &AnimationController) {
        for p in &asset.primitives {
            self.skin(p, controller);
        }
    }

    fn skin(&mut self, p: &PrimitiveData, controller: &AnimationController) {
        let bones = match p.skeleton_binding {
            Some(b) => match controller.bone_matrices(b) {
                Some(m) => m,
                None => panic!(
                    "primitive {} names skeleton binding {b}, which does not exist",
                    p.key
                ),
            },
            None => &[],
        };
        let morph = match (&p.morph_targets, p.morph_binding) {
            (Some(targets), Some(m)) => match controller.morph_weights(m) {
                Some(w) => Some((targets, w)),
                None => panic!(
                    "primitive {} names morph binding {m}, which does not exist",
                    p.key
                ),
            },
            _ => None,
        };
        let n = p.positions.len();
        self.positions.clear();
        self.positions.resize(n, 0.0);
        let out_normals = match &p.normals {
            Some(_) => {
                self.normals.clear();
                self.normals.resize(n, 0.0);
                Some(self.normals.as_mut_slice())
            }
            None => None,
        };
        if let Err(e) = skin_vertices(
            &p.positions,
            p.normals.as_deref(),
            p.influences.as_ref(),
            bones,
            morph,
            &mut self.positions,
            out_normals,
        ) {
            panic!("CPU skinning rejected loaded primitive {}: {e}", p.key);
        }
    }
}
