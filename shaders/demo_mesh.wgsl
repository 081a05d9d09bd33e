// skel::render's mesh shader (used by `skel render`). Composed after a skel-gpu skinning
// fragment (ShaderFragment::compose), which supplies `skel_skin_vertex` (morph, then
// 0/4/8-influence skinning in the mesh's bind space) and owns group 2. This file owns groups 0
// and 1, and locations 0..=2 (geometry) and 12..=15 (the per-instance model matrix).
//
// Lighting: a hemisphere ambient, a warm key and a cool fill directional light (both placed
// relative to the camera, so every model is lit from the same side of the picture), a soft
// Blinn-Phong highlight and a rim term, then a filmic tone curve. Colours are linear; the sRGB
// target encodes them.

struct Frame {
    view_proj: mat4x4<f32>,
    eye: vec4<f32>,
    // Directions towards the lights, world space (w unused).
    key_dir: vec4<f32>,
    fill_dir: vec4<f32>,
    // Linear colour × intensity (w unused).
    key_color: vec4<f32>,
    fill_color: vec4<f32>,
    sky_color: vec4<f32>,
    ground_color: vec4<f32>,
    // World-space up for the hemisphere light.
    up: vec4<f32>,
}

struct Draw {
    // Mesh node world matrix (for skinned meshes: the mesh node's, as the seed composes
    // mesh.world · skin).
    world: mat4x4<f32>,
    // glTF baseColorFactor (linear).
    base_color: vec4<f32>,
    // x: has normals, y: has base colour texture, z: alpha mask (1) / opaque (0),
    // w: alpha cutoff × 1e6.
    flags: vec4<u32>,
    // The base colour texture's KHR_texture_transform: uv' = (dot(uv_row0.xyz, (u, v, 1)),
    // dot(uv_row1.xyz, (u, v, 1))).
    uv_row0: vec4<f32>,
    uv_row1: vec4<f32>,
    // emissiveFactor × emissive strength (linear; w unused).
    emissive: vec4<f32>,
}

@group(0) @binding(0) var<uniform> frame: Frame;
@group(1) @binding(0) var<uniform> draw: Draw;
@group(1) @binding(1) var base_color_texture: texture_2d<f32>;
@group(1) @binding(2) var base_color_sampler: sampler;

struct VertexIn {
    @location(0) position: vec3<f32>,
    @location(1) normal: vec3<f32>,
    @location(2) uv: vec2<f32>,
    // Per instance: where this copy of the character stands (applied after the node's world
    // matrix).
    @location(12) instance_0: vec4<f32>,
    @location(13) instance_1: vec4<f32>,
    @location(14) instance_2: vec4<f32>,
    @location(15) instance_3: vec4<f32>,
}

struct VertexOut {
    @builtin(position) clip: vec4<f32>,
    @location(0) world_position: vec3<f32>,
    @location(1) world_normal: vec3<f32>,
    @location(2) uv: vec2<f32>,
}

// The cofactor matrix of the upper 3×3: det(M) · M⁻ᵀ, the normal transform up to scale
// (correct under non-uniform scale; the sign flip of mirrored matrices is undone in the
// fragment shader, which turns normals towards the viewer).
fn normal_matrix(m: mat4x4<f32>) -> mat3x3<f32> {
    let a = m[0].xyz;
    let b = m[1].xyz;
    let c = m[2].xyz;
    return mat3x3<f32>(cross(b, c), cross(c, a), cross(a, b));
}

@vertex
fn vs_main(
    @builtin(vertex_index) vertex_index: u32,
    input: VertexIn
    {{SKEL_INFLUENCES_PARAM}}
) -> VertexOut {
    let skinned = skel_skin_vertex(vertex_index, input.position, input.normal {{SKEL_INFLUENCES_ARG}});
    let instance = mat4x4<f32>(input.instance_0, input.instance_1, input.instance_2, input.instance_3);
    let model = instance * draw.world;
    let world = model * vec4<f32>(skinned.position, 1.0);
    var out: VertexOut;
    out.clip = frame.view_proj * world;
    out.world_position = world.xyz;
    out.world_normal = normal_matrix(model) * skinned.normal;
    let uv = vec3<f32>(input.uv, 1.0);
    out.uv = vec2<f32>(dot(draw.uv_row0.xyz, uv), dot(draw.uv_row1.xyz, uv));
    return out;
}

// Narkowicz's fitted ACES filmic curve: keeps light materials under a strong key light from
// clipping to flat white (their lit and unlit sides stay apart) and leaves mid-tones close.
fn tone_map(x: vec3<f32>) -> vec3<f32> {
    return clamp((x * (2.51 * x + 0.03)) / (x * (2.43 * x + 0.59) + 0.14), vec3<f32>(0.0), vec3<f32>(1.0));
}

@fragment
fn fs_main(input: VertexOut) -> @location(0) vec4<f32> {
    // Derivatives and texture sampling stay in uniform control flow.
    let face_normal = cross(dpdx(input.world_position), dpdy(input.world_position));
    let texel = textureSample(base_color_texture, base_color_sampler, input.uv);

    var base = draw.base_color;
    if (draw.flags.y != 0u) {
        base = base * texel;
    }
    if (draw.flags.z == 1u && base.a < f32(draw.flags.w) * 1e-6) {
        discard;
    }

    // Interpolated normal when the mesh has one (glTF: flat shading without NORMAL).
    var n = face_normal;
    let interpolated = input.world_normal;
    if (draw.flags.x != 0u && dot(interpolated, interpolated) > 1e-12) {
        n = interpolated;
    }
    n = normalize(n);
    let v = normalize(frame.eye.xyz - input.world_position);
    // Two-sided: light the side that faces the camera, whatever the winding or mirroring.
    if (dot(n, v) < 0.0) {
        n = -n;
    }

    let hemisphere = mix(frame.ground_color.rgb, frame.sky_color.rgb, dot(n, frame.up.xyz) * 0.5 + 0.5);
    let key = max(dot(n, frame.key_dir.xyz), 0.0);
    let fill = max(dot(n, frame.fill_dir.xyz), 0.0);
    let diffuse = hemisphere + frame.key_color.rgb * key + frame.fill_color.rgb * fill;
    let h = normalize(frame.key_dir.xyz + v);
    let specular = pow(max(dot(n, h), 0.0), 48.0) * 0.12 * select(0.0, 1.0, key > 0.0) * frame.key_color.rgb;
    let rim = pow(1.0 - max(dot(n, v), 0.0), 4.0) * 0.18;
    let color = base.rgb * diffuse + specular + vec3<f32>(rim) * frame.sky_color.rgb + draw.emissive.rgb;
    return vec4<f32>(tone_map(color), 1.0);
}
