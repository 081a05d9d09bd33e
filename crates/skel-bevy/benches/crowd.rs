//! 1 000 Fox characters playing "Run": bevy_animation's systems against skel-bevy's per frame
//! (evaluation plus the joint `Transform` writes; propagation excluded, it is bevy's in both),
//! in interleaved rounds; and a third crowd driven by a `SkelGraph` whose state is a 2D blend
//! space of three clips (which bevy_animation cannot express).
//! `cargo bench -p skel-bevy --profile test --bench crowd --config
//! crates/skel-bevy/benches/opt3.toml [-- COUNT FRAMES ROUNDS]`: skel's crates as a release
//! build builds them (`opt3.toml`), bevy's tree as the test profile already built it.
//!
//! `-- COUNT FRAMES --only bevy|skel|blend|still` builds one app and runs `FRAMES` updates
//! untimed: for instruction counts (valgrind's cachegrind, two runs that differ only in
//! `FRAMES`; `still` spawns the crowd and animates nothing, the frame's fixed cost).

#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    reason = "a benchmark, not library code"
)]
#![allow(missing_docs, reason = "a benchmark binary")]

use std::path::Path;
use std::time::{Duration, Instant};

use bevy::animation::graph::{AnimationGraph, AnimationGraphHandle};
use bevy::animation::{AnimationPlayer, AnimationPlugin};
use bevy::app::AnimationSystems;
use bevy::asset::AssetPlugin;
use bevy::gltf::{GltfAssetLabel, GltfPlugin};
use bevy::image::ImagePlugin;
use bevy::mesh::MeshPlugin;
use bevy::prelude::*;
use bevy::time::TimeUpdateStrategy;
use bevy::transform::{TransformPlugin, TransformSystems};
use bevy::world_serialization::{WorldAssetRoot, WorldSerializationPlugin};
use skel_bevy::{SkelGraph, SkelGraphFile, SkelLayer, SkelPlayer, SkelPlugin, SkelSystems};

/// A 2D blend space over the Fox's three clips (triangles), at a point inside the triangle:
/// every character blends all three, synchronised.
const BLEND_2D: &str = r#"{
  "parameters": { "x": {"type": "float", "default": 0.3}, "y": {"type": "float", "default": 0.4} },
  "layers": [ { "name": "base", "entry": "move",
    "states": { "move": { "blend_2d": { "parameters": ["x", "y"], "sync": "normalized",
      "points": [ {"clip": "Survey", "at": [0, 0]}, {"clip": "Walk", "at": [1, 0]},
                  {"clip": "Run", "at": [0, 1]} ] } } } } ] }"#;

/// Time spent between the two timestamp systems around the measured set.
#[derive(Resource, Default)]
struct Span {
    start: Option<Instant>,
    total: Duration,
}

fn start(mut span: ResMut<Span>) {
    span.start = Some(Instant::now());
}

fn end(mut span: ResMut<Span>) {
    if let Some(s) = span.start.take() {
        span.total += s.elapsed();
    }
}

#[derive(Clone, Copy, PartialEq)]
enum Side {
    Bevy,
    Skel,
    Blend2d,
    /// The crowd spawned, nothing animating it.
    Still,
}

fn app(dir: &Path, side: Side, count: usize) -> App {
    let mut app = App::new();
    app.add_plugins((
        MinimalPlugins,
        AssetPlugin {
            file_path: dir.to_string_lossy().into_owned(),
            ..default()
        },
        WorldSerializationPlugin,
        MeshPlugin,
        ImagePlugin::default(),
        TransformPlugin,
        AnimationPlugin,
        GltfPlugin::default(),
        SkelPlugin,
    ));
    app.insert_resource(TimeUpdateStrategy::ManualDuration(Duration::from_secs_f32(
        1.0 / 60.0,
    )));
    app.init_resource::<Span>();
    match side {
        Side::Bevy => app.add_systems(
            PostUpdate,
            (
                start.before(AnimationSystems),
                end.after(AnimationSystems)
                    .before(TransformSystems::Propagate),
            ),
        ),
        Side::Skel | Side::Blend2d | Side::Still => app.add_systems(
            PostUpdate,
            (
                start.before(SkelSystems).after(AnimationSystems),
                end.after(SkelSystems).before(TransformSystems::Propagate),
            ),
        ),
    };
    app.finish();
    app.cleanup();
    let server = app.world().resource::<AssetServer>().clone();
    let scene = server.load(GltfAssetLabel::Scene(0).from_asset("Fox.glb"));
    let graph = app
        .world_mut()
        .resource_mut::<Assets<SkelGraphFile>>()
        .add(SkelGraphFile::from_json(BLEND_2D).unwrap());
    for i in 0..count {
        let at = Transform::from_xyz((i % 40) as f32 * 2.0, 0.0, (i / 40) as f32 * 2.0);
        let mut e = app.world_mut().spawn((WorldAssetRoot(scene.clone()), at));
        match side {
            Side::Bevy | Side::Still => {}
            Side::Skel => {
                e.insert(SkelPlayer::new().with_layer(SkelLayer::clip("Run")));
            }
            Side::Blend2d => {
                e.insert(SkelGraph::new(graph.clone()));
            }
        }
    }
    // Until every scene has spawned (and, for skel, every player is bound).
    for _ in 0..10_000 {
        app.update();
        let world = app.world_mut();
        let players = world.query::<&AnimationPlayer>().iter(world).count();
        let bound = world
            .query::<&SkelPlayer>()
            .iter(world)
            .filter(|p| p.is_bound())
            .count();
        if players == count && (matches!(side, Side::Bevy | Side::Still) || bound == count) {
            break;
        }
    }
    if side == Side::Bevy {
        let bytes = std::fs::read(dir.join("Fox.glb")).unwrap();
        let run = skel_bevy::SkelRig::from_bytes(&bytes)
            .unwrap()
            .rig()
            .clip_index("Run")
            .unwrap();
        let anim = server.load(GltfAssetLabel::Animation(run).from_asset("Fox.glb"));
        let (graph, node) = AnimationGraph::from_clip(anim);
        let graph = app
            .world_mut()
            .resource_mut::<Assets<AnimationGraph>>()
            .add(graph);
        let world = app.world_mut();
        let targets: Vec<Entity> = world
            .query_filtered::<Entity, With<AnimationPlayer>>()
            .iter(world)
            .collect();
        for e in targets {
            let mut ent = world.entity_mut(e);
            ent.insert(AnimationGraphHandle(graph.clone()));
            ent.get_mut::<AnimationPlayer>()
                .unwrap()
                .play(node)
                .repeat();
        }
    }
    // Warm up: clips loaded, caches filled.
    for _ in 0..30 {
        app.update();
    }
    app
}

/// Seconds per frame of the measured set over `frames` updates.
fn round(app: &mut App, frames: usize) -> f64 {
    app.world_mut().resource_mut::<Span>().total = Duration::ZERO;
    for _ in 0..frames {
        app.update();
    }
    app.world().resource::<Span>().total.as_secs_f64() / frames as f64
}

fn main() {
    let all: Vec<String> = std::env::args().skip(1).collect();
    let only = all
        .iter()
        .position(|a| a == "--only")
        .and_then(|i| all.get(i + 1))
        .map(|side| match side.as_str() {
            "bevy" => Side::Bevy,
            "skel" => Side::Skel,
            "blend" => Side::Blend2d,
            "still" => Side::Still,
            other => panic!("--only bevy|skel|blend|still, not {other}"),
        });
    let args: Vec<usize> = all.iter().filter_map(|a| a.parse().ok()).collect();
    let count = args.first().copied().unwrap_or(1000);
    let frames = args.get(1).copied().unwrap_or(60);
    let rounds = args.get(2).copied().unwrap_or(5);
    let fox = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../../shared/assets/Fox");
    if !fox.join("Fox.glb").exists() {
        eprintln!("crowd: {} not found, nothing to measure", fox.display());
        return;
    }
    if let Some(side) = only {
        let mut one = app(&fox, side, count);
        for _ in 0..frames {
            one.update();
        }
        println!("{count} Fox, {frames} frames, one app");
        return;
    }
    let mut bevy = app(&fox, Side::Bevy, count);
    let mut skel = app(&fox, Side::Skel, count);
    let mut blend = app(&fox, Side::Blend2d, count);
    let weights: Vec<(String, f32)> = blend
        .world_mut()
        .query::<&SkelPlayer>()
        .iter(blend.world())
        .find_map(|p| p.graph())
        .map(|g| g.clips(0).map(|c| (c.name.to_owned(), c.weight)).collect())
        .unwrap_or_default();
    println!("{count} Fox, {frames} frames per round, {rounds} interleaved rounds");
    println!("2D blend space weights: {weights:?}");
    let (mut best_b, mut best_s, mut best_g) = (f64::MAX, f64::MAX, f64::MAX);
    for r in 0..rounds {
        let b = round(&mut bevy, frames);
        let s = round(&mut skel, frames);
        let g = round(&mut blend, frames);
        best_b = best_b.min(b);
        best_s = best_s.min(s);
        best_g = best_g.min(g);
        println!(
            "round {r}: bevy_animation {:.3} ms/frame, skel-bevy {:.3} ms/frame (ratio {:.3}), \
             skel-bevy 2D blend {:.3} ms/frame (ratio {:.3})",
            b * 1e3,
            s * 1e3,
            s / b,
            g * 1e3,
            g / b
        );
    }
    println!(
        "best: bevy_animation {:.3} ms, skel-bevy {:.3} ms (ratio {:.3}), 2D blend {:.3} ms \
         (ratio {:.3})",
        best_b * 1e3,
        best_s * 1e3,
        best_s / best_b,
        best_g * 1e3,
        best_g / best_b
    );
}
