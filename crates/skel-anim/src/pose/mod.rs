//! Per frame, one pose of one character over a compiled rig: sampling into the TRS record,
//! local → world through the hierarchy, skinning matrices, and where they go (the sink) and
//! who may change them on the way (the hook). The player above decides what is posed.

#[cfg(target_arch = "x86_64")]
pub(crate) mod avx2;
pub(crate) mod bones;
pub(crate) mod four_node;
pub(crate) mod hook;
pub(crate) mod pipeline;
pub(crate) mod single_clip;
pub(crate) mod sink;
pub(crate) mod skinning;
pub(crate) mod steps;
pub(crate) mod tracks;
