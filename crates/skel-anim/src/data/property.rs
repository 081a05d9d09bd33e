//! Property tracks: animated values that are not a node's transform or morph weights — a
//! material's colour, a texture transform, a node's visibility, a light's intensity — sampled
//! on the clip's timeline beside the joints (glTF `KHR_animation_pointer`).
//!
//! skel-anim knows only their shape: a slot, a kind and a rest value. What a slot means (which
//! material, which field) is the loader's: skel-gltf keeps one typed target per slot.

/// What a property holds, and so how layers combine it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum PropertyKind {
    /// `n` floats (1 to 4): blended as the joints' translations are (weighted average, rest
    /// fill below weight 1, additive layers add `w · (v − reference)`).
    Float(u8),
    /// A boolean (stored as 0 or 1): the heaviest contributing layer's value.
    Bool,
    /// An integer (stored exactly in an `f32` up to 2²⁴): the heaviest contributing layer's
    /// value.
    Int,
}

impl PropertyKind {
    /// Floats the property takes in a sampler and in a [`PropertyPose`](crate::PropertyPose).
    #[must_use]
    pub fn components(self) -> usize {
        match self {
            Self::Float(n) => usize::from(n.clamp(1, 4)),
            Self::Bool | Self::Int => 1,
        }
    }

    /// Whether layers blend it (floats) rather than pick one layer's value (bools and ints).
    #[must_use]
    pub fn blends(self) -> bool {
        matches!(self, Self::Float(_))
    }
}

/// One animated property in a clip: `sampler` (an index into [`Clip::samplers`](crate::Clip))
/// drives slot `slot` of the asset's property table.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct PropertyTrack {
    /// The property's slot: the same slot in every clip of an asset means the same property.
    pub slot: usize,
    /// What it holds.
    pub kind: PropertyKind,
    /// Index into the clip's samplers; its values have [`PropertyKind::components`] floats.
    pub sampler: usize,
    /// The value when no layer animates it (the file's static value), first `components`
    /// floats used.
    pub rest: [f32; 4],
    /// The node the property belongs to (a node's visibility), so layer and group masks
    /// weigh it as they weigh that node; `None` for materials, cameras and lights, which no
    /// mask selects.
    pub node: Option<usize>,
}
