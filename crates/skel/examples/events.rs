//! Animation events: footstep markers on a clip fire once each time the playhead passes them,
//! into a callback (nothing allocates per tick), however long the tick and in either direction.
//!
//! `cargo run -p skel --example events`

use std::sync::Arc;

use skel::anim::{
    AnimError, AnimationData, Channel, ChannelPath, Clip, Interpolation, LayerDesc, LoopMode,
    Marker, NodeRest, NullSink, Player, Rig, Sampler,
};

fn main() -> Result<(), AnimError> {
    // A one-second clip with two footsteps (from glTF, the same markers come from an
    // animation's `extras`: {"markers": [{"name": "step_l", "time": 0.25}, ...]}).
    let bob = Sampler::new(vec![0.0, 1.0], vec![0.0; 6], Interpolation::Linear)?;
    let walk = Clip::new(
        "walk",
        vec![bob],
        vec![Channel {
            sampler: 0,
            node: 0,
            path: ChannelPath::Translation,
        }],
    )
    .with_markers([
        Marker {
            name: "step_l".into(),
            time: 0.25,
        },
        Marker {
            name: "step_r".into(),
            time: 0.75,
        },
    ]);
    let rig = Rig::new(Arc::new(AnimationData {
        nodes: vec![NodeRest::new("root", None)],
        clips: vec![walk],
        ..Default::default()
    }))?;

    let mut player = Player::new(&rig);
    player.add_layer(LayerDesc::new(0).loop_mode(LoopMode::PingPong))?;
    let mut elapsed = 0.0;
    for _frame in 0..150 {
        elapsed += 1.0 / 60.0;
        player.tick_with_events(1.0 / 60.0, &mut NullSink, &mut |event| {
            // Play a sound, spawn dust, ... (`event.weight` says how much the layer shows).
            println!(
                "{elapsed:5.3} s: {} at clip time {}",
                event.name, event.time
            );
        });
    }
    // A hitch of three seconds still reports every step it skipped over.
    let mut skipped = 0;
    player.tick_with_events(3.0, &mut NullSink, &mut |_| skipped += 1);
    println!("a 3 s tick passed {skipped} footsteps");
    Ok(())
}
