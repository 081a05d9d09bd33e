//! Animation clips: samplers plus the channels that bind them to node properties.

use crate::{ChannelPath, Sampler};

/// One animated property: `sampler` (an index into the clip's samplers) drives `path` of
/// `node`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Channel {
    /// Index into [`Clip::samplers`].
    pub sampler: usize,
    /// The node animated (index into [`AnimationData::nodes`](crate::AnimationData::nodes)).
    pub node: usize,
    /// The property animated.
    pub path: ChannelPath,
}

/// A named animation (glTF `animation`): samplers and channels. Its duration is the latest
/// key time of any sampler, as in glTF viewers; tracks that end earlier hold their last value.
#[derive(Debug, Clone, PartialEq)]
pub struct Clip {
    /// The clip's name (may be empty).
    pub name: String,
    /// Keyframe samplers.
    pub samplers: Vec<Sampler>,
    /// Channels binding samplers to nodes.
    pub channels: Vec<Channel>,
}

impl Clip {
    /// Groups samplers and channels under a name.
    #[must_use]
    pub fn new(name: impl Into<String>, samplers: Vec<Sampler>, channels: Vec<Channel>) -> Self {
        Self {
            name: name.into(),
            samplers,
            channels,
        }
    }

    /// The last key time over all samplers (0 for a clip without samplers).
    #[must_use]
    pub fn duration(&self) -> f32 {
        self.samplers
            .iter()
            .map(Sampler::end_time)
            .fold(0.0, f32::max)
    }
}
