//! Inverse kinematics on the player: a leg (hip → knee → foot) keeps its foot on a moving
//! target, and a head aims at a point, after the animation layers and before local → world.
//!
//! `cargo run -p skel --example ik`

use std::sync::Arc;

use skel::anim::glam::Vec3;
use skel::anim::{
    AimIk, AnimError, AnimationData, IkJob, NodeRest, NullSink, Player, Rig, TwoBoneIk,
    model_matrix,
};

fn node(name: &str, parent: Option<usize>, y: f32) -> NodeRest {
    NodeRest {
        translation: [0.0, y, 0.0],
        ..NodeRest::new(name, parent)
    }
}

fn main() -> Result<(), AnimError> {
    // hip at y = 1, knee 0.5 below, foot 0.5 below that; a head on top of the hip.
    let rig = Rig::new(Arc::new(AnimationData {
        nodes: vec![
            node("hip", None, 1.0),
            node("knee", Some(0), -0.5),
            node("foot", Some(1), -0.5),
            node("head", Some(0), 0.6),
        ],
        ..Default::default()
    }))?;
    let mut player = Player::new(&rig); // no layers: the rest pose (add clips as usual)
    let leg = player.add_ik(IkJob::TwoBone {
        start: 0,
        mid: 1,
        end: 2,
        ik: TwoBoneIk {
            target: Vec3::new(0.3, 0.2, 0.0),
            pole: Vec3::Z, // the knee bends forwards
            ..TwoBoneIk::default()
        },
    })?;
    player.add_ik(IkJob::Aim {
        node: 3,
        ik: AimIk {
            target: Vec3::new(2.0, 1.6, 2.0),
            forward: Vec3::Z, // the head's local +z looks at the target
            ..AimIk::default()
        },
    })?;
    for frame in 0..5 {
        // Move the foot's target along a step, every frame (no allocation).
        let x = -0.3 + 0.15 * frame as f32;
        if let IkJob::TwoBone { ik, .. } = player.ik_target_mut(leg)? {
            ik.target = Vec3::new(x, 0.1, 0.1);
        }
        player.tick(1.0 / 60.0, &mut NullSink);
        let foot: Vec3 = model_matrix(player.world_matrices(), 2)?.translation.into();
        let knee: Vec3 = model_matrix(player.world_matrices(), 1)?.translation.into();
        println!("target x {x:+.2}: foot at {foot:.3}, knee at {knee:.3}");
    }
    Ok(())
}
