//! The boxes of baked frames ([`BakedClips::bake_boxes`]): per frame, the box in the
//! character's frame of every bounding sphere under that frame's skinning matrices, so that a
//! crowd posed with [`PoseLayout::Baked`](crate::PoseLayout::Baked) is boxed by reading two
//! boxes an instance instead of every part's bone matrix.
//!
//! Conservative by construction: a lerp of two frames' skinning matrices moves each vertex on
//! the segment between where the two frames put it (linear blend skinning is linear in the
//! matrices), so it stays in the union of the two frames' boxes; each box is widened by the
//! clip's measured bake error ([`GpuClipTable::max_error`](crate::GpuClipTable::max_error)),
//! which bounds how far the player's vertex is from the lerped one.

use glam::{Mat4, Vec3, Vec4};

use super::GpuClipSet;
use super::baked::{BAKED_BONE_VEC4S, BakedClips};
use crate::{CullInputs, GpuError};

/// Vec4s of boxes per baked frame: min and max with every joint, then with the reduced joint
/// set (w 0; min > max when no part is finite).
pub const BAKED_BOX_VEC4S: u32 = 4;

impl BakedClips {
    /// Boxes every baked frame (see the module docs) from the character's bounding spheres
    /// (`inputs`, made from the asset `set` came from): with every joint, and with `set`'s
    /// reduced joint set as it stands (bake again after
    /// [`GpuClipSet::set_reduced_joints`]). Fills [`boxes`](Self::boxes).
    ///
    /// # Errors
    /// [`GpuError::LengthMismatch`] for inputs or a set of another bone count;
    /// [`GpuError::OutOfRange`] and [`GpuError::NotFinite`] for a part past the bones or not
    /// finite.
    pub fn bake_boxes(&mut self, set: &GpuClipSet, inputs: &CullInputs) -> Result<(), GpuError> {
        for (what, got) in [
            ("cull input bones (the baked bones)", inputs.bones.len()),
            (
                "reduced joint set bones (the baked bones)",
                set.reduced_bones.len(),
            ),
        ] {
            if got != self.bones as usize {
                return Err(GpuError::LengthMismatch {
                    what,
                    expected: self.bones as usize,
                    got,
                });
            }
        }
        crate::cull_inputs::check_parts(&inputs.parts, self.bones)?;
        let row = self.row_vec4s() as usize;
        let frames = self.rows.len() / row.max(1);
        let mut boxes = Vec::with_capacity(frames * BAKED_BOX_VEC4S as usize);
        for clip in &self.clips {
            let first = clip.offset as usize / row.max(1);
            for frame in first..first + clip.frames as usize {
                let rows = &self.rows[frame * row..(frame + 1) * row];
                for sources in [None, Some(&set.reduced_bones)] {
                    let (lo, hi) = frame_box(rows, inputs, sources, clip.max_error);
                    boxes.extend([lo.extend(0.0), hi.extend(0.0)]);
                }
            }
        }
        self.boxes = boxes;
        Ok(())
    }
}

/// The box of every part under one frame's skinning matrices (`sources`: the bone each bone
/// takes its matrix from, or itself), widened by `pad`.
fn frame_box(
    rows: &[Vec4],
    inputs: &CullInputs,
    sources: Option<&Vec<u32>>,
    pad: f32,
) -> (Vec3, Vec3) {
    let (mut lo, mut hi) = (Vec3::splat(f32::MAX), Vec3::splat(f32::MIN));
    for part in &inputs.parts {
        let bone = part.bone as usize;
        let source = sources.map_or(bone, |s| s[bone] as usize);
        let at = source * BAKED_BONE_VEC4S as usize;
        let skin = super::baked::affine(rows[at], rows[at + 1], rows[at + 2]);
        let frames = inputs.bones[bone];
        let m: Mat4 = frames.left * skin * frames.right;
        let center = m.transform_point3(part.center);
        let lengths = Vec3::new(
            m.row(0).truncate().length(),
            m.row(1).truncate().length(),
            m.row(2).truncate().length(),
        );
        let half = lengths * part.radius + Vec3::splat(pad);
        let (a, b) = (center - half, center + half);
        if (a + b).is_finite() {
            (lo, hi) = (lo.min(a), hi.max(b));
        }
    }
    (lo, hi)
}
