//! The texture morph variant without a GPU: it validates with naga (what wgpu runs at pipeline
//! creation), and its vertex shader translates to WebGL2's GLSL ES 3.00, where the storage
//! buffer variant cannot (buffer blocks need GLSL ES 3.10). `cargo xtask validate-shaders`
//! checks the storage variants; these check the texture ones.

#![allow(clippy::unwrap_used, clippy::expect_used, reason = "tests")]

use super::{FragmentBindings, Influences, ShaderFragment, SkinningVariant};
use crate::MorphDeltaStorage;

/// A vertex shader using the fragment the way a renderer does.
const PROBE_VERTEX: &str = r"
struct ProbeOut {
    @builtin(position) clip: vec4<f32>,
    @location(0) normal: vec3<f32>,
}

@vertex
fn probe_vs(@builtin(vertex_index) vi: u32, @location(0) p: vec3<f32>, @location(1) n: vec3<f32>
            {{SKEL_INFLUENCES_PARAM}}) -> ProbeOut {
    let v = skel_skin_vertex(vi, p, n {{SKEL_INFLUENCES_ARG}});
    return ProbeOut(vec4<f32>(v.position, 1.0), v.normal);
}
";

fn validate(label: &str, source: &str) -> (naga::Module, naga::valid::ModuleInfo) {
    let module = naga::front::wgsl::parse_str(source)
        .unwrap_or_else(|e| panic!("{label}: {}", e.emit_to_string(source)));
    let info = naga::valid::Validator::new(
        naga::valid::ValidationFlags::all(),
        naga::valid::Capabilities::default(),
    )
    .validate(&module)
    .unwrap_or_else(|e| panic!("{label}: {}", e.emit_to_string(source)));
    (module, info)
}

/// The probe's vertex stage in GLSL ES 3.00 for WebGL, as wgpu's GL backend writes it.
fn webgl2_vertex_glsl(fragment: &ShaderFragment) -> Result<String, naga::back::glsl::Error> {
    let label = format!("{:?}", fragment.variant());
    let (module, info) = validate(&label, &fragment.compose(PROBE_VERTEX));
    let options = naga::back::glsl::Options {
        version: naga::back::glsl::Version::Embedded {
            version: 300,
            is_webgl: true,
        },
        ..naga::back::glsl::Options::default()
    };
    let pipeline = naga::back::glsl::PipelineOptions {
        shader_stage: naga::ShaderStage::Vertex,
        entry_point: "probe_vs".to_owned(),
        multiview: None,
    };
    let mut out = String::new();
    let mut writer = naga::back::glsl::Writer::new(
        &mut out,
        &module,
        &info,
        &options,
        &pipeline,
        naga::proc::BoundsCheckPolicies::default(),
    )?;
    writer.write()?;
    Ok(out)
}

fn morph_variants() -> impl Iterator<Item = SkinningVariant> {
    SkinningVariant::all().into_iter().filter(|v| v.morph)
}

#[test]
fn every_texture_morph_variant_validates() {
    let binding_sets = [
        FragmentBindings::default(),
        FragmentBindings {
            group: 3,
            first_binding: 5,
            first_location: 9,
        },
    ];
    for variant in morph_variants() {
        for bindings in binding_sets {
            let fragment =
                ShaderFragment::with_morph_deltas(variant, bindings, MorphDeltaStorage::Texture);
            let label = format!("{variant:?} {bindings:?}");
            validate(&label, fragment.source());
            validate(&label, &fragment.compose(PROBE_VERTEX));
            assert!(fragment.source().contains("texture_2d<f32>"), "{label}");
            let sixteen = variant.influences == Influences::Sixteen;
            assert_eq!(
                fragment.source().contains("var<storage"),
                sixteen,
                "{label}: only sets 2 and 3 of 16 influences are storage buffers"
            );
        }
    }
}

#[test]
fn texture_morph_binds_no_storage_buffer_up_to_eight_influences() {
    for variant in morph_variants() {
        let texture = ShaderFragment::with_morph_deltas(
            variant,
            FragmentBindings::default(),
            MorphDeltaStorage::Texture,
        );
        let buffer = ShaderFragment::new(variant, FragmentBindings::default());
        assert_eq!(texture.morph_deltas(), MorphDeltaStorage::Texture);
        assert_eq!(
            texture.storage_buffer_count() + 1,
            buffer.storage_buffer_count(),
            "{variant:?}"
        );
        let sixteen = variant.influences == Influences::Sixteen;
        assert_eq!(texture.storage_buffer_count() == 0, !sixteen, "{variant:?}");
        // The same bindings in the same places: only the deltas' kind differs.
        assert_eq!(
            texture.morph_deltas_binding(),
            buffer.morph_deltas_binding()
        );
        let entries = texture.bind_group_layout_entries(wgpu::ShaderStages::VERTEX);
        let deltas = entries
            .iter()
            .find(|e| Some(e.binding) == texture.morph_deltas_binding())
            .unwrap();
        assert!(matches!(
            deltas.ty,
            wgpu::BindingType::Texture {
                sample_type: wgpu::TextureSampleType::Float { filterable: false },
                ..
            }
        ));
    }
    // Without morph the choice changes nothing.
    let plain = SkinningVariant::default();
    let fragment = ShaderFragment::with_morph_deltas(
        plain,
        FragmentBindings::default(),
        MorphDeltaStorage::Texture,
    );
    assert_eq!(fragment.morph_deltas(), MorphDeltaStorage::Buffer);
    assert_eq!(
        fragment.source(),
        ShaderFragment::new(plain, FragmentBindings::default()).source()
    );
}

#[test]
fn texture_morph_vertex_shaders_translate_to_webgl2_glsl() {
    for variant in morph_variants().filter(|v| v.influences != Influences::Sixteen) {
        let texture = ShaderFragment::with_morph_deltas(
            variant,
            FragmentBindings::default(),
            MorphDeltaStorage::Texture,
        );
        let glsl =
            webgl2_vertex_glsl(&texture).unwrap_or_else(|e| panic!("{variant:?} texture: {e}"));
        assert!(glsl.starts_with("#version 300 es"), "{variant:?}");
        assert!(glsl.contains("texelFetch"), "{variant:?}");
        // The storage buffer variant is what WebGL2 cannot run.
        let buffer = ShaderFragment::new(variant, FragmentBindings::default());
        assert!(
            webgl2_vertex_glsl(&buffer).is_err(),
            "{variant:?}: the storage variant translated to GLSL ES 3.00"
        );
    }
}
