//! Foot placement on the built-in character (`fixtures/default_character.glb`, 1 unit = 1 m):
//! its in-place `Walk` clip played by a `Player` at 60 Hz, the character moved forward by as
//! much as its planted foot slides back in the clip, each tick's local pose placed on the
//! ground with the feet planted by the clip's footfall markers (`foot_l`, `foot_r`: a foot is
//! down from its own marker to the other's). On a 20° slope and up and down stairs: no sole point (under the
//! ankle or the toes) below the ground, a planted foot's contact moves less than 0.1 cm
//! (0.001) while planted, the pelvis drops no more than the slope or one step asks.

#![allow(clippy::unwrap_used, clippy::expect_used, reason = "tests")]

use std::path::PathBuf;
use std::sync::Arc;

use skel_anim::glam::{Affine3A, Vec3};
use skel_anim::{
    AnimationData, FootDesc, FootPlacement, FootPlacementDesc, FootPlacementState, GroundPlane,
    GroundQuery, LayerDesc, NullSink, Player, Rig, TriangleGround, model_matrix_from_trs,
};
use skel_gltf::{LoadOptions, load_path};

/// Below the ground this much is f32 rounding.
const UNDER: f32 = 1e-4;
/// The bound on a planted contact's movement: 0.1 cm.
const PLANTED_SLIDE: f32 = 0.001;
/// Frames played: four cycles of the one-second walk.
const FRAMES: usize = 240;

fn character() -> Arc<Rig> {
    let path = PathBuf::from(concat!(env!("CARGO_MANIFEST_DIR"), "/../../fixtures"))
        .join("default_character.glb");
    let asset = load_path(
        &path,
        &LoadOptions::with_handedness(skel_anim::Handedness::RightHanded),
    )
    .unwrap();
    Rig::new(Arc::new(asset.animation)).unwrap()
}

/// The legs, left then right: hip, knee, ankle, toes.
fn legs(rig: &Rig) -> [[usize; 4]; 2] {
    ["Left", "Right"].map(|side| {
        ["UpLeg", "Leg", "Foot", "Toes"]
            .map(|joint| rig.node_index(&format!("{side}{joint}")).unwrap())
    })
}

fn desc(rig: &Rig) -> FootPlacementDesc {
    let feet = legs(rig).map(|[hip, knee, ankle, toe]| FootDesc::new(hip, knee, ankle, Some(toe)));
    FootPlacementDesc::new(rig.node_index("Hips").unwrap(), feet.to_vec())
}

/// The clip's footfalls: `(left, right)` marker times.
fn footfalls(data: &AnimationData, clip: usize) -> (f32, f32) {
    let at = |name: &str| {
        data.clips[clip]
            .markers
            .iter()
            .find(|m| m.name == name)
            .unwrap()
            .time
    };
    (at("foot_l"), at("foot_r"))
}

/// Whether a foot is down at clip time `t` of a `length`-second cycle: from its own marker
/// to the other foot's.
fn down_at(t: f32, own: f32, other: f32, length: f32) -> bool {
    let since = (t - own).rem_euclid(length);
    since < (other - own).rem_euclid(length)
}

#[derive(Debug, Default)]
struct Walked {
    worst_under: f32,
    worst_slide: f32,
    planted_frames: usize,
    worst_drop: f32,
    /// The most any foot was sent down and across from where the clip had it.
    farthest_sent: f32,
}

fn under(ground: &dyn GroundQuery, p: Vec3) -> (f32, Vec3) {
    let hit = ground
        .cast(Vec3::new(p.x, p.y + 50.0, p.z), Vec3::NEG_Y, 100.0)
        .unwrap();
    (hit.point.y, hit.normal)
}

/// Walks the character over `ground`, its root at `height(z)`, with `desc`.
fn walk(
    rig: &Arc<Rig>,
    desc: &FootPlacementDesc,
    ground: &dyn GroundQuery,
    height: impl Fn(f32) -> f32,
) -> Walked {
    let data = rig.data();
    let clip = rig.clip_index("Walk").unwrap();
    let length = data.clips[clip].duration();
    let (left, right) = footfalls(data, clip);
    let placement = FootPlacement::new(data, desc).unwrap();
    let (ankle_height, toe_height) = placement.sole_heights(0).unwrap();
    let legs = legs(rig);
    let mut state = FootPlacementState::new(&placement);
    let mut player = Player::new(rig);
    player.add_layer(LayerDesc::new(clip)).unwrap();
    let mut pose = player.scratch().trs.clone();
    let mut w = Walked::default();
    let mut anchors: [Option<Vec3>; 2] = [None; 2];
    let dt = 1.0 / 60.0;
    // The character moves as its planted foot slides back in the clip (root motion from the
    // stance foot, as a game moves an in-place walk).
    let (mut z, mut last_z) = (0.0_f32, [None::<f32>; 2]);
    for frame in 0..FRAMES {
        player.tick(if frame == 0 { 0.0 } else { dt }, &mut NullSink);
        let t = player.layers()[0].clock().time();
        let down = [
            down_at(t, left, right, length),
            down_at(t, right, left, length),
        ];
        for (foot, [_, _, ankle, _]) in legs.iter().enumerate() {
            state.set_planted(foot, Some(down[foot])).unwrap();
            let clip_z =
                model_matrix_from_trs(data, &player.scratch().trs, *ankle, &Affine3A::IDENTITY)
                    .unwrap()
                    .translation
                    .z;
            if let (true, Some(before)) = (down[foot], last_z[foot]) {
                z += before - clip_z;
            }
            last_z[foot] = Some(clip_z);
        }
        let root = Affine3A::from_translation(Vec3::new(0.0, height(z), z));
        pose.copy_from_slice(&player.scratch().trs);
        let report = placement
            .solve(&mut state, data, &mut pose, &root, ground, dt)
            .unwrap();
        let at = |n: usize| {
            Vec3::from(
                model_matrix_from_trs(data, &pose, n, &root)
                    .unwrap()
                    .translation,
            )
        };
        for (foot, [_, _, ankle, toe]) in legs.iter().enumerate() {
            for (point, h) in [(at(*ankle), ankle_height), (at(*toe), toe_height)] {
                let sole = point - under(ground, point).1 * h;
                w.worst_under = w.worst_under.max(under(ground, sole).0 - sole.y);
            }
            let status = state.feet()[foot];
            if status.planted {
                // Where the foot is on the ground: the clip raises the heel before the other
                // foot lands, so the ankle rises while planted, but must not slide.
                w.planted_frames += 1;
                let across = |p: Vec3| p - Vec3::Y * p.y;
                let anchor = *anchors[foot].get_or_insert(at(*ankle));
                w.worst_slide = w.worst_slide.max(across(at(*ankle) - anchor).length());
            } else {
                anchors[foot] = None;
            }
        }
        w.worst_drop = w.worst_drop.max(report.pelvis_drop);
        for f in state.feet() {
            let across = Vec3::new(f.offset.x, 0.0, f.offset.z).length();
            w.farthest_sent = w.farthest_sent.max(-f.offset.y + across);
        }
    }
    assert!(w.planted_frames >= FRAMES * 9 / 10, "{w:?}");
    w
}

#[test]
fn the_walk_on_a_20_degree_slope() {
    let rig = character();
    let a = 20_f32.to_radians();
    for (name, normal) in [
        ("flat", Vec3::Y),
        ("uphill", Vec3::new(0.0, a.cos(), -a.sin())),
        ("downhill", Vec3::new(0.0, a.cos(), a.sin())),
        ("across", Vec3::new(-a.sin(), a.cos(), 0.0)),
    ] {
        let plane = GroundPlane::through(Vec3::ZERO, normal).unwrap();
        let w = walk(&rig, &desc(&rig), &plane, |z| -normal.z * z / normal.y);
        println!("{name}: {w:?}");
        assert!(
            w.worst_under <= UNDER,
            "{name}: a sole {} under",
            w.worst_under
        );
        assert!(
            w.worst_slide < PLANTED_SLIDE,
            "{name}: a planted foot moved {}",
            w.worst_slide
        );
        // No more than the farthest a foot was sent down and across (half a stride down the
        // slope, and back along it by the ankle's shift); not at all on level ground.
        let bound = if name == "flat" {
            1e-3
        } else {
            w.farthest_sent
        };
        assert!(
            w.worst_drop <= bound,
            "{name}: drop {} > {bound}",
            w.worst_drop
        );
    }
}

/// A staircase along +z, treads 0.3 deep, each `rise` above the last (negative: down).
fn stairs(rise: f32) -> TriangleGround {
    let mut triangles = Vec::new();
    let p = Vec3::new;
    for k in -10..40 {
        let (y, z0, z1) = (k as f32 * rise, k as f32 * 0.3, (k + 1) as f32 * 0.3);
        let below = y - rise;
        for [a, b, c, d] in [
            [p(-2.0, y, z0), p(2.0, y, z0), p(2.0, y, z1), p(-2.0, y, z1)],
            [
                p(-2.0, below, z0),
                p(2.0, below, z0),
                p(2.0, y, z0),
                p(-2.0, y, z0),
            ],
        ] {
            triangles.push([a, b, c]);
            triangles.push([a, c, d]);
        }
    }
    TriangleGround::new(triangles).unwrap()
}

#[test]
fn the_walk_up_and_down_stairs() {
    let rig = character();
    let rise = 0.15;
    let desc = FootPlacementDesc {
        max_step_down: rise,
        ..desc(&rig)
    };
    for (name, step) in [("up", rise), ("down", -rise)] {
        let slope = step / 0.3;
        // Along the treads' upper corners, lowered so that a foot half a stride (0.33 m)
        // back is at most a step below the clip's ground.
        let corner = if step > 0.0 { 0.0 } else { -step };
        let w = walk(&rig, &desc, &stairs(step), |z| {
            slope * z + corner - 0.5 * 0.33
        });
        println!("stairs {name}: {w:?}");
        assert!(
            w.worst_under <= UNDER,
            "stairs {name}: a sole {} under",
            w.worst_under
        );
        assert!(
            w.worst_slide < PLANTED_SLIDE,
            "stairs {name}: slid {}",
            w.worst_slide
        );
        assert!(w.worst_drop <= rise, "stairs {name}: drop {}", w.worst_drop);
    }
}
