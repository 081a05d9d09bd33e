// skel-validate: compose
// skel: readback probe for the vertex-shader skinning path (used by skel-gpu's GPU tests and
// handy for debugging a renderer). Composed after a skinning fragment, which must sit in
// group 1. Draws every vertex as a point on its own pixel of two Rgba32Float targets
// (pixel i = (i % width, i / width)) and writes the skinned position and normal there, flat,
// so reading the targets back gives the vertex stage's output bit for bit.

struct SkelProbeParams {
    width: u32,
    height: u32,
    _pad0: u32,
    _pad1: u32,
}

@group(0) @binding(0) var<uniform> skel_probe: SkelProbeParams;

struct SkelProbeOut {
    @builtin(position) clip: vec4<f32>,
    @location(0) @interpolate(flat) position: vec4<f32>,
    @location(1) @interpolate(flat) normal: vec4<f32>,
}

@vertex
fn skel_probe_vs(
    @builtin(vertex_index) vertex_index: u32,
    @location(0) position: vec3<f32>,
    @location(1) normal: vec3<f32>
    {{SKEL_INFLUENCES_PARAM}}
) -> SkelProbeOut {
    let v = skel_skin_vertex(vertex_index, position, normal {{SKEL_INFLUENCES_ARG}});
    let x = f32(vertex_index % skel_probe.width) + 0.5;
    let y = f32(vertex_index / skel_probe.width) + 0.5;
    let clip = vec4<f32>(x / f32(skel_probe.width) * 2.0 - 1.0, 1.0 - y / f32(skel_probe.height) * 2.0, 0.0, 1.0);
    return SkelProbeOut(clip, vec4<f32>(v.position, 1.0), vec4<f32>(v.normal, 0.0));
}

struct SkelProbeTargets {
    @location(0) position: vec4<f32>,
    @location(1) normal: vec4<f32>,
}

@fragment
fn skel_probe_fs(input: SkelProbeOut) -> SkelProbeTargets {
    return SkelProbeTargets(input.position, input.normal);
}
