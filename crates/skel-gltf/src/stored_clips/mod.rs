//! Compressed clips in a file: `SKEL_compressed_animation`, skel's own extension. An
//! animation carrying it keeps its channels, samplers and key times, but the outputs of its
//! translation, rotation and scale samplers are accessors without data (zeros, glTF 2.0
//! §3.6.2.3); the animation's `extensions.SKEL_compressed_animation.bufferView` holds the
//! clip's [`StoredKeys`](skel_anim::StoredKeys) instead. Loading decodes them into those
//! samplers and attaches them to the clip, so a rig plays them bit for bit as the compressor
//! measured ([`AnimationData::attach_stored_keys`](skel_anim::AnimationData::attach_stored_keys)).
//!
//! `skel compress --out` writes such files ([`write_compressed_glb`]). The extension is
//! listed in `extensionsRequired`: another loader refuses the file instead of playing zeros.

mod read;
mod write;

pub(crate) use read::attach_stored_clips;
pub use write::{write_compressed_glb, write_compressed_glb_file};

/// The extension's name.
pub const COMPRESSED_ANIMATION: &str = "SKEL_compressed_animation";
