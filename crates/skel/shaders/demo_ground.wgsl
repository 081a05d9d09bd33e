// skel::render's ground (GroundRenderer): triangles in world space, flat-shaded by the lights of
// demo_mesh.wgsl (the same `Frame` uniform bytes, `frame_uniform`), so that a ground and the
// character drawn in one pass are lit alike. A checker of world-space squares on x and z lets a
// slope read as a slope; each vertex carries its triangle's normal (flat shading without
// derivatives, which are undefined along a triangle's edge).

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

struct Ground {
    // Linear base colour (w unused).
    color: vec4<f32>,
    // x: side of a checker square in world units (0: no checker); y: the darker squares'
    // brightness relative to the lighter ones (0..1).
    checker: vec4<f32>,
}

@group(0) @binding(0) var<uniform> frame: Frame;
@group(0) @binding(1) var<uniform> ground: Ground;

struct VertexIn {
    @location(0) position: vec3<f32>,
    @location(1) normal: vec3<f32>,
}

struct VertexOut {
    @builtin(position) clip: vec4<f32>,
    @location(0) world_position: vec3<f32>,
    @location(1) world_normal: vec3<f32>,
}

@vertex
fn vs_main(input: VertexIn) -> VertexOut {
    var out: VertexOut;
    out.clip = frame.view_proj * vec4<f32>(input.position, 1.0);
    out.world_position = input.position;
    out.world_normal = input.normal;
    return out;
}

// The mesh shader's tone curve (Narkowicz's fitted ACES), so that both surfaces map alike.
fn tone_map(x: vec3<f32>) -> vec3<f32> {
    return clamp((x * (2.51 * x + 0.03)) / (x * (2.43 * x + 0.59) + 0.14), vec3<f32>(0.0), vec3<f32>(1.0));
}

@fragment
fn fs_main(input: VertexOut) -> @location(0) vec4<f32> {
    var n = normalize(input.world_normal);
    let v = normalize(frame.eye.xyz - input.world_position);
    // Two-sided: light the side that faces the camera.
    if (dot(n, v) < 0.0) {
        n = -n;
    }
    var shade = 1.0;
    let side = ground.checker.x;
    if (side > 0.0) {
        let cell = floor(input.world_position.xz / side);
        let odd = (i32(cell.x) + i32(cell.y)) & 1;
        shade = select(1.0, ground.checker.y, odd != 0);
    }
    let base = ground.color.rgb * shade;
    let hemisphere = mix(frame.ground_color.rgb, frame.sky_color.rgb, dot(n, frame.up.xyz) * 0.5 + 0.5);
    let key = max(dot(n, frame.key_dir.xyz), 0.0);
    let fill = max(dot(n, frame.fill_dir.xyz), 0.0);
    let diffuse = hemisphere + frame.key_color.rgb * key + frame.fill_color.rgb * fill;
    return vec4<f32>(tone_map(base * diffuse), 1.0);
}
