//! `skel pose ASSET --graph FILE.json [--set …] [--travel …] --times t1,t2,… [--json]`: the
//! graph ticked from time 0 in steps of at most 1/`--fps` s (60 by default) (landing exactly on each time, which
//! must not decrease: a graph's state depends on its path), its `--set` and `--travel` applied
//! before the first tick starting at or after their times, and at each time the pose in the
//! shape of `skel pose --json` (world matrices, skin matrices, skinned positions, weights).

use std::sync::Arc;

use skel::anim::{NullSink, Player, Rig};
use skel::gltf::{GltfAsset, SkinnedPose};

use super::pose_report::{PlayedPose, PoseReport, report_with};
use crate::graph_args::{GraphArgs, GraphDriver};

/// A graph's player posed on the CPU, skinning every primitive like the reference poser.
struct GraphPose {
    driver: GraphDriver,
    /// Seconds played so far.
    time: f64,
    skinned: SkinnedPose,
    /// The longest tick between two requested times (1 / `--fps`).
    max_step: f64,
}

impl PlayedPose for GraphPose {
    fn play_to(&mut self, t: f32) -> Result<(), Box<dyn std::error::Error>> {
        let t = f64::from(t);
        if t < self.time {
            return Err(format!(
                "with --graph, --times must not decrease ({t} s after {} s)",
                self.time
            )
            .into());
        }
        loop {
            self.driver.apply_due(self.time)?;
            let remaining = t - self.time;
            let step = remaining.min(self.max_step);
            #[expect(clippy::cast_possible_truncation, reason = "a frame's step in seconds")]
            self.driver.player.tick(step as f32, &mut NullSink);
            if remaining <= self.max_step {
                self.time = t;
                break;
            }
            self.time += step;
        }
        Ok(())
    }

    fn parts(&self) -> (&Player, &SkinnedPose) {
        (self.driver.player.player(), &self.skinned)
    }

    fn parts_mut(&mut self) -> (&mut Player, &mut SkinnedPose) {
        (self.driver.player.player_mut(), &mut self.skinned)
    }
}

/// The report of `graph` played on `asset` up to every time.
///
/// # Errors
/// A bad graph (file, `--set`, `--travel`), decreasing times, what posing finds.
pub fn report(
    asset: &GltfAsset,
    name: &str,
    graph: &GraphArgs,
    times: &[f32],
    motion: &skel::SecondaryMotion,
    fps: f64,
) -> Result<PoseReport, Box<dyn std::error::Error>> {
    let mut data = asset.animation.clone();
    graph.bake_mirrored_clips(&mut data, &asset.morph_names)?;
    let rig = Rig::new(Arc::new(data))?;
    let driver = graph
        .driver(&rig, motion)?
        .ok_or("skel pose --graph needs a graph file")?;
    let mut poser = GraphPose {
        driver,
        time: 0.0,
        skinned: SkinnedPose::new(asset),
        max_step: 1.0 / fps,
    };
    let mut report = report_with(asset, name, times, &mut poser)?;
    report.graph_file = graph.graph.as_ref().map(|p| p.display().to_string());
    if !motion.is_empty() {
        report.springs = Some(super::pose_springs::summary(motion, fps));
    }
    Ok(report)
}
