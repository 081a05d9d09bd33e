//! The part of a material a skinning demo draws: base colour factor and texture (with its
//! `KHR_texture_transform`), emission, alpha mode, double-sidedness; and the decoded
//! base-colour images' types (decoding: `image.rs`).

use gltf::json::material::AlphaMode as JsonAlphaMode;

use crate::accessor::valid;
use crate::texture_transform::read_texture_transform;
use crate::{GltfDocument, GltfError, TextureTransform};

/// How a material's alpha is used (glTF `material.alphaMode`).
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub enum AlphaMode {
    /// Alpha ignored.
    #[default]
    Opaque,
    /// Alpha below the cutoff is discarded.
    Mask {
        /// `alphaCutoff` (0.5 by default).
        cutoff: f32,
    },
    /// Alpha blended.
    Blend,
}

/// A texture reference: which glTF texture and image, which UV set samples it, and how those
/// UVs are transformed first.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct TextureRef {
    /// The glTF texture index.
    pub texture: usize,
    /// The image it shows (index into [`GltfAsset::images`](crate::GltfAsset::images)).
    pub image: usize,
    /// `TEXCOORD_n` set the reference names (see [`uv_set`](Self::uv_set)).
    pub tex_coord: u32,
    /// Its `KHR_texture_transform` (the identity without one).
    pub transform: TextureTransform,
}

impl TextureRef {
    /// The `TEXCOORD_n` set it is sampled with: the transform's `texCoord` when it has one
    /// (the extension overrides the reference's), else the reference's own.
    #[must_use]
    pub fn uv_set(&self) -> u32 {
        self.transform.tex_coord.unwrap_or(self.tex_coord)
    }
}

/// What the renderer needs of a primitive's material (the glTF default material when the
/// primitive has none: white, opaque, single-sided).
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub struct MaterialInfo {
    /// The glTF material index, `None` for the default material.
    pub index: Option<usize>,
    /// `pbrMetallicRoughness.baseColorFactor`, linear RGBA.
    pub base_color_factor: [f32; 4],
    /// `pbrMetallicRoughness.baseColorTexture`.
    pub base_color_texture: Option<TextureRef>,
    /// `emissiveFactor`, linear RGB.
    pub emissive_factor: [f32; 3],
    /// `KHR_materials_emissive_strength.emissiveStrength` (1 without the extension).
    pub emissive_strength: f32,
    /// Whether the material has an `emissiveTexture` (its emission is then the factor times a
    /// texture).
    pub has_emissive_texture: bool,
    /// `alphaMode` with its cutoff.
    pub alpha_mode: AlphaMode,
    /// `doubleSided`.
    pub double_sided: bool,
}

impl Default for MaterialInfo {
    fn default() -> Self {
        Self {
            index: None,
            base_color_factor: [1.0; 4],
            base_color_texture: None,
            emissive_factor: [0.0; 3],
            emissive_strength: 1.0,
            has_emissive_texture: false,
            alpha_mode: AlphaMode::Opaque,
            double_sided: false,
        }
    }
}

/// An image decoded to 8-bit RGBA (sRGB-encoded, as stored in the file).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DecodedImage {
    /// Width in pixels.
    pub width: u32,
    /// Height in pixels.
    pub height: u32,
    /// `width × height × 4` bytes, rows top to bottom.
    pub rgba8: Vec<u8>,
}

/// The state of one glTF image after loading. Images are optional decoration: one that cannot
/// be read (sample models often ship without their large textures) is reported here, and the
/// asset still loads.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum ImageSlot {
    /// Not decoded: not used as a base colour texture, or decoding was turned off in
    /// [`LoadOptions`](crate::LoadOptions).
    NotLoaded,
    /// Decoded to RGBA8.
    Decoded(DecodedImage),
    /// Could not be read or decoded; draw the base colour factor alone.
    Failed {
        /// Why, naming the file or the decoder's message.
        reason: String,
    },
}

pub(crate) fn read_material(
    doc: &GltfDocument,
    index: Option<usize>,
    used_by: &str,
) -> Result<MaterialInfo, GltfError> {
    let Some(index) = index else {
        return Ok(MaterialInfo::default());
    };
    let json = &doc.root;
    let m = json
        .materials
        .get(index)
        .ok_or_else(|| GltfError::BadReference {
            used_by: used_by.to_owned(),
            kind: "material",
            index,
            count: json.materials.len(),
        })?;
    let pbr = &m.pbr_metallic_roughness;
    let base_color_texture = match &pbr.base_color_texture {
        None => None,
        Some(info) => {
            let texture = info.index.value();
            let t = json
                .textures
                .get(texture)
                .ok_or_else(|| GltfError::BadReference {
                    used_by: format!("materials[{index}].pbrMetallicRoughness.baseColorTexture"),
                    kind: "texture",
                    index: texture,
                    count: json.textures.len(),
                })?;
            let image = t.source.value();
            let has_source = doc
                .raw
                .pointer(&format!("/textures/{texture}/source"))
                .is_some();
            // Without a `source`, the texture has only an image skel cannot decode (KTX2
            // without a fallback, reported in the warnings): the base colour factor is drawn
            // alone.
            if has_source && image >= json.images.len() {
                return Err(GltfError::BadReference {
                    used_by: format!("textures[{texture}].source"),
                    kind: "image",
                    index: image,
                    count: json.images.len(),
                });
            }
            let slot = "pbrMetallicRoughness/baseColorTexture";
            let transform = read_texture_transform(
                &doc.raw,
                &format!("/materials/{index}/{slot}"),
                &format!("materials[{index}].pbrMetallicRoughness.baseColorTexture"),
            )?;
            has_source.then_some(TextureRef {
                texture,
                image,
                tex_coord: info.tex_coord,
                transform,
            })
        }
    };
    let alpha_mode = match valid(&m.alpha_mode) {
        Some(JsonAlphaMode::Mask) => AlphaMode::Mask {
            cutoff: m.alpha_cutoff.map_or(0.5, |c| c.0),
        },
        Some(JsonAlphaMode::Blend) => AlphaMode::Blend,
        Some(JsonAlphaMode::Opaque) | None => AlphaMode::Opaque,
    };
    let emissive_strength = match doc.raw.pointer(&format!(
        "/materials/{index}/extensions/KHR_materials_emissive_strength/emissiveStrength"
    )) {
        None => 1.0,
        Some(v) => v
            .as_f64()
            .map(|x| x as f32)
            .filter(|x| x.is_finite() && *x >= 0.0)
            .ok_or_else(|| GltfError::Invalid {
                path: format!(
                    "materials[{index}].extensions.KHR_materials_emissive_strength.emissiveStrength"
                ),
                reason: "not a finite number ≥ 0".into(),
            })?,
    };
    Ok(MaterialInfo {
        index: Some(index),
        base_color_factor: pbr.base_color_factor.0,
        base_color_texture,
        emissive_factor: m.emissive_factor.0,
        emissive_strength,
        has_emissive_texture: m.emissive_texture.is_some(),
        alpha_mode,
        double_sided: m.double_sided,
    })
}
