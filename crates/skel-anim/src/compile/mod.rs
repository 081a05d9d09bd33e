//! Compiling an asset into a [`Rig`](crate::Rig), once: the evaluation plan, the four-node key
//! blocks and the blend maps ([`rig`](crate::rig)), then, when asked, the compressed keys,
//! whose compressor plays every trial through the same per-frame pass as playback. This is the
//! only code above the passes that builds: the passes never call it.

pub(crate) mod bit_rates;
pub(crate) mod choice;
pub(crate) mod clip_reference;
pub(crate) mod compressor;
pub mod shell;
pub(crate) mod stored;
#[cfg(test)]
pub(crate) mod test_chain;
pub(crate) mod tolerances;
pub(crate) mod trials;
pub(crate) mod variable;

use std::sync::Arc;

use crate::rig::blend_map::ChannelMaps;
use crate::rig::blend_tracks::TrackSlots;
use crate::rig::four_node::LayerQuads;
use crate::rig::plan::PosePlan;
use crate::{AnimError, AnimationData, CpuKernels, Rig, RigOptions, TRS_STRIDE};

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
    /// [`Rig::clip_compression`] reports what it did. Clips with
    /// [stored keys](crate::Clip::stored_keys) play those, whatever `options` say (clear them
    /// to compress the decoded keys again).
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
    /// As [`Rig::new`], [`AnimError::BadCompression`] for a shell distance or bound that
    /// is not finite and positive, and [`AnimError::BadStoredKeys`] for stored keys that do
    /// not fit their clip.
    pub fn with_options(
        data: Arc<AnimationData>,
        options: &RigOptions,
    ) -> Result<Arc<Self>, AnimError> {
        let mut plan = PosePlan::with_options(&data, options)?;
        for (ci, clip) in data.clips.iter().enumerate() {
            let (Some(keys), cp) = (&clip.stored_keys, &mut plan.clips[ci]) else {
                continue;
            };
            let lossless = cp.quads.as_ref().ok_or_else(|| AnimError::BadStoredKeys {
                clip: ci,
                reason: "the clip has no four-node layout".into(),
            })?;
            let (packed, report) = stored::load(ci, keys, lossless, &data.nodes)?;
            cp.quads = Some(packed);
            cp.compression = Some(report);
        }
        if let Some(c) = &options.compression {
            compressor::compress_clips(&mut plan, &data, c);
        }
        let plan = Arc::new(plan);
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
}
