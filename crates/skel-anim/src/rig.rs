//! The compiled rig: everything about one asset that playback reads and never changes, built
//! once, explicitly, and shared by every player of that asset behind an [`Arc`].

use std::sync::Arc;

use crate::blend_map::ChannelMaps;
use crate::blend_tracks::TrackSlots;
use crate::plan::PosePlan;
use crate::quad_plan::LayerQuads;
use crate::{AnimError, AnimationData, ClipCompression, CpuKernels, RigOptions, TRS_STRIDE};

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
    data: Arc<AnimationData>,
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
    /// Validates `data` and compiles it.
    ///
    /// # Errors
    /// What [`AnimationData::validate`] finds, and [`AnimError::LengthMismatch`] for an asset
    /// with more than 4 294 967 294 nodes, samplers or keys in one sampler.
    pub fn new(data: Arc<AnimationData>) -> Result<Arc<Self>, AnimError> {
        Self::with_kernels(data, CpuKernels::Detect)
    }

    /// [`Rig::new`] with the CPU kernels `kernels` asks for: [`CpuKernels::Baseline`] keeps the
    /// code as compiled on any CPU (to compare against, or to measure what the wide kernels
    /// gain); [`Rig::new`] detects the widest.
    ///
    /// ```
    /// use std::sync::Arc;
    /// use skel_anim::{AnimationData, CpuKernels, NodeRest, Rig};
    ///
    /// let data = Arc::new(AnimationData { nodes: vec![NodeRest::new("root", None)], ..Default::default() });
    /// let rig = Rig::with_kernels(data, CpuKernels::Baseline)?;
    /// assert_eq!(rig.node_count(), 1);
    /// # Ok::<(), skel_anim::AnimError>(())
    /// ```
    ///
    /// # Errors
    /// As [`Rig::new`].
    pub fn with_kernels(
        data: Arc<AnimationData>,
        kernels: CpuKernels,
    ) -> Result<Arc<Self>, AnimError> {
        Self::with_options(
            data,
            &RigOptions {
                kernels,
                compression: None,
            },
        )
    }

    /// [`Rig::new`] with the kernels and the compression `options` ask for: lossy compressed
    /// clips within an error bound are opt in ([`Compression`](crate::Compression));
    /// [`Rig::clip_compression`] reports what it did.
    ///
    /// ```
    /// use std::sync::Arc;
    /// use skel_anim::{AnimationData, Compression, NodeRest, Rig, RigOptions};
    ///
    /// let data = Arc::new(AnimationData { nodes: vec![NodeRest::new("root", None)], ..Default::default() });
    /// let bad = Compression { bound: -1.0, ..Compression::default() };
    /// let options = RigOptions { compression: Some(bad), ..RigOptions::default() };
    /// assert!(Rig::with_options(data, &options).is_err());
    /// ```
    ///
    /// # Errors
    /// As [`Rig::new`], and [`AnimError::BadCompression`] for a shell distance or bound that
    /// is not finite and positive.
    pub fn with_options(
        data: Arc<AnimationData>,
        options: &RigOptions,
    ) -> Result<Arc<Self>, AnimError> {
        let plan = Arc::new(PosePlan::with_options(&data, options)?);
        let maps = ChannelMaps::new(&data);
        let tracks = TrackSlots::new(&data, &plan, &maps);
        #[expect(
            clippy::cast_possible_truncation,
            reason = "node indices fit u32: the plan checked the node count"
        )]
        let slot_nodes = maps
            .trs_slots
            .iter()
            .map(|s| (s.at / TRS_STRIDE) as u32)
            .collect();
        #[expect(
            clippy::cast_possible_truncation,
            reason = "node indices fit u32: the plan checked the node count"
        )]
        let morph_slot_nodes = maps
            .morph_slots
            .iter()
            .map(|s| data.morph_bindings[s.binding].node as u32)
            .collect();
        let quad_plans: Vec<_> = plan.clips.iter().map(|c| c.quads.as_ref()).collect();
        let cubic_free: Vec<bool> = tracks.clips.iter().map(|c| c.generic.is_empty()).collect();
        let layer_quads = LayerQuads::new(&plan.steps, &data.nodes, &quad_plans, &cubic_free);
        Ok(Arc::new(Self {
            data,
            plan,
            maps,
            tracks,
            slot_nodes,
            morph_slot_nodes,
            layer_quads,
        }))
    }

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
