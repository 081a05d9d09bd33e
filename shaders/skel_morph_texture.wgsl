// skel: morph targets, applied before skinning (glTF 2.0 §3.7.2.2), with the deltas in a
// texture: the variant for devices whose vertex shaders have no storage buffers (WebGL2).
//
// The weights uniform is skel_morph.wgsl's. The deltas are rgba32float texels, one delta each
// (xyz; w is 0): positions target-major at texel t * vertex_count + v, then normals in the same
// layout from texel `normal_offset` (0: the targets have no normal deltas). Texel i sits at
// (i % width, i / width), width being the texture's (a power of two). textureLoad needs no
// sampler and no filtering, and GL ES 3.0 vertex shaders may use it (texelFetch).

struct SkelMorphParams {
    weights: array<vec4<f32>, {{MORPH_WEIGHT_VEC4S}}>,
    target_count: u32,
    vertex_count: u32,
    normal_offset: u32,
    _pad: u32,
}

@group({{GROUP}}) @binding({{MORPH_PARAMS_BINDING}}) var<uniform> skel_morph_params: SkelMorphParams;
@group({{GROUP}}) @binding({{MORPH_DELTAS_BINDING}}) var skel_morph_deltas: texture_2d<f32>;

fn skel_morph_delta(at: u32, width: u32) -> vec3<f32> {
    return textureLoad(skel_morph_deltas, vec2<i32>(i32(at % width), i32(at / width)), 0).xyz;
}

// position + Σ w_t · Δp_t, normal + Σ w_t · Δn_t over every target with a non-zero weight.
fn skel_morph(vertex_index: u32, position: vec3<f32>, normal: vec3<f32>) -> SkelVertex {
    var p = position;
    var n = normal;
    let vertex_count = skel_morph_params.vertex_count;
    if (vertex_index >= vertex_count) {
        return SkelVertex(p, n);
    }
    let width = textureDimensions(skel_morph_deltas).x;
    let normal_offset = skel_morph_params.normal_offset;
    for (var t = 0u; t < skel_morph_params.target_count; t += 1u) {
        let w = skel_morph_params.weights[t / 4u][t % 4u];
        if (w != 0.0) {
            let at = t * vertex_count + vertex_index;
            p += w * skel_morph_delta(at, width);
            if (normal_offset != 0u) {
                n += w * skel_morph_delta(normal_offset + at, width);
            }
        }
    }
    return SkelVertex(p, n);
}
