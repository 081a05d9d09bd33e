//! The synthetic fixtures under `fixtures/` (written by `cargo xtask fixtures`) load with the
//! structure they were built to have. Each test names the fixture and the behaviour; the
//! expected numbers come from how the generator built the file (see
//! `xtask/src/fixtures/*.rs`), not from the loader.
#![allow(clippy::unwrap_used, clippy::expect_used, reason = "tests")]

#[path = "fixtures/posing.rs"]
mod posing;

use posing::*;
use skel_anim::{ChannelPath, Interpolation, R_OFF, TRS_STRIDE};
use skel_gltf::{GltfError, LoadOptions, PrimitiveData, load_slice};

#[test]
fn chain_bone_parents_skip_the_non_joint_node() {
    let asset = load("chain_non_joint.gltf");
    // Nodes: 0 root (joint 0), 1 spacer (not a joint), 2 mid (joint 1), 3 tip (joint 2).
    assert_eq!(asset.skins[0].joints, [0, 2, 3]);
    assert_eq!(
        asset.nodes[2].parent,
        Some(1),
        "the hierarchy keeps the spacer"
    );
    // mid's nearest joint ancestor is root, through the spacer: the skin has one root joint.
    assert_eq!(asset.skins[0].root_joints, [0]);
    // The spacer's transform (1 up, 90° about z) reaches the joints.
    let mut rest = posed(&asset, None, 0.0);
    assert_close(
        &node_position(&mut rest, 2),
        &[-1.0, 1.0, 0.0],
        1e-6,
        "mid at rest",
    );
    assert_close(
        &node_position(&mut rest, 3),
        &[-2.0, 1.0, 0.0],
        1e-6,
        "tip at rest",
    );
    // The inverse bind matrices are the inverse rest world matrices.
    assert_identity_bones(&rest, 0, "chain");
    // Animating the non-joint spacer (clip SpacerTurn, +45° at t = 1) moves the joints
    // below it: mid = (0,1,0) + R(135°)·(0,1,0).
    let clip = asset.clip_index("SpacerTurn").unwrap();
    let mut turned = posed(&asset, Some(clip), 1.0);
    let (s, c) = (135f32.to_radians().sin(), 135f32.to_radians().cos());
    assert_close(
        &node_position(&mut turned, 2),
        &[-s, 1.0 + c, 0.0],
        1e-5,
        "mid turned",
    );
    assert_close(
        &node_position(&mut turned, 0),
        &[0.0; 3],
        1e-6,
        "root stays",
    );
}

#[test]
fn out_of_order_joints_map_vertices_to_the_right_nodes() {
    let asset = load("joints_out_of_order.gltf");
    // Skin order: bone 0 = end (node 2), bone 1 = base (node 0), bone 2 = middle (node 1).
    assert_eq!(asset.skins[0].joints, [2, 0, 1]);
    assert_eq!(asset.skins[0].root_joints, [0]);
    let prim = &asset.primitives[0];
    let inf = prim.influences.as_ref().unwrap();
    // The top row (vertices 8, 9) is on bone 0, the bottom row (0, 1) on bone 1.
    for (v, bone) in [(0, 1), (1, 1), (8, 0), (9, 0)] {
        assert_eq!(inf.joints[v * inf.per_vertex], bone, "vertex {v}");
        assert!((inf.weights[v * inf.per_vertex] - 1.0).abs() < 1e-6);
    }
    assert_identity_bones(&posed(&asset, None, 0.0), 0, "out of order");
    // Bend: middle turns 90° about z, carrying the end joint from (0, 2) to (-1, 1); the
    // vertices on bone 0 must follow node 2, those on bone 1 stay with node 0.
    let mut bent = posed(&asset, Some(0), 1.0);
    assert_close(
        &node_position(&mut bent, 2),
        &[-1.0, 1.0, 0.0],
        1e-5,
        "end joint",
    );
    let out = skinned(&bent, prim);
    // Vertex 8 was at (0.1, 2, 0): 0.1 right of the end joint, now 0.1 above it.
    assert_close(&out[8 * 3..9 * 3], &[-1.0, 1.1, 0.0], 1e-5, "vertex 8");
    assert_close(&out[0..3], &prim.positions[0..3], 1e-6, "vertex 0");
}

#[test]
fn eight_u8_influences_are_decoded_and_renormalised() {
    let asset = load("eight_influences_u8.glb");
    let prim = &asset.primitives[0];
    assert_eq!(prim.influence_sets, 2);
    let inf = prim.influences.as_ref().unwrap();
    assert_eq!(inf.per_vertex, 8);
    // Raw bytes of vertex 0 (sum 255); vertex v has them rotated left by v.
    let raw = [64.0f32, 48.0, 40.0, 32.0, 24.0, 20.0, 16.0, 11.0];
    for v in 0..prim.vertex_count() {
        let joints = &inf.joints[v * 8..v * 8 + 8];
        let weights = &inf.weights[v * 8..v * 8 + 8];
        assert_eq!(joints, [1, 2, 3, 4, 5, 6, 7, 8], "vertex {v} joints");
        let want: Vec<f32> = (0..8).map(|k| raw[(k + v) % 8] / 255.0).collect();
        assert_close(weights, &want, 1e-6, &format!("vertex {v} weights"));
        let sum: f32 = weights.iter().sum();
        assert!((sum - 1.0).abs() < 1e-6, "vertex {v} sums to {sum}");
    }
    // The GPU path keeps both sets: eight influences per vertex.
    let gpu = prim.gpu_influences().unwrap();
    assert_eq!(gpu.per_vertex(), 8);
    assert_eq!(gpu.truncated_vertices, 0);
    assert_eq!(gpu.joints1.as_deref().unwrap()[..4], [5, 6, 7, 8]);
}

#[test]
fn u16_joints_above_255_and_u16_weights_are_decoded() {
    let asset = load("influences_u16.glb");
    assert_eq!(asset.skins[0].joint_count(), 300);
    let prim = &asset.primitives[0];
    let inf = prim.influences.as_ref().unwrap();
    assert_eq!(inf.per_vertex, 8);
    let raw = [
        16384.0f32, 12288.0, 10240.0, 8192.0, 6144.0, 5120.0, 4096.0, 3071.0,
    ];
    for v in 0..prim.vertex_count() {
        let k = v as u32;
        let want_joints = [
            k,
            256 + k,
            290 - k,
            100 + k,
            200 + k,
            270 + k,
            50 + k,
            150 + k,
        ];
        assert_eq!(inf.joints[v * 8..v * 8 + 8], want_joints, "vertex {v}");
        let want: Vec<f32> = (0..8).map(|i| raw[(i + v) % 8] / 65535.0).collect();
        assert_close(&inf.weights[v * 8..v * 8 + 8], &want, 1e-6, "weights");
    }
}

#[test]
fn cubicspline_rotation_matches_the_hand_computed_hermite() {
    let asset = load("cubicspline_rotation.gltf");
    let clip = &asset.animation.clips[0];
    assert_eq!(clip.samplers[0].interpolation(), Interpolation::CubicSpline);
    let rotation = |t: f32| {
        let c = posed(&asset, Some(0), t);
        let trs = &c.scratch().trs;
        trs[R_OFF..R_OFF + 4].to_vec()
    };
    // Mid-key t = 1 (s = 0.5 of a 2 s interval): 0.5·v0 + 0.25·b0 + 0.5·v1 − 0.25·a1
    // = (0, 0, 0.4, 0.9), normalised (see xtask/src/fixtures/animations.rs).
    let n = 0.97f32.sqrt();
    assert_close(&rotation(1.0), &[0.0, 0.0, 0.4 / n, 0.9 / n], 1e-6, "t = 1");
    // A key time gives the key's value exactly.
    assert_close(&rotation(2.0), &[0.0, 0.0, 0.6, 0.8], 1e-6, "t = 2");
    assert_eq!(TRS_STRIDE, 12);
}

#[test]
fn morph_weights_are_animated_and_deltas_loaded() {
    let asset = load("morph_animation.gltf");
    let prim = &asset.primitives[0];
    let targets = prim.morph_targets.as_ref().unwrap();
    assert_eq!(targets.target_count, 2);
    let n = prim.vertex_count();
    // Bulge: vertex 4 up 0.5 in z; normals of 3 and 5 tilt. Lift: normal of 7 tilts down.
    assert_close(
        &targets.positions[4 * 3..5 * 3],
        &[0.0, 0.0, 0.5],
        0.0,
        "Bulge",
    );
    assert_close(
        &targets.normals[3 * 3..4 * 3],
        &[0.2, 0.0, 0.0],
        0.0,
        "Bulge n3",
    );
    let lift_n7 = (n + 7) * 3;
    assert_close(
        &targets.normals[lift_n7..lift_n7 + 3],
        &[0.0, -0.1, 0.0],
        0.0,
        "Lift n7",
    );
    let binding = prim.morph_binding.unwrap();
    let clip = asset.clip_index("Morph").unwrap();
    assert_eq!(
        asset.animation.clips[clip].channels[0].path,
        ChannelPath::Weights
    );
    for (t, want) in [(0.0, [0.0, 0.0]), (0.5, [0.5, 0.0]), (1.5, [0.5, 0.5])] {
        let c = posed(&asset, Some(clip), t);
        assert_close(
            c.morph_weights(binding).unwrap(),
            &want,
            1e-6,
            &format!("t = {t}"),
        );
    }
    // At t = 1 Bulge is fully on: vertex 4 sits 0.5 in front of the grid.
    let out = skinned(&posed(&asset, Some(clip), 1.0), prim);
    assert!((out[4 * 3 + 2] - 0.5).abs() < 1e-6);
}

#[test]
fn a_shared_skin_gets_one_binding_per_mesh_node() {
    let asset = load("shared_skin.gltf");
    assert_eq!(asset.skins.len(), 1);
    let bindings = &asset.animation.skeletons;
    assert_eq!(bindings.len(), 2);
    assert!(bindings.iter().all(|b| b.skin == 0 && b.joints == [0, 1]));
    let mut mesh_nodes: Vec<usize> = bindings.iter().map(|b| b.mesh_node).collect();
    mesh_nodes.sort_unstable();
    assert_eq!(mesh_nodes, [2, 3]);
    let p: Vec<usize> = asset
        .primitives
        .iter()
        .map(|p| p.skeleton_binding.unwrap())
        .collect();
    assert_ne!(p[0], p[1]);
}

#[test]
fn two_skins_with_an_external_buffer() {
    let asset = load("two_skins.gltf");
    assert_eq!(asset.skins.len(), 2);
    assert_eq!(asset.skins[0].joints, [0, 1]);
    assert_eq!(asset.skins[1].joints, [2, 3]);
    let skins: Vec<usize> = asset.animation.skeletons.iter().map(|b| b.skin).collect();
    assert_eq!(skins, [0, 1]);
    let c = posed(&asset, Some(0), 0.0);
    assert_identity_bones(&c, 0, "skin a");
    assert_identity_bones(&c, 1, "skin b");
    // From bytes without a directory, the external `.bin` cannot be found: a typed error.
    let bytes = std::fs::read(fixture("two_skins.gltf")).unwrap();
    let err = load_slice(&bytes, None, &LoadOptions::default()).unwrap_err();
    assert!(
        matches!(err, GltfError::MissingBuffer { buffer: 0, .. }),
        "{err:?}"
    );
}

#[test]
fn node_animation_without_skins() {
    let asset = load("node_animation.gltf");
    assert!(asset.skins.is_empty() && asset.animation.skeletons.is_empty());
    assert!(asset.primitives.iter().all(|p| !p.is_skinned()));
    let clip = asset.clip_index("Move").unwrap();
    let kinds: Vec<Interpolation> = asset.animation.clips[clip]
        .samplers
        .iter()
        .map(|s| s.interpolation())
        .collect();
    assert_eq!(
        kinds,
        [
            Interpolation::Linear,
            Interpolation::Step,
            Interpolation::Linear
        ]
    );
    assert_eq!(asset.animation.clips.len(), 2);
    // STEP holds identity until t = 1; translation is halfway up at t = 1.5.
    let before = posed(&asset, Some(clip), 0.99);
    let r = &before.scratch().trs[R_OFF..R_OFF + 4];
    assert_close(r, &[0.0, 0.0, 0.0, 1.0], 0.0, "STEP before its key");
    let mut c = posed(&asset, Some(clip), 1.5);
    assert_close(&node_position(&mut c, 0), &[1.0, 0.5, 0.0], 1e-6, "mover");
    // The rider (1 above the mover, rotated with it) follows its parent.
    assert_close(&node_position(&mut c, 1), &[1.0, 1.5, 0.0], 1e-5, "rider");
}

#[test]
fn sparse_morph_targets_override_zeros_and_a_base_view() {
    let asset = load("sparse_morph.gltf");
    let prim = &asset.primitives[0];
    let targets = prim.morph_targets.as_ref().unwrap();
    let n = prim.vertex_count();
    assert_eq!((n, targets.target_count), (16, 2));
    let delta =
        |t: usize, v: usize| targets.positions[(t * n + v) * 3..(t * n + v) * 3 + 3].to_vec();
    for v in 0..n {
        let want0 = match v {
            1 => [0.0, 0.0, 1.0],
            6 => [0.0, 0.0, 2.0],
            11 => [0.0, 0.0, 3.0],
            _ => [0.0; 3],
        };
        let want1 = match v {
            0 => [0.5, 0.0, 0.0],
            15 => [-0.5, 0.0, 0.0],
            _ => [0.0, 0.1, 0.0],
        };
        assert_close(&delta(0, v), &want0, 0.0, &format!("target 0 vertex {v}"));
        assert_close(&delta(1, v), &want1, 0.0, &format!("target 1 vertex {v}"));
    }
}

#[test]
fn mesh_quantization_positions_normals_and_deltas_are_dequantised() {
    let asset = load("quantized.glb");
    let plate = asset.primitives.iter().find(|p| !p.is_skinned()).unwrap();
    // SHORT normalized ±32767 → ±1; BYTE normalized 127 → 1.
    assert_close(
        &plate.positions[0..3],
        &[-1.0, -1.0, 0.0],
        0.0,
        "plate corner",
    );
    assert_close(
        &plate.positions[24..27],
        &[1.0, 1.0, 0.0],
        0.0,
        "plate corner",
    );
    for n in plate.normals.as_ref().unwrap().chunks_exact(3) {
        assert_close(n, &[0.0, 0.0, 1.0], 0.0, "plate normal");
    }
    // The bar: positions hold position / 2, the inverse bind matrices scale by 2, so the
    // skinned rest pose is the real box from y = 0 to 2, ±0.2 (to 1/32767 · 2).
    let bar = asset.primitives.iter().find(|p| p.is_skinned()).unwrap();
    let rest = skinned(&posed(&asset, None, 0.0), bar);
    for p in rest.chunks_exact(3) {
        assert!(
            (p[0].abs() - 0.2).abs() < 1e-4 && (p[2].abs() - 0.2).abs() < 1e-4,
            "{p:?}"
        );
        assert!(p[1].abs() < 1e-4 || (p[1] - 2.0).abs() < 1e-4, "{p:?}");
    }
    // Widen: SHORT normalized deltas of ±1638 on the top face.
    let widen = &bar.morph_targets.as_ref().unwrap().positions;
    let top = bar
        .positions
        .chunks_exact(3)
        .position(|p| p[1] > 0.9)
        .unwrap();
    assert!((widen[top * 3].abs() - 1638.0 / 32767.0).abs() < 1e-7);
}

#[test]
fn default_character_is_rigged_morphed_and_walks() {
    let path = fixture("default_character.glb");
    let size = std::fs::metadata(&path).unwrap().len();
    assert!(size < 300 * 1024, "default_character.glb is {size} bytes");
    let asset = load("default_character.glb");
    let skin = &asset.skins[0];
    assert!(skin.joint_count() >= 20, "{} joints", skin.joint_count());
    let node = |name: &str| asset.nodes.iter().position(|n| n.name == name).unwrap();
    for name in [
        "Hips",
        "Spine",
        "Neck",
        "Head",
        "LeftHand",
        "RightForearm",
        "LeftFoot",
        "RightToes",
    ] {
        assert!(skin.joints.contains(&node(name)), "{name} is a joint");
    }
    assert_eq!(asset.meshes[0].target_count, 3);
    let vertices: usize = asset
        .primitives
        .iter()
        .map(PrimitiveData::vertex_count)
        .sum();
    assert!(vertices > 2000, "{vertices} vertices");
    assert!(asset.primitives.iter().all(PrimitiveData::is_skinned));
    let colours: Vec<[f32; 4]> = asset
        .primitives
        .iter()
        .map(|p| p.material.base_color_factor)
        .collect();
    assert!(
        colours.windows(2).all(|w| w[0] != w[1]),
        "one colour per part"
    );

    // Walk: the feet move, in opposite directions, and the morph weights change.
    let walk = asset.clip_index("Walk").unwrap();
    assert!((asset.animation.clips[walk].duration() - 1.0).abs() < 1e-6);
    let (left, right) = (node("LeftFoot"), node("RightFoot"));
    let mut a = posed(&asset, Some(walk), 0.25);
    let mut b = posed(&asset, Some(walk), 0.75);
    let dz_left = node_position(&mut b, left)[2] - node_position(&mut a, left)[2];
    let dz_right = node_position(&mut b, right)[2] - node_position(&mut a, right)[2];
    assert!(dz_left.abs() > 0.2, "left foot moved {dz_left} m");
    assert!(dz_left * dz_right < 0.0, "feet move in opposite directions");
    let binding = asset.primitives[0].morph_binding.unwrap();
    assert_ne!(a.morph_weights(binding), b.morph_weights(binding));
    // The loop closes: the first and last keys give the same pose.
    let mut end = posed(&asset, Some(walk), 1.0);
    let mut start = posed(&asset, Some(walk), 0.0);
    assert_close(
        bytemuck::cast_slice(end.world_matrices()),
        bytemuck::cast_slice(start.world_matrices()),
        1e-5,
        "walk loop",
    );

    // Wave: mid-clip the right hand is above the head.
    let wave = asset.clip_index("Wave").unwrap();
    let mut w = posed(&asset, Some(wave), 1.0);
    let hand = node_position(&mut w, node("RightHand"))[1];
    let head = node_position(&mut w, node("Head"))[1];
    assert!(hand > head, "right hand at {hand} m, head at {head} m");

    // Rest pose: bind pose, feet on the ground, about 1.75 m tall, every weight sums to 1.
    let rest = posed(&asset, None, 0.0);
    assert_identity_bones(&rest, 0, "character");
    let (mut lo, mut hi) = (f32::INFINITY, f32::NEG_INFINITY);
    for prim in &asset.primitives {
        for p in skinned(&rest, prim).chunks_exact(3) {
            lo = lo.min(p[1]);
            hi = hi.max(p[1]);
        }
        let inf = prim.influences.as_ref().unwrap();
        for w in inf.weights.chunks_exact(inf.per_vertex) {
            assert!((w.iter().sum::<f32>() - 1.0).abs() < 1e-5);
        }
    }
    assert!(
        lo.abs() < 0.01 && (1.7..1.85).contains(&hi),
        "height {lo}..{hi}"
    );
}

#[test]
fn sixteen_influences_keep_the_sixteen_largest_on_the_gpu() {
    let asset = load("sixteen_influences.glb");
    let prim = &asset.primitives[0];
    assert_eq!(prim.influence_sets, 5);
    let inf = prim.influences.as_ref().unwrap();
    assert_eq!(inf.per_vertex, 20);
    let gpu = prim.gpu_influences().unwrap();
    assert_eq!((gpu.sets(), gpu.per_vertex()), (4, 16));
    // Vertices 0, 3, …, 15 use all 20 slots (xtask's `used_slots`): 6 of 16 are reduced.
    assert_eq!(gpu.truncated_vertices, 6);
    assert_eq!(skel_gltf::reduced_vertex_count(inf), 6);
    for v in 0..prim.vertex_count() {
        let cpu_j = &inf.joints[v * 20..v * 20 + 20];
        let cpu_w = &inf.weights[v * 20..v * 20 + 20];
        let nonzero = cpu_w.iter().filter(|&&w| w > 0.0).count();
        assert_eq!(nonzero, [20, 16, 12][v % 3], "vertex {v}");
        let mut kept: Vec<(u32, f32)> = (0..4)
            .flat_map(|s| {
                let (j, w) = gpu.set(s).unwrap();
                (0..4).map(move |k| (j[v * 4 + k], w[v * 4 + k]))
            })
            .filter(|&(_, w)| w > 0.0)
            .collect();
        let sum: f32 = kept.iter().map(|&(_, w)| w).sum();
        assert!((sum - 1.0).abs() < 1e-6, "vertex {v} sums to {sum}");
        assert_eq!(kept.len(), nonzero.min(16), "vertex {v}");
        // The kept joints are the ones with the largest CPU weights, in proportion.
        let mut order: Vec<usize> = (0..20).filter(|&i| cpu_w[i] > 0.0).collect();
        order.sort_by(|&a, &b| cpu_w[b].total_cmp(&cpu_w[a]));
        let top: f32 = order.iter().take(16).map(|&i| cpu_w[i]).sum();
        kept.sort_by(|a, b| b.1.total_cmp(&a.1));
        for (&i, &(j, w)) in order.iter().zip(&kept) {
            assert_eq!(j, cpu_j[i], "vertex {v}");
            assert!((w - cpu_w[i] / top).abs() < 1e-6, "vertex {v}");
        }
    }
}
