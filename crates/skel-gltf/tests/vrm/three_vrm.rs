//! The loader's reading of every fixture against three-vrm 3.5.5's own, as recorded by the
//! harness in `scripts/peer/vrm/goldens/<fixture>.json` (`joints`: each joint's node, child,
//! settings after three-vrm's defaults, center and colliders; `colliders`: each shape). This is
//! the independent check of the VRM 0.x conversion (every descendant a joint, first child,
//! leaf tails, z-negated collider offsets, the `gravityDir` default) and of the 1.0 pairing.
//! Colliders are compared by content: the harness numbers them its own way.

use std::path::PathBuf;

use serde_json::Value;
use skel_anim::spring::{ColliderDesc, ColliderShape, SpringBonesDesc};

use super::vrm;

/// `scripts/peer/vrm/goldens/`.
fn goldens() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../scripts/peer/vrm/goldens")
}

/// A number as the comparison writes it (five decimals: the goldens hold f32 values read
/// into doubles).
fn n(x: f64) -> String {
    let r = format!("{x:.5}");
    if r == "-0.00000" { "0.00000".into() } else { r }
}

fn v3(v: [f32; 3]) -> String {
    v.iter()
        .map(|&x| n(f64::from(x)))
        .collect::<Vec<_>>()
        .join(",")
}

fn json_v3(v: &Value) -> String {
    v.as_array()
        .unwrap()
        .iter()
        .map(|x| n(x.as_f64().unwrap()))
        .collect::<Vec<_>>()
        .join(",")
}

/// One collider as text, from the loader.
fn ours(c: &ColliderDesc) -> String {
    match c.shape {
        ColliderShape::Sphere {
            offset,
            radius,
            inside,
        } => {
            format!(
                "{} sphere {} {} {inside}",
                c.node,
                v3(offset.into()),
                n(radius.into())
            )
        }
        ColliderShape::Capsule {
            offset,
            tail,
            radius,
            inside,
        } => format!(
            "{} capsule {} {} {} {inside}",
            c.node,
            v3(offset.into()),
            v3(tail.into()),
            n(radius.into())
        ),
        ColliderShape::Plane { offset, normal } => {
            format!(
                "{} plane {} {}",
                c.node,
                v3(offset.into()),
                v3(normal.into())
            )
        }
    }
}

/// One collider as text, from a golden.
fn theirs(c: &Value) -> String {
    let node = c["node"].as_u64().unwrap();
    let offset = json_v3(&c["offset"]);
    match c["shape"].as_str().unwrap() {
        "sphere" => format!(
            "{node} sphere {offset} {} {}",
            n(c["radius"].as_f64().unwrap()),
            c["inside"]
        ),
        "capsule" => format!(
            "{node} capsule {offset} {} {} {}",
            json_v3(&c["tail"]),
            n(c["radius"].as_f64().unwrap()),
            c["inside"]
        ),
        _ => format!("{node} plane {offset} {}", json_v3(&c["normal"])),
    }
}

/// Every joint as text, from the loader, with three-vrm's defaults for missing settings
/// (hit radius 0, stiffness 1, gravity 0 along −y, drag 0.4).
fn our_joints(d: &SpringBonesDesc) -> Vec<String> {
    let mut out = Vec::new();
    for s in &d.springs {
        let mut colliders: Vec<String> = s
            .collider_groups
            .iter()
            .flat_map(|&g| d.collider_groups[g].iter().map(|&c| ours(&d.colliders[c])))
            .collect();
        colliders.sort();
        for j in &s.joints {
            out.push(format!(
                "{} -> {:?} k{} g{} d[{}] f{} r{} c{:?} {:?}",
                j.node,
                j.child,
                n(j.stiffness.unwrap_or(1.0).into()),
                n(j.gravity_power.unwrap_or(0.0).into()),
                v3(j.gravity_dir.unwrap_or(glam::Vec3::NEG_Y).into()),
                n(j.drag_force.unwrap_or(0.4).into()),
                n(j.hit_radius.unwrap_or(0.0).into()),
                s.center,
                colliders
            ));
        }
    }
    out.sort();
    out
}

/// Every joint as text, from a golden.
fn their_joints(golden: &Value) -> Vec<String> {
    let colliders = golden["colliders"].as_array().unwrap();
    let mut out: Vec<String> = golden["joints"]
        .as_array()
        .unwrap()
        .iter()
        .map(|j| {
            let mut cs: Vec<String> = j["colliderGroups"]
                .as_array()
                .unwrap()
                .iter()
                .flat_map(|g| g["colliders"].as_array().unwrap().iter())
                .map(|c| theirs(&colliders[c.as_u64().unwrap() as usize]))
                .collect();
            cs.sort();
            let f = |k: &str| n(j[k].as_f64().unwrap());
            format!(
                "{} -> {:?} k{} g{} d[{}] f{} r{} c{:?} {:?}",
                j["node"].as_u64().unwrap(),
                j["child"].as_u64().map(|c| c as usize),
                f("stiffness"),
                f("gravityPower"),
                json_v3(&j["gravityDir"]),
                f("dragForce"),
                f("hitRadius"),
                j["center"].as_u64().map(|c| c as usize),
                cs
            )
        })
        .collect();
    out.sort();
    out
}

#[test]
fn every_fixture_reads_as_three_vrm_reads_it() {
    let dir = goldens();
    let mut checked = 0;
    for entry in std::fs::read_dir(&dir).unwrap() {
        let path = entry.unwrap().path();
        let name = path.file_stem().unwrap().to_str().unwrap().to_owned();
        if !name.starts_with("v0_") && !name.starts_with("v1_") {
            continue;
        }
        let golden: Value = serde_json::from_slice(&std::fs::read(&path).unwrap()).unwrap();
        let desc = vrm(&name).spring_bones.unwrap().desc;
        assert_eq!(our_joints(&desc), their_joints(&golden), "{name}");
        let mut a: Vec<String> = desc.colliders.iter().map(ours).collect();
        let mut b: Vec<String> = golden["colliders"]
            .as_array()
            .unwrap()
            .iter()
            .map(theirs)
            .collect();
        a.sort();
        b.sort();
        assert_eq!(a, b, "{name}: colliders");
        checked += 1;
    }
    assert!(checked >= 24, "only {checked} goldens");
}
