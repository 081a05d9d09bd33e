//! WGSL skinning fragments (the seed's `ShaderFragment`): source text a user's vertex or compute
//! shader includes, in one variant per influence count and morph on/off, with the bind group
//! and vertex locations the user chooses.

use crate::{
    JOINTS_VERTEX_FORMAT, MAX_MORPH_TARGETS, MorphDeltaStorage, SkeletonGpu, WEIGHTS_VERTEX_FORMAT,
};

mod bindings;
pub mod sources;
#[cfg(test)]
mod webgl_tests;

pub use bindings::bone_texture_layout_entry;

/// How many joint influences each vertex has.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub enum Influences {
    /// No skin (a mesh with morph targets only).
    None,
    /// `JOINTS_0`/`WEIGHTS_0`.
    #[default]
    Four,
    /// `JOINTS_0`/`WEIGHTS_0` and `JOINTS_1`/`WEIGHTS_1`.
    Eight,
    /// `JOINTS_0..3`/`WEIGHTS_0..3`. In the vertex-shader fragment sets 0 and 1 are vertex
    /// attributes and sets 2 and 3 storage buffers read at the vertex index.
    Sixteen,
}

impl Influences {
    /// 0, 4, 8 or 16.
    #[must_use]
    pub fn count(self) -> u32 {
        match self {
            Self::None => 0,
            Self::Four => 4,
            Self::Eight => 8,
            Self::Sixteen => 16,
        }
    }

    /// The variant that reads `per_vertex` influences: `None` for 0, then the smallest of
    /// 4, 8, 16 that holds them (more than 16 gives `Sixteen`; the loader reduces those).
    #[must_use]
    pub fn for_count(per_vertex: u32) -> Self {
        match per_vertex {
            0 => Self::None,
            1..=4 => Self::Four,
            5..=8 => Self::Eight,
            _ => Self::Sixteen,
        }
    }

    /// Joint/weight sets: 0, 1, 2 or 4.
    #[must_use]
    pub fn sets(self) -> u32 {
        self.count() / 4
    }
}

/// Which shader variant: influences per vertex, and whether morph targets are applied.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub struct SkinningVariant {
    /// Influences per vertex.
    pub influences: Influences,
    /// Whether morph targets are applied (before skinning).
    pub morph: bool,
}

impl SkinningVariant {
    /// Every variant there is: 0, 4, 8, 16 influences × morph off/on.
    #[must_use]
    pub fn all() -> [Self; 8] {
        let v = |influences, morph| Self { influences, morph };
        [
            v(Influences::None, false),
            v(Influences::None, true),
            v(Influences::Four, false),
            v(Influences::Four, true),
            v(Influences::Eight, false),
            v(Influences::Eight, true),
            v(Influences::Sixteen, false),
            v(Influences::Sixteen, true),
        ]
    }
}

/// Where the fragment's resources go in the user's pipeline.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct FragmentBindings {
    /// The bind group index of every fragment resource.
    pub group: u32,
    /// The first binding; resources take consecutive bindings from here: bone texture (when
    /// skinned), morph uniform, morph deltas (when morphed), then joints2, weights2, joints3,
    /// weights3 storage buffers (16 influences, vertex-shader fragment).
    pub first_binding: u32,
    /// The first vertex location of `SkelInfluences`: joints0, weights0, joints1, weights1 take
    /// consecutive locations from here.
    pub first_location: u32,
}

impl Default for FragmentBindings {
    /// Group 1, binding 0, locations from 4 (leaving 0..4 for position, normal, uv, tangent).
    fn default() -> Self {
        Self {
            group: 1,
            first_binding: 0,
            first_location: 4,
        }
    }
}

/// A skinning fragment: WGSL to put before a user's shader, plus the layout helpers that match
/// it.
///
/// The source defines (everything prefixed `skel_`):
/// - `struct SkelVertex { position: vec3<f32>, normal: vec3<f32> }`;
/// - `fn skel_bone_matrix(bone: u32) -> mat4x4<f32>` (skinned variants), reading the bone
///   texture with `textureLoad` (row-aware, see [`BoneTextureLayout`](crate::BoneTextureLayout));
/// - `fn skel_skin_matrix(joints, weights) -> mat4x4<f32>` (4),
///   `(joints0, weights0, joints1, weights1)` (8) or
///   `(vertex_index, joints0, weights0, joints1, weights1)` (16: sets 2 and 3 are read from
///   storage buffers at `vertex_index`): `Σ w_k · bone[j_k]`;
/// - `fn skel_morph(vertex_index, position, normal) -> SkelVertex` (the identity without morph);
/// - `fn skel_skin(vertex_index, position, normal, joints, weights[, joints1, weights1]) ->
///   SkelVertex`: morph, then skin position and normal (renormalised; 16 influences take the
///   8-influence parameters and read the rest at `vertex_index`);
/// - `struct SkelInfluences` with `@location` members (skinned variants) and
///   `fn skel_skin_vertex(vertex_index, position, normal[, influences: SkelInfluences])`.
///
/// To write one vertex shader for every variant, use [`compose`](Self::compose) with the
/// placeholders `{{SKEL_INFLUENCES_PARAM}}` (an entry-point parameter, with its leading comma)
/// and `{{SKEL_INFLUENCES_ARG}}` (the argument to pass on):
///
/// ```
/// use skel_gpu::{FragmentBindings, Influences, ShaderFragment, SkinningVariant};
///
/// let variant = SkinningVariant { influences: Influences::Eight, morph: true };
/// let fragment = ShaderFragment::new(variant, FragmentBindings::default());
/// let wgsl = fragment.compose(r#"
/// @vertex
/// fn vs(@builtin(vertex_index) vi: u32, @location(0) p: vec3<f32>, @location(1) n: vec3<f32>
///       {{SKEL_INFLUENCES_PARAM}}) -> @builtin(position) vec4<f32> {
///     let v = skel_skin_vertex(vi, p, n {{SKEL_INFLUENCES_ARG}});
///     return vec4<f32>(v.position, 1.0);
/// }"#);
/// assert!(wgsl.contains("fn skel_skin_vertex") && wgsl.contains("influences: SkelInfluences"));
/// ```
#[derive(Debug, Clone)]
pub struct ShaderFragment {
    variant: SkinningVariant,
    bindings: FragmentBindings,
    /// Where the morph variant reads deltas (always `Buffer` without morph).
    morph_deltas: MorphDeltaStorage,
    /// Whether sets 2 and 3 (16 influences) are the fragment's storage buffers; compute
    /// skinning reads every set from its own group-0 buffers instead.
    storage_sets: bool,
    source: String,
    attributes: [wgpu::VertexAttribute; 4],
}

/// Replaces every `{{NAME}}` of `pairs` in `template`.
pub(crate) fn fill(template: &str, pairs: &[(&str, String)]) -> String {
    let mut out = template.to_owned();
    for (name, value) in pairs {
        out = out.replace(&format!("{{{{{name}}}}}"), value);
    }
    out
}

impl ShaderFragment {
    /// Generates the WGSL of `variant` with resources at `bindings`; a morph variant reads the
    /// deltas from a storage buffer ([`MorphDeltaStorage::Buffer`]).
    #[must_use]
    pub fn new(variant: SkinningVariant, bindings: FragmentBindings) -> Self {
        Self::generate(variant, bindings, true, MorphDeltaStorage::Buffer)
    }

    /// [`new`](Self::new), with a morph variant reading the deltas from `morph_deltas`: pass
    /// the [`MorphGpu::delta_storage`](crate::MorphGpu::delta_storage) of the morph targets it
    /// will bind. With [`MorphDeltaStorage::Texture`] the morph variants bind no storage buffer,
    /// so up to 8 influences and morph targets draw on WebGL2. Without morph the choice makes no
    /// difference.
    ///
    /// ```
    /// use skel_gpu::{
    ///     FragmentBindings, Influences, MorphDeltaStorage, ShaderFragment, SkinningVariant,
    /// };
    ///
    /// let variant = SkinningVariant { influences: Influences::Four, morph: true };
    /// let bindings = FragmentBindings::default();
    /// let fragment =
    ///     ShaderFragment::with_morph_deltas(variant, bindings, MorphDeltaStorage::Texture);
    /// assert_eq!(fragment.storage_buffer_count(), 0);
    /// assert!(fragment.source().contains("texture_2d<f32>"));
    /// ```
    #[must_use]
    pub fn with_morph_deltas(
        variant: SkinningVariant,
        bindings: FragmentBindings,
        morph_deltas: MorphDeltaStorage,
    ) -> Self {
        Self::generate(variant, bindings, true, morph_deltas)
    }

    /// `texture_fetch: false` leaves `skel_fetch_bone` to the including shader (compute
    /// skinning's workgroup cache).
    pub(crate) fn generate(
        variant: SkinningVariant,
        bindings: FragmentBindings,
        texture_fetch: bool,
        morph_deltas: MorphDeltaStorage,
    ) -> Self {
        let morph_deltas = if variant.morph {
            morph_deltas
        } else {
            MorphDeltaStorage::Buffer
        };
        let fragment = Self {
            variant,
            bindings,
            morph_deltas,
            storage_sets: texture_fetch && variant.influences == Influences::Sixteen,
            source: String::new(),
            attributes: std::array::from_fn(|i| wgpu::VertexAttribute {
                format: if i % 2 == 0 {
                    JOINTS_VERTEX_FORMAT
                } else {
                    WEIGHTS_VERTEX_FORMAT
                },
                offset: 0,
                shader_location: bindings.first_location + i as u32,
            }),
        };
        let mut pieces = vec![sources::COMMON];
        if variant.influences != Influences::None {
            pieces.push(sources::BONES);
            if texture_fetch {
                pieces.push(sources::BONE_FETCH_TEXTURE);
            }
        }
        pieces.push(match (variant.morph, morph_deltas) {
            (false, _) => sources::MORPH_NONE,
            (true, MorphDeltaStorage::Buffer) => sources::MORPH,
            (true, MorphDeltaStorage::Texture) => sources::MORPH_TEXTURE,
        });
        pieces.push(match variant.influences {
            Influences::None => sources::SKIN0,
            Influences::Four => sources::SKIN4,
            // Compute skinning calls none of skel_skin's functions: the 8-influence piece
            // gives it the helpers without the storage bindings of sets 2 and 3.
            Influences::Sixteen if fragment.storage_sets => sources::SKIN16,
            Influences::Eight | Influences::Sixteen => sources::SKIN8,
        });
        let storage = |k: u32| {
            fragment
                .influence_storage_binding()
                .map_or(0, |b| b + k)
                .to_string()
        };
        let loc = |i: u32| (bindings.first_location + i).to_string();
        let pairs = [
            ("GROUP", bindings.group.to_string()),
            (
                "BONE_BINDING",
                fragment.bone_texture_binding().unwrap_or(0).to_string(),
            ),
            (
                "MORPH_PARAMS_BINDING",
                fragment.morph_params_binding().unwrap_or(0).to_string(),
            ),
            (
                "MORPH_DELTAS_BINDING",
                fragment.morph_deltas_binding().unwrap_or(0).to_string(),
            ),
            ("MORPH_WEIGHT_VEC4S", (MAX_MORPH_TARGETS / 4).to_string()),
            ("JOINTS0_LOCATION", loc(0)),
            ("WEIGHTS0_LOCATION", loc(1)),
            ("JOINTS1_LOCATION", loc(2)),
            ("WEIGHTS1_LOCATION", loc(3)),
            ("JOINTS2_BINDING", storage(0)),
            ("WEIGHTS2_BINDING", storage(1)),
            ("JOINTS3_BINDING", storage(2)),
            ("WEIGHTS3_BINDING", storage(3)),
        ];
        let source = fill(&pieces.join("\n"), &pairs);
        Self { source, ..fragment }
    }

    /// The variant that fits `skeleton` (4, 8 or 16 influences), with or without morph targets.
    #[must_use]
    pub fn for_skeleton(skeleton: &SkeletonGpu, morph: bool, bindings: FragmentBindings) -> Self {
        let influences = Influences::for_count(skeleton.influences_per_vertex());
        Self::new(SkinningVariant { influences, morph }, bindings)
    }

    /// The variant.
    #[must_use]
    pub fn variant(&self) -> SkinningVariant {
        self.variant
    }

    /// The bindings.
    #[must_use]
    pub fn bindings(&self) -> FragmentBindings {
        self.bindings
    }

    /// Where a morph variant reads the deltas ([`MorphDeltaStorage::Buffer`] without morph).
    #[must_use]
    pub fn morph_deltas(&self) -> MorphDeltaStorage {
        self.morph_deltas
    }

    /// The WGSL source (bindings, structs and functions; no entry point).
    #[must_use]
    pub fn source(&self) -> &str {
        &self.source
    }

    /// The fragment followed by `user_wgsl`, with `{{SKEL_INFLUENCES_PARAM}}` replaced by
    /// `, skel_influences: SkelInfluences` and `{{SKEL_INFLUENCES_ARG}}` by `, skel_influences`
    /// in skinned variants (by nothing in the morph-only variant).
    #[must_use]
    pub fn compose(&self, user_wgsl: &str) -> String {
        let skinned = self.variant.influences != Influences::None;
        let pick = |s: &str| if skinned { s.to_owned() } else { String::new() };
        let user = fill(
            user_wgsl,
            &[
                (
                    "SKEL_INFLUENCES_PARAM",
                    pick(", skel_influences: SkelInfluences"),
                ),
                ("SKEL_INFLUENCES_ARG", pick(", skel_influences")),
            ],
        );
        format!("{}\n{user}", self.source)
    }

    /// The bone texture's binding (skinned variants).
    #[must_use]
    pub fn bone_texture_binding(&self) -> Option<u32> {
        (self.variant.influences != Influences::None).then_some(self.bindings.first_binding)
    }

    /// The morph uniform's binding (morph variants).
    #[must_use]
    pub fn morph_params_binding(&self) -> Option<u32> {
        let first =
            self.bindings.first_binding + u32::from(self.variant.influences != Influences::None);
        self.variant.morph.then_some(first)
    }

    /// The morph deltas' binding (morph variants): a storage buffer or a texture, as
    /// [`morph_deltas`](Self::morph_deltas) says.
    #[must_use]
    pub fn morph_deltas_binding(&self) -> Option<u32> {
        self.morph_params_binding().map(|b| b + 1)
    }

    /// The first of the four storage bindings of sets 2 and 3 (joints2, weights2, joints3,
    /// weights3), in the 16-influence vertex-shader fragment.
    #[must_use]
    pub fn influence_storage_binding(&self) -> Option<u32> {
        let after = self
            .morph_deltas_binding()
            .or(self.bone_texture_binding())
            .unwrap_or(self.bindings.first_binding);
        self.storage_sets.then_some(after + 1)
    }

    /// Storage buffers the fragment binds in the stages that use it (1 with morph targets whose
    /// deltas are in a buffer, 4 more for 16 influences in the vertex-shader fragment).
    #[must_use]
    pub fn storage_buffer_count(&self) -> u32 {
        let morph_buffer = self.variant.morph && self.morph_deltas == MorphDeltaStorage::Buffer;
        u32::from(morph_buffer) + 4 * u32::from(self.storage_sets)
    }
}
