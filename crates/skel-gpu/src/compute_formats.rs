//! The compact input formats of compute skinning: how joints and weights are stored, and the
//! WGSL that unpacks them.

/// How joint indices are stored in the compute input buffers, 4 per vertex per set.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub enum JointFormat {
    /// 4 × `u8` (glTF `UNSIGNED_BYTE`, the `Uint8x4` layout): 4 bytes per vertex.
    U8,
    /// 4 × `u16` (glTF `UNSIGNED_SHORT`, the `Uint16x4` layout): 8 bytes per vertex.
    U16,
    /// 4 × `u32`, what [`SkeletonGpu`](crate::SkeletonGpu)'s joints buffers hold: 16 bytes per vertex.
    #[default]
    U32,
}

impl JointFormat {
    /// Bytes per vertex per set.
    #[must_use]
    pub fn bytes_per_vertex(self) -> u64 {
        match self {
            Self::U8 => 4,
            Self::U16 => 8,
            Self::U32 => 16,
        }
    }

    pub(crate) fn wgsl_element(self) -> &'static str {
        match self {
            Self::U8 => "u32",
            Self::U16 => "vec2<u32>",
            Self::U32 => "vec4<u32>",
        }
    }

    pub(crate) fn wgsl_unpack(self, name: &str) -> String {
        match self {
            Self::U8 => format!(
                "let p = {name}[v];\n    return vec4<u32>(p & 0xffu, (p >> 8u) & 0xffu, (p >> 16u) & 0xffu, p >> 24u);"
            ),
            Self::U16 => format!(
                "let p = {name}[v];\n    return vec4<u32>(p.x & 0xffffu, p.x >> 16u, p.y & 0xffffu, p.y >> 16u);"
            ),
            Self::U32 => format!("return {name}[v];"),
        }
    }
}

/// How weights are stored in the compute input buffers, 4 per vertex per set.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub enum WeightFormat {
    /// 4 × normalized `u8` (`Unorm8x4`): 4 bytes per vertex.
    Unorm8,
    /// 4 × normalized `u16` (`Unorm16x4`): 8 bytes per vertex.
    Unorm16,
    /// 4 × `f32`, what [`SkeletonGpu`](crate::SkeletonGpu)'s weights buffers hold: 16 bytes per vertex.
    #[default]
    F32,
}

impl WeightFormat {
    /// Bytes per vertex per set.
    #[must_use]
    pub fn bytes_per_vertex(self) -> u64 {
        match self {
            Self::Unorm8 => 4,
            Self::Unorm16 => 8,
            Self::F32 => 16,
        }
    }

    pub(crate) fn wgsl_element(self) -> &'static str {
        match self {
            Self::Unorm8 => "u32",
            Self::Unorm16 => "vec2<u32>",
            Self::F32 => "vec4<f32>",
        }
    }

    pub(crate) fn wgsl_unpack(self, name: &str) -> String {
        match self {
            Self::Unorm8 => format!("return unpack4x8unorm({name}[v]);"),
            Self::Unorm16 => format!(
                "let p = {name}[v];\n    return vec4<f32>(unpack2x16unorm(p.x), unpack2x16unorm(p.y));"
            ),
            Self::F32 => format!("return {name}[v];"),
        }
    }
}
