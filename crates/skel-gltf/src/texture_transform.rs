//! `KHR_texture_transform` on a texture reference: the offset, rotation and scale that map a
//! mesh's UVs to the texture's, and the UV set that replaces the reference's `texCoord`.
//!
//! gltfpack stores UVs quantised to integers and undoes the quantisation with this transform,
//! so a renderer that skips it draws such textures misplaced.

use glam::{Mat3, Vec2};
use serde_json::Value;

use crate::GltfError;

/// A texture reference's `KHR_texture_transform` (identity when the file has none).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct TextureTransform {
    /// `offset`: added last.
    pub offset: Vec2,
    /// `rotation`, radians: the UVs turn by it about the origin, after `scale`.
    pub rotation: f32,
    /// `scale`: applied first.
    pub scale: Vec2,
    /// `texCoord`: the UV set to sample with instead of the reference's own, if given.
    pub tex_coord: Option<u32>,
}

impl Default for TextureTransform {
    fn default() -> Self {
        Self::IDENTITY
    }
}

impl TextureTransform {
    /// No transform.
    pub const IDENTITY: Self = Self {
        offset: Vec2::ZERO,
        rotation: 0.0,
        scale: Vec2::ONE,
        tex_coord: None,
    };

    /// Whether the transform moves UVs (the `texCoord` override aside).
    #[must_use]
    pub fn is_identity(&self) -> bool {
        self.offset == Vec2::ZERO && self.rotation == 0.0 && self.scale == Vec2::ONE
    }

    /// The matrix the extension defines, `translation · rotation · scale`, applied to
    /// `(u, v, 1)`:
    ///
    /// ```
    /// use skel_gltf::TextureTransform;
    /// use glam::{Vec2, Vec3};
    ///
    /// let t = TextureTransform { offset: Vec2::new(0.5, 0.0), scale: Vec2::splat(2.0), ..TextureTransform::IDENTITY };
    /// let uv = t.matrix() * Vec3::new(0.25, 0.25, 1.0);
    /// assert_eq!((uv.x, uv.y), (1.0, 0.5));
    /// ```
    #[must_use]
    pub fn matrix(&self) -> Mat3 {
        let (s, c) = self.rotation.sin_cos();
        // The extension's rotation matrix is [c s; -s c] (rows): UV space has v pointing down.
        Mat3::from_cols(
            glam::Vec3::new(c * self.scale.x, -s * self.scale.x, 0.0),
            glam::Vec3::new(s * self.scale.y, c * self.scale.y, 0.0),
            glam::Vec3::new(self.offset.x, self.offset.y, 1.0),
        )
    }
}

fn vec2(v: &Value, path: &str) -> Result<Vec2, GltfError> {
    let bad = || GltfError::Invalid {
        path: path.to_owned(),
        reason: "not an array of two finite numbers".into(),
    };
    let a = v.as_array().filter(|a| a.len() == 2).ok_or_else(bad)?;
    let x = a[0].as_f64().ok_or_else(bad)? as f32;
    let y = a[1].as_f64().ok_or_else(bad)? as f32;
    if x.is_finite() && y.is_finite() {
        Ok(Vec2::new(x, y))
    } else {
        Err(bad())
    }
}

/// The `KHR_texture_transform` of the texture reference at JSON pointer `info` (e.g.
/// `/materials/0/pbrMetallicRoughness/baseColorTexture`) of `raw`; `path` names it in errors.
///
/// # Errors
/// [`GltfError::Invalid`] for a field of the wrong shape or a value that is not finite.
pub(crate) fn read_texture_transform(
    raw: &Value,
    info: &str,
    path: &str,
) -> Result<TextureTransform, GltfError> {
    let Some(ext) = raw.pointer(&format!("{info}/extensions/KHR_texture_transform")) else {
        return Ok(TextureTransform::IDENTITY);
    };
    let at = format!("{path}.extensions.KHR_texture_transform");
    let mut t = TextureTransform::IDENTITY;
    if let Some(v) = ext.get("offset") {
        t.offset = vec2(v, &format!("{at}.offset"))?;
    }
    if let Some(v) = ext.get("scale") {
        t.scale = vec2(v, &format!("{at}.scale"))?;
    }
    if let Some(v) = ext.get("rotation") {
        t.rotation = v
            .as_f64()
            .map(|r| r as f32)
            .filter(|r| r.is_finite())
            .ok_or_else(|| GltfError::Invalid {
                path: format!("{at}.rotation"),
                reason: "not a finite number".into(),
            })?;
    }
    if let Some(v) = ext.get("texCoord") {
        t.tex_coord = Some(
            v.as_u64()
                .and_then(|n| u32::try_from(n).ok())
                .ok_or_else(|| GltfError::Invalid {
                    path: format!("{at}.texCoord"),
                    reason: "not a UV set index".into(),
                })?,
        );
    }
    Ok(t)
}

#[cfg(test)]
mod tests {
    use super::*;
    use glam::Vec3;
    use serde_json::json;

    fn read(ext: Value) -> Result<TextureTransform, GltfError> {
        let raw = json!({"m": {"t": {"index": 0, "extensions": {"KHR_texture_transform": ext}}}});
        read_texture_transform(&raw, "/m/t", "m.t")
    }

    #[test]
    fn the_matrix_is_translation_rotation_scale() {
        let t = read(
            json!({"offset": [0.25, 0.5], "rotation": 0.3, "scale": [2.0, 3.0], "texCoord": 1}),
        )
        .unwrap();
        assert_eq!(t.tex_coord, Some(1));
        let (u, v) = (0.4_f32, 0.7_f32);
        let (s, c) = 0.3_f32.sin_cos();
        // The extension's reference: scale, then rotate by [c s; -s c], then offset.
        let (su, sv) = (u * 2.0, v * 3.0);
        let expect = (c * su + s * sv + 0.25, -s * su + c * sv + 0.5);
        let got = t.matrix() * Vec3::new(u, v, 1.0);
        assert!((got.x - expect.0).abs() < 1e-6 && (got.y - expect.1).abs() < 1e-6);
        assert!((got.z - 1.0).abs() < 1e-6);
    }

    #[test]
    fn no_extension_is_the_identity_and_bad_fields_are_named() {
        let raw = json!({"m": {"t": {"index": 0}}});
        let t = read_texture_transform(&raw, "/m/t", "m.t").unwrap();
        assert!(t.is_identity() && t.tex_coord.is_none());
        assert_eq!(t.matrix(), Mat3::IDENTITY);
        for bad in [
            json!({"offset": [1.0]}),
            json!({"scale": "big"}),
            json!({"rotation": [1.0]}),
            json!({"texCoord": -1}),
        ] {
            let e = read(bad.clone()).unwrap_err().to_string();
            assert!(
                e.contains("m.t.extensions.KHR_texture_transform"),
                "{bad}: {e}"
            );
        }
    }

    #[test]
    fn any_one_field_off_its_identity_value_moves_uvs() {
        let id = TextureTransform::IDENTITY;
        assert!(id.is_identity());
        for moved in [
            TextureTransform {
                offset: Vec2::new(0.0, 0.5),
                ..id
            },
            TextureTransform {
                rotation: 0.1,
                ..id
            },
            TextureTransform {
                scale: Vec2::new(1.0, 2.0),
                ..id
            },
        ] {
            assert!(!moved.is_identity(), "{moved:?}");
        }
        // The UV set override alone moves no UV.
        assert!(
            TextureTransform {
                tex_coord: Some(1),
                ..id
            }
            .is_identity()
        );
    }

    #[test]
    fn a_value_past_f32_is_refused() {
        for bad in [
            json!({"offset": [0.0, 1e39]}),
            json!({"scale": [1e39, 1.0]}),
        ] {
            let e = read(bad.clone()).unwrap_err().to_string();
            assert!(e.contains("finite"), "{bad}: {e}");
        }
    }
}
