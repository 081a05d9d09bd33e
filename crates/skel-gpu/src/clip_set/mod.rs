//! An asset's clips resampled for the GPU pose pass: every clip at a uniform frame rate of its
//! own, so that finding the two frames around a time is an index (`floor(t × rate)`), not a
//! search; each frame holds the local translation, rotation and scale of every node that moves
//! a joint (the joints and their ancestors, less the static ancestors above them, which are
//! folded into constants: see `posed.rs`) and every morph weight.
//!
//! Frames are sampled through the rig's own playback (the [`Player`](skel_anim::Player)'s
//! layer step, [`skel_anim::mix_layers`], one clip at weight 1): a rig built with
//! [`Compression`](skel_anim::Compression) yields frames of its compressed keys, a lossless
//! rig frames of the asset's keys, so that the GPU plays what the CPU plays.
//!
//! The rate of a clip is chosen by measurement, not assumed: starting from its shortest key
//! interval, doubled until the bone matrices reconstructed the way the shader does (lerp of
//! translation, scale and weights, normalised lerp of rotations) stay within
//! [`GpuClipSetOptions::max_error`] of the rig's own CPU pose at every key time and between
//! every pair of frames. A clip whose keys are already uniform keeps its key rate, and its
//! frames are its keys. [`GpuClipTable::max_error`] is what was measured. The reference is the
//! rig's playback, not the asset's lossless keys: resampling is measured alone, so a
//! compressed rig's own error (up to its bound, 0.01 cm by default) does not count against
//! [`GpuClipSetOptions::max_error`] (it would exceed a tighter budget at every rate); the two
//! errors add up against the asset's keys.
//!
//! Built once per asset on the CPU ([`GpuClipSet::new`]); [`GpuClips`](crate::GpuClips) holds
//! it on the GPU.

use glam::{Mat4, Vec3, Vec4};
use skel_anim::{AnimationData, PoseScratch, R_OFF, Rig, S_OFF, T_OFF, TRS_STRIDE};

use crate::GpuError;
pub use crate::clip_error::POSE_NODE_VEC4S;
use crate::clip_error::{Playback, Reconstruction, Resampled, pose_error};

mod baked;
mod baked_boxes;
mod posed;
pub use baked::{BAKED_BONE_VEC4S, BAKED_MAX_RATE, BakedClips};
pub use baked_boxes::BAKED_BOX_VEC4S;
pub use posed::NO_PARENT;
use posed::{PosedHierarchy, mesh_inverse, snap_identity};

/// How [`GpuClipSet::new`] resamples.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct GpuClipSetOptions {
    /// The largest displacement of a vertex, in the mesh's units, that resampling may cause,
    /// bounded through each bone matrix as `|Δtranslation| + radius × ‖Δlinear part‖`.
    pub max_error: f32,
    /// The largest distance of a bind-pose vertex from the mesh's origin (the bound above
    /// multiplies rotation and scale errors by it).
    pub radius: f32,
    /// The highest frame rate tried (frames per second); a clip that still misses
    /// `max_error` there keeps this rate and reports its error.
    pub max_rate: f32,
}

impl Default for GpuClipSetOptions {
    /// 10⁻⁵ mesh units for a mesh of radius 1, up to 480 frames per second.
    fn default() -> Self {
        Self {
            max_error: 1e-5,
            radius: 1.0,
            max_rate: 480.0,
        }
    }
}

impl GpuClipSetOptions {
    /// Fails on an option that is not a positive finite number.
    pub(crate) fn check(&self) -> Result<(), GpuError> {
        for (what, v) in [
            ("GpuClipSetOptions::max_error", self.max_error),
            ("GpuClipSetOptions::radius", self.radius),
            ("GpuClipSetOptions::max_rate", self.max_rate),
        ] {
            if !(v.is_finite() && v > 0.0) {
                return Err(GpuError::OutOfRange {
                    what,
                    got: v.to_string(),
                    expected: "a positive finite number",
                });
            }
        }
        Ok(())
    }

    /// Half of `fraction` of a mesh's bounding-box `diagonal` as the error budget (the other
    /// half is left to the GPU's float arithmetic), with the diagonal as the radius.
    #[must_use]
    pub fn for_diagonal(diagonal: f32, fraction: f32) -> Self {
        Self {
            max_error: 0.5 * fraction * diagonal,
            radius: diagonal,
            ..Self::default()
        }
    }

    /// The budget a crowd resamples with, from an asset's skeletons: the bind-pose joint
    /// positions' bounding-box diagonal stands for the mesh's (a skinned mesh spans its
    /// joints, give or take a limb's thickness), 1e-4 of it is the bound (half of it for
    /// resampling, [`for_diagonal`](Self::for_diagonal)), and the radius is at least the
    /// diagonal and a quarter more than the farthest joint from the origin. A diagonal of 1
    /// where the asset has no usable joints.
    #[must_use]
    pub fn for_skeletons(data: &AnimationData) -> Self {
        let (mut lo, mut hi, mut radius) = (Vec3::splat(f32::MAX), Vec3::splat(f32::MIN), 0.0f32);
        for binding in &data.skeletons {
            for ibm in binding.inverse_bind_matrices.chunks_exact(16) {
                let p = Mat4::from_cols_slice(ibm).inverse().w_axis.truncate();
                if p.is_finite() {
                    (lo, hi, radius) = (lo.min(p), hi.max(p), radius.max(p.length()));
                }
            }
        }
        let diagonal = (hi - lo).length();
        let diagonal = if diagonal.is_finite() && diagonal > 0.0 {
            diagonal
        } else {
            1.0
        };
        Self {
            radius: (radius * 1.25).max(diagonal),
            ..Self::for_diagonal(diagonal, 1e-4)
        }
    }
}

/// One clip's frames in [`GpuClipSet::frames`].
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct GpuClipTable {
    /// First vec4 of the clip's first frame.
    pub offset: u32,
    /// Frames (at least 2; the last one at `duration`).
    pub frames: u32,
    /// Frames per second: `(frames - 1) / duration` (0 for a clip of no duration).
    pub rate: f32,
    /// The clip's duration in seconds.
    pub duration: f32,
    /// The largest bone error measured against the rig's own CPU pose (its compressed keys
    /// for a compressed rig), in the options' units.
    pub max_error: f32,
}

impl GpuClipTable {
    /// `duration` seconds at `offset` in `intervals` equal intervals (their error not yet
    /// measured).
    pub(crate) fn uniform(offset: u32, intervals: u32, duration: f32) -> Self {
        Self {
            offset,
            frames: intervals + 1,
            rate: intervals as f32 / duration,
            duration,
            max_error: 0.0,
        }
    }

    /// A clip of no duration at `offset`: two frames, both the pose at 0.
    pub(crate) fn still(offset: u32) -> Self {
        Self {
            offset,
            frames: 2,
            rate: 0.0,
            duration: 0.0,
            max_error: 0.0,
        }
    }

    /// Bytes of key data per second of this clip.
    #[must_use]
    pub fn bytes_per_second(&self, row_vec4s: u32) -> f32 {
        self.rate.max(1.0) * row_vec4s as f32 * 16.0
    }
}

/// An asset's clips resampled for the GPU, with the posed hierarchy and the bone layout (see
/// the module docs).
#[derive(Debug, Clone, PartialEq)]
pub struct GpuClipSet {
    /// Asset node of each posed node, parents before children: the joints and their
    /// ancestors, less the static ancestors above them (non-joint nodes that no clip moves,
    /// whose ancestors are alike), which are folded into [`mesh_inverses`](Self::mesh_inverses).
    pub nodes: Vec<usize>,
    /// Parent of each posed node as a posed-node index, or [`NO_PARENT`] (a root of the posed
    /// hierarchy, whose folded ancestors are in its bones' left matrices).
    pub parents: Vec<u32>,
    /// Posed node of each bone, bindings one after the other in the asset's order (the layout
    /// of [`CrowdBones`](crate::CrowdBones)).
    pub bone_nodes: Vec<u32>,
    /// Per bone, the bone whose skinning matrix it takes in an instance posed with the reduced
    /// joint set ([`PoseInstance::reduced`](crate::PoseInstance::reduced)): itself when kept,
    /// else its nearest kept ancestor (see [`set_reduced_joints`](Self::set_reduced_joints)).
    pub reduced_bones: Vec<u32>,
    /// Inverse bind matrix of each bone.
    pub inverse_binds: Vec<Mat4>,
    /// Per bone, applied on the left of its model transform: the inverse of its mesh node's
    /// rest world transform times the rest world transform of the folded ancestors above its
    /// chain (formed in f64, and exactly the identity when the two cancel to 10⁻⁹, as for a
    /// mesh under the same armature node as its skeleton).
    pub mesh_inverses: Vec<Mat4>,
    /// First bone of each skeleton binding.
    pub binding_offsets: Vec<u32>,
    /// First morph weight of each morph binding in a frame's morph part.
    pub morph_offsets: Vec<u32>,
    /// Morph weights in all (the frame's morph part is this, rounded up to vec4s).
    pub morph_count: u32,
    /// Vec4s per frame: [`POSE_NODE_VEC4S`] per posed node, then the morph weights.
    pub row_vec4s: u32,
    /// The clips, in the asset's order.
    pub clips: Vec<GpuClipTable>,
    /// Every clip's frames, each `row_vec4s` long.
    pub frames: Vec<Vec4>,
}

impl GpuClipSet {
    /// Resamples every clip of `rig` as `rig` plays it (see the module docs): a rig built with
    /// [`Compression`](skel_anim::Compression) gives frames of its compressed keys, and each
    /// clip's [`GpuClipTable::max_error`] is measured against that rig's own playback (so it
    /// counts resampling alone, not the compression's error).
    ///
    /// # Errors
    /// [`GpuError::NoBones`] for an asset without skeleton bindings;
    /// [`GpuError::AnimatedMeshNode`] when a clip moves a skinned mesh's node or one of its
    /// ancestors (the pass folds the mesh's inverse world transform into constants);
    /// [`GpuError::OutOfRange`] for options that are not positive finite numbers (and for a
    /// clip whose layer the rig refuses, which a rig's own clips never are).
    pub fn new(rig: &Rig, options: &GpuClipSetOptions) -> Result<Self, GpuError> {
        options.check()?;
        let data = &**rig.data();
        if data.skeletons.is_empty() {
            return Err(GpuError::NoBones);
        }
        let mut set = Self::layout(rig, data)?;
        let mut scratch = PoseScratch::for_rig(rig);
        let mut recon = Reconstruction::default();
        let mut playback = Playback::new(rig)?;
        for clip in 0..data.clips.len() {
            let table = set.resample(&mut playback, clip, options, &mut scratch, &mut recon);
            set.clips.push(table);
        }
        Ok(set)
    }

    /// The posed nodes, the bones and the morph layout; no clips yet.
    fn layout(rig: &Rig, data: &AnimationData) -> Result<Self, GpuError> {
        let PosedHierarchy {
            nodes,
            parents,
            posed,
            prefix,
        } = PosedHierarchy::of(rig, data);
        let (mut bone_nodes, mut inverse_binds, mut mesh_inverses) = (vec![], vec![], vec![]);
        let mut binding_offsets = Vec::with_capacity(data.skeletons.len());
        for binding in &data.skeletons {
            binding_offsets.push(bone_nodes.len() as u32);
            let mesh_inverse = mesh_inverse(data, binding.mesh_node)?;
            for (j, &joint) in binding.joints.iter().enumerate() {
                bone_nodes.push(posed[joint]);
                let ibm = &binding.inverse_bind_matrices[j * 16..j * 16 + 16];
                inverse_binds.push(Mat4::from_cols_slice(ibm));
                mesh_inverses.push(snap_identity(mesh_inverse * prefix[posed[joint] as usize]));
            }
        }
        let mut morph_offsets = Vec::with_capacity(data.morph_bindings.len());
        let mut morph_count = 0;
        for binding in &data.morph_bindings {
            morph_offsets.push(morph_count);
            morph_count += binding.target_count() as u32;
        }
        let row_vec4s = nodes.len() as u32 * POSE_NODE_VEC4S + morph_count.div_ceil(4);
        Ok(Self {
            nodes,
            parents,
            reduced_bones: (0..bone_nodes.len() as u32).collect(),
            bone_nodes,
            inverse_binds,
            mesh_inverses,
            binding_offsets,
            morph_offsets,
            morph_count,
            row_vec4s,
            clips: Vec::new(),
            frames: Vec::new(),
        })
    }

    /// Chooses the reduced joint set (a level of detail: far characters posed with fewer
    /// joints, skinned through the same palette): `keep[b]` says whether bone `b` is posed; a
    /// bone left out takes the skinning matrix of its nearest kept ancestor bone of the same
    /// skeleton binding, so that its vertices follow that bone rigidly (`W_k · IBM_k` is exactly
    /// what `W_j · IBM_j` becomes when joint `j` is held fixed relative to `k` at its bind
    /// pose), and its thread walks the shorter chain from there. A bone with no kept ancestor
    /// stays posed.
    ///
    /// # Errors
    /// [`GpuError::LengthMismatch`] when `keep` has not one entry per bone.
    pub fn set_reduced_joints(&mut self, keep: &[bool]) -> Result<(), GpuError> {
        if keep.len() != self.bone_nodes.len() {
            return Err(GpuError::LengthMismatch {
                what: "reduced joint set (one flag per bone)",
                expected: self.bone_nodes.len(),
                got: keep.len(),
            });
        }
        let binding_of = |b: usize| self.binding_offsets.partition_point(|&o| o as usize <= b);
        for b in 0..self.bone_nodes.len() {
            self.reduced_bones[b] = b as u32;
            if keep[b] {
                continue;
            }
            let mut node = self.parents[self.bone_nodes[b] as usize];
            while node != NO_PARENT {
                let kept = (0..self.bone_nodes.len()).find(|&k| {
                    keep[k] && self.bone_nodes[k] == node && binding_of(k) == binding_of(b)
                });
                if let Some(k) = kept {
                    self.reduced_bones[b] = k as u32;
                    break;
                }
                node = self.parents[node as usize];
            }
        }
        Ok(())
    }

    /// Bones per instance (over every skeleton binding).
    #[must_use]
    pub fn bone_count(&self) -> u32 {
        self.bone_nodes.len() as u32
    }

    /// Bytes of key data in all.
    #[must_use]
    pub fn frame_bytes(&self) -> u64 {
        self.frames.len() as u64 * 16
    }

    /// Longest parent chain of the posed nodes (1 for a flat hierarchy).
    #[must_use]
    pub fn depth(&self) -> u32 {
        self.node_levels().into_iter().max().map_or(0, |l| l + 1)
    }

    /// Each posed node's ancestors (0 for a root): the level at which the per-node layouts
    /// compose it with its parent.
    #[must_use]
    pub fn node_levels(&self) -> Vec<u32> {
        let mut levels = vec![0u32; self.parents.len()];
        for (i, &p) in self.parents.iter().enumerate() {
            if p != NO_PARENT {
                levels[i] = levels[p as usize] + 1;
            }
        }
        levels
    }

    /// The frames of `clip` at `frames - 1` intervals over its duration, the rate doubled
    /// until the error fits (see the module docs); appends them and returns the table.
    fn resample(
        &mut self,
        playback: &mut Playback<'_>,
        clip: usize,
        options: &GpuClipSetOptions,
        scratch: &mut PoseScratch,
        recon: &mut Reconstruction,
    ) -> GpuClipTable {
        let data = &**playback.rig().data();
        let duration = data.clips[clip].duration();
        let keys = key_times(data, clip, duration);
        let offset = self.frames.len() as u32;
        if duration <= 0.0 {
            self.push_frame(playback, clip, 0.0, false, scratch);
            self.push_frame(playback, clip, 0.0, false, scratch);
            return GpuClipTable::still(offset);
        }
        let shortest = keys
            .windows(2)
            .map(|w| w[1] - w[0])
            .filter(|&d| d > 1e-5)
            .fold(duration, f32::min);
        let most = (options.max_rate * duration).ceil().max(1.0) as u32;
        // A curve between keys (cubic splines) needs frames between its keys from the start.
        let curved = data.clips[clip]
            .samplers
            .iter()
            .any(|s| s.interpolation() != skel_anim::Interpolation::Linear);
        let start = if curved { 4 } else { 1 };
        let mut intervals = ((duration / shortest).round() as u32 * start).clamp(1, most);
        loop {
            self.frames.truncate(offset as usize);
            for i in 0..=intervals {
                let t = duration * i as f32 / intervals as f32;
                self.push_frame(playback, clip, t, i > 0, scratch);
            }
            let table = GpuClipTable::uniform(offset, intervals, duration);
            let resampled = Resampled {
                nodes: &self.nodes,
                row_vec4s: self.row_vec4s,
                rows: &self.frames[offset as usize..],
                rate: table.rate,
                frames: table.frames,
            };
            let worst = check_times(&keys, intervals, duration)
                .map(|t| {
                    let at = (t, options.radius);
                    pose_error(playback, clip, &resampled, at, scratch, recon)
                })
                .fold(0.0, f32::max);
            if worst <= options.max_error || intervals >= most {
                return GpuClipTable {
                    max_error: worst,
                    ..table
                };
            }
            intervals = (intervals * 2).min(most);
        }
    }

    /// Appends the rig's local pose of `clip` at `time` (its playback: see the module docs):
    /// each posed node's translation, rotation (in the hemisphere of the previous frame's, so
    /// that a lerp between frames takes the short way) and scale, then the morph weights.
    fn push_frame(
        &mut self,
        playback: &mut Playback<'_>,
        clip: usize,
        time: f32,
        continues: bool,
        scratch: &mut PoseScratch,
    ) {
        playback.pose(clip, time, scratch);
        let row = self.row_vec4s as usize;
        let previous = self.frames.len().checked_sub(row).filter(|_| continues);
        for (i, &node) in self.nodes.iter().enumerate() {
            let rec = &scratch.trs[node * TRS_STRIDE..(node + 1) * TRS_STRIDE];
            let t = Vec3::from_slice(&rec[T_OFF..T_OFF + 3]);
            let mut r = Vec4::from_slice(&rec[R_OFF..R_OFF + 4]);
            let s = Vec3::from_slice(&rec[S_OFF..S_OFF + 3]);
            if let Some(prev) = previous {
                let before = self.frames[prev + i * 3 + 1];
                if before.dot(r) < 0.0 {
                    r = -r;
                }
            }
            self.frames.extend([t.extend(0.0), r, s.extend(0.0)]);
        }
        let mut morph = [0.0f32; 4];
        let mut k = 0;
        for weights in &scratch.morph_weights {
            for &w in weights {
                morph[k % 4] = w;
                k += 1;
                if k % 4 == 0 {
                    self.frames.push(Vec4::from_array(morph));
                    morph = [0.0; 4];
                }
            }
        }
        if k % 4 != 0 {
            self.frames.push(Vec4::from_array(morph));
        }
    }
}

/// The times a resampling of `duration` into `intervals` is measured at: every key, and a
/// quarter, half and three quarters of every interval (a symmetric curve, a spline easing in
/// and out, meets its chord at the half).
fn check_times(keys: &[f32], intervals: u32, duration: f32) -> impl Iterator<Item = f32> + '_ {
    let between = (0..intervals * 4)
        .filter(|k| k % 4 != 0)
        .map(move |k| duration * k as f32 / (4 * intervals) as f32);
    keys.iter().copied().chain(between)
}

/// Every key time of `clip` within `[0, duration]`, sorted, with 0 and `duration`.
fn key_times(data: &AnimationData, clip: usize, duration: f32) -> Vec<f32> {
    let mut keys: Vec<f32> = data.clips[clip]
        .samplers
        .iter()
        .flat_map(|s| s.input().iter().copied())
        .filter(|&t| (0.0..=duration).contains(&t))
        .chain([0.0, duration])
        .collect();
    keys.sort_by(f32::total_cmp);
    keys.dedup();
    keys
}
