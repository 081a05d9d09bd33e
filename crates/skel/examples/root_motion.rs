//! Root motion: a character whose clip walks its root forward plays in place, and the player
//! hands back how far it moved each tick, for the application to move the character by.
//!
//! `cargo run -p skel --example root_motion`

use std::sync::Arc;

use skel::anim::{
    AnimError, AnimationData, Channel, ChannelPath, Clip, Handedness, Interpolation, LayerDesc,
    NodeRest, NullSink, Player, Rig, RootMotion, Sampler,
};

/// A root ("hips") that walks 1.5 units along +z over a one-second loop, turning 10° as it goes.
fn walking_rig() -> Result<Arc<Rig>, AnimError> {
    let stride = Sampler::new(
        vec![0.0, 1.0],
        vec![0.0, 0.9, 0.0, 0.0, 0.9, 1.5],
        Interpolation::Linear,
    )?;
    let turn = skel::anim::glam::Quat::from_rotation_y(10f32.to_radians());
    let turning = Sampler::new(
        vec![0.0, 1.0],
        [skel::anim::glam::Quat::IDENTITY.to_array(), turn.to_array()].concat(),
        Interpolation::Linear,
    )?;
    let channel = |sampler, path| Channel {
        sampler,
        node: 0,
        path,
    };
    let walk = Clip::new(
        "walk",
        vec![stride, turning],
        vec![
            channel(0, ChannelPath::Translation),
            channel(1, ChannelPath::Rotation),
        ],
    );
    Rig::new(Arc::new(AnimationData {
        nodes: vec![NodeRest::new("hips", None)],
        clips: vec![walk],
        handedness: Handedness::RightHanded,
        ..Default::default()
    }))
}

fn main() -> Result<(), AnimError> {
    let rig = walking_rig()?;
    let mut player = Player::new(&rig);
    player.add_layer(LayerDesc::new(0))?;
    // Extract the ground-plane translation and the turn about +y from the hips.
    player.set_root_motion(Some(RootMotion {
        node: 0,
        translation: [true, false, true],
        yaw: true,
    }))?;

    // The application's transform of the character: moved by every tick's delta.
    let mut position = skel::anim::glam::Vec3::ZERO;
    let mut facing = skel::anim::glam::Quat::IDENTITY;
    for _frame in 0..(60 * 5) {
        player.tick(1.0 / 60.0, &mut NullSink); // your sink uploads the (in-place) pose
        let delta = player.root_motion_delta();
        position += facing * delta.translation;
        facing *= delta.rotation;
    }
    // The hips stay at their starting place in the pose: only the transform moved.
    let hips_z = player.scratch().trs[skel::anim::T_OFF + 2];
    println!(
        "after 5 loops: position {position:.3}, facing {:.1}°, hips z in the pose {hips_z}",
        facing
            .to_euler(skel::anim::glam::EulerRot::YXZ)
            .0
            .to_degrees()
    );
    let total = player.root_motion_total();
    println!("the player's own total: {:.3}", total.translation);
    Ok(())
}
