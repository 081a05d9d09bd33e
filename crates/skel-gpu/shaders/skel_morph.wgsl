// skel: morph targets, applied before skinning (glTF 2.0 §3.7.2.2).
//
// Weights live in a uniform (every vertex reads all of them); the seed's weights vec4 is its
// first 16 bytes. Deltas live in a storage buffer of f32: positions target-major at
// (t * vertex_count + v) * 3, then normals in the same layout from float `normal_offset`
// (0: the targets have no normal deltas).

struct SkelMorphParams {
    weights: array<vec4<f32>, {{MORPH_WEIGHT_VEC4S}}>,
    target_count: u32,
    vertex_count: u32,
    normal_offset: u32,
    _pad: u32,
}

@group({{GROUP}}) @binding({{MORPH_PARAMS_BINDING}}) var<uniform> skel_morph_params: SkelMorphParams;
@group({{GROUP}}) @binding({{MORPH_DELTAS_BINDING}}) var<storage, read> skel_morph_deltas: array<f32>;

fn skel_morph_delta(at: u32) -> vec3<f32> {
    return vec3<f32>(skel_morph_deltas[at], skel_morph_deltas[at + 1u], skel_morph_deltas[at + 2u]);
}

// position + Σ w_t · Δp_t, normal + Σ w_t · Δn_t over every target with a non-zero weight.
fn skel_morph(vertex_index: u32, position: vec3<f32>, normal: vec3<f32>) -> SkelVertex {
    var p = position;
    var n = normal;
    let vertex_count = skel_morph_params.vertex_count;
    if (vertex_index >= vertex_count) {
        return SkelVertex(p, n);
    }
    let normal_offset = skel_morph_params.normal_offset;
    for (var t = 0u; t < skel_morph_params.target_count; t += 1u) {
        let w = skel_morph_params.weights[t / 4u][t % 4u];
        if (w != 0.0) {
            let at = (t * vertex_count + vertex_index) * 3u;
            p += w * skel_morph_delta(at);
            if (normal_offset != 0u) {
                n += w * skel_morph_delta(normal_offset + at);
            }
        }
    }
    return SkelVertex(p, n);
}
