//! `skel pose ASSET [--clip C | --blend … | --layers FILE] --terrain plane:…|mesh:… --times …`:
//! the pose at each time with the feet and pelvis that the humanoid map finds standing on the
//! ground (`skel::anim` foot placement after the layers and IK, before local → world).
//!
//! `skel pose` answers "what is the pose at t" for each time on its own (times may go in any
//! order), so the placement starts fresh at every time: it snaps to the ground as a character
//! does on its first frame, with no lock or easing carried over from another time. `skel play`
//! and `skel render`, which tick, carry the placement from frame to frame instead.

use std::sync::Arc;

use skel::anim::{NullSink, Player, Rig};
use skel::gltf::{GltfAsset, SkinnedPose};

use super::pose_playback::{Playback, bone_hook, clip_summary};
use super::pose_report::{PlayedPose, PoseReport, report_with};
use crate::render::BoneOverride;

/// A layer player with the humanoid's foot placement, posed at each time on its own.
struct TerrainPose {
    player: Player,
    skinned: SkinnedPose,
}

impl PlayedPose for TerrainPose {
    fn play_to(&mut self, t: f32) -> Result<(), Box<dyn std::error::Error>> {
        for layer in self.player.layers_mut() {
            let end = layer.clock().to();
            // Past the end: the last key, as `CpuPoser` (the pose without --terrain) does.
            layer.clock_mut().seek(t.min(end));
        }
        if let Some(job) = self.player.foot_placement_mut() {
            job.state.reset();
        }
        self.player.evaluate(&mut NullSink);
        Ok(())
    }

    fn parts(&self) -> (&Player, &SkinnedPose) {
        (&self.player, &self.skinned)
    }

    fn parts_mut(&mut self) -> (&mut Player, &mut SkinnedPose) {
        (&mut self.player, &mut self.skinned)
    }
}

/// The report of `playback` on `asset` at every time with the humanoid's feet on the ground
/// of `terrain` (`plane:NX,NY,NZ,D` or `mesh:FILE.glb`), `bones` overriding every pose.
///
/// # Errors
/// A bad `--terrain`, an asset without humanoid legs
/// ([`TerrainError`](crate::terrain::TerrainError)), what the player refuses (a layer or IK
/// job), an unknown bone, what posing finds.
pub fn report(
    asset: &GltfAsset,
    name: &str,
    playback: &Playback<'_>,
    times: &[f32],
    bones: &[BoneOverride],
    terrain: &str,
) -> Result<PoseReport, Box<dyn std::error::Error>> {
    let rig = Rig::new(Arc::new(asset.animation.clone()))?;
    let mut player = Player::new(&rig);
    match (playback.layers, playback.clip) {
        (Some(layers), _) => {
            for desc in layers {
                player.add_layer(desc.clone())?;
            }
        }
        (None, Some(clip)) => {
            player.add_layer(skel::anim::LayerDesc::new(clip))?;
        }
        (None, None) => {}
    }
    player.set_root_motion(playback.root_motion)?;
    for job in playback.ik {
        player.add_ik(*job)?;
    }
    player.set_pose_hook(bone_hook(rig.data(), bones)?);
    player.set_foot_placement(Some(crate::terrain::humanoid_feet_on(&rig, terrain)?));
    let mut poser = TerrainPose {
        player,
        skinned: SkinnedPose::new(asset),
    };
    let mut report = report_with(asset, name, times, &mut poser)?;
    report.clip = clip_summary(asset, playback.clip);
    Ok(report)
}
