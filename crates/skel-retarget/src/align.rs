//! Rest alignment (beyond Babylon.js; Godot's "fix silhouette", Unreal's auto-align): each
//! mapped target joint's reference rotation is turned so that its bone, towards its one mapped
//! child, points in world space where the source's bone points at rest. The key rule then
//! runs over this aligned reference, so a source with arms down drives a T-posed target with
//! arms down.

use glam::{DMat4, DQuat};
use skel_anim::AnimationData;

use crate::error::Side;
use crate::map::NodeMap;
use crate::rest::{RestPose, Trs};

/// The mapped target nodes nearest below `node` (no other mapped node between).
fn mapped_children(node: usize, target: &RestPose, map: &NodeMap) -> Vec<usize> {
    map.iter()
        .map(|(t, _)| t)
        .filter(|&t| {
            if t == node || !target.is_ancestor_or_self(node, t) {
                return false;
            }
            let mut p = target.parents[t];
            while let Some(n) = p {
                if n == node {
                    return true;
                }
                if map.source_of(n).is_some() {
                    return false;
                }
                p = target.parents[n];
            }
            false
        })
        .collect()
}

/// The bones the alignment turns: `(joint, child)` target pairs, a joint with exactly one
/// mapped child (branching joints such as the hips or the chest are left as they are).
pub(crate) fn aligned_bones(target: &RestPose, map: &NodeMap) -> Vec<(usize, usize)> {
    map.iter()
        .filter_map(|(t, _)| match mapped_children(t, target, map).as_slice() {
            [c] => Some((t, *c)),
            _ => None,
        })
        .collect()
}

/// The target's rest locals with every aligned bone turned, parents first.
pub(crate) fn aligned_rest(
    source: &RestPose,
    target_data: &AnimationData,
    target: &RestPose,
    map: &NodeMap,
) -> Result<RestPose, crate::RetargetError> {
    let bones = aligned_bones(target, map);
    let order = skel_anim::compute_topo_order(&target_data.nodes).map_err(|e| {
        crate::RetargetError::InvalidRig {
            side: Side::Target,
            source: e,
        }
    })?;
    let mut local: Vec<Trs> = target.local.clone();
    let mut world = vec![DMat4::IDENTITY; local.len()];
    let place = |world: &mut Vec<DMat4>, local: &[Trs], n: usize| {
        world[n] = target.parents[n].map_or(DMat4::IDENTITY, |p| world[p]) * local[n].matrix();
    };
    for &n in &order {
        place(&mut world, &local, n);
        let Some(&(_, child)) = bones.iter().find(|&&(t, _)| t == n) else {
            continue;
        };
        let (Some(s), Some(sc)) = (map.source_of(n), map.source_of(child)) else {
            continue;
        };
        let want = (source.position(sc) - source.position(s)).normalize_or_zero();
        // The child's world position under the joint's current (parent-carried) frame.
        let child_local = target.world[n].inverse() * target.world[child];
        let have = ((world[n] * child_local).w_axis.truncate() - world[n].w_axis.truncate())
            .normalize_or_zero();
        if want == glam::DVec3::ZERO || have == glam::DVec3::ZERO {
            continue;
        }
        let turn = DQuat::from_rotation_arc(have, want);
        let parent = target.parents[n].map_or(DMat4::IDENTITY, |p| world[p]);
        let (_, parent_rot, _) = parent.to_scale_rotation_translation();
        // World rotation turned by `turn`, expressed back in the parent's frame.
        local[n].r = (parent_rot.inverse() * turn * parent_rot * local[n].r).normalize();
        place(&mut world, &local, n);
    }
    RestPose::with_locals(target_data, Side::Target, local)
}
