//! Which of a character's joints its last pose moved: each pose is compared with the
//! transform last written to each joint, kept beside the player (not read back from Bevy's
//! components), so the comparison runs with the pose, in parallel across characters, and
//! only the moved joints are written. A still joint costs neither a component lookup nor a
//! change tick, and transform propagation skips it.

use bevy::prelude::{Entity, Quat, Transform, Vec3, Vec4};
use skel_anim::{R_OFF, S_OFF, T_OFF, TRS_STRIDE};

// A record's ten floats read as three `Vec4`s (translation and rotation's x, the rest of
// the rotation and the scale's x, the scale's y and z): the layout `moved` unpacks.
const _: () = assert!(T_OFF == 0 && R_OFF == 3 && S_OFF == 7 && TRS_STRIDE >= 10);

/// The nodes of a character that have joint entities, the record last written to each
/// node, and whether the last pose moved it. Sized at bind; updating allocates nothing.
#[derive(Debug)]
pub(crate) struct JointWrites {
    /// Nodes with a joint entity, ascending.
    nodes: Vec<usize>,
    /// By node: the TRS record last written, as three `Vec4`s (compared three lanes at a
    /// time).
    written: Vec<[Vec4; 3]>,
    /// By node: whether the last pose moved it.
    moved: Vec<bool>,
}

/// A record no pose equals (NaN is unequal to everything): every joint is written after the
/// first pose, whatever its entity held before.
const UNWRITTEN: [Vec4; 3] = [Vec4::NAN; 3];

impl JointWrites {
    /// The joints found for a character: `joints[node]` is node `node`'s entity, if any.
    pub(crate) fn new(joints: &[Option<Entity>]) -> Self {
        Self {
            nodes: (0..joints.len()).filter(|&n| joints[n].is_some()).collect(),
            written: vec![UNWRITTEN; joints.len()],
            moved: vec![false; joints.len()],
        }
    }

    /// Notes the joints whose local transform in `trs` (the pose's TRS records) differs
    /// from the one last written, and takes it as written.
    pub(crate) fn update(&mut self, trs: &[f32]) {
        for &node in &self.nodes {
            let (Some(written), Some(moved), Some(r)) = (
                self.written.get_mut(node),
                self.moved.get_mut(node),
                record(trs, node),
            ) else {
                continue;
            };
            let posed = [
                Vec4::new(r[0], r[1], r[2], r[3]),
                Vec4::new(r[4], r[5], r[6], r[7]),
                Vec4::new(r[8], r[9], 0.0, 0.0),
            ];
            let differs = posed[0].cmpne(written[0])
                | posed[1].cmpne(written[1])
                | posed[2].cmpne(written[2]);
            *moved = differs.any();
            *written = posed;
        }
    }

    /// Node `node`'s transform to write, when the last [`update`](Self::update) moved it.
    #[inline]
    pub(crate) fn moved(&self, node: usize) -> Option<Transform> {
        if !*self.moved.get(node)? {
            return None;
        }
        let [a, b, c] = *self.written.get(node)?;
        Some(Transform {
            translation: a.truncate(),
            rotation: Quat::from_xyzw(a.w, b.x, b.y, b.z),
            scale: Vec3::new(b.w, c.x, c.y),
        })
    }
}

/// Node `node`'s TRS record in `trs`; `None` past the end (one range check for the record,
/// none per field).
#[inline]
fn record(trs: &[f32], node: usize) -> Option<&[f32; TRS_STRIDE]> {
    let start = node.checked_mul(TRS_STRIDE)?;
    trs.get(start..start.checked_add(TRS_STRIDE)?)?
        .try_into()
        .ok()
}

/// Node `node`'s local transform in `trs` (skel's per-node TRS records), as a Bevy
/// `Transform`; `None` past the end.
#[inline]
pub(crate) fn local_transform(trs: &[f32], node: usize) -> Option<Transform> {
    let r = record(trs, node)?;
    Some(Transform {
        translation: Vec3::new(r[T_OFF], r[T_OFF + 1], r[T_OFF + 2]),
        rotation: Quat::from_xyzw(r[R_OFF], r[R_OFF + 1], r[R_OFF + 2], r[R_OFF + 3]),
        scale: Vec3::new(r[S_OFF], r[S_OFF + 1], r[S_OFF + 2]),
    })
}
