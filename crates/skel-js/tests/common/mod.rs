//! What the bindings' tests share: skel's own player, the reference every test compares the
//! bindings with.
#![allow(dead_code, reason = "each test binary uses a subset")]

use std::sync::Arc;

use skel_anim::glam::Mat4;
use skel_anim::{Handedness, LayerDesc, Player, RecordingSink, Rig};
use skel_gltf::{GltfAsset, LoadOptions};

/// How the tests load a file for the reference player: right-handed (as the bindings' default),
/// images left undecoded (nothing here reads them).
pub fn options() -> LoadOptions {
    let mut options = LoadOptions::with_handedness(Handedness::RightHanded);
    options.decode_images = false;
    options
}

/// skel's own player of `clip` (looping) over `asset`, and the sink its ticks write.
pub fn reference_player(asset: GltfAsset, clip: usize) -> (Player, RecordingSink) {
    let rig = Rig::new(Arc::new(asset.animation)).unwrap();
    let mut player = Player::new(&rig);
    player.add_layer(LayerDesc::new(clip)).unwrap();
    (player, RecordingSink::default())
}

/// Column-major floats as matrices.
pub fn mats(floats: &[f32]) -> Vec<Mat4> {
    floats.chunks_exact(16).map(Mat4::from_cols_slice).collect()
}
