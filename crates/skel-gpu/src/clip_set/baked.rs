//! Clips baked to skinning matrices, for [`PoseLayout::Baked`](crate::PoseLayout::Baked): each
//! clip's frames hold every bone's finished skinning matrix (mesh inverse · model · inverse
//! bind, its top three rows, 48 bytes a bone), so that posing an instance that plays one clip
//! is a lerp of two rows a bone: no sampling of local transforms, no hierarchy, no barrier.
//!
//! A lerp of two matrices is not what the player computes between two frames (it composes
//! normalised-lerped local rotations through the hierarchy): the lerped matrix runs along the
//! chord of the rotation's arc and shrinks towards its middle. That error falls with the square
//! of the frame interval, so the rate is chosen as [`GpuClipSet`]'s is, by measurement: from
//! the clip's resampled rate, doubled until the lerped matrices stay within
//! [`GpuClipSetOptions::max_error`] of the rig's own pose at every key and at a quarter, half
//! and three quarters of every frame interval, up to the higher of the options' `max_rate` and
//! [`BAKED_MAX_RATE`]. [`GpuClipTable::max_error`] is what was measured.
//!
//! A lerp of two skinning matrices moves every vertex along the straight line between where
//! the two frames put it (linear blend skinning is linear in the matrices): what lies between
//! two frames lies in the union of the two frames' boxes.

use glam::{Mat4, Vec4};
use skel_anim::{PoseScratch, RecordingSink, Rig};

use super::{GpuClipSet, GpuClipSetOptions, GpuClipTable, check_times, key_times};
use crate::GpuError;
use crate::clip_error::{Playback, bone_error, frame_at};

/// Vec4s per bone in a baked row: the top three rows of the skinning matrix.
pub const BAKED_BONE_VEC4S: u32 = 3;

/// The highest rate a bake tries (frames per second) when the clip set's
/// [`max_rate`](GpuClipSetOptions::max_rate) is lower: a lerp of matrices needs about four
/// times the frames per halving of its error where the local transforms need far fewer
/// (CesiumMan's walk: 48 frames per second resampled, about 600 baked for the same error).
pub const BAKED_MAX_RATE: f32 = 1920.0;

/// An asset's clips baked to skinning matrices (see the module docs), for
/// [`GpuClips::upload_baked`](crate::GpuClips::upload_baked).
///
/// ```no_run
/// # fn demo(rig: &skel_anim::Rig, ctx: &skel_gpu::GpuContext) -> Result<(), skel_gpu::GpuError> {
/// use skel_gpu::{BakedClips, GpuClipSet, GpuClipSetOptions, GpuClips};
///
/// let options = GpuClipSetOptions::for_skeletons(rig.data());
/// let set = GpuClipSet::new(rig, &options)?;
/// let mut clips = GpuClips::new(ctx, &set)?;
/// clips.upload_baked(ctx, &BakedClips::new(rig, &set, &options)?)?;
/// // Crowds of `clips` may now pose with PoseLayout::Baked.
/// # Ok(()) }
/// ```
#[derive(Debug, Clone, PartialEq)]
pub struct BakedClips {
    /// Bones per row (the clip set's, bindings one after the other).
    pub bones: u32,
    /// The clips in the asset's order; `offset` counts vec4s into [`rows`](Self::rows).
    pub clips: Vec<GpuClipTable>,
    /// Every clip's frames, each [`row_vec4s`](Self::row_vec4s) long: per bone the top three
    /// rows of its skinning matrix.
    pub rows: Vec<Vec4>,
    /// Per frame, [`BAKED_BOX_VEC4S`](crate::BAKED_BOX_VEC4S) vec4s: its boxes in the
    /// character's frame ([`bake_boxes`](Self::bake_boxes)); empty until then.
    pub boxes: Vec<Vec4>,
}

impl BakedClips {
    /// Bakes every clip of `rig` (the rig `set` was made from) within `options.max_error`
    /// (see the module docs). Allocates; meant for load time.
    ///
    /// # Errors
    /// [`GpuError::LengthMismatch`] when `set` holds another clip or bone count than `rig`;
    /// [`GpuError::OutOfRange`] for options that are not positive finite numbers.
    pub fn new(rig: &Rig, set: &GpuClipSet, options: &GpuClipSetOptions) -> Result<Self, GpuError> {
        options.check()?;
        let data = &**rig.data();
        let bones: usize = data.skeletons.iter().map(|s| s.joints.len()).sum();
        for (what, expected, got) in [
            (
                "baked clips (the clip set's)",
                set.clips.len(),
                data.clips.len(),
            ),
            (
                "baked bones (the clip set's)",
                set.bone_count() as usize,
                bones,
            ),
        ] {
            if expected != got {
                return Err(GpuError::LengthMismatch {
                    what,
                    expected,
                    got,
                });
            }
        }
        let mut baker = Baker {
            playback: Playback::new(rig)?,
            scratch: PoseScratch::for_rig(rig),
            sink: RecordingSink::default(),
        };
        let mut baked = Self {
            bones: bones as u32,
            clips: Vec::with_capacity(set.clips.len()),
            rows: Vec::new(),
            boxes: Vec::new(),
        };
        for (clip, resampled) in set.clips.iter().enumerate() {
            let table = baked.bake(&mut baker, clip, resampled, options);
            baked.clips.push(table);
        }
        Ok(baked)
    }

    /// Vec4s per row: [`BAKED_BONE_VEC4S`] per bone.
    #[must_use]
    pub fn row_vec4s(&self) -> u32 {
        self.bones * BAKED_BONE_VEC4S
    }

    /// Bytes of baked rows in all.
    #[must_use]
    pub fn bytes(&self) -> u64 {
        self.rows.len() as u64 * 16
    }

    /// Bakes `clip` from the resampled clip's rate up, doubling until the error fits; appends
    /// the rows and returns the table.
    fn bake(
        &mut self,
        baker: &mut Baker<'_>,
        clip: usize,
        resampled: &GpuClipTable,
        options: &GpuClipSetOptions,
    ) -> GpuClipTable {
        let data = &**baker.playback.rig().data();
        let duration = resampled.duration;
        let offset = self.rows.len() as u32;
        if duration <= 0.0 {
            baker.push_row(clip, 0.0, &mut self.rows);
            baker.push_row(clip, 0.0, &mut self.rows);
            return GpuClipTable::still(offset);
        }
        let keys = key_times(data, clip, duration);
        let most = (options.max_rate.max(BAKED_MAX_RATE) * duration)
            .ceil()
            .max(1.0) as u32;
        let mut intervals = resampled.frames.saturating_sub(1).clamp(1, most);
        let row = self.row_vec4s() as usize;
        loop {
            self.rows.truncate(offset as usize);
            for i in 0..=intervals {
                let t = duration * i as f32 / intervals as f32;
                baker.push_row(clip, t, &mut self.rows);
            }
            let table = GpuClipTable::uniform(offset, intervals, duration);
            let rows = &self.rows[offset as usize..];
            let mut worst = 0.0f32;
            for t in check_times(&keys, intervals, duration) {
                let (i, s) = frame_at(table.rate, table.frames, t);
                let (a, b) = (&rows[i as usize * row..], &rows[(i as usize + 1) * row..]);
                baker.pose(clip, t);
                for (bone, played) in baker.sink.bone_matrices.iter().flatten().enumerate() {
                    let at = bone * BAKED_BONE_VEC4S as usize;
                    let lerped = affine(
                        a[at].lerp(b[at], s),
                        a[at + 1].lerp(b[at + 1], s),
                        a[at + 2].lerp(b[at + 2], s),
                    );
                    worst = worst.max(bone_error(&lerped, played, options.radius));
                }
            }
            if worst <= options.max_error || intervals >= most {
                return GpuClipTable {
                    max_error: worst,
                    ..table
                };
            }
            intervals = (intervals * 2).min(most);
        }
    }
}

/// The rig's playback and the scratch a bake poses into (allocated once per bake).
struct Baker<'r> {
    playback: Playback<'r>,
    scratch: PoseScratch,
    sink: RecordingSink,
}

impl Baker<'_> {
    /// The rig's skinning matrices of `clip` at `time`, into `self.sink`.
    fn pose(&mut self, clip: usize, time: f32) {
        let data = &**self.playback.rig().data();
        self.playback.pose(clip, time, &mut self.scratch);
        skel_anim::compute_world_matrices(data, &mut self.scratch);
        skel_anim::compute_bone_matrices(data, &mut self.scratch, &mut self.sink);
    }

    /// Appends the rows of `clip` at `time`: every bone's top three rows.
    fn push_row(&mut self, clip: usize, time: f32, rows: &mut Vec<Vec4>) {
        self.pose(clip, time);
        for m in self.sink.bone_matrices.iter().flatten() {
            rows.extend([m.row(0), m.row(1), m.row(2)]);
        }
    }
}

/// The affine matrix of three rows.
pub(super) fn affine(r0: Vec4, r1: Vec4, r2: Vec4) -> Mat4 {
    Mat4::from_cols(
        Vec4::new(r0.x, r1.x, r2.x, 0.0),
        Vec4::new(r0.y, r1.y, r2.y, 0.0),
        Vec4::new(r0.z, r1.z, r2.z, 0.0),
        Vec4::new(r0.w, r1.w, r2.w, 1.0),
    )
}
