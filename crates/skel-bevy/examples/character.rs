//! Two characters in a window, driven by skel's animation graphs from the keyboard, walking
//! across a slope with their feet planted on it by two-bone IK.
//!
//! ```text
//! cargo run -p skel-bevy --features window --example character [-- --screenshot out.png]
//! ```
//!
//! The built-in character plays `graphs/default_character.json`; RobotExpressive (from
//! `../shared/assets`, when it is there) plays `graphs/robot_expressive.json`.
//!
//! Keys: Up/Down (or W/S) change the `speed` parameter of the selected character (idle →
//! walk → run), Left/Right (A/D) turn it, Space toggles `waving`, J triggers `jump` (the robot),
//! Tab selects the other character. The title bar shows each character's states.
//!
//! Their clips walk in place, so a small controller moves each character forward at the
//! graph's speed and puts it on the slope ([`SkelRootMotion`](skel_bevy::SkelRootMotion) is
//! for clips that travel: see the crate's docs). Each foot has a `SkelIk` job whose target
//! entity is put, every frame, at the foot's animated height above the slope under it, so the
//! uphill foot is lifted onto the slope and the hips stay on the downhill side.
//!
//! `--screenshot PATH` walks both characters for `--frames N` frames (default 150), saves the
//! window and exits: `cargo xtask bevy-window` runs it under Xvfb for the docs' picture.

use std::path::{Path, PathBuf};
use std::time::Duration;

use bevy::asset::io::AssetSourceBuilder;
use bevy::core_pipeline::tonemapping::Tonemapping;
use bevy::gltf::GltfAssetLabel;
use bevy::prelude::*;
use bevy::render::view::screenshot::{Screenshot, save_to_disk};
use bevy::time::TimeUpdateStrategy;
use bevy::world_serialization::WorldAssetRoot;
use skel_bevy::anim::{IkJob, NullSink};
use skel_bevy::{SkelGraph, SkelGraphFile, SkelIk, SkelIkJob, SkelPlayer, SkelPlugin};

/// The slope's rise per metre along +x (about 11°).
const SLOPE: f32 = 0.2;

/// Height of the slope at `p` (it rises along +x and is level along z).
fn ground(p: Vec3) -> f32 {
    SLOPE * p.x
}

/// One character of the scene: its keys' state and its feet.
#[derive(Component)]
struct Walker {
    name: &'static str,
    speed: f32,
    heading: f32,
    waving: bool,
    /// The entities the left and right foot's IK jobs reach for.
    targets: [Entity; 2],
}

/// Which character the keys drive, and the screenshot run's frame count.
#[derive(Resource)]
struct Control {
    selected: usize,
    frame: u32,
    screenshot: Option<(PathBuf, u32)>,
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let arg = |name: &str| {
        args.iter()
            .position(|a| a == name)
            .and_then(|i| args.get(i + 1))
            .cloned()
    };
    let screenshot = arg("--screenshot").map(|path| {
        let frames = arg("--frames").and_then(|f| f.parse().ok()).unwrap_or(150);
        (PathBuf::from(path), frames)
    });
    let screenshot_run = screenshot.is_some();
    let repo = Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    let shared = repo.join("../shared/assets");

    let mut app = App::new();
    app.register_asset_source(
        "shared",
        AssetSourceBuilder::platform_default(&shared.to_string_lossy(), None),
    )
    .add_plugins((
        DefaultPlugins
            .set(AssetPlugin {
                file_path: repo.to_string_lossy().into_owned(),
                ..default()
            })
            .set(WindowPlugin {
                primary_window: Some(Window {
                    title: "skel-bevy".into(),
                    resolution: (960, 540).into(),
                    ..default()
                }),
                ..default()
            }),
        SkelPlugin,
    ))
    .insert_resource(Control {
        selected: 0,
        frame: 0,
        screenshot,
    })
    .add_systems(Startup, (setup_scene, spawn_characters))
    .add_systems(
        Update,
        (
            drive,
            walk,
            place_foot_targets,
            show_states,
            take_screenshot,
        )
            .chain(),
    );
    if screenshot_run {
        // The same picture on any machine: 60 steps a second however slowly frames come.
        app.insert_resource(TimeUpdateStrategy::ManualDuration(Duration::from_secs_f32(
            1.0 / 60.0,
        )));
    }
    if shared.join("RobotExpressive/RobotExpressive.glb").is_file() {
        app.add_systems(Startup, spawn_robot);
    }
    app.run();
}

fn setup_scene(
    mut commands: Commands,
    mut meshes: ResMut<Assets<Mesh>>,
    mut materials: ResMut<Assets<StandardMaterial>>,
) {
    commands.spawn((
        Camera3d::default(),
        Tonemapping::None,
        Transform::from_xyz(0.5, 2.2, 7.0).looking_at(Vec3::new(0.5, 1.0, 0.0), Vec3::Y),
    ));
    commands.spawn((
        DirectionalLight {
            illuminance: 9_000.0,
            shadow_maps_enabled: true,
            ..default()
        },
        Transform::from_xyz(3.0, 8.0, 5.0).looking_at(Vec3::ZERO, Vec3::Y),
    ));
    // The slope: a plane turned about z so that it rises along +x.
    commands.spawn((
        Mesh3d(meshes.add(Plane3d::default().mesh().size(60.0, 60.0))),
        MeshMaterial3d(materials.add(Color::srgb(0.42, 0.48, 0.40))),
        Transform::from_rotation(Quat::from_rotation_z(SLOPE.atan())),
    ));
}

/// A character playing `graph`, with a two-bone job per foot when `legs` are given.
fn spawn_walker(
    commands: &mut Commands,
    server: &AssetServer,
    (file, graph): (&str, &str),
    (name, at, scale): (&'static str, Vec3, f32),
    legs: &[[&'static str; 3]],
) {
    let targets = [
        commands.spawn(Transform::default()).id(),
        commands.spawn(Transform::default()).id(),
    ];
    let mut ik = SkelIk::new();
    for (leg, &target) in legs.iter().zip(&targets) {
        let mut job = SkelIkJob::two_bone(leg[0], leg[1], leg[2], target);
        if let skel_bevy::SkelIkChain::TwoBone { ik, .. } = &mut job.chain {
            // Knees bend forward (the pole is a direction in the world; the walkers face +z).
            ik.pole = Vec3::Z;
        }
        ik = ik.with_job(job);
    }
    commands.spawn((
        WorldAssetRoot(server.load(GltfAssetLabel::Scene(0).from_asset(file.to_owned()))),
        SkelGraph::new(server.load::<SkelGraphFile>(graph.to_owned())),
        ik,
        Transform::from_translation(at).with_scale(Vec3::splat(scale)),
        Walker {
            name,
            speed: 1.2,
            heading: 0.0,
            waving: false,
            targets,
        },
    ));
}

fn spawn_characters(mut commands: Commands, server: Res<AssetServer>) {
    spawn_walker(
        &mut commands,
        &server,
        (
            "fixtures/default_character.glb",
            "graphs/default_character.json",
        ),
        ("character", Vec3::new(-0.8, 0.0, 0.0), 1.0),
        &[
            ["LeftUpLeg", "LeftLeg", "LeftFoot"],
            ["RightUpLeg", "RightLeg", "RightFoot"],
        ],
    );
}

fn spawn_robot(mut commands: Commands, server: Res<AssetServer>) {
    spawn_walker(
        &mut commands,
        &server,
        (
            "shared://RobotExpressive/RobotExpressive.glb",
            "graphs/robot_expressive.json",
        ),
        ("robot", Vec3::new(1.8, 0.0, 0.0), 0.45),
        // No foot IK: the robot's feet hang from their own root-level bones (`Foot.L` and
        // `Foot.R` are children of `Bone`, as Blender's IK controls export), not from the
        // legs, so no thigh → shin → foot chain exists to solve.
        &[],
    );
}

/// Keys → the selected character's parameters.
fn drive(
    keys: Res<ButtonInput<KeyCode>>,
    time: Res<Time>,
    mut control: ResMut<Control>,
    mut walkers: Query<(&mut Walker, &mut SkelPlayer)>,
) {
    let count = walkers.iter().count().max(1);
    if keys.just_pressed(KeyCode::Tab) {
        control.selected = (control.selected + 1) % count;
    }
    let dt = time.delta_secs();
    let pressed = |a: KeyCode, b: KeyCode| keys.pressed(a) || keys.pressed(b);
    let Some((mut walker, mut player)) = walkers.iter_mut().nth(control.selected) else {
        return;
    };
    if pressed(KeyCode::ArrowUp, KeyCode::KeyW) {
        walker.speed = (walker.speed + 1.5 * dt).min(4.5);
    }
    if pressed(KeyCode::ArrowDown, KeyCode::KeyS) {
        walker.speed = (walker.speed - 1.5 * dt).max(0.0);
    }
    if pressed(KeyCode::ArrowLeft, KeyCode::KeyA) {
        walker.heading += 1.5 * dt;
    }
    if pressed(KeyCode::ArrowRight, KeyCode::KeyD) {
        walker.heading -= 1.5 * dt;
    }
    if keys.just_pressed(KeyCode::Space) {
        walker.waving = !walker.waving;
    }
    let jump = keys.just_pressed(KeyCode::KeyJ);
    let Some(graph) = player.graph_mut() else {
        return;
    };
    // Parameters a graph does not declare (the character has no `jump`) are skipped.
    let _ = graph.set_float("speed", walker.speed);
    let _ = graph.set_bool("waving", walker.waving);
    if jump {
        let _ = graph.set_trigger("jump");
    }
}

/// The controller: forward at the graph's speed (the clips walk in place), on the slope,
/// back to the start past the camera's view.
fn walk(time: Res<Time>, mut walkers: Query<(&Walker, &mut Transform)>) {
    for (walker, mut transform) in &mut walkers {
        transform.rotation = Quat::from_rotation_y(walker.heading);
        let forward = transform.rotation * Vec3::Z;
        let scale = transform.scale.x;
        transform.translation += forward * walker.speed * scale * time.delta_secs();
        if transform.translation.z > 3.0 {
            transform.translation.z = -6.0;
        }
        // The hips stand over the downhill foot: half a stance below the slope's height.
        transform.translation.y = ground(transform.translation) - SLOPE * 0.12 * transform.scale.x;
    }
}

/// Each foot's target: where the animation alone puts the foot, raised by the slope's
/// height above the character's ground under it.
///
/// The animation alone is read from skel's player at the time the last frame reached, with
/// the IK jobs' weights set to 0 for one extra evaluation (the plugin sets every job's
/// weight again from `SkelIk` before it poses). Reading the solved foot instead would feed
/// each target back into the next and freeze the feet.
fn place_foot_targets(
    mut walkers: Query<(&Walker, &mut SkelPlayer, &Transform)>,
    mut targets: Query<&mut Transform, Without<Walker>>,
) {
    for (walker, mut player, now) in &mut walkers {
        let Some(p) = player.player_mut() else {
            continue;
        };
        let mut feet = [None; 2];
        for (side, foot) in feet.iter_mut().enumerate() {
            if let Ok(IkJob::TwoBone { end, ik, .. }) = p.ik_target_mut(side) {
                ik.weight = 0.0;
                *foot = Some(*end);
            }
        }
        p.evaluate(&mut NullSink);
        let world = p.world_matrices();
        for (foot, &target) in feet.iter().zip(&walker.targets) {
            let Some(foot) = foot.map(|n| world[n].w_axis.truncate()) else {
                continue;
            };
            let on_slope = now.transform_point(Vec3::new(foot.x, 0.0, foot.z));
            let lift = ((ground(on_slope) - now.translation.y) / now.scale.y).max(0.0);
            if let Ok(mut t) = targets.get_mut(target) {
                t.translation = now.transform_point(foot + Vec3::Y * lift);
            }
        }
    }
}

/// Each character's graph states in the title bar.
fn show_states(
    control: Res<Control>,
    walkers: Query<(&Walker, &SkelPlayer)>,
    mut windows: Query<&mut Window>,
) {
    let mut title = String::from("skel-bevy");
    for (i, (walker, player)) in walkers.iter().enumerate() {
        let mark = if i == control.selected { "▶" } else { " " };
        let states = player
            .graph()
            .map(|g| {
                (0..g.graph().layer_count())
                    .filter_map(|l| g.state(l))
                    .collect::<Vec<_>>()
                    .join("+")
            })
            .unwrap_or_else(|| "loading".into());
        title.push_str(&format!(
            "  {mark}{}: {states} at {:.1} m/s",
            walker.name, walker.speed
        ));
    }
    for mut window in &mut windows {
        if window.title != title {
            window.title.clone_from(&title);
        }
    }
}

/// With `--screenshot`: saves the window after the frame count, then exits.
fn take_screenshot(
    mut commands: Commands,
    mut control: ResMut<Control>,
    mut exit: MessageWriter<AppExit>,
) {
    control.frame += 1;
    let Some((path, frames)) = control.screenshot.clone() else {
        return;
    };
    if control.frame == frames {
        commands
            .spawn(Screenshot::primary_window())
            .observe(save_to_disk(path));
    }
    // A few frames for the capture to come back and be written.
    if control.frame == frames + 30 {
        exit.write(AppExit::Success);
    }
}
