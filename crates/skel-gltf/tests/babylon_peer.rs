//! skel against Babylon.js (`scripts/peer/babylon/`: `@babylonjs/core` 9.31 and
//! `@babylonjs/loaders` 9.28 under a `NullEngine`, goldens committed, CI needs no node):
//!
//! - every `KHR_animation_pointer` channel of `fixtures/animation_pointer.gltf` that Babylon
//!   applies (material factors, a texture transform's offset, rotation and scale, node TRS,
//!   camera and light values) at nine times, within [`POINTER_TOLERANCE`], and visibility on a
//!   node with a mesh of its own, exactly;
//! - `KHR_texture_transform` (offset, rotation, scale and the `texCoord` override) on UVs, as
//!   Babylon's loader sets its texture matrix, within [`UV_TOLERANCE`];
//! - every skin's joint world matrices and Babylon's own skinning matrices on CesiumMan, Fox and
//!   RiggedFigure (`../shared/assets`), a second oracle beside three.js's goldens, within
//!   [`SKIN_TOLERANCE`].
//!
//! Babylon leaves some pointers alone (its log calls `roughnessFactor`, `alphaCutoff`,
//! `normalTexture/scale` and `occlusionTexture/strength` invalid, and a visibility channel on a
//! node without a mesh of its own has nothing to animate): the golden lists them and the test
//! requires that list to be exactly the one it expects, so that a regenerated golden that drops a
//! channel fails. `scripts/peer/babylon/README.md` says what Babylon does and how to regenerate.
#![allow(clippy::unwrap_used, clippy::expect_used, reason = "tests")]

use std::path::{Path, PathBuf};
use std::sync::Arc;

use glam::{DVec3, Mat4, Vec2, Vec3};
use serde_json::Value;
use skel_anim::{Handedness, LayerDesc, NullSink, Player, PropertyPose, Rig};
use skel_gltf::{
    CameraField, CpuPoser, GltfAsset, LightField, LoadOptions, MaterialField, PropertyTarget,
    TextureSlot, UvField, load_path,
};

/// Pointer values: `|skel − babylon| ≤ POINTER_TOLERANCE · max(1, |babylon|)`. Both
/// interpolate the same f32 keys linearly (Babylon in f64 at frame `60 t`, skel in f32), and the
/// golden keeps 7 significant digits: f32 rounding of values up to 100 (the far plane) is
/// 4e-6 absolute, 4e-8 relative, and the golden's rounding 5e-7 relative, so 2e-6 relative
/// holds with room while a key read from the wrong sampler, a missed interpolation or a
/// rotation's sign is off by 1e-2 or more.
const POINTER_TOLERANCE: f64 = 2e-6;

/// Transformed UVs: `|skel − babylon| ≤ UV_TOLERANCE · max(1, |babylon|)`: skel's f32
/// `TextureTransform::matrix` against Babylon's f64 texture matrix, UVs up to 4.1 in
/// magnitude (a few f32 ulps, 5e-7 each) and the golden's 7 digits.
const UV_TOLERANCE: f64 = 2e-6;

/// Skinning, as a fraction of the skin's joint extent over the golden's times: joint world
/// translations and the displacement a skin matrix gives the corners of the skin's bind-space
/// box. The shared goldens' rule (1e-4 of the diagonal); Babylon and three agreed within
/// 1e-7–1e-6 on these files (`../shared/golden/README.md`).
const SKIN_TOLERANCE: f64 = 1e-4;

fn goldens() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../scripts/peer/babylon/goldens")
}

fn read_json(path: &Path) -> Value {
    let text = std::fs::read_to_string(path)
        .unwrap_or_else(|e| panic!("{}: {e} (goldens are committed)", path.display()));
    serde_json::from_str(&text).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

fn load(path: &Path) -> GltfAsset {
    let opts = LoadOptions {
        handedness: Handedness::RightHanded,
        decode_images: false,
    };
    load_path(path, &opts).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

/// The player's every layer seeked to `t` seconds, evaluated, and its property tracks
/// sampled into `pose`.
fn properties_at(player: &mut Player, pose: &mut PropertyPose, t: f64) {
    for layer in player.layers_mut() {
        layer.clock_mut().seek(t as f32);
    }
    player.evaluate(&mut NullSink);
    player.sample_properties(pose);
}

fn nums(v: &Value) -> Vec<f64> {
    v.as_array()
        .unwrap_or_else(|| panic!("not an array: {v}"))
        .iter()
        .map(|x| x.as_f64().unwrap())
        .collect()
}

/// What skel calls each pointer of the fixture, written out here rather than read through
/// `parse_pointer`, so that a parser that swaps two fields cannot agree with itself.
enum Expect {
    Slot(PropertyTarget),
    Translation,
    Rotation,
    Scale,
}

fn expected(pointer: &str) -> Expect {
    use MaterialField as M;
    let m0 = |field| Expect::Slot(PropertyTarget::Material { material: 0, field });
    let uv = |f| {
        Expect::Slot(PropertyTarget::Material {
            material: 1,
            field: M::TextureTransform(TextureSlot::BaseColor, f),
        })
    };
    let cam = |camera, field| Expect::Slot(PropertyTarget::Camera { camera, field });
    let light = |field| Expect::Slot(PropertyTarget::Light { light: 0, field });
    let tt = "/materials/1/pbrMetallicRoughness/baseColorTexture/extensions/KHR_texture_transform";
    match pointer {
        "/materials/0/pbrMetallicRoughness/baseColorFactor" => m0(M::BaseColorFactor),
        "/materials/0/emissiveFactor" => m0(M::EmissiveFactor),
        "/materials/0/extensions/KHR_materials_emissive_strength/emissiveStrength" => {
            m0(M::EmissiveStrength)
        }
        "/materials/0/pbrMetallicRoughness/metallicFactor" => m0(M::MetallicFactor),
        p if p == format!("{tt}/offset") => uv(UvField::Offset),
        p if p == format!("{tt}/rotation") => uv(UvField::Rotation),
        p if p == format!("{tt}/scale") => uv(UvField::Scale),
        "/nodes/0/translation" => Expect::Translation,
        "/nodes/0/rotation" => Expect::Rotation,
        "/nodes/0/scale" => Expect::Scale,
        "/cameras/0/perspective/yfov" => cam(0, CameraField::Yfov),
        "/cameras/0/perspective/znear" => cam(0, CameraField::Znear),
        "/cameras/0/perspective/zfar" => cam(0, CameraField::Zfar),
        "/cameras/1/orthographic/xmag" => cam(1, CameraField::Xmag),
        "/cameras/1/orthographic/ymag" => cam(1, CameraField::Ymag),
        "/extensions/KHR_lights_punctual/lights/0/color" => light(LightField::Color),
        "/extensions/KHR_lights_punctual/lights/0/intensity" => light(LightField::Intensity),
        "/extensions/KHR_lights_punctual/lights/0/range" => light(LightField::Range),
        "/extensions/KHR_lights_punctual/lights/0/spot/innerConeAngle" => {
            light(LightField::InnerConeAngle)
        }
        "/extensions/KHR_lights_punctual/lights/0/spot/outerConeAngle" => {
            light(LightField::OuterConeAngle)
        }
        other => panic!("the golden has a pointer this test does not know: {other}"),
    }
}

/// The fixture's pointers Babylon 9.28 does not apply (`README.md`, "What Babylon does").
const NOT_APPLIED_BY_BABYLON: [&str; 6] = [
    "/materials/0/pbrMetallicRoughness/roughnessFactor",
    "/materials/0/alphaCutoff",
    "/materials/0/normalTexture/scale",
    "/materials/0/occlusionTexture/strength",
    "/materials/0/extensions/KHR_materials_volume/thicknessFactor",
    "/nodes/1/extensions/KHR_node_visibility/visible",
];

/// skel's value of the pointer at the player's current time, as many floats as Babylon gave.
fn skel_value(
    asset: &GltfAsset,
    player: &mut Player,
    pose: &PropertyPose,
    pointer: &str,
    n: usize,
) -> Vec<f64> {
    let world: Mat4 = player.world_matrices()[0]; // node 0 is a scene root: world = local
    let (s, r, t) = world.to_scale_rotation_translation();
    let v: Vec<f32> = match expected(pointer) {
        Expect::Slot(target) => {
            let slot = asset
                .properties
                .iter()
                .position(|&p| p == target)
                .unwrap_or_else(|| panic!("{pointer}: skel has no slot for {target:?}"));
            pose.value(slot).unwrap()[..n].to_vec()
        }
        Expect::Translation => t.to_array().to_vec(),
        Expect::Rotation => r.to_array().to_vec(),
        Expect::Scale => s.to_array().to_vec(),
    };
    v.into_iter().map(f64::from).collect()
}

#[test]
fn pointer_channels_sample_like_babylon() {
    let golden = read_json(&goldens().join("pointer.json"));
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../fixtures/animation_pointer.gltf");
    let asset = load(&path);
    let not_applied: Vec<&str> = golden["notApplied"]
        .as_array()
        .unwrap()
        .iter()
        .map(|v| v.as_str().unwrap())
        .collect();
    assert_eq!(
        not_applied, NOT_APPLIED_BY_BABYLON,
        "Babylon's skipped pointers changed"
    );
    let rig = Rig::new(Arc::new(asset.animation.clone())).unwrap();
    let mut player = Player::new(&rig);
    player.add_layer(LayerDesc::new(0)).unwrap();
    let mut pose = PropertyPose::new(&asset.animation.clips);
    let (mut compared, mut worst, mut worst_at) = (0, 0.0_f64, String::new());
    for frame in golden["frames"].as_array().unwrap() {
        let t = frame["t"].as_f64().unwrap();
        properties_at(&mut player, &mut pose, t);
        let values = frame["values"].as_object().unwrap();
        assert_eq!(
            values.len(),
            20,
            "t {t}: Babylon's applied pointers changed"
        );
        for (pointer, theirs) in values {
            let theirs = nums(theirs);
            let ours = skel_value(&asset, &mut player, &pose, pointer, theirs.len());
            // A rotation and its negation are the same turn.
            let sign = if pointer.ends_with("/rotation") && pointer.starts_with("/nodes") {
                let dot: f64 = ours.iter().zip(&theirs).map(|(a, b)| a * b).sum();
                dot.signum()
            } else {
                1.0
            };
            for (k, (o, b)) in ours.iter().zip(&theirs).enumerate() {
                let error = (sign * o - b).abs() / b.abs().max(1.0);
                if error > worst {
                    worst = error;
                    worst_at = format!("{pointer}[{k}] at {t} s: skel {o}, Babylon {b}");
                }
                assert!(
                    error <= POINTER_TOLERANCE,
                    "{pointer}[{k}] at {t} s: skel {o}, Babylon {b}"
                );
                compared += 1;
            }
        }
    }
    eprintln!("{compared} values compared; worst {worst:.2e} ({worst_at})");
    assert!(compared >= 9 * 20, "{compared} values compared");
}

/// `KHR_node_visibility` through a STEP pointer channel: Babylon animates it only on a node
/// with a mesh of its own, so the harness moved the fixture's channel onto `Cells`
/// (`goldens/pointer_visibility.gltf`). Sampled on both sides of each key (0.999, 1, 1.001 s
/// and the end): the flag must be Babylon's exactly.
#[test]
fn visibility_steps_like_babylon() {
    let golden = read_json(&goldens().join("pointer_visibility.json"));
    let asset = load(&goldens().join("pointer_visibility.gltf"));
    let target = PropertyTarget::NodeVisible { node: 2 };
    let slot = asset
        .properties
        .iter()
        .position(|&p| p == target)
        .unwrap_or_else(|| panic!("no slot for {target:?}: {:?}", asset.properties));
    let rig = Rig::new(Arc::new(asset.animation.clone())).unwrap();
    let mut player = Player::new(&rig);
    player.add_layer(LayerDesc::new(0)).unwrap();
    let mut pose = PropertyPose::new(&asset.animation.clips);
    let mut seen = Vec::new();
    for frame in golden["frames"].as_array().unwrap() {
        let t = frame["t"].as_f64().unwrap();
        properties_at(&mut player, &mut pose, t);
        let theirs = nums(&frame["values"]["/nodes/2/extensions/KHR_node_visibility/visible"]);
        let ours = pose.bool(slot).unwrap();
        assert_eq!(
            ours,
            theirs[0] == 1.0,
            "visible at {t} s: skel {ours}, Babylon {theirs:?}"
        );
        seen.push(ours);
    }
    assert!(seen.contains(&true) && seen.contains(&false), "{seen:?}");
}

#[test]
fn texture_transforms_map_uvs_like_babylon() {
    let golden = read_json(&goldens().join("uv.json"));
    let asset = load(&goldens().join("texture_transform.gltf"));
    let uvs_in: Vec<Vec<f64>> = golden["uvsIn"]
        .as_array()
        .unwrap()
        .iter()
        .map(nums)
        .collect();
    let cases = golden["cases"].as_array().unwrap();
    let mut compared = 0;
    let mut worst = 0.0_f64;
    for (i, case) in cases.iter().enumerate() {
        let prim = asset
            .primitives
            .iter()
            .find(|p| p.material.index == Some(i))
            .unwrap_or_else(|| panic!("no primitive with material {i}"));
        let texture = prim.material.base_color_texture.as_ref().unwrap();
        assert_eq!(
            u64::from(texture.uv_set()),
            case["texCoord"].as_u64().unwrap(),
            "case {i}: the UV set sampled"
        );
        let matrix = texture.transform.matrix();
        for (uv, want) in uvs_in.iter().zip(case["uvs"].as_array().unwrap()) {
            let want = nums(want);
            let got = matrix * Vec3::new(uv[0] as f32, uv[1] as f32, 1.0);
            let got = Vec2::new(got.x, got.y).as_dvec2();
            for (o, b) in [got.x, got.y].iter().zip(&want) {
                let error = (o - b).abs() / b.abs().max(1.0);
                worst = worst.max(error);
                assert!(
                    error <= UV_TOLERANCE,
                    "case {i} ({case}): uv {uv:?} → skel {got:?}, Babylon {want:?}"
                );
                compared += 1;
            }
        }
    }
    eprintln!(
        "{compared} UV coordinates compared over {} transforms; worst {worst:.2e}",
        cases.len()
    );
    assert_eq!(compared, cases.len() * uvs_in.len() * 2);
}

/// The skin's bind-space box: every vertex of its primitives.
fn bind_corners(asset: &GltfAsset, skin: usize) -> Vec<DVec3> {
    let (mut lo, mut hi) = (DVec3::INFINITY, DVec3::NEG_INFINITY);
    for p in asset.primitives.iter().filter(|p| p.skin == Some(skin)) {
        for v in p.positions.chunks_exact(3) {
            let v = DVec3::new(v[0].into(), v[1].into(), v[2].into());
            lo = lo.min(v);
            hi = hi.max(v);
        }
    }
    (0..8)
        .map(|i| {
            DVec3::new(
                if i & 1 == 0 { lo.x } else { hi.x },
                if i & 2 == 0 { lo.y } else { hi.y },
                if i & 4 == 0 { lo.z } else { hi.z },
            )
        })
        .collect()
}

/// `m` (16 column-major numbers) applied to point `p`.
fn apply(m: &[f64], p: DVec3) -> DVec3 {
    DVec3::new(
        m[0] * p.x + m[4] * p.y + m[8] * p.z + m[12],
        m[1] * p.x + m[5] * p.y + m[9] * p.z + m[13],
        m[2] * p.x + m[6] * p.y + m[10] * p.z + m[14],
    )
}

fn cols(m: &Mat4) -> Vec<f64> {
    m.to_cols_array().iter().map(|&x| f64::from(x)).collect()
}

/// The worst joint and skin-matrix errors of one golden, as fractions of the joint extent.
fn skin_errors(asset: &GltfAsset, golden: &Value) -> (f64, f64, usize) {
    let clip = golden["clip"]["index"].as_u64().unwrap() as usize;
    let mut poser = CpuPoser::new(asset).unwrap();
    let frames = golden["frames"].as_array().unwrap();
    let (mut joints, mut skins, mut compared) = (0.0_f64, 0.0_f64, 0);
    for (key, _) in frames[0]["skins"].as_object().unwrap() {
        let s: usize = key.parse().unwrap();
        let corners = bind_corners(asset, s);
        // The extent of Babylon's joints over every time: the scale of the errors.
        let (mut lo, mut hi) = (DVec3::INFINITY, DVec3::NEG_INFINITY);
        for f in frames {
            for m in nums(&f["skins"][key]["jointWorld"]).chunks_exact(16) {
                lo = lo.min(apply(m, DVec3::ZERO));
                hi = hi.max(apply(m, DVec3::ZERO));
            }
        }
        let extent = (hi - lo).length();
        for f in frames {
            let t = f["t"].as_f64().unwrap() as f32;
            poser.pose(asset, Some(clip), t).unwrap();
            let world = poser.node_world_matrices().to_vec();
            let ours_skin = poser.skin_matrices(s).unwrap();
            let joint_nodes = &asset.skins[s].joints;
            let jw = nums(&f["skins"][key]["jointWorld"]);
            let sm = nums(&f["skins"][key]["skinMatrices"]);
            assert_eq!(jw.len(), joint_nodes.len() * 16, "skin {s}: joint count");
            for (k, &node) in joint_nodes.iter().enumerate() {
                let ours = cols(&world[node]);
                let theirs = &jw[k * 16..k * 16 + 16];
                // A joint's matrix by where it puts the points one extent around it.
                let unit = [DVec3::ZERO, DVec3::X, DVec3::Y, DVec3::Z].map(|d| d * extent);
                for p in unit {
                    joints = joints.max((apply(&ours, p) - apply(theirs, p)).length() / extent);
                }
                let ours = cols(&ours_skin[k]);
                let theirs = &sm[k * 16..k * 16 + 16];
                for &c in &corners {
                    skins = skins.max((apply(&ours, c) - apply(theirs, c)).length() / extent);
                }
                compared += 1;
            }
        }
    }
    (joints, skins, compared)
}

#[test]
fn skinning_matches_babylon_on_shared_assets() {
    let dir = goldens().join("skin");
    let mut files: Vec<PathBuf> = std::fs::read_dir(&dir)
        .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
        .map(|e| e.unwrap().path())
        .collect();
    files.sort();
    assert!(
        files.len() >= 4,
        "{} goldens in {}",
        files.len(),
        dir.display()
    );
    for file in files {
        let golden = read_json(&file);
        let rel = golden["asset"]
            .as_str()
            .unwrap()
            .trim_start_matches("shared/assets/");
        let Some(path) =
            skel_test_support::shared_asset("skinning_matches_babylon_on_shared_assets", rel)
        else {
            return;
        };
        let asset = load(&path);
        let (joints, skins, compared) = skin_errors(&asset, &golden);
        let name = file.file_name().unwrap().to_string_lossy();
        eprintln!(
            "{name}: joints {joints:.2e}, skin matrices {skins:.2e} of the extent ({compared} joint-times)"
        );
        assert!(compared > 0, "{name}: nothing compared");
        assert!(
            joints <= SKIN_TOLERANCE && skins <= SKIN_TOLERANCE,
            "{name}: joints {joints:e}, skin matrices {skins:e} of the joint extent against Babylon"
        );
    }
}
