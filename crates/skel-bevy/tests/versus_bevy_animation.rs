//! The same clip played by bevy_animation and by skel: the joints' local transforms agree
//! within the interpolation difference of the two, measured here (docs/bevy.md has the
//! figures).

#![allow(clippy::unwrap_used, reason = "tests")]

mod common;

use bevy::animation::{AnimationPlayer, graph::AnimationGraph, graph::AnimationGraphHandle};
use bevy::gltf::GltfAssetLabel;
use bevy::prelude::*;
use skel_bevy::anim::{LayerDesc, NullSink, Player};
use skel_bevy::{SkelLayer, SkelPlayer};

#[test]
fn fox_run_bevy_animation_vs_skel() {
    let test = "fox_run_bevy_animation_vs_skel";
    let Some(path) = skel_test_support::shared_asset(test, "Fox/Fox.glb") else {
        return;
    };
    let rig = common::rig(&path);
    let clip = rig.clip_index("Run").unwrap();
    let mut app = common::app(path.parent().unwrap());
    let server = app.world().resource::<AssetServer>().clone();
    // skel-bevy drives a character only to learn which entity is which node; bevy drives
    // the other one.
    let skel = common::spawn(
        &mut app,
        "Fox.glb",
        SkelPlayer::new().with_layer(SkelLayer::clip("Run")),
    );
    let bevy_fox = common::spawn(&mut app, "Fox.glb", ());
    common::run_until_bound(&mut app, skel);
    let anim = server.load(GltfAssetLabel::Animation(clip).from_asset("Fox.glb"));
    let (graph, node) = AnimationGraph::from_clip(anim);
    let graph = app
        .world_mut()
        .resource_mut::<Assets<AnimationGraph>>()
        .add(graph);
    let mut players = app.world_mut().query::<(Entity, &mut AnimationPlayer)>();
    let mut found = None;
    for (entity, mut player) in players.iter_mut(app.world_mut()) {
        player.play(node).repeat();
        found = Some(entity);
    }
    // Both Foxes have a player; give both the graph (the skel one is overwritten by skel).
    let mut q = app
        .world_mut()
        .query_filtered::<Entity, With<AnimationPlayer>>();
    let with_player: Vec<Entity> = q.iter(app.world()).collect();
    assert!(found.is_some() && with_player.len() == 2);
    for e in with_player {
        app.world_mut()
            .entity_mut(e)
            .insert(AnimationGraphHandle(graph.clone()));
    }
    common::step(&mut app, 47);

    // Map skel's nodes to the bevy Fox's entities by their names along the hierarchy: the
    // two scenes have the same shape, so walk both in step.
    let skel_joints = common::joints(&mut app, skel);
    let names = |app: &App, e: Entity| app.world().get::<Name>(e).map(|n| n.to_string());
    let mut pairs = Vec::new();
    for (node, joint) in &skel_joints {
        let want = names(&app, *joint);
        let mut path = Vec::new();
        let mut e = *joint;
        while e != skel {
            path.push(names(&app, e));
            e = app.world().get::<ChildOf>(e).unwrap().parent();
        }
        path.reverse();
        let mut here = bevy_fox;
        for step in &path {
            let kids = app.world().get::<Children>(here).unwrap();
            here = kids.iter().find(|k| names(&app, *k) == *step).unwrap();
        }
        assert_eq!(names(&app, here), want);
        pairs.push((*node, here));
    }

    let mut q = app.world_mut().query::<&AnimationPlayer>();
    let time = q
        .iter(app.world())
        .find_map(|p| p.animation(node).map(|a| a.seek_time()))
        .unwrap();
    let mut reference = Player::new(&rig);
    reference.add_layer(LayerDesc::new(clip)).unwrap();
    reference.layer_mut(0).unwrap().clock_mut().seek(time);
    reference.evaluate(&mut NullSink);
    let trs = &reference.scratch().trs;
    let (mut dt, mut dr) = (0.0f32, 0.0f32);
    for (node, entity) in pairs {
        let bevy_t = app.world().get::<Transform>(entity).unwrap();
        let r = &trs[node * 12..node * 12 + 12];
        let t = Vec3::new(r[0], r[1], r[2]);
        let q = Quat::from_xyzw(r[3], r[4], r[5], r[6]);
        dt = dt.max((bevy_t.translation - t).length());
        // Component-wise on the same hemisphere (acos in angle_between floors at ~1e-3 rad).
        let d = (bevy_t.rotation - q)
            .length()
            .min((bevy_t.rotation + q).length());
        dr = dr.max(d);
    }
    println!(
        "Fox Run at t={time}: bevy_animation vs skel: translation {dt:e}, rotation |Δq| {dr:e}"
    );
    // Both interpolate linearly between the same keys; what is left is f32 rounding and
    // the slerp (bevy) vs normalised-lerp blend of skel's single-clip path.
    assert!(dt < 1e-3, "translation differs by {dt}");
    assert!(dr < 1e-3, "rotation differs by |Δq| = {dr}");
}
