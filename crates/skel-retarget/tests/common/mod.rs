//! What the asset tests share: loading a sample model or the built-in character.

#![allow(dead_code, reason = "each test file uses a part")]

use std::path::PathBuf;

use skel_anim::{AnimationData, Handedness};
use skel_gltf::{LoadOptions, load_path};

/// The built-in character (`cargo xtask fixtures`).
pub fn character() -> AnimationData {
    let path = PathBuf::from(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../fixtures/default_character.glb"
    ));
    load(&path)
}

/// `../shared/assets/<rel>` loaded, or `None` after a skip (a failure with
/// `SKEL_REQUIRE_ASSETS=1`).
pub fn asset(test: &str, rel: &str) -> Option<AnimationData> {
    skel_test_support::shared_asset(test, rel).map(|p| load(&p))
}

/// Loads right-handed (glTF's own space, the space of the rule) without decoding images.
pub fn load(path: &std::path::Path) -> AnimationData {
    let opts = LoadOptions {
        handedness: Handedness::RightHanded,
        decode_images: false,
    };
    match load_path(path, &opts) {
        Ok(a) => a.animation,
        Err(e) => panic!("{}: {e}", path.display()),
    }
}

/// RobotExpressive: 14 clips, an IK-style rig.
pub const ROBOT: &str = "RobotExpressive/RobotExpressive.glb";
/// Superhero_Male_FullBody: an Unreal-style rig in T-pose, no clips.
pub const SUPERHERO: &str = "Superhero_Male_FullBody/Superhero_Male_FullBody.gltf";
/// CesiumMan.
pub const CESIUM_MAN: &str = "CesiumMan/CesiumMan.glb";
/// RiggedFigure: CesiumMan's skeleton under other names and rests.
pub const RIGGED_FIGURE: &str = "RiggedFigure/RiggedFigure.glb";
/// Fox: a quadruped.
pub const FOX: &str = "Fox/Fox.glb";
