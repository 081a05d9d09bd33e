//! `skel view --terrain` without a graph: the feet and pelvis the humanoid map finds stand on
//! the ground while the selected clip plays; and a VRM avatar's spring bones and node
//! constraints, which only a player runs.
//!
//! The viewer's keys keep acting on the clip's animation group (play/pause, speed, next clip);
//! the group only keeps time (it is made invisible, so it poses nothing) and a player of the
//! same clip with foot placement installed follows its clock and poses the character. A
//! group cannot take foot placement itself: it is skel-anim's thin one-layer adapter.

use skel::AssetContainer;
use skel::anim::{LayerDesc, NullSink, Player};

use crate::graph_args::GraphArgs;

/// The player that poses the character with its feet on the ground.
#[derive(Debug)]
pub(super) struct LiveFeet {
    player: Player,
    /// The clip its layer plays (`None`: the rest pose).
    clip: Option<usize>,
    /// `--terrain` as given, for the readout.
    spec: Option<String>,
}

impl LiveFeet {
    /// Foot placement on `args.terrain` when there is no graph (a graph places the feet
    /// itself); `None` otherwise.
    ///
    /// # Errors
    /// A bad `--terrain`, an asset without humanoid legs.
    pub(super) fn new(
        args: &GraphArgs,
        character: &AssetContainer,
    ) -> Result<Option<Self>, String> {
        if args.graph.is_some() || (args.terrain.is_none() && character.secondary.is_empty()) {
            return Ok(None);
        }
        // With the asset's springs and constraints (when the load options kept them).
        let mut player = character.player().map_err(|e| e.to_string())?;
        if let Some(spec) = &args.terrain {
            let job = crate::terrain::humanoid_feet_on(&character.rig, spec)
                .map_err(|e| e.to_string())?;
            player.set_foot_placement(Some(job));
        }
        Ok(Some(Self {
            player,
            clip: None,
            spec: args.terrain.clone(),
        }))
    }

    /// Advances clip `clip`'s group by `dt` seconds (its clock only) and sets the player's
    /// layer to the same clip at the group's clock before that step, so that the facade's
    /// frame ([`skel::Frame::advance`] over [`player_mut`](Self::player_mut)) poses the same
    /// clip at the same time with the feet placed.
    pub(super) fn follow_group(&mut self, dt: f32, clip: usize, character: &mut AssetContainer) {
        if let Some(group) = character.animation_groups.get_mut(clip) {
            if self.clip != Some(clip) {
                self.player.clear_layers();
                // The clip exists: its group does.
                let _ = self.player.add_layer(LayerDesc::new(clip));
                self.clip = Some(clip);
                if let Some(job) = self.player.foot_placement_mut() {
                    job.state.reset();
                }
            }
            group.set_visible(false);
            // The group's clock before its tick: both advance by the same step from it.
            if let Some(layer) = self.player.layers_mut().first_mut() {
                *layer.clock_mut() = *group.clock();
            }
            group.tick(dt * 1000.0, &mut NullSink);
        }
    }

    /// The player that poses the character, for the frame.
    pub(super) fn player_mut(&mut self) -> &mut Player {
        &mut self.player
    }

    /// The readout's words: where the feet stand.
    pub(super) fn summary(&self) -> String {
        let springs = self
            .player
            .springs()
            .map(|s| format!("{} spring joints", s.bones.joint_nodes().count()));
        let feet = self.spec.as_ref().map(|spec| format!("feet on {spec}"));
        [feet, springs]
            .into_iter()
            .flatten()
            .collect::<Vec<_>>()
            .join(", ")
    }
}
