//! `KHR_draco_mesh_compression`: one primitive's Draco stream decoded with the pure-Rust
//! `draco-core`, its attributes converted to what each accessor declares (component type,
//! type, normalisation) and its faces to the indices accessor's type.

use draco_core::{DataType, DecodeLimits, DecoderBuffer, Mesh, MeshDecoder, PointAttribute};
use gltf::json::accessor::{ComponentType, GenericComponentType, Type};
use gltf::json::validation::Checked;

/// What one accessor must hold: its layout as declared in the file.
#[derive(Debug, Clone, Copy)]
pub(super) struct Layout {
    /// Components per element (`VEC3` → 3).
    pub(super) components: usize,
    /// The component type.
    pub(super) component: ComponentType,
    /// Whether integer components are normalised.
    pub(super) normalized: bool,
}

impl Layout {
    /// The layout of a gltf-json accessor, or why it has none.
    pub(super) fn of(
        component: &Checked<GenericComponentType>,
        type_: &Checked<Type>,
        normalized: bool,
    ) -> Result<Self, String> {
        let (Checked::Valid(GenericComponentType(component)), Checked::Valid(type_)) =
            (component, type_)
        else {
            return Err("the accessor's componentType or type is not valid".into());
        };
        Ok(Self {
            components: type_.multiplicity(),
            component: *component,
            normalized,
        })
    }

    fn component_size(self) -> usize {
        self.component.size()
    }
}

/// A decoded Draco mesh.
pub(super) struct Decoded {
    mesh: Mesh,
}

/// Decodes a Draco stream, refusing one that would decode past `max_bytes` of attributes.
///
/// # Errors
/// The decoder's message.
pub(super) fn decode_stream(stream: &[u8], max_bytes: u64) -> Result<Decoded, String> {
    let limits = DecodeLimits::default()
        .with_max_decoded_bytes(max_bytes)
        .with_max_faces(max_bytes / 12)
        .with_max_points(max_bytes / 4);
    let mut buffer = DecoderBuffer::new(stream).with_limits(limits);
    let mut mesh = Mesh::new();
    MeshDecoder::new()
        .decode(&mut buffer, &mut mesh)
        .map_err(|e| format!("Draco decoder: {e}"))?;
    Ok(Decoded { mesh })
}

impl Decoded {
    /// Decoded points (vertices).
    pub(super) fn points(&self) -> usize {
        self.mesh.num_points()
    }

    /// Decoded triangles.
    pub(super) fn faces(&self) -> usize {
        self.mesh.num_faces()
    }

    /// The attribute with Draco unique id `id`, written as `layout` (little-endian, tightly
    /// packed): `points() × components` values.
    pub(super) fn attribute_bytes(&self, id: u32, layout: Layout) -> Result<Vec<u8>, String> {
        let attribute = self
            .mesh
            .attribute_by_unique_id(id)
            .ok_or_else(|| format!("the stream has no attribute with unique id {id}"))?;
        let raw = attribute.read_f32s(self.points(), layout.components);
        // Integers stored as the accessor's own type are copied as they are, whatever either
        // side says about normalisation (encoders do not always carry the flag into Draco);
        // otherwise the value is converted.
        let (scale, layout) = if same_integer_type(attribute.data_type(), layout.component) {
            (
                1.0,
                Layout {
                    normalized: false,
                    ..layout
                },
            )
        } else {
            (normalised_scale(attribute), layout)
        };
        let mut out = Vec::with_capacity(raw.len() * layout.component_size());
        for v in raw {
            let value = f64::from(v) * scale;
            write_component(&mut out, value, layout);
        }
        Ok(out)
    }

    /// The faces as a triangle list in `component` (`U8`, `U16` or `U32`).
    pub(super) fn index_bytes(&self, component: ComponentType) -> Result<Vec<u8>, String> {
        let max = match component {
            ComponentType::U8 => u64::from(u8::MAX),
            ComponentType::U16 => u64::from(u16::MAX),
            ComponentType::U32 => u64::from(u32::MAX),
            other => return Err(format!("indices of component type {other:?}")),
        };
        let mut out = Vec::with_capacity(self.faces() * 3 * component.size());
        for face in self.mesh.faces() {
            for point in face {
                let index = u64::from(point.0);
                if index > max {
                    return Err(format!(
                        "vertex index {index} does not fit the indices accessor's {component:?}"
                    ));
                }
                match component {
                    ComponentType::U8 => out.push(u8::try_from(index).unwrap_or(u8::MAX)),
                    ComponentType::U16 => out
                        .extend_from_slice(&u16::try_from(index).unwrap_or(u16::MAX).to_le_bytes()),
                    _ => out
                        .extend_from_slice(&u32::try_from(index).unwrap_or(u32::MAX).to_le_bytes()),
                }
            }
        }
        Ok(out)
    }
}

/// Whether Draco's `stored` type is the integer component type `component`.
fn same_integer_type(stored: DataType, component: ComponentType) -> bool {
    matches!(
        (stored, component),
        (DataType::Int8, ComponentType::I8)
            | (DataType::Uint8, ComponentType::U8)
            | (DataType::Int16, ComponentType::I16)
            | (DataType::Uint16, ComponentType::U16)
            | (DataType::Uint32, ComponentType::U32)
    )
}

/// What a stored integer is multiplied by to give its value: `1 / max` for a normalised
/// integer attribute (Draco keeps them raw), 1 otherwise.
fn normalised_scale(attribute: &PointAttribute) -> f64 {
    if !attribute.normalized() {
        return 1.0;
    }
    match attribute.data_type() {
        DataType::Int8 => 1.0 / 127.0,
        DataType::Uint8 => 1.0 / 255.0,
        DataType::Int16 => 1.0 / 32767.0,
        DataType::Uint16 => 1.0 / 65535.0,
        _ => 1.0,
    }
}

/// Appends `value` as one component of `layout`: floats as is, normalised integers scaled by
/// their maximum and rounded, other integers rounded; all clamped to the type's range.
#[expect(
    clippy::cast_possible_truncation,
    reason = "every value is clamped to the target type's range first"
)]
fn write_component(out: &mut Vec<u8>, value: f64, layout: Layout) {
    let value = if value.is_finite() { value } else { 0.0 };
    let int = |max: f64, min: f64| {
        let v = if layout.normalized {
            value * max
        } else {
            value
        };
        v.round().clamp(min, max)
    };
    match layout.component {
        ComponentType::F32 => out.extend_from_slice(&(value as f32).to_le_bytes()),
        ComponentType::I8 => out.push((int(127.0, -128.0) as i8).to_le_bytes()[0]),
        ComponentType::U8 => out.push(int(255.0, 0.0) as u8),
        ComponentType::I16 => out.extend_from_slice(&(int(32767.0, -32768.0) as i16).to_le_bytes()),
        ComponentType::U16 => out.extend_from_slice(&(int(65535.0, 0.0) as u16).to_le_bytes()),
        ComponentType::U32 => {
            out.extend_from_slice(&(int(f64::from(u32::MAX), 0.0) as u32).to_le_bytes());
        }
    }
}
