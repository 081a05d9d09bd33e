//! VRM fixtures edited for the tests (a clip added) and written where bevy's
//! glTF loader reads them.

use std::sync::atomic::{AtomicUsize, Ordering};

use bevy::prelude::*;
use serde_json::json;
use skel_test_support::glb::Glb;

/// `fixtures/vrm/<name>` with a one-second looping clip "Nod" that turns the head (node
/// `head`) left and right and nods it: the hair follows the head, so the springs move.
pub fn vrm_with_nod(name: &str) -> Vec<u8> {
    let bytes = std::fs::read(super::fixture("vrm").join(name)).unwrap();
    let mut glb = Glb::parse(&bytes);
    let head = glb.node("head");
    let times = [0.0, 0.25, 0.5, 0.75, 1.0];
    let turns = [(0.0, 0.0), (0.7, 0.3), (0.0, -0.2), (-0.7, 0.3), (0.0, 0.0)];
    let rotations: Vec<f32> = turns
        .iter()
        .flat_map(|&(yaw, pitch)| {
            let q = Quat::from_rotation_y(yaw) * Quat::from_rotation_x(pitch);
            q.to_array()
        })
        .collect();
    let input = glb.push_accessor(&times, "SCALAR");
    let output = glb.push_accessor(&rotations, "VEC4");
    glb.json["animations"] = json!([{
        "name": "Nod",
        "samplers": [{ "input": input, "output": output, "interpolation": "LINEAR" }],
        "channels": [{ "sampler": 0, "target": { "node": head, "path": "rotation" } }],
    }]);
    glb.to_bytes()
}

/// The avatar's bytes written as a `.glb` (bevy's glTF loader knows no `.vrm`) in a fresh
/// folder, and an app over that folder.
pub fn app_with(bytes: &[u8], name: &str) -> (App, super::TempDir) {
    // Tests run in parallel: a folder per app.
    static APPS: AtomicUsize = AtomicUsize::new(0);
    let dir = super::TempDir::new(&format!("{name}-{}", APPS.fetch_add(1, Ordering::Relaxed)));
    std::fs::write(dir.0.join("avatar.glb"), bytes).unwrap();
    (super::app(&dir.0), dir)
}
