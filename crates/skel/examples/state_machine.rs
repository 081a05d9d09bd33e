//! An animation graph drives the built-in character: `graphs/default_character.json` blends
//! Idle into Walk by a `speed` parameter, fades to Run (feet in step) above 2.5, and waves
//! with the upper body while `waving` is true. The application only sets parameters.
//!
//! `cargo run -p skel --example state_machine`

use std::sync::Arc;

use skel::anim::{NullSink, Player, Rig};
use skel::gltf::{LoadOptions, load_slice};
use skel::graph::{Graph, GraphPlayer};

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let asset = load_slice(skel::DEFAULT_CHARACTER, None, &LoadOptions::default())?;
    let rig = Rig::new(Arc::new(asset.animation))?;
    // Compile the graph once against the rig; every character of this asset can share it.
    let file = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../graphs/default_character.json"
    );
    let graph = Graph::from_json(&std::fs::read_to_string(file)?, &rig)?;
    let mut character = GraphPlayer::new(&graph, Player::new(&rig))?;

    // (seconds, speed, waving): stand, walk, run while waving, slow down.
    let script = [
        (1.0, 0.0, false),
        (1.0, 1.0, false),
        (1.5, 3.5, true),
        (1.0, 0.7, false),
    ];
    for (seconds, speed, waving) in script {
        character.instance_mut().set_float("speed", speed)?;
        character.instance_mut().set_bool("waving", waving)?;
        for frame in 0..(seconds * 60.0) as usize {
            // Your sink uploads bone matrices and morph weights (skel::MeshPoseSink on the GPU).
            character.tick(1.0 / 60.0, &mut NullSink);
            if frame % 15 != 14 {
                continue;
            }
            let graph = character.instance();
            let mut line = format!("speed {speed:.1}:");
            for layer in 0..2 {
                let state = graph.state(layer).unwrap_or("?");
                let clips: Vec<String> = graph
                    .clips(layer)
                    .map(|c| format!("{} {:.2}", c.name, c.weight))
                    .collect();
                line += &format!("  {state} [{}]", clips.join(", "));
                if let Some(t) = graph.transition(layer) {
                    line += &format!(" ({} -> {} {:.0} %)", t.from, t.to, 100.0 * t.progress);
                }
            }
            println!("{line}");
        }
    }
    Ok(())
}
