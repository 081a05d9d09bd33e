//! Foot placement installed on a `Player` (`Player::set_foot_placement`): the built-in
//! character walks over a floor raised 8 cm (a ground the clip does not know) in both
//! handednesses; with the job installed no toe goes below the floor, without it the toes sink
//! into it (so the check can fail); removing the job gives the clip's pose back.

#![allow(clippy::unwrap_used, clippy::expect_used, reason = "tests")]

use std::path::PathBuf;
use std::sync::Arc;

use skel_anim::glam::Vec3;
use skel_anim::{
    FootDesc, FootPlacement, FootPlacementDesc, FootPlacementJob, GroundPlane, Handedness,
    LayerDesc, NullSink, Player, Rig,
};
use skel_gltf::{LoadOptions, load_path};

const FLOOR: f32 = 0.08;

fn character(handedness: Handedness) -> Arc<Rig> {
    let path = PathBuf::from(concat!(env!("CARGO_MANIFEST_DIR"), "/../../fixtures"))
        .join("default_character.glb");
    let asset = load_path(&path, &LoadOptions::with_handedness(handedness)).unwrap();
    Rig::new(Arc::new(asset.animation)).unwrap()
}

fn job(rig: &Rig) -> FootPlacementJob {
    let node = |n: &str| rig.node_index(n).unwrap();
    let feet = ["Left", "Right"].map(|side| {
        let j = |part: &str| node(&format!("{side}{part}"));
        FootDesc::new(j("UpLeg"), j("Leg"), j("Foot"), Some(j("Toes")))
    });
    let placement = FootPlacement::new(
        rig.data(),
        &FootPlacementDesc::new(node("Hips"), feet.to_vec()),
    )
    .unwrap();
    let floor = GroundPlane::new(Vec3::Y, -FLOOR).unwrap();
    FootPlacementJob::new(placement, Arc::new(floor))
}

/// The lowest toe height over two seconds of walking at 60 Hz, after the first half second
/// (the placement eases in).
fn lowest_toe(rig: &Arc<Rig>, with_job: bool) -> f32 {
    let mut p = Player::new(rig);
    p.add_layer(LayerDesc::new(rig.clip_index("Walk").unwrap()))
        .unwrap();
    if with_job {
        p.set_foot_placement(Some(job(rig)));
    }
    let toes = [
        rig.node_index("LeftToes").unwrap(),
        rig.node_index("RightToes").unwrap(),
    ];
    let mut lowest = f32::MAX;
    for k in 0..120 {
        p.tick(1.0 / 60.0, &mut NullSink);
        let world = p.world_matrices();
        assert!(world.iter().all(|m| m.is_finite()));
        if k >= 30 {
            for &t in &toes {
                lowest = lowest.min(world[t].w_axis.y);
            }
        }
    }
    lowest
}

#[test]
fn a_player_keeps_its_toes_on_a_raised_floor() {
    for handedness in [Handedness::RightHanded, Handedness::LeftHanded] {
        let rig = character(handedness);
        let placed = lowest_toe(&rig, true);
        let free = lowest_toe(&rig, false);
        println!("{handedness:?}: lowest toe {placed} placed, {free} free, floor {FLOOR}");
        assert!(
            free < FLOOR - 0.01,
            "the clip's toes were never below the floor ({free})"
        );
        assert!(
            placed >= FLOOR - 1e-3,
            "a placed toe went {} below the floor",
            FLOOR - placed
        );
    }
}

#[test]
fn removing_the_job_gives_the_clip_back() {
    let rig = character(Handedness::RightHanded);
    let mut p = Player::new(&rig);
    p.add_layer(LayerDesc::new(0)).unwrap();
    p.set_foot_placement(Some(job(&rig)));
    for _ in 0..30 {
        p.tick(1.0 / 60.0, &mut NullSink);
    }
    assert!(p.foot_placement().is_some());
    p.set_foot_placement(None);
    p.tick(1.0 / 60.0, &mut NullSink);
    let shown = p.world_matrices().to_vec();
    let mut plain = Player::new(&rig);
    plain.add_layer(LayerDesc::new(0)).unwrap();
    for _ in 0..31 {
        plain.tick(1.0 / 60.0, &mut NullSink);
    }
    let worst = shown
        .iter()
        .zip(plain.world_matrices())
        .map(|(a, b)| (a.w_axis - b.w_axis).length())
        .fold(0.0, f32::max);
    assert!(worst < 1e-5, "{worst}");
}
