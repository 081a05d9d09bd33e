//! A headless Bevy app (bevy_gltf's own test pattern: no window, no GPU) that spawns glTF
//! characters and steps fixed frames.

#![allow(dead_code, reason = "each test file uses part of the helpers")]

use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Duration;

use bevy::animation::AnimationPlugin;
use bevy::asset::AssetPlugin;
use bevy::gltf::{GltfAssetLabel, GltfPlugin};
use bevy::image::ImagePlugin;
use bevy::mesh::MeshPlugin;
use bevy::prelude::*;
use bevy::time::TimeUpdateStrategy;
use bevy::transform::TransformPlugin;
use bevy::world_serialization::{WorldAssetRoot, WorldSerializationPlugin};
use skel_bevy::anim::Rig;
use skel_bevy::{SkelBindError, SkelJoint, SkelPlayer, SkelPlugin, SkelRig};

/// One fixed step.
pub const STEP: f32 = 1.0 / 60.0;

/// The built-in character (`fixtures/default_character.glb`).
pub fn fixture(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../fixtures")
        .join(name)
}

/// An app whose asset folder is `dir`, with the plugins a glTF character needs and skel's.
pub fn app(dir: &Path) -> App {
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
        STEP,
    )));
    app.finish();
    app.cleanup();
    app
}

/// Spawns scene 0 of `file` (relative to the app's asset folder) with `bundle`.
pub fn spawn(app: &mut App, file: &str, bundle: impl Bundle) -> Entity {
    let server = app.world().resource::<AssetServer>().clone();
    let scene = server.load(GltfAssetLabel::Scene(0).from_asset(file.to_owned()));
    app.world_mut().spawn((WorldAssetRoot(scene), bundle)).id()
}

/// Updates until `done` holds; panics after many frames (a load that never finishes).
pub fn run_until(app: &mut App, mut done: impl FnMut(&mut World) -> bool) {
    for _ in 0..10_000 {
        app.update();
        if done(app.world_mut()) {
            return;
        }
    }
    panic!("the app never reached the expected state");
}

/// Updates until `character` is bound (or failed: then panics with the error).
pub fn run_until_bound(app: &mut App, character: Entity) {
    run_until(app, |world| {
        if let Some(e) = world.get::<SkelBindError>(character) {
            panic!("bind failed: {}", e.0);
        }
        world
            .get::<SkelPlayer>(character)
            .is_some_and(SkelPlayer::is_bound)
    });
}

/// Updates `n` fixed steps.
pub fn step(app: &mut App, n: usize) {
    for _ in 0..n {
        app.update();
    }
}

/// skel's rig for a file, compiled the way the plugin compiles it.
pub fn rig(path: &Path) -> Arc<Rig> {
    let bytes = std::fs::read(path).unwrap();
    Arc::clone(SkelRig::from_bytes(&bytes).unwrap().rig())
}

/// Every joint entity of `character`, by skel node index.
pub fn joints(app: &mut App, character: Entity) -> Vec<(usize, Entity)> {
    let mut q = app.world_mut().query::<(Entity, &SkelJoint)>();
    let mut out: Vec<_> = q
        .iter(app.world())
        .filter(|(_, j)| j.character == character)
        .map(|(e, j)| (j.node, e))
        .collect();
    out.sort_unstable();
    out
}

/// A glam 0.30 (skel) matrix as a bevy one.
pub fn mat(m: &skel_bevy::anim::glam::Mat4) -> Mat4 {
    Mat4::from_cols_array(&m.to_cols_array())
}
