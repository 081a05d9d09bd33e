//! A headless Bevy app (bevy_gltf's own test pattern: no window, no GPU) that spawns glTF
//! characters and steps fixed frames.

#![allow(dead_code, reason = "each test file uses part of the helpers")]

pub mod vrm;

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
use skel_bevy::anim::{LayerDesc, NullSink, Player, Rig};
use skel_bevy::{
    SkelBindError, SkelIk, SkelIkJob, SkelJoint, SkelLayer, SkelPlayer, SkelPlugin, SkelRig,
};

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

/// skel's rig for a file (external buffers read beside it), compiled the way the plugin
/// compiles it: glTF's right-handed space.
pub fn rig(path: &Path) -> Arc<Rig> {
    let doc = skel_gltf::GltfDocument::from_path(path).unwrap();
    let options = skel_gltf::LoadOptions {
        handedness: skel_bevy::anim::Handedness::RightHanded,
        decode_images: false,
    };
    let data = skel_gltf::parse_animation_data(&doc, &options).unwrap();
    Arc::clone(SkelRig::from_data(data).unwrap().rig())
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

/// skel's matrix as bevy's (the same glam type since glam 0.32: a copy).
pub fn mat(m: &skel_bevy::anim::glam::Mat4) -> Mat4 {
    Mat4::from_cols_array(&m.to_cols_array())
}

/// Every Transform under `root`, in hierarchy order.
pub fn transforms_under(app: &mut App, root: Entity) -> Vec<Transform> {
    let world = app.world();
    let mut out = Vec::new();
    let mut stack = vec![root];
    while let Some(e) = stack.pop() {
        if let Some(t) = world.get::<Transform>(e) {
            out.push(*t);
        }
        if let Some(c) = world.get::<Children>(e) {
            stack.extend(c.iter());
        }
    }
    out
}

/// Runs until the error appears, checks nothing moves afterwards, returns the error.
pub fn failed_untouched(mut app: App, character: Entity) -> String {
    run_until(&mut app, |w| w.get::<SkelBindError>(character).is_some());
    let before = transforms_under(&mut app, character);
    assert!(before.len() > 10, "the scene did not spawn");
    step(&mut app, 20);
    assert_eq!(
        before,
        transforms_under(&mut app, character),
        "joints moved"
    );
    let mut q = app.world_mut().query::<&SkelJoint>();
    assert_eq!(q.iter(app.world()).count(), 0, "joints were bound");
    assert!(!app.world().get::<SkelPlayer>(character).unwrap().is_bound());
    format!(
        "{:?}",
        app.world().get::<SkelBindError>(character).unwrap().0
    )
}

/// The deepest folder holding every one of `paths` (absolute), and each path relative to it
/// with `/` separators: one asset folder for a model and a graph file that live apart.
pub fn asset_root(paths: &[&Path]) -> (PathBuf, Vec<String>) {
    let canon: Vec<PathBuf> = paths.iter().map(|p| p.canonicalize().unwrap()).collect();
    let mut root = canon[0].parent().unwrap().to_path_buf();
    while !canon.iter().all(|p| p.starts_with(&root)) {
        root = root.parent().unwrap().to_path_buf();
    }
    let rel = canon
        .iter()
        .map(|p| {
            let parts: Vec<String> = p
                .strip_prefix(&root)
                .unwrap()
                .components()
                .map(|c| c.as_os_str().to_string_lossy().into_owned())
                .collect();
            parts.join("/")
        })
        .collect();
    (root, rel)
}

/// A fresh folder under the system's temporary folder, removed when dropped.
pub struct TempDir(pub PathBuf);

impl TempDir {
    /// A folder unique to this process and `name`.
    pub fn new(name: &str) -> Self {
        let dir = std::env::temp_dir().join(format!("skel-bevy-{}-{name}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        Self(dir)
    }
}

impl Drop for TempDir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

/// The repository's `graphs/` file `name`.
pub fn graph_file(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../graphs")
        .join(name)
}

/// The largest difference between any driven joint's `GlobalTransform` (times `place`, the
/// character's placement, inverted) and skel's world matrix of its node, and the tolerance:
/// 1e-5 of the diagonal of the joints' bounding box (at least 1e-5).
pub fn worst_joint_difference(
    app: &mut App,
    character: Entity,
    place: Mat4,
    world: &[Mat4],
) -> (f32, f32) {
    let (lo, hi) = world.iter().fold((Vec3::MAX, Vec3::MIN), |(lo, hi), m| {
        let t = m.w_axis.truncate();
        (lo.min(t), hi.max(t))
    });
    let tol = 1e-5 * (hi - lo).length().max(1.0);
    let joints = joints(app, character);
    assert!(!joints.is_empty(), "no joint bound");
    let mut worst = 0.0f32;
    for (node, entity) in joints {
        let got = app
            .world()
            .get::<GlobalTransform>(entity)
            .unwrap()
            .to_matrix();
        let want = place * world[node];
        let d = (got - want)
            .abs()
            .to_cols_array()
            .into_iter()
            .fold(0.0, f32::max);
        worst = worst.max(d);
    }
    (worst, tol)
}

/// The clock time of `character`'s first layer.
pub fn layer_time(app: &App, character: Entity) -> f32 {
    app.world()
        .get::<SkelPlayer>(character)
        .unwrap()
        .player()
        .unwrap()
        .layers()[0]
        .clock()
        .time()
}

/// skel's own world matrices of clip `clip` of `rig` at `time` (one layer, seeked there).
pub fn clip_world(rig: &Arc<Rig>, clip: usize, time: f32) -> Vec<Mat4> {
    let mut reference = Player::new(rig);
    reference.add_layer(LayerDesc::new(clip)).unwrap();
    reference.layer_mut(0).unwrap().clock_mut().seek(time);
    reference.evaluate(&mut NullSink);
    reference.world_matrices().iter().map(mat).collect()
}

/// An app with the built-in character at `place` playing Idle under one IK job whose target
/// is an entity at `target` (world position): `job` makes the job from that entity. The
/// character is bound and `frames` fixed frames run; returns the app and the character.
pub fn idle_reaching(
    place: Transform,
    target: Vec3,
    job: impl FnOnce(Entity) -> SkelIkJob,
    frames: usize,
) -> (App, Entity) {
    let mut app = app(&fixture(""));
    let target = app
        .world_mut()
        .spawn(Transform::from_translation(target))
        .id();
    let character = spawn(
        &mut app,
        "default_character.glb",
        (
            place,
            SkelPlayer::new().with_layer(SkelLayer::clip("Idle")),
            SkelIk::new().with_job(job(target)),
        ),
    );
    run_until_bound(&mut app, character);
    step(&mut app, frames);
    (app, character)
}
