//! The compiled rig: everything about one asset that playback reads and never changes, built
//! once, explicitly ([`compile`](crate::compile) has the constructors), and shared by every
//! player of that asset behind an [`Arc`].

use std::sync::Arc;

use crate::rig::blend_map::ChannelMaps;
use crate::rig::blend_tracks::TrackSlots;
use crate::rig::four_node::LayerQuads;
use crate::rig::plan::PosePlan;
use crate::{AnimError, AnimationData, ClipCompression};

/// One asset compiled for playback (ozz-animation's runtime skeleton and animations, bevy's
/// animation graph asset): the validated [`AnimationData`], its evaluation plan (node order,
/// tracks, structure-of-arrays key blocks) and the blend maps (which property of which node
/// each channel of each clip drives).
///
/// Build it once per asset with [`Rig::new`] and hand the `Arc` to every
/// [`Player`](crate::Player) (or [`AnimationController`](crate::AnimationController)) of that
/// asset: they share the plan and the key copies and own only their clocks and scratch buffers.
/// Nothing is cached behind the caller's back: two rigs over the same data are two plans.
///
/// ```
/// use std::sync::Arc;
/// use skel_anim::{AnimationData, NodeRest, Player, Rig};
///
/// let data = AnimationData { nodes: vec![NodeRest::new("root", None)], ..Default::default() };
/// let rig = Rig::new(Arc::new(data))?;
/// let a = Player::new(&rig);
/// let b = Player::new(&rig);
/// assert!(Arc::ptr_eq(a.rig(), b.rig()));
/// # Ok::<(), skel_anim::AnimError>(())
/// ```
#[derive(Debug)]
pub struct Rig {
    pub(crate) data: Arc<AnimationData>,
    pub(crate) plan: Arc<PosePlan>,
    pub(crate) maps: ChannelMaps,
    pub(crate) tracks: TrackSlots,
    /// The node of each blend slot of `maps.trs_slots` (what a layer mask is looked up by).
    pub(crate) slot_nodes: Vec<u32>,
    /// The node of each morph slot of `maps.morph_slots`.
    pub(crate) morph_slot_nodes: Vec<u32>,
    /// The nodes four at a time for the layered structure-of-arrays pass (`None`: no clip can
    /// take it, every stack runs property by property).
    pub(crate) layer_quads: Option<LayerQuads>,
}

impl Rig {
    /// The asset's data.
    #[must_use]
    pub fn data(&self) -> &Arc<AnimationData> {
        &self.data
    }

    /// Number of clips.
    #[must_use]
    pub fn clip_count(&self) -> usize {
        self.data.clips.len()
    }

    /// Number of nodes.
    #[must_use]
    pub fn node_count(&self) -> usize {
        self.data.nodes.len()
    }

    /// Index of the clip named `name` (the first, when names repeat).
    #[must_use]
    pub fn clip_index(&self, name: &str) -> Option<usize> {
        self.data.clip_index(name)
    }

    /// Index of the node named `name` (the first, when names repeat).
    #[must_use]
    pub fn node_index(&self, name: &str) -> Option<usize> {
        self.data.nodes.iter().position(|n| n.name == name)
    }

    /// Duration of clip `clip` in seconds, `None` past the end.
    #[must_use]
    pub fn clip_duration(&self, clip: usize) -> Option<f32> {
        self.plan.clips.get(clip).map(|c| c.duration)
    }

    /// Nodes in parents-before-children order.
    #[must_use]
    pub fn topo_order(&self) -> &[usize] {
        &self.plan.topo
    }

    /// Whether layers of clip `clip` are mixed four nodes at a time (the structure-of-arrays
    /// layer pass): true when its translation, rotation and scale tracks are LINEAR or STEP and
    /// share key times within each group of four nodes (exporters write one key-time array per
    /// clip). Other clips, and stacks with a snapshot or root motion, are mixed property by
    /// property, with the same results within f32 rounding and at a higher cost. `false` past
    /// the last clip.
    #[must_use]
    pub fn layers_four_nodes_at_a_time(&self, clip: usize) -> bool {
        self.layer_quads
            .as_ref()
            .is_some_and(|lq| lq.clip_ok.get(clip).copied().unwrap_or(false))
    }

    /// What compression did to clip `clip`: `None` for a rig built without
    /// [`Compression`](crate::Compression), for a clip it does not apply to (see there), and
    /// past the last clip.
    #[must_use]
    pub fn clip_compression(&self, clip: usize) -> Option<&ClipCompression> {
        self.plan.clips.get(clip)?.compression.as_ref()
    }

    pub(crate) fn check_clip(&self, clip: usize) -> Result<(), AnimError> {
        if clip < self.data.clips.len() {
            Ok(())
        } else {
            Err(AnimError::NoSuchClip {
                clip,
                clip_count: self.data.clips.len(),
            })
        }
    }
}
