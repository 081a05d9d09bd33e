//! The compiled rig: the [`Rig`](crate::Rig) and everything it holds that playback reads and
//! never changes (the evaluation plan, the hierarchy's layout, the four-node key blocks, the
//! blend maps, the CPU kernels chosen), each with its construction from the asset's data.
//! What needs the per-frame passes to build (compressing clips, which measures its error by
//! playing them) is [`compile`](crate::compile), above the passes; the passes read this.

pub(crate) mod asset;
pub(crate) mod blend_map;
pub(crate) mod blend_tracks;
pub(crate) mod clip_plan;
pub(crate) mod four_node;
pub(crate) mod kernels;
pub(crate) mod layout;
pub(crate) mod options;
pub(crate) mod plan;
pub(crate) mod timelines;
