//! VRM spring bones on Bevy characters (`SkelSprings`): a VRM avatar played in a Bevy app
//! gives every spring joint the world position skel's facade gives for the same clip, frame
//! times and root path; with the springs off the joints stay where the clip puts them; moving
//! the character swings its hair while a 10 m teleport adds at most 1°; a rig without springs
//! (beside an avatar with them) is untouched; springs that do not fit the file's nodes are a
//! typed error.

#![allow(clippy::unwrap_used, clippy::expect_used, reason = "tests")]

mod common;

use std::sync::Arc;

use bevy::prelude::*;
use common::vrm::{app_with, vrm_with_nod};
use skel_bevy::anim::constraint::NodeConstraints;
use skel_bevy::anim::spring::{SpringBones, SpringOptions};
use skel_bevy::anim::{Handedness, LayerDesc, NullSink, Player, Rig, SpringJob};
use skel_bevy::{SkelLayer, SkelPlayer, SkelSprings, SkelSpringsError};
use skel_gltf::GltfAsset;
use skel_test_support::glb::Glb;

/// Metres: f32 world positions composed in two orders (Bevy's propagation of `Transform`s
/// against skel's matrices times the root), about a metre from the origin (measured: 2.4e-7
/// with the springs, 4.8e-7 without).
const SAME: f32 = 1e-6;

/// Frames compared after binding.
const FRAMES: usize = 240;

/// The root path: still at frame 0, then swaying sideways, walking forward and turning.
fn path(frame: usize) -> Transform {
    #[expect(clippy::cast_precision_loss, reason = "a frame count")]
    let t = frame as f32 * common::STEP;
    let sway = (std::f32::consts::TAU * 0.9 * t).sin();
    Transform::from_xyz(0.35 * sway, 0.0, 0.6 * t).with_rotation(Quat::from_rotation_y(0.4 * sway))
}

/// The asset's springs as the facade makes them (`skel::SecondaryMotion::from_asset`:
/// `SpringBones::new` on the file's description and nodes, default options).
fn facade_springs(asset: &GltfAsset) -> Arc<SpringBones> {
    let desc = &asset.vrm().unwrap().spring_bones.as_ref().unwrap().desc;
    let options = SpringOptions::default();
    Arc::new(SpringBones::new(desc, &asset.animation.nodes, options).unwrap())
}

/// World positions of every node under the facade's player, frame by frame: the asset read
/// as skel-bevy reads it (glTF's right-handed space), its springs and constraints attached as
/// `skel::SecondaryMotion::attach` attaches them (a `SpringJob` and the `NodeConstraints` on
/// skel's `Player`; not linked here, so that this crate's tests do not build the facade's
/// GPU tree), the clip "Nod" played from 0, the root placed along `path` before each tick of
/// the frame times of `run` (a Bevy run's); frame 0 is the tick of the frame it binds.
fn facade(bytes: &[u8], springs: bool, run: &[Frame]) -> Vec<Frame> {
    let options = skel_gltf::LoadOptions {
        handedness: Handedness::RightHanded,
        decode_images: false,
    };
    let asset = skel_gltf::load_slice(bytes, None, &options).unwrap();
    let rig = Rig::new(Arc::new(asset.animation.clone())).unwrap();
    let mut player = Player::new(&rig);
    player
        .add_layer(LayerDesc::new(asset.clip_index("Nod").unwrap()))
        .unwrap();
    if springs {
        player
            .set_springs(Some(SpringJob::new(facade_springs(&asset))))
            .unwrap();
        let constraints = &asset.vrm().unwrap().constraints;
        if !constraints.is_empty() {
            let c = NodeConstraints::new(constraints, &asset.animation.nodes).unwrap();
            player.set_constraints(Some(Arc::new(c))).unwrap();
        }
    }
    run.iter()
        .enumerate()
        .map(|(k, &(dt, _))| {
            let place = path(k).compute_affine();
            if let Some(job) = player.springs_mut() {
                job.world = place;
            }
            player.tick(dt, &mut NullSink);
            let world = player.world_matrices().iter();
            let at = world.map(|m| place.transform_point3(m.w_axis.truncate()));
            (dt, at.collect())
        })
        .collect()
}

/// One frame of a run: the frame time Bevy handed the plugin, and the world position of
/// every node (by skel node index).
type Frame = (f32, Vec<Vec3>);

/// Plays "Nod" on the avatar in a Bevy app with `settings` (none: the defaults) while the
/// character follows `path`; returns each frame (frame 0 is the frame it binds).
fn bevy_run(bytes: &[u8], settings: Option<SkelSprings>, frames: usize) -> Vec<Frame> {
    let (mut app, _dir) = app_with(bytes, "springs-parity");
    let player = SkelPlayer::new().with_layer(SkelLayer::clip("Nod"));
    let character = match settings {
        Some(s) => common::spawn(&mut app, "avatar.glb", (Transform::IDENTITY, player, s)),
        None => common::spawn(&mut app, "avatar.glb", (Transform::IDENTITY, player)),
    };
    common::run_until_bound(&mut app, character);
    let joints = common::joints(&mut app, character);
    let positions = |app: &App| {
        let mut out = vec![Vec3::NAN; joints.last().unwrap().0 + 1];
        for &(node, e) in &joints {
            out[node] = app.world().get::<GlobalTransform>(e).unwrap().translation();
        }
        out
    };
    let delta = |app: &App| app.world().resource::<Time>().delta_secs();
    let mut out = vec![(delta(&app), positions(&app))];
    for k in 1..=frames {
        *app.world_mut().get_mut::<Transform>(character).unwrap() = path(k);
        app.update();
        out.push((delta(&app), positions(&app)));
    }
    out
}

/// Nodes moved by the springs (the joints and their tails) in `bytes`' file.
fn spring_nodes(bytes: &[u8]) -> Vec<usize> {
    let asset = skel_gltf::load_slice(bytes, None, &Default::default()).unwrap();
    let springs = facade_springs(&asset);
    let nodes = &asset.animation.nodes;
    let mut out: Vec<usize> = springs.joint_nodes().collect();
    for n in springs.joint_nodes().collect::<Vec<_>>() {
        out.extend((0..nodes.len()).filter(|&c| nodes[c].parent == Some(n)));
    }
    out.sort_unstable();
    out.dedup();
    out
}

/// The largest distance between the two runs' positions of `nodes` over all frames.
fn worst(a: &[Frame], b: &[Frame], nodes: &[usize]) -> f32 {
    assert_eq!(a.len(), b.len());
    a.iter()
        .zip(b)
        .flat_map(|((_, fa), (_, fb))| nodes.iter().map(move |&n| fa[n].distance(fb[n])))
        .fold(0.0, f32::max)
}

#[test]
fn springs_on_a_moving_character_match_the_facade() {
    // Hair, VRM 0.x hair, a skirt, a center space, node constraints with springs.
    let files = [
        "v1_hair.vrm",
        "v0_hair.vrm",
        "v1_skirt.vrm",
        "v1_center.vrm",
        "v1_constraints.vrm",
    ];
    for name in files {
        let bytes = vrm_with_nod(name);
        let nodes = spring_nodes(&bytes);
        assert!(nodes.len() >= 3, "{name}: {nodes:?}");
        let ours = bevy_run(&bytes, None, FRAMES);
        let theirs = facade(&bytes, true, &ours);
        // Every node: the spring joints, their tails, and what constraints drive.
        let first = &ours[0].1;
        let all: Vec<usize> = (0..first.len()).filter(|&n| !first[n].is_nan()).collect();
        assert!(
            nodes.iter().all(|n| all.contains(n)),
            "{name}: a spring node is not bound"
        );
        let d = worst(&ours, &theirs, &all);
        let still = facade(&bytes, false, &ours);
        let swing = worst(&theirs, &still, &nodes);
        println!(
            "{name}: {} nodes ({} spring), {FRAMES} frames: worst {d:e} m; the springs move them up to {swing} m",
            all.len(),
            nodes.len()
        );
        assert!(swing > 0.02, "{name}: the springs barely moved ({swing} m)");
        assert!(d <= SAME, "{name}: {d} m from the facade's springs");
    }
}

#[test]
fn with_the_springs_off_the_joints_stay_where_the_clip_puts_them() {
    let bytes = vrm_with_nod("v1_hair.vrm");
    let nodes = spring_nodes(&bytes);
    let off = bevy_run(&bytes, Some(SkelSprings::OFF), FRAMES);
    let clip_only = facade(&bytes, false, &off);
    let sprung = facade(&bytes, true, &off);
    let d = worst(&off, &clip_only, &nodes);
    let apart = worst(&off, &sprung, &nodes);
    println!("springs off: {d:e} m from the clip alone, {apart} m from the springs");
    assert!(d <= SAME, "{d} m from the clip's pose");
    assert!(apart > 0.02, "off and on agree ({apart} m)");
}

/// Each frame's direction of the `hair0` chain (its first joint to its tip) in the
/// character's frame, with the character moved by `place(frame)` and no clip.
fn hair_directions(settings: SkelSprings, place: impl Fn(usize) -> Transform) -> Vec<Vec3> {
    let bytes = std::fs::read(common::fixture("vrm/v1_hair.vrm")).unwrap();
    let (mut app, _dir) = app_with(&bytes, "springs-hair");
    let character = common::spawn(
        &mut app,
        "avatar.glb",
        (place(0), SkelPlayer::new(), settings),
    );
    common::run_until_bound(&mut app, character);
    let joints = common::joints(&mut app, character);
    let rig = common::rig(&common::fixture("vrm/v1_hair.vrm"));
    let entity = |name: &str| {
        let node = rig.node_index(name).unwrap();
        joints.iter().find(|(n, _)| *n == node).unwrap().1
    };
    let (root, tip) = (entity("hair0_0"), entity("hair0_3"));
    (1..=FRAMES)
        .map(|k| {
            let at = place(k);
            *app.world_mut().get_mut::<Transform>(character).unwrap() = at;
            app.update();
            let p = |e| app.world().get::<GlobalTransform>(e).unwrap().translation();
            (at.rotation.inverse() * (p(tip) - p(root))).normalize()
        })
        .collect()
}

/// The largest angle, in degrees, between the two runs' directions at the same frame.
fn degrees_apart(a: &[Vec3], b: &[Vec3]) -> f32 {
    a.iter()
        .zip(b)
        .map(|(x, y)| x.angle_between(*y).to_degrees())
        .fold(0.0, f32::max)
}

#[test]
fn moving_the_character_swings_the_hair_and_a_teleport_does_not() {
    let still = |_| Transform::IDENTITY;
    let sway = |k: usize| {
        #[expect(clippy::cast_precision_loss, reason = "a frame count")]
        let t = k as f32 * common::STEP;
        Transform::from_xyz(0.3 * (std::f32::consts::TAU * t).sin(), 0.0, 0.0)
    };
    let teleport = |k: usize| Transform::from_xyz(if k >= 120 { 10.0 } else { 0.0 }, 0.0, 0.0);
    let at_rest = hair_directions(SkelSprings::default(), still);
    let swung = degrees_apart(&hair_directions(SkelSprings::default(), sway), &at_rest);
    let jumped = degrees_apart(&hair_directions(SkelSprings::default(), teleport), &at_rest);
    // The same jump with the teleport threshold out of reach: the chain is dragged across it.
    let mut no_threshold = SkelSprings::default();
    no_threshold.springs.as_mut().unwrap().teleport_distance = f32::INFINITY;
    let dragged = degrees_apart(&hair_directions(no_threshold, teleport), &at_rest);
    println!(
        "hair0 deflection: swaying {swung}°, 10 m teleport {jumped}°, without the threshold {dragged}°"
    );
    assert!(swung > 10.0, "swaying moved the hair only {swung}°");
    assert!(jumped <= 1.0, "a 10 m teleport swung the hair {jumped}°");
    assert!(
        dragged > 10.0,
        "the jump never reached the springs ({dragged}°)"
    );
}

#[test]
fn a_rig_without_springs_is_untouched() {
    let path_to = common::fixture("default_character.glb");
    let rig = common::rig(&path_to);
    let walk = rig.clip_index("Walk").unwrap();
    // Beside a VRM avatar whose springs run in the same app.
    let (mut app, dir) = app_with(&vrm_with_nod("v1_hair.vrm"), "springs-none");
    std::fs::copy(&path_to, dir.0.join("plain.glb")).unwrap();
    let avatar = SkelPlayer::new().with_layer(SkelLayer::clip("Nod"));
    let avatar = common::spawn(&mut app, "avatar.glb", avatar);
    common::run_until_bound(&mut app, avatar);
    let player = SkelPlayer::new().with_layer(SkelLayer::clip("Walk"));
    let character = common::spawn(
        &mut app,
        "plain.glb",
        (Transform::IDENTITY, player, SkelSprings::default()),
    );
    common::run_until_bound(&mut app, character);
    let mut worst = (0.0f32, 0.0f32);
    for k in 1..=60 {
        *app.world_mut().get_mut::<Transform>(character).unwrap() = path(k);
        app.update();
        let time = common::layer_time(&app, character);
        let world = common::clip_world(&rig, walk, time);
        let (d, tol) =
            common::worst_joint_difference(&mut app, character, path(k).to_matrix(), &world);
        worst = (worst.0.max(d), tol);
    }
    let p = app.world().get::<SkelPlayer>(character).unwrap();
    assert!(p.player().unwrap().springs().is_none());
    assert!(app.world().get::<SkelSpringsError>(character).is_none());
    let a = app.world().get::<SkelPlayer>(avatar).unwrap();
    assert!(a.player().unwrap().springs().is_some());
    println!("no springs: worst {:e} (tolerance {:e})", worst.0, worst.1);
    assert!(worst.0 <= worst.1, "{worst:?}");
}

#[test]
fn springs_that_do_not_fit_the_nodes_are_a_typed_error_and_the_clip_still_plays() {
    // v1_hair's first spring with its joints listed tip first: each joint's "child" is then
    // its parent.
    let bytes = Glb::edited(&vrm_with_nod("v1_hair.vrm"), |json| {
        json["extensions"]["VRMC_springBone"]["springs"][0]["joints"]
            .as_array_mut()
            .unwrap()
            .reverse();
    });
    let (mut app, _dir) = app_with(&bytes, "springs-bad");
    let player = SkelPlayer::new().with_layer(SkelLayer::clip("Nod"));
    let character = common::spawn(&mut app, "avatar.glb", player);
    common::run_until_bound(&mut app, character);
    common::step(&mut app, 2);
    let error = app.world().get::<SkelSpringsError>(character).unwrap();
    assert!(
        matches!(
            error.0,
            skel_bevy::SkelBevyError::Secondary {
                what: "spring bones",
                ..
            }
        ),
        "{:?}",
        error.0
    );
    let p = app.world().get::<SkelPlayer>(character).unwrap();
    assert!(p.player().unwrap().springs().is_none());
    assert!(common::layer_time(&app, character) > 0.0);
}

#[test]
fn changing_the_component_reinstalls_the_springs() {
    let (mut app, _dir) = app_with(&vrm_with_nod("v1_hair.vrm"), "springs-change");
    let player = SkelPlayer::new().with_layer(SkelLayer::clip("Nod"));
    let character = common::spawn(&mut app, "avatar.glb", player);
    common::run_until_bound(&mut app, character);
    let options = |app: &App| {
        let p = app.world().get::<SkelPlayer>(character).unwrap().player();
        p.unwrap().springs().map(|s| *s.bones.options())
    };
    assert_eq!(options(&app).map(|o| o.step), Some(1.0 / 60.0));
    let faster = SkelSprings::default().with_step(1.0 / 120.0);
    app.world_mut().entity_mut(character).insert(faster);
    common::step(&mut app, 1);
    assert_eq!(options(&app).map(|o| o.step), Some(1.0 / 120.0));
    app.world_mut()
        .entity_mut(character)
        .insert(SkelSprings::OFF);
    common::step(&mut app, 1);
    assert_eq!(options(&app), None);
    // Removed: the defaults again.
    app.world_mut()
        .entity_mut(character)
        .remove::<SkelSprings>();
    common::step(&mut app, 1);
    assert_eq!(options(&app).map(|o| o.step), Some(1.0 / 60.0));
}
