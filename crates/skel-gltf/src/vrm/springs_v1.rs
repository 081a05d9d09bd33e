//! `VRMC_springBone` 1.0 and `VRMC_springBone_extended_collider` 1.0, read as three-vrm 3.5's
//! `VRMSpringBoneLoaderPlugin._v1Import` reads them, into skel-anim's spring description.

use glam::Vec3;
use serde_json::Value;
use skel_anim::spring::{
    ColliderDesc, ColliderShape, SpringBonesDesc, SpringDesc, SpringJointDesc,
};

use super::context::LoadCtx;
use super::json::{
    Object, indices, item_path, key_path, object, opt_node, opt_number, opt_object, opt_radius,
    opt_string, opt_vec3, req_array, req_node,
};
use super::spring_bones::SpringBones;
use crate::vrm_error::VrmError;

const EXT: &str = "VRMC_springBone";
const EXTENDED: &str = "VRMC_springBone_extended_collider";

/// A sphere, capsule or (extended) plane from `shape` at `path`; missing fields take
/// three-vrm's values (offset and tail 0, radius 0, plane normal +z); `inside` only where
/// `extended`.
fn read_shape(
    shape: &Object,
    path: &str,
    extended: bool,
) -> Result<Option<ColliderShape>, VrmError> {
    let inside = |o: &Object, at: &str| -> Result<bool, VrmError> {
        Ok(extended && super::json::opt_bool(o, "inside", at)?.unwrap_or(false))
    };
    if let Some(s) = opt_object(shape, "sphere", path)? {
        let at = key_path(path, "sphere");
        return Ok(Some(ColliderShape::Sphere {
            offset: opt_vec3(s, "offset", &at)?.unwrap_or(Vec3::ZERO),
            radius: opt_radius(s, "radius", &at)?.unwrap_or(0.0),
            inside: inside(s, &at)?,
        }));
    }
    if let Some(c) = opt_object(shape, "capsule", path)? {
        let at = key_path(path, "capsule");
        return Ok(Some(ColliderShape::Capsule {
            offset: opt_vec3(c, "offset", &at)?.unwrap_or(Vec3::ZERO),
            tail: opt_vec3(c, "tail", &at)?.unwrap_or(Vec3::ZERO),
            radius: opt_radius(c, "radius", &at)?.unwrap_or(0.0),
            inside: inside(c, &at)?,
        }));
    }
    if extended && let Some(p) = opt_object(shape, "plane", path)? {
        let at = key_path(path, "plane");
        return Ok(Some(ColliderShape::Plane {
            offset: opt_vec3(p, "offset", &at)?.unwrap_or(Vec3::ZERO),
            normal: opt_vec3(p, "normal", &at)?.unwrap_or(Vec3::Z),
        }));
    }
    Ok(None)
}

/// One collider at `path`: the extended shape when the collider carries
/// `VRMC_springBone_extended_collider` of specVersion 1.0 (another version: a warning and the
/// plain shape, as three-vrm falls back), else the plain one.
fn read_collider(c: &Object, path: &str, ctx: &mut LoadCtx<'_>) -> Result<ColliderDesc, VrmError> {
    let node = req_node(c, "node", path, ctx.node_count)?;
    if let Some(exts) = opt_object(c, "extensions", path)?
        && let Some(ext) = opt_object(exts, EXTENDED, &key_path(path, "extensions"))?
    {
        let at = format!("{path}.extensions.{EXTENDED}");
        let version = opt_string(ext, "specVersion", &at)?.unwrap_or_default();
        if version == "1.0" {
            let shape_path = key_path(&at, "shape");
            let shape = opt_object(ext, "shape", &at)?.ok_or(VrmError::Missing {
                path: shape_path.clone(),
            })?;
            if let Some(shape) = read_shape(shape, &shape_path, true)? {
                return Ok(ColliderDesc { node, shape });
            }
        } else {
            ctx.warn(
                &key_path(&at, "specVersion"),
                format!("{EXTENDED} specVersion {version:?} is not 1.0: the plain shape is used (as three-vrm)"),
            );
        }
    }
    let shape_path = key_path(path, "shape");
    let shape = match opt_object(c, "shape", path)? {
        Some(s) => read_shape(s, &shape_path, false)?,
        None => None,
    };
    let shape = shape.ok_or(VrmError::NoShape {
        path: path.to_owned(),
    })?;
    Ok(ColliderDesc { node, shape })
}

/// One listed joint's node and settings (missing settings stay `None`).
fn read_joint(j: &Value, path: &str, ctx: &LoadCtx<'_>) -> Result<SpringJointDesc, VrmError> {
    let j = object(j, path)?;
    let mut joint = SpringJointDesc::new(req_node(j, "node", path, ctx.node_count)?, None);
    joint.hit_radius = opt_radius(j, "hitRadius", path)?;
    joint.stiffness = opt_number(j, "stiffness", path)?;
    joint.gravity_power = opt_number(j, "gravityPower", path)?;
    joint.gravity_dir = opt_vec3(j, "gravityDir", path)?;
    joint.drag_force = opt_number(j, "dragForce", path)?;
    Ok(joint)
}

/// `extensions.VRMC_springBone` of `raw`, if present and of a version skel reads.
pub(crate) fn read_spring_bones(
    raw: &Value,
    ctx: &mut LoadCtx<'_>,
) -> Result<Option<SpringBones>, VrmError> {
    let Some(v) = raw.get("extensions").and_then(|e| e.get(EXT)) else {
        return Ok(None);
    };
    let path = format!("extensions.{EXT}");
    let ext = object(v, &path)?;
    let version = opt_string(ext, "specVersion", &path)?.ok_or(VrmError::Missing {
        path: key_path(&path, "specVersion"),
    })?;
    if !ctx.accept_version(EXT, &key_path(&path, "specVersion"), &version) {
        return Ok(None);
    }
    let mut desc = SpringBonesDesc::default();
    let at = key_path(&path, "colliders");
    for (i, c) in super::json::array(ext, "colliders", &path)?
        .iter()
        .enumerate()
    {
        let cp = item_path(&at, i);
        desc.colliders
            .push(read_collider(object(c, &cp)?, &cp, ctx)?);
    }
    let mut names = Vec::new();
    let at = key_path(&path, "colliderGroups");
    for (i, g) in super::json::array(ext, "colliderGroups", &path)?
        .iter()
        .enumerate()
    {
        let gp = item_path(&at, i);
        let g = object(g, &gp)?;
        names.push(opt_string(g, "name", &gp)?);
        desc.collider_groups.push(indices(
            g,
            "colliders",
            &gp,
            desc.colliders.len(),
            "collider",
        )?);
    }
    let at = key_path(&path, "springs");
    for (i, s) in super::json::array(ext, "springs", &path)?
        .iter()
        .enumerate()
    {
        let sp = item_path(&at, i);
        let s = object(s, &sp)?;
        let jp = key_path(&sp, "joints");
        let listed = req_array(s, "joints", &sp)?
            .iter()
            .enumerate()
            .map(|(k, j)| read_joint(j, &item_path(&jp, k), ctx))
            .collect::<Result<Vec<_>, _>>()?;
        // three-vrm: each listed node but the last is a joint whose child is the next node,
        // with its own settings; the last node is only the tail of the one before.
        let joints = listed
            .windows(2)
            .map(|w| SpringJointDesc {
                child: Some(w[1].node),
                ..w[0]
            })
            .collect();
        desc.springs.push(SpringDesc {
            name: opt_string(s, "name", &sp)?.unwrap_or_default(),
            joints,
            center: opt_node(s, "center", &sp, ctx.node_count)?,
            collider_groups: indices(
                s,
                "colliderGroups",
                &sp,
                desc.collider_groups.len(),
                "collider group",
            )?,
        });
    }
    Ok(Some(SpringBones {
        spec_version: Some(version),
        desc,
        collider_group_names: names,
    }))
}
