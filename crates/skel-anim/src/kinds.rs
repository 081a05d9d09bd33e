//! The small vocabulary types of clips and samplers (what a channel animates, how a sampler
//! interpolates), at the bottom of the crate so that errors can name them without depending on
//! the modules that use them.

/// How a sampler interpolates between keys (glTF `animation.sampler.interpolation`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub enum Interpolation {
    /// Hold the value of the previous key.
    Step,
    /// Linear interpolation; rotations use spherical linear interpolation.
    #[default]
    Linear,
    /// Cubic Hermite spline; each key stores in-tangent, value, out-tangent.
    CubicSpline,
}

impl Interpolation {
    /// Output elements stored per key: 3 for [`Interpolation::CubicSpline`], 1 otherwise.
    #[must_use]
    pub const fn outputs_per_key(self) -> usize {
        match self {
            Self::CubicSpline => 3,
            Self::Step | Self::Linear => 1,
        }
    }
}

/// Which property of a node a channel animates (glTF `animation.channel.target.path`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum ChannelPath {
    /// Local translation, 3 floats.
    Translation,
    /// Local rotation quaternion `[x, y, z, w]`, 4 floats.
    Rotation,
    /// Local scale, 3 floats.
    Scale,
    /// Morph target weights of the node's mesh, one float per target.
    Weights,
}

impl ChannelPath {
    /// Floats per key this path needs (`None` for weights: the target count decides).
    #[must_use]
    pub const fn components(self) -> Option<usize> {
        match self {
            Self::Translation | Self::Scale => Some(3),
            Self::Rotation => Some(4),
            Self::Weights => None,
        }
    }
}
