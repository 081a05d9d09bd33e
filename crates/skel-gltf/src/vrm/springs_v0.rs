//! VRM 0.x `secondaryAnimation`, converted to skel-anim's spring description exactly as
//! three-vrm 3.5's `VRMSpringBoneLoaderPlugin._v0Import` converts it (read in
//! `packages/three-vrm-springbone/src/VRMSpringBoneLoaderPlugin.ts`, v3.1.3 and the 3.5.5
//! build alike):
//!
//! - each collider group is one node and its spheres; a sphere's `offset` is `{x, y, z}` with
//!   **z negated** ("z is opposite in VRM0.0") and missing components 0; a missing radius is 0.
//!   The colliders are numbered group by group; group `g` holds its own.
//! - each bone group's settings: `stiffiness` (sic) → stiffness, `gravityPower`, `dragForce`,
//!   `hitRadius` as written (missing: `None`, the profile's default); `gravityDir` `{x, y, z}`
//!   not flipped, missing components 0, and `(0, −1, 0)` when the object is absent;
//!   `center` −1 (or any index that is no node) means none.
//! - each root in `bones` walks its whole subtree depth first, the node before its children
//!   (three.js `traverse`): **every** node is a joint, its child is its *first* child, and a
//!   leaf's child is `None` (a virtual tail 7 cm along its own rest offset). At a branch the
//!   joint follows the first child only; every other child starts its own run of joints, still
//!   in the same spring. One spring per root, named by the group's `comment`.
//! - a bone group without `bones` is skipped.

use glam::Vec3;
use skel_anim::spring::{
    ColliderDesc, ColliderShape, SpringBonesDesc, SpringDesc, SpringJointDesc,
};

use super::context::LoadCtx;
use super::json::{
    Object, array, indices, integer, item_path, key_path, node, object, opt_number, opt_radius,
    opt_string, opt_xyz, req_node,
};
use super::spring_bones::SpringBones;
use crate::vrm_error::VrmError;

/// Appends the joints of `root`'s subtree, depth first, node before children.
fn walk(
    root: usize,
    ctx: &LoadCtx<'_>,
    settings: &SpringJointDesc,
    out: &mut Vec<SpringJointDesc>,
) {
    let mut stack = vec![root];
    while let Some(n) = stack.pop() {
        let children = &ctx.nodes[n].children;
        out.push(SpringJointDesc {
            node: n,
            child: children.first().copied(),
            ..*settings
        });
        stack.extend(children.iter().rev());
    }
}

/// `secondaryAnimation` at `path`; `None` without `boneGroups` (as three-vrm).
pub(crate) fn read_secondary(
    s: &Object,
    path: &str,
    ctx: &mut LoadCtx<'_>,
) -> Result<Option<SpringBones>, VrmError> {
    let mut desc = SpringBonesDesc::default();
    let at = key_path(path, "colliderGroups");
    let mut collider_nodes = Vec::new();
    for (g, group) in array(s, "colliderGroups", path)?.iter().enumerate() {
        let gp = item_path(&at, g);
        let group = object(group, &gp)?;
        let n = req_node(group, "node", &gp, ctx.node_count)?;
        collider_nodes.push(n);
        let cat = key_path(&gp, "colliders");
        let mut members = Vec::new();
        for (c, collider) in array(group, "colliders", &gp)?.iter().enumerate() {
            let cp = item_path(&cat, c);
            let collider = object(collider, &cp)?;
            let [x, y, z] = opt_xyz(collider, "offset", &cp)?.unwrap_or([None; 3]);
            let offset = Vec3::new(
                x.unwrap_or(0.0),
                y.unwrap_or(0.0),
                // three-vrm: `offset.z ? -offset.z : 0.0` (a zero stays +0).
                z.filter(|&z| z != 0.0).map_or(0.0, |z| -z),
            );
            members.push(desc.colliders.len());
            desc.colliders.push(ColliderDesc {
                node: n,
                shape: ColliderShape::Sphere {
                    offset,
                    radius: opt_radius(collider, "radius", &cp)?.unwrap_or(0.0),
                    inside: false,
                },
            });
        }
        desc.collider_groups.push(members);
    }
    let Some(_) = s.get("boneGroups") else {
        return Ok(None);
    };
    let at = key_path(path, "boneGroups");
    for (g, group) in array(s, "boneGroups", path)?.iter().enumerate() {
        let gp = item_path(&at, g);
        let group = object(group, &gp)?;
        if !group.contains_key("bones") {
            continue;
        }
        let gravity_dir = match opt_xyz(group, "gravityDir", &gp)? {
            Some([x, y, z]) => Vec3::new(x.unwrap_or(0.0), y.unwrap_or(0.0), z.unwrap_or(0.0)),
            None => Vec3::NEG_Y,
        };
        let mut settings = SpringJointDesc::new(0, None);
        settings.hit_radius = opt_radius(group, "hitRadius", &gp)?;
        settings.stiffness = opt_number(group, "stiffiness", &gp)?;
        settings.gravity_power = opt_number(group, "gravityPower", &gp)?;
        settings.gravity_dir = Some(gravity_dir);
        settings.drag_force = opt_number(group, "dragForce", &gp)?;
        let center = match group.get("center") {
            None | Some(serde_json::Value::Null) => None,
            Some(v) => {
                let c = integer(v, &key_path(&gp, "center"))?;
                usize::try_from(c).ok().filter(|&c| c < ctx.node_count)
            }
        };
        let groups = indices(
            group,
            "colliderGroups",
            &gp,
            desc.collider_groups.len(),
            "collider group",
        )?;
        let name = opt_string(group, "comment", &gp)?.unwrap_or_default();
        let bat = key_path(&gp, "bones");
        for (r, root) in array(group, "bones", &gp)?.iter().enumerate() {
            let root = node(root, &item_path(&bat, r), ctx.node_count)?;
            let mut joints = Vec::new();
            walk(root, ctx, &settings, &mut joints);
            for j in joints.iter().filter(|j| j.child.is_none()) {
                if collider_nodes.contains(&j.node) {
                    ctx.warn(
                        &item_path(&bat, r),
                        format!(
                            "leaf joint {} holds a collider group: three-vrm takes its collider object as the joint's child; skel gives it a 7 cm virtual tail",
                            j.node
                        ),
                    );
                }
            }
            desc.springs.push(SpringDesc {
                name: name.clone(),
                joints,
                center,
                collider_groups: groups.clone(),
            });
        }
    }
    let names = vec![None; desc.collider_groups.len()];
    Ok(Some(SpringBones {
        spec_version: None,
        desc,
        collider_group_names: names,
    }))
}
