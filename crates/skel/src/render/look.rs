//! What one draw's material shows this frame: the glTF factors the renderer draws and the base
//! colour texture's UV transform, as the file gives them and as animated properties
//! (`KHR_animation_pointer`) change them; and their bytes in `MESH_WGSL`'s `Draw` uniform.

use glam::{Mat3, Vec2};
use skel_anim::PropertyPose;
use skel_gltf::{
    AlphaMode, MaterialField, MaterialInfo, PropertyTarget, TextureSlot, TextureTransform, UvField,
};

use crate::Primitive;

/// Bytes of the `Draw` uniform after its model matrix: base colour, flags, the UV transform's
/// two rows and the emission (five vec4).
pub(crate) const LOOK_BYTES: usize = 5 * 16;

/// The material values a draw shows: where the renderer's picture of a material comes from.
///
/// [`MaterialLook::rest`] reads them from the file; [`set`](Self::set) changes one as an
/// animated property does. Fields the renderer has no term for (metallic, roughness, normal
/// scale, occlusion strength, the transforms of textures it does not draw) are not kept.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct MaterialLook {
    /// `baseColorFactor`, linear RGBA.
    pub base_color: [f32; 4],
    /// `alphaCutoff` (used when the material's alpha mode is `MASK`).
    pub alpha_cutoff: f32,
    /// `emissiveFactor`, linear RGB. Drawn only for materials without an emissive texture
    /// (the renderer does not bind that texture, and the factor alone would light the whole
    /// surface where the texture lights a part).
    pub emissive: [f32; 3],
    /// `KHR_materials_emissive_strength`: multiplies the emission.
    pub emissive_strength: f32,
    /// The base colour texture's `KHR_texture_transform`.
    pub uv_transform: TextureTransform,
}

impl MaterialLook {
    /// The values `material` has in the file.
    #[must_use]
    pub fn rest(material: &MaterialInfo) -> Self {
        let alpha_cutoff = match material.alpha_mode {
            AlphaMode::Mask { cutoff } => cutoff,
            _ => 0.5,
        };
        Self {
            base_color: material.base_color_factor,
            alpha_cutoff,
            emissive: material.emissive_factor,
            emissive_strength: material.emissive_strength,
            uv_transform: material
                .base_color_texture
                .map_or(TextureTransform::IDENTITY, |t| t.transform),
        }
    }

    /// Sets `field` to `value` (its first components, as [`PropertyTarget::kind`] says);
    /// `false` for a field this look does not draw, which is left alone. Non-finite values are
    /// ignored too (`false`), so one bad key cannot blank a material.
    pub fn set(&mut self, field: MaterialField, value: [f32; 4]) -> bool {
        use MaterialField as M;
        let n = PropertyTarget::Material { material: 0, field }
            .kind()
            .components();
        if value[..n].iter().any(|v| !v.is_finite()) {
            return false;
        }
        let t = &mut self.uv_transform;
        match field {
            M::BaseColorFactor => self.base_color = value,
            M::AlphaCutoff => self.alpha_cutoff = value[0],
            M::EmissiveFactor => self.emissive = [value[0], value[1], value[2]],
            M::EmissiveStrength => self.emissive_strength = value[0],
            M::TextureTransform(TextureSlot::BaseColor, UvField::Offset) => {
                t.offset = Vec2::new(value[0], value[1]);
            }
            M::TextureTransform(TextureSlot::BaseColor, UvField::Rotation) => {
                t.rotation = value[0];
            }
            M::TextureTransform(TextureSlot::BaseColor, UvField::Scale) => {
                t.scale = Vec2::new(value[0], value[1]);
            }
            _ => return false,
        }
        true
    }

    /// This look with every animated slot of `material` in `pose` applied (`targets`: the
    /// asset's property targets, by slot).
    #[must_use]
    pub fn posed(
        mut self,
        material: usize,
        targets: &[PropertyTarget],
        pose: &PropertyPose,
    ) -> Self {
        for (slot, target) in targets.iter().enumerate() {
            if let PropertyTarget::Material { material: m, field } = *target
                && m == material
                && pose.kind(slot).is_some()
                && let Some(v) = pose.value(slot)
            {
                self.set(field, v);
            }
        }
        self
    }

    /// The base colour texture's UV transform as a matrix (see [`TextureTransform::matrix`]).
    #[must_use]
    pub fn uv_matrix(&self) -> Mat3 {
        self.uv_transform.matrix()
    }

    /// The `Draw` uniform's words after the model matrix, for `primitive` drawn with or
    /// without its base colour texture: base colour, flags (has normals, textured, alpha mask,
    /// its cutoff × 10⁶), the UV matrix's rows, and the emission.
    pub(crate) fn uniform_bytes(&self, primitive: &Primitive, textured: bool) -> [u8; LOOK_BYTES] {
        let mask = u32::from(matches!(
            primitive.material.alpha_mode,
            AlphaMode::Mask { .. }
        ));
        // Saturating float → int conversion of a cutoff in [0, 1].
        let cutoff_micros = (self.alpha_cutoff.clamp(0.0, 1.0) * 1e6) as u32;
        let flags = [
            u32::from(primitive.has_normals),
            u32::from(textured),
            mask,
            cutoff_micros,
        ];
        let m = self.uv_matrix();
        let emissive = if primitive.material.has_emissive_texture {
            [0.0; 3]
        } else {
            self.emissive.map(|e| e * self.emissive_strength)
        };
        let floats: [[f32; 4]; 4] = [
            self.base_color,
            [m.x_axis.x, m.y_axis.x, m.z_axis.x, 0.0],
            [m.x_axis.y, m.y_axis.y, m.z_axis.y, 0.0],
            [emissive[0], emissive[1], emissive[2], 0.0],
        ];
        let mut out = [0; LOOK_BYTES];
        out[..16].copy_from_slice(bytemuck::cast_slice(&floats[0]));
        out[16..32].copy_from_slice(bytemuck::cast_slice(&flags));
        out[32..].copy_from_slice(bytemuck::cast_slice(&floats[1..]));
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn set_changes_drawn_fields_only_and_refuses_non_finite_values() {
        let mut look = MaterialLook::rest(&MaterialInfo::default());
        let rest = look;
        assert!(!look.set(MaterialField::MetallicFactor, [0.2; 4]));
        assert!(!look.set(
            MaterialField::TextureTransform(TextureSlot::Normal, UvField::Offset),
            [0.2; 4]
        ));
        assert!(!look.set(MaterialField::BaseColorFactor, [f32::NAN, 0.0, 0.0, 1.0]));
        assert_eq!(look, rest);
        assert!(look.set(MaterialField::BaseColorFactor, [0.1, 0.2, 0.3, 0.4]));
        assert!(look.set(
            MaterialField::TextureTransform(TextureSlot::BaseColor, UvField::Scale),
            [2.0, 3.0, 9.0, 9.0]
        ));
        assert_eq!(look.base_color, [0.1, 0.2, 0.3, 0.4]);
        assert_eq!(look.uv_transform.scale, Vec2::new(2.0, 3.0));
    }
}
