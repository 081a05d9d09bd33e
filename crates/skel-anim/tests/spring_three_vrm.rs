//! Spring bones against three-vrm 3.5.5 (`scripts/peer/vrm/`, goldens committed; CI runs no
//! node): every VRM fixture of `cargo xtask fixtures` replayed along the goldens' root motion
//! (600 steps of 1/60 s, a 10 m teleport at step 400) in both host-loop orders, with the
//! spring settings and colliders three-vrm read (recorded in each golden, so this checks the
//! simulation; the loader is checked against the same records in skel-gltf), and every
//! recorded joint's world position compared.
//!
//! Tolerance: the 0.1 mm. The goldens are rounded to 1e-7 m; f32 against JS doubles is
//! the noise floor (the harness measured 1 to 3 µm of spread for a 1 µm nudge of the root; the
//! worst here is about 30 µm, just after the teleport). Left out: each golden's `sensitiveSteps`
//! (a 1 µm nudge of the root moved three-vrm's result by more than 10 µm), the steps where the
//! same nudge moves skel's own result by more than 10 µm, and, in a run whose golden has
//! sensitive steps, every step from the teleport on (see `replay`). Teleport handling is off
//! here: three-vrm has none.

#![allow(clippy::unwrap_used, clippy::expect_used, reason = "tests")]

use std::path::{Path, PathBuf};

use glam::{Affine3A, DMat4, Vec3, Vec3A};
use serde_json::Value;
use skel_anim::NodeRest;
use skel_anim::spring::{
    ColliderDesc, ColliderShape, HostLoop, SpringBones, SpringBonesDesc, SpringDesc,
    SpringJointDesc, SpringOptions,
};

const TOLERANCE: f64 = 1e-4;

fn repo() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

fn vec3(v: &Value) -> Vec3 {
    let a: Vec<f32> = v
        .as_array()
        .unwrap()
        .iter()
        .map(|x| x.as_f64().unwrap() as f32)
        .collect();
    Vec3::new(a[0], a[1], a[2])
}

/// The nodes of a GLB file (its JSON chunk): rest transforms and parents.
fn glb_nodes(path: &Path) -> Vec<NodeRest> {
    let bytes = std::fs::read(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    assert_eq!(&bytes[0..4], b"glTF", "{}", path.display());
    let len = u32::from_le_bytes(bytes[12..16].try_into().unwrap()) as usize;
    let json: Value = serde_json::from_slice(&bytes[20..20 + len]).unwrap();
    let nodes = json["nodes"].as_array().unwrap();
    let mut out: Vec<NodeRest> = nodes
        .iter()
        .map(|n| {
            let mut rest = NodeRest::new(n["name"].as_str().unwrap_or(""), None);
            assert!(n.get("matrix").is_none(), "the fixtures use TRS");
            if let Some(t) = n.get("translation") {
                rest.translation = vec3(t).to_array();
            }
            if let Some(r) = n.get("rotation") {
                let r: Vec<f32> = r
                    .as_array()
                    .unwrap()
                    .iter()
                    .map(|x| x.as_f64().unwrap() as f32)
                    .collect();
                rest.rotation = [r[0], r[1], r[2], r[3]];
            }
            if let Some(s) = n.get("scale") {
                rest.scale = vec3(s).to_array();
            }
            rest
        })
        .collect();
    for (i, n) in nodes.iter().enumerate() {
        for c in n
            .get("children")
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
        {
            out[c.as_u64().unwrap() as usize].parent = Some(i);
        }
    }
    out
}

/// What three-vrm read, as a description: one spring per joint, in three-vrm's order, with its
/// own settings, center and collider groups.
fn desc_of(golden: &Value) -> SpringBonesDesc {
    let colliders = golden["colliders"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| {
            let offset = vec3(&c["offset"]);
            let radius = c["radius"].as_f64().unwrap_or(0.0) as f32;
            let inside = c["inside"].as_bool().unwrap_or(false);
            let shape = match c["shape"].as_str().unwrap() {
                "sphere" => ColliderShape::Sphere {
                    offset,
                    radius,
                    inside,
                },
                "capsule" => ColliderShape::Capsule {
                    offset,
                    tail: vec3(&c["tail"]),
                    radius,
                    inside,
                },
                "plane" => ColliderShape::Plane {
                    offset,
                    normal: vec3(&c["normal"]),
                },
                other => panic!("shape {other}"),
            };
            ColliderDesc {
                node: c["node"].as_u64().unwrap() as usize,
                shape,
            }
        })
        .collect();
    let mut collider_groups = Vec::new();
    let springs = golden["joints"]
        .as_array()
        .unwrap()
        .iter()
        .map(|j| {
            let mut groups = Vec::new();
            for g in j["colliderGroups"].as_array().unwrap() {
                groups.push(collider_groups.len());
                collider_groups.push(
                    g["colliders"]
                        .as_array()
                        .unwrap()
                        .iter()
                        .map(|c| c.as_u64().unwrap() as usize)
                        .collect(),
                );
            }
            let f = |k: &str| Some(j[k].as_f64().unwrap() as f32);
            SpringDesc {
                name: j["name"].as_str().unwrap_or("").to_owned(),
                joints: vec![SpringJointDesc {
                    hit_radius: f("hitRadius"),
                    stiffness: f("stiffness"),
                    gravity_power: f("gravityPower"),
                    gravity_dir: Some(vec3(&j["gravityDir"])),
                    drag_force: f("dragForce"),
                    ..SpringJointDesc::new(
                        j["node"].as_u64().unwrap() as usize,
                        j["child"].as_u64().map(|c| c as usize),
                    )
                }],
                center: j["center"].as_u64().map(|c| c as usize),
                collider_groups: groups,
            }
        })
        .collect();
    SpringBonesDesc {
        springs,
        colliders,
        collider_groups,
    }
}

fn root_motion() -> Vec<Affine3A> {
    let path = repo().join("scripts/peer/vrm/goldens/root_motion.json");
    let json: Value = serde_json::from_slice(&std::fs::read(path).unwrap()).unwrap();
    json["matrices"]
        .as_array()
        .unwrap()
        .iter()
        .map(|m| {
            let a: Vec<f64> = m
                .as_array()
                .unwrap()
                .iter()
                .map(|x| x.as_f64().unwrap())
                .collect();
            Affine3A::from_mat4(DMat4::from_cols_slice(&a).as_mat4())
        })
        .collect()
}

/// The largest distance from three-vrm's positions over one fixture and order (with its step
/// and position), and the number of positions compared.
fn replay(
    name: &str,
    golden: &Value,
    order: &str,
    roots: &[Affine3A],
    (nodes, desc): (&[NodeRest], &SpringBonesDesc),
) -> ((f64, u64, usize), usize) {
    let options = SpringOptions {
        host_loop: if order == "examples" {
            HostLoop::PreviousChild
        } else {
            HostLoop::WorldCurrent
        },
        teleport_distance: f32::INFINITY,
        teleport_angle: f32::INFINITY,
        ..SpringOptions::default()
    };
    let springs = SpringBones::new(desc, nodes, options).unwrap_or_else(|e| panic!("{name}: {e}"));
    // The update order three-vrm used, as nodes.
    let joints = golden["joints"].as_array().unwrap();
    let want_order: Vec<usize> = golden["updateOrder"]
        .as_array()
        .unwrap()
        .iter()
        .map(|i| {
            joints[i.as_u64().unwrap() as usize]["node"]
                .as_u64()
                .unwrap() as usize
        })
        .collect();
    assert_eq!(
        springs.joint_nodes().collect::<Vec<_>>(),
        want_order,
        "{name}: update order"
    );
    // The golden was made from this file: its recorded nodes carry the same names (the golden
    // also holds the file's SHA-256; regenerate both together).
    for n in golden["nodes"].as_array().unwrap() {
        let index = n["index"].as_u64().unwrap() as usize;
        assert_eq!(
            n["name"].as_str(),
            Some(nodes[index].name.as_str()),
            "{name}: node {index} (a fixture regenerated without its golden?)"
        );
    }
    let recorded: Vec<usize> = golden["nodes"]
        .as_array()
        .unwrap()
        .iter()
        .map(|n| n["index"].as_u64().unwrap() as usize)
        .collect();
    let virtual_tails: Vec<(usize, Vec3A)> = golden["virtualTails"]
        .as_array()
        .unwrap()
        .iter()
        .map(|n| {
            let node = n.as_u64().unwrap() as usize;
            let joint = joints
                .iter()
                .find(|j| j["node"].as_u64() == Some(node as u64))
                .unwrap();
            (node, Vec3A::from(vec3(&joint["initialLocalChildPosition"])))
        })
        .collect();
    let steps: Vec<u64> = golden["recordedSteps"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| s.as_u64().unwrap())
        .collect();
    let data = &golden["orders"][order];
    let sensitive: Vec<u64> = data["sensitiveSteps"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| s.as_u64().unwrap())
        .collect();
    let positions = data["positions"].as_array().unwrap();
    // skel's positions at the recorded steps, and again with the root 1 µm further along x
    // at every step (as the harness nudged three-vrm's): a step where that moves skel's own
    // result by more than 10 µm cannot be held to 0.1 mm either.
    let run = |nudge: f32| {
        let mut state = springs.new_state();
        let rest = springs.rest_trs();
        springs.reset(&mut state, &rest, roots[0]);
        let mut rows = Vec::new();
        for step in 1..=600_u64 {
            let mut pose = rest.clone();
            let mut root = roots[step as usize];
            root.translation.x += nudge;
            springs.step(&mut state, &mut pose, root, 1.0 / 60.0);
            if steps.contains(&step) {
                let at = |n: usize| state.world(n).unwrap();
                rows.push(
                    recorded
                        .iter()
                        .map(|&n| at(n).translation)
                        .chain(
                            virtual_tails
                                .iter()
                                .map(|&(n, o)| at(n).transform_point3a(o)),
                        )
                        .collect::<Vec<Vec3A>>(),
                );
            }
        }
        rows
    };
    let (rows, nudged) = (run(0.0), run(1e-6));
    let (mut worst, mut compared) = ((0.0_f64, 0, 0), 0);
    let mut row = 0;
    for (&step, (got, moved)) in steps.iter().zip(rows.iter().zip(&nudged)) {
        let want: Vec<f64> = positions[row]
            .as_array()
            .unwrap()
            .iter()
            .map(|x| x.as_f64().unwrap())
            .collect();
        row += 1;
        let ours = got
            .iter()
            .zip(moved)
            .any(|(a, b)| (*a - *b).length() > 1e-5);
        // Where three-vrm's own run turns ill-conditioned after the teleport (its golden lists
        // sensitive steps: a chain in center space, measured against a child 10 m behind,
        // flips upright and balances on an unstable equilibrium until round-off tips it), the
        // steps from the teleport on are left out: which round-off tips it first decides.
        let unstable = !sensitive.is_empty() && step >= 400;
        if sensitive.contains(&step) || ours || unstable {
            continue;
        }
        for (k, p) in got.iter().enumerate() {
            let w = glam::DVec3::new(want[3 * k], want[3 * k + 1], want[3 * k + 2]);
            let d = (p.as_dvec3() - w).length();
            if d > worst.0 {
                worst = (d, step, k);
            }
            compared += 1;
        }
    }
    assert_eq!(row, steps.len(), "{name}: every recorded step replayed");
    (worst, compared)
}

/// Every golden, replayed with the springs `springs_of` gives for its fixture; panics with the
/// runs over 0.1 mm.
fn replay_all(springs_of: impl Fn(&str, &Value) -> (Vec<NodeRest>, SpringBonesDesc)) {
    let goldens = repo().join("scripts/peer/vrm/goldens");
    let roots = root_motion();
    assert_eq!(roots.len(), 601);
    let mut names: Vec<String> = std::fs::read_dir(&goldens)
        .unwrap()
        .filter_map(|e| e.ok()?.file_name().into_string().ok())
        .filter(|n| n.starts_with("v0_") || n.starts_with("v1_"))
        .collect();
    names.sort();
    assert!(names.len() >= 20, "{} goldens", names.len());
    let mut report = Vec::new();
    let mut failed = Vec::new();
    for file in &names {
        let golden: Value =
            serde_json::from_slice(&std::fs::read(goldens.join(file)).unwrap()).unwrap();
        let fixture = golden["fixture"].as_str().unwrap().to_owned();
        let (nodes, desc) = springs_of(&fixture, &golden);
        for order in ["current", "examples"] {
            let ((worst, step, k), compared) =
                replay(&fixture, &golden, order, &roots, (&nodes, &desc));
            let line = format!(
                "{fixture} {order}: {compared} positions, worst {:.2} µm (step {step}, position {k})",
                worst * 1e6
            );
            if worst > TOLERANCE {
                failed.push(line.clone());
            }
            report.push(line);
        }
    }
    println!("{}", report.join("\n"));
    assert!(failed.is_empty(), "over 0.1 mm:\n{}", failed.join("\n"));
}

/// The simulation alone: the settings and colliders three-vrm read (recorded in each golden).
#[test]
fn every_fixture_springs_as_three_vrm_springs_it() {
    replay_all(|fixture, golden| {
        (
            glb_nodes(&repo().join("fixtures/vrm").join(fixture)),
            desc_of(golden),
        )
    });
}

/// End to end: each file loaded by skel-gltf (its nodes and its own reading of the springs,
/// VRM 0.x converted), then simulated.
#[test]
fn every_loaded_fixture_springs_as_three_vrm_springs_it() {
    replay_all(|fixture, _| {
        let path = repo().join("fixtures/vrm").join(fixture);
        let asset = skel_gltf::load_path(&path, &skel_gltf::LoadOptions::default())
            .unwrap_or_else(|e| panic!("{fixture}: {e}"));
        let desc = asset
            .vrm()
            .and_then(|v| v.spring_bones.as_ref())
            .unwrap_or_else(|| panic!("{fixture}: no spring bones"))
            .desc
            .clone();
        (asset.animation.nodes, desc)
    });
}
