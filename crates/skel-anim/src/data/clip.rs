//! Animation clips: samplers plus the channels that bind them to node properties.

use crate::{ChannelPath, PropertyTrack, Sampler};

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
    /// Named times in the clip that fire an event each time a playhead passes them (see
    /// [`Player::tick_with_events`](crate::Player::tick_with_events)), in time order.
    pub markers: Vec<Marker>,
    /// Animated properties other than node transforms and morph weights (material factors,
    /// texture transforms, visibility, cameras, lights), sampled with the clip's samplers.
    pub properties: Vec<PropertyTrack>,
    /// The clip's compressed keys as a file stored them (`None`: the samplers' keys are the
    /// clip). Set by [`AnimationData::attach_stored_keys`](crate::AnimationData::attach_stored_keys),
    /// which also writes their decoded keys into the samplers; a [`Rig`](crate::Rig) plays
    /// them instead of the samplers' keys.
    pub stored_keys: Option<crate::StoredKeys>,
}

/// A named time in a clip (a footstep, a sound cue): what animation events fire on. From glTF,
/// an animation's `extras` `{"markers": [{"name": "step_l", "time": 0.25}, …]}`.
#[derive(Debug, Clone, PartialEq)]
pub struct Marker {
    /// The marker's name.
    pub name: String,
    /// Its time in seconds of clip time.
    pub time: f32,
}

impl Clip {
    /// Groups samplers and channels under a name.
    #[must_use]
    pub fn new(name: impl Into<String>, samplers: Vec<Sampler>, channels: Vec<Channel>) -> Self {
        Self {
            name: name.into(),
            samplers,
            channels,
            markers: Vec::new(),
            properties: Vec::new(),
            stored_keys: None,
        }
    }

    /// The clip with `markers` (sorted by time here; markers with a time that is not finite
    /// are dropped, since no playhead can pass them).
    #[must_use]
    pub fn with_markers(mut self, markers: impl IntoIterator<Item = Marker>) -> Self {
        self.markers = markers.into_iter().filter(|m| m.time.is_finite()).collect();
        self.markers.sort_by(|a, b| a.time.total_cmp(&b.time));
        self
    }

    /// The clip with `properties` (their samplers must be in [`Clip::samplers`]).
    #[must_use]
    pub fn with_properties(mut self, properties: impl IntoIterator<Item = PropertyTrack>) -> Self {
        self.properties = properties.into_iter().collect();
        self
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
