//! `skel pose` on an avatar with spring bones (or node constraints): a spring's pose at `t`
//! depends on the motion before `t`, so the character is played from time 0 at the display
//! rate (`--fps`, frames of 1/FPS s, the last one landing exactly on each requested time), the
//! springs stepping at their own fixed rate on the clips' pose at each step's instant. Any
//! display rate therefore gives the same spring pose at a time that is a whole number of
//! steps (and within a fraction of a degree elsewhere; docs/vrm.md). A time before the one
//! played so far starts the playback again from 0.
//!
//! The clip (or each `--blend` clip) plays once and holds its last key, as the pose without
//! springs does; a `--layers` stack plays as `skel play` plays it.

use std::sync::Arc;

use skel::SecondaryMotion;
use skel::anim::{LayerDesc, LoopMode, NullSink, Player, Rig};
use skel::gltf::{GltfAsset, SkinnedPose};

use super::pose_playback::{Playback, bone_hook, clip_summary};
use super::pose_report::{PlayedPose, PoseReport, SpringSummary, report_with};
use crate::render::BoneOverride;

/// A player with springs, played from 0 through each requested time.
struct SpringPose {
    /// The player as built, to start again from.
    start: Player,
    player: Player,
    /// Frames played so far (the display time is `frame / fps`, or `time` after a partial
    /// frame landing on a requested time).
    frame: u64,
    time: f64,
    fps: f64,
    skinned: SkinnedPose,
}

impl SpringPose {
    /// Plays on from `self.time` to `t`: whole frames on the `k / fps` grid, then the part of
    /// a frame up to `t`.
    fn play_to(&mut self, t: f64) {
        if t < self.time {
            self.player = self.start.clone();
            self.frame = 0;
            self.time = 0.0;
        }
        loop {
            #[expect(clippy::cast_precision_loss, reason = "frame counts far below 2^52")]
            let next = (self.frame + 1) as f64 / self.fps;
            let on_grid = next <= t + 1e-9;
            let end = if on_grid { next } else { t };
            #[expect(clippy::cast_possible_truncation, reason = "a frame's step in seconds")]
            let dt = (end - self.time) as f32;
            if dt > 0.0 {
                self.player.tick(dt, &mut NullSink);
            }
            self.time = end;
            if !on_grid {
                break;
            }
            self.frame += 1;
            if next >= t - 1e-9 {
                break;
            }
        }
    }
}

impl PlayedPose for SpringPose {
    fn play_to(&mut self, t: f32) -> Result<(), Box<dyn std::error::Error>> {
        if t < 0.0 {
            return Err(format!("with springs, --times must be 0 or later (got {t} s)").into());
        }
        self.play_to(f64::from(t));
        if self.time == 0.0 {
            // Nothing played yet: the first pose (springs at rest on it).
            self.player.tick(0.0, &mut NullSink);
        }
        Ok(())
    }

    fn parts(&self) -> (&Player, &SkinnedPose) {
        (&self.player, &self.skinned)
    }

    fn parts_mut(&mut self) -> (&mut Player, &mut SkinnedPose) {
        (&mut self.player, &mut self.skinned)
    }
}

/// What a spring pose plays and how.
#[derive(Debug, Clone, Copy)]
pub struct SpringPlay<'a> {
    /// The asset's springs and constraints.
    pub motion: &'a SecondaryMotion,
    /// The display rate.
    pub fps: f64,
    /// `--terrain`: the humanoid's feet on this ground.
    pub terrain: Option<&'a str>,
    /// Whether the layers came from a `--layers` file (played as they say) rather than
    /// `--clip` / `--blend` (played once, holding the last key).
    pub layers_file: bool,
}

/// The report of `playback` on `asset` played from 0 at `play.fps` with its springs.
///
/// # Errors
/// What the player refuses (a layer, IK job, root motion), an unknown bone, a bad terrain,
/// what posing finds.
pub fn report(
    asset: &GltfAsset,
    name: &str,
    playback: &Playback<'_>,
    times: &[f32],
    bones: &[BoneOverride],
    play: &SpringPlay<'_>,
) -> Result<PoseReport, Box<dyn std::error::Error>> {
    let rig = Rig::new(Arc::new(asset.animation.clone()))?;
    let mut player = Player::new(&rig);
    let once = |desc: &LayerDesc| {
        if play.layers_file {
            desc.clone()
        } else {
            desc.clone().loop_mode(LoopMode::Once)
        }
    };
    match (playback.layers, playback.clip) {
        (Some(layers), _) => {
            for desc in layers {
                player.add_layer(once(desc))?;
            }
        }
        (None, Some(clip)) => {
            player.add_layer(once(&LayerDesc::new(clip)))?;
        }
        (None, None) => {}
    }
    player.set_root_motion(playback.root_motion)?;
    for job in playback.ik {
        player.add_ik(*job)?;
    }
    player.set_pose_hook(bone_hook(rig.data(), bones)?);
    if let Some(terrain) = play.terrain {
        player.set_foot_placement(Some(crate::terrain::humanoid_feet_on(&rig, terrain)?));
    }
    play.motion.attach(&mut player)?;
    let mut poser = SpringPose {
        start: player.clone(),
        player,
        frame: 0,
        time: 0.0,
        fps: play.fps,
        skinned: SkinnedPose::new(asset),
    };
    let mut report = report_with(asset, name, times, &mut poser)?;
    report.clip = clip_summary(asset, playback.clip);
    report.springs = Some(summary(play.motion, play.fps));
    Ok(report)
}

/// The report's line on the springs.
#[must_use]
pub fn summary(motion: &SecondaryMotion, fps: f64) -> SpringSummary {
    SpringSummary {
        joints: motion
            .springs()
            .map(|s| s.joint_nodes().collect())
            .unwrap_or_default(),
        step: motion.springs().map_or(0.0, |s| s.options().step),
        fps,
        constraints: motion.constraints().is_some(),
    }
}
