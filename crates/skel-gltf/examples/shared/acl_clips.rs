//! The clips skel and the Animation Compression Library are compared on, each with its joints
//! in model space (the skins' joints, parents first, each relative to the parent of its
//! topmost joint ancestor, as `shell_error` measures).

use std::sync::Arc;

use glam::{DMat4, Quat, Vec3};
use skel_anim::{
    AnimationController, AnimationData, Channel, ChannelPath, Handedness, Interpolation, NullSink,
    Rig, Sampler,
};

use crate::support;

/// One clip of one asset.
pub struct Clip {
    /// `asset-clip`, as file names and tables show it.
    pub id: String,
    pub data: Arc<AnimationData>,
    pub clip: usize,
    /// Metres per unit of the joints' model space: glTF's metre, Fox's centimetre, and
    /// RobotExpressive's 100 m (its armature node scales its joints by 100 into metres).
    pub unit: f64,
    /// Metres per unit of the scene's world, where skel's compressor measures.
    pub world_unit: f64,
    /// The skins' joints (node indices), parents before children.
    pub joints: Vec<usize>,
    /// Each joint's nearest joint ancestor, as an index into `joints`.
    pub parent: Vec<Option<usize>>,
}

/// Every compared clip (shared assets missing on this machine are skipped with a note).
pub fn clips() -> Result<Vec<Clip>, String> {
    let mut out = Vec::new();
    for (name, file, unit, world_unit) in [
        ("CesiumMan", "CesiumMan/CesiumMan.glb", 1.0, 1.0),
        ("Fox", "Fox/Fox.glb", 0.01, 0.01),
        (
            "RobotExpressive",
            "RobotExpressive/RobotExpressive.glb",
            100.0,
            1.0,
        ),
    ] {
        let Some(path) = skel_test_support::shared_asset(name, file) else {
            continue;
        };
        let options = skel_gltf::LoadOptions {
            decode_images: false,
            ..skel_gltf::LoadOptions::default()
        };
        let asset = skel_gltf::load_path(&path, &options).map_err(|e| e.to_string())?;
        let data = Arc::new(asset.animation);
        for (i, c) in data.clips.iter().enumerate() {
            let clip = if c.name.is_empty() {
                i.to_string()
            } else {
                c.name.clone()
            };
            out.push(Clip::new(
                format!("{name}-{clip}"),
                Arc::clone(&data),
                i,
                (unit, world_unit),
            ));
        }
    }
    for (name, spec) in [
        ("Walk67", support::rigs::WALK_67),
        ("Rig368", support::rigs::RIG_368),
    ] {
        out.push(Clip::new(
            name.into(),
            Arc::new(support::rigs::generate(spec)),
            0,
            (1.0, 1.0),
        ));
    }
    out.push(Clip::new(
        "Long65".into(),
        Arc::new(long65()),
        0,
        (1.0, 1.0),
    ));
    Ok(out)
}

impl Clip {
    fn new(
        id: String,
        data: Arc<AnimationData>,
        clip: usize,
        (unit, world_unit): (f64, f64),
    ) -> Self {
        let mut seen = vec![false; data.nodes.len()];
        for b in &data.skeletons {
            for &j in &b.joints {
                seen[j] = true;
            }
        }
        let depth = |mut n: usize| {
            let mut d = 0;
            while let Some(p) = data.nodes[n].parent {
                n = p;
                d += 1;
            }
            d
        };
        let mut joints: Vec<usize> = (0..seen.len()).filter(|&j| seen[j]).collect();
        joints.sort_by_key(|&j| depth(j));
        let parent = joints
            .iter()
            .map(|&j| {
                let mut n = data.nodes[j].parent;
                while let Some(p) = n {
                    if seen[p] {
                        return joints.iter().position(|&k| k == p);
                    }
                    n = data.nodes[p].parent;
                }
                None
            })
            .collect();
        Self {
            id: id.replace(' ', "_"),
            data,
            clip,
            unit,
            world_unit,
            joints,
            parent,
        }
    }

    /// Samples and rate of the clip's uniform sampling: the key rate of its longest sampler.
    pub fn uniform_samples(&self) -> (usize, f32) {
        let clip = &self.data.clips[self.clip];
        let duration = clip.duration();
        let keys = clip
            .samplers
            .iter()
            .map(|s| s.input().len())
            .max()
            .unwrap_or(1);
        if duration <= 0.0 || keys < 2 {
            return (1, 30.0);
        }
        #[expect(clippy::cast_precision_loss, reason = "a few thousand keys")]
        let rate = ((keys - 1) as f32 / duration).round().max(1.0);
        #[expect(
            clippy::cast_possible_truncation,
            clippy::cast_sign_loss,
            reason = "a few thousand"
        )]
        let samples = (duration * rate).round() as usize + 1;
        #[expect(clippy::cast_precision_loss, reason = "a few thousand samples")]
        let rate = (samples - 1) as f32 / duration;
        (samples, rate)
    }

    /// `rig` playing the clip: each joint's model matrix at each of `times` (times × joints).
    pub fn model_matrices(&self, rig: &Arc<Rig>, times: &[f32]) -> Result<Vec<Vec<DMat4>>, String> {
        let mut c = AnimationController::from_rig(rig);
        times
            .iter()
            .map(|&t| {
                c.evaluate_at(Some(self.clip), t, &mut NullSink)
                    .map_err(|e| e.to_string())?;
                let w: Vec<DMat4> = c.world_matrices().iter().map(|m| m.as_dmat4()).collect();
                Ok(self.model_of(&w))
            })
            .collect()
    }

    /// The clip itself, as glTF defines it in f64 (`shell::ClipReference`): each joint's model
    /// matrix at each of `times` (times × joints), beside [`Clip::model_matrices`]'s.
    pub fn clip_model_matrices(&self, times: &[f32]) -> Result<Vec<Vec<DMat4>>, String> {
        let reference = skel_anim::shell::ClipReference::for_playback(&self.data, self.clip)
            .ok_or("no such clip")?;
        let mut w = Vec::new();
        Ok(times
            .iter()
            .map(|&t| {
                reference.world_at(t, &mut w);
                let w: Vec<DMat4> = w.iter().map(DMat4::from_cols_array).collect();
                self.model_of(&w)
            })
            .collect())
    }

    /// Each joint's model matrix from every node's world matrix `w`: relative to the parent of
    /// its topmost joint ancestor (a root's, with left-handed loading's mirror undone).
    fn model_of(&self, w: &[DMat4]) -> Vec<DMat4> {
        let flip = match self.data.handedness {
            Handedness::LeftHanded => DMat4::from_cols_array(&skel_math::RH_TO_LH.map(f64::from)),
            Handedness::RightHanded => DMat4::IDENTITY,
        };
        let nodes = &self.data.nodes;
        self.joints
            .iter()
            .map(|&j| {
                let mut top = j;
                while let Some(p) = nodes[top].parent.filter(|p| self.joints.contains(p)) {
                    top = p;
                }
                nodes[top]
                    .parent
                    .map_or(flip * w[j], |p| w[p].inverse() * w[j])
            })
            .collect()
    }
}

/// Long65: the generated 65-joint humanoid with 60 s of 30 Hz motion: a 1 Hz swing per joint
/// with a faster overtone and a slow drift, and the root walking forward 1.2 m/s with a bob,
/// so that a clip long enough for fixed overheads not to matter is not one smooth period.
fn long65() -> AnimationData {
    let spec = support::rigs::RigSpec {
        joints: 65,
        duration: 60.0,
        keys_per_second: 30.0,
        translation_every: 0,
        scale_every: 0,
    };
    let mut data = support::rigs::generate(spec);
    let keys = 1801;
    #[expect(clippy::cast_precision_loss, reason = "a few thousand keys")]
    let times: Vec<f32> = (0..keys).map(|k| k as f32 / 30.0).collect();
    let tau = std::f32::consts::TAU;
    let (mut samplers, mut channels) = (Vec::new(), Vec::new());
    for j in 0..spec.joints {
        #[expect(clippy::cast_precision_loss, reason = "65 joints")]
        let f = j as f32;
        let rest = Quat::from_array(data.nodes[j].rotation);
        let axis = Vec3::new((f * 1.3).cos(), 0.5, (f * 0.9).sin()).normalize();
        let rotation: Vec<f32> = times
            .iter()
            .flat_map(|&t| {
                let a = 0.45 * (tau * t + 0.37 * f).sin()
                    + 0.12 * (tau * 2.3 * t + 1.1 * f).sin()
                    + 0.2 * (tau * t / 17.0 + f).sin();
                (rest * Quat::from_axis_angle(axis, a)).to_array()
            })
            .collect();
        let mut push = |values: Vec<f32>, path| {
            if let Ok(s) = Sampler::new(times.clone(), values, Interpolation::Linear) {
                channels.push(Channel {
                    sampler: samplers.len(),
                    node: j,
                    path,
                });
                samplers.push(s);
            }
        };
        push(rotation, ChannelPath::Rotation);
        if j == 0 {
            let base = Vec3::from_array(data.nodes[0].translation);
            let values = times
                .iter()
                .flat_map(|&t| {
                    (base
                        + Vec3::new(
                            0.02 * (tau * t).sin(),
                            0.03 * (tau * 2.0 * t).cos(),
                            1.2 * t,
                        ))
                    .to_array()
                })
                .collect();
            push(values, ChannelPath::Translation);
        }
    }
    data.clips = vec![skel_anim::Clip::new("long", samplers, channels)];
    data
}
