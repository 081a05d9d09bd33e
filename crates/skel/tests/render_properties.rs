//! The renderer shows animated properties (`KHR_animation_pointer`) and static texture
//! transforms: a material's base colour follows its track, a node hidden by
//! `KHR_node_visibility` hides its descendants' meshes, and a `KHR_texture_transform` offset
//! (in the file, then animated) moves which texels a quad shows. Drawn on a real adapter
//! (lavapipe in CI) and read back.
#![cfg(feature = "render")]
#![allow(clippy::unwrap_used, clippy::expect_used, reason = "tests")]

use skel::anim::PropertyPose;
use skel::gpu::GpuContext;
use skel::render::{AssetRenderer, Camera, OffscreenTarget, Vec3};
use skel::{AssetContainer, LoadOptions, load_gltf};

mod common;
use common::gpu;

const SIDE: u32 = 128;

/// A GLB of `json` over `bin` (padded to 4 bytes each).
fn glb(json: &str, bin: &[u8]) -> Vec<u8> {
    skel::gltf::pack_glb(json.as_bytes(), bin).unwrap()
}

fn floats(values: &[f32]) -> Vec<u8> {
    values.iter().flat_map(|v| v.to_le_bytes()).collect()
}

/// Quad geometry (positions @0, UVs @48 over `[0, u_max] × [0, 1]`, indices @80), then
/// `extra` @96.
fn quad_buffer(u_max: f32, extra: &[u8]) -> Vec<u8> {
    let mut b = floats(&[
        -0.5, -0.5, 0.0, 0.5, -0.5, 0.0, 0.5, 0.5, 0.0, -0.5, 0.5, 0.0,
    ]);
    b.extend(floats(&[0.0, 1.0, u_max, 1.0, u_max, 0.0, 0.0, 0.0]));
    b.extend([0_u16, 1, 2, 0, 2, 3].iter().flat_map(|i| i.to_le_bytes()));
    b.extend([0; 4]);
    assert_eq!(b.len(), 96);
    b.extend(extra);
    b
}

const QUAD_VIEWS: &str = r#"{"buffer":0,"byteOffset":0,"byteLength":48},
    {"buffer":0,"byteOffset":48,"byteLength":32},
    {"buffer":0,"byteOffset":80,"byteLength":12}"#;
const QUAD_ACCESSORS: &str = r#"{"bufferView":0,"componentType":5126,"count":4,"type":"VEC3","min":[-0.5,-0.5,0],"max":[0.5,0.5,0]},
    {"bufferView":1,"componentType":5126,"count":4,"type":"VEC2"},
    {"bufferView":2,"componentType":5123,"count":6,"type":"SCALAR"}"#;

fn pointer(sampler: usize, pointer: &str) -> String {
    format!(
        r#"{{"sampler":{sampler},"target":{{"path":"pointer","extensions":{{"KHR_animation_pointer":{{"pointer":"{pointer}"}}}}}}}}"#
    )
}

/// Two quads: node 0 (left) with material 0, whose base colour goes red → blue over a second;
/// node 1 (right, green) under node 2, which turns invisible at 0.5 s (STEP).
fn colour_and_visibility() -> Vec<u8> {
    let mut extra = floats(&[0.0, 1.0]); // times @96
    extra.extend(floats(&[1.0, 0.0, 0.0, 1.0, 0.0, 0.0, 1.0, 1.0])); // colours @104
    extra.extend(floats(&[0.0, 0.5])); // visibility times @136
    extra.extend([1_u8, 0, 0, 0]); // visibility @144
    let buffer = quad_buffer(1.0, &extra);
    let json = format!(
        r#"{{"asset":{{"version":"2.0"}},
  "extensionsUsed":["KHR_animation_pointer","KHR_node_visibility"],
  "scenes":[{{"nodes":[0,2]}}],
  "nodes":[{{"mesh":0,"translation":[-0.6,0,0]}},{{"mesh":1}},{{"children":[1],"translation":[0.6,0,0]}}],
  "meshes":[{{"primitives":[{{"attributes":{{"POSITION":0,"TEXCOORD_0":1}},"indices":2,"material":0}}]}},
    {{"primitives":[{{"attributes":{{"POSITION":0,"TEXCOORD_0":1}},"indices":2,"material":1}}]}}],
  "materials":[{{"doubleSided":true,"pbrMetallicRoughness":{{"baseColorFactor":[1,0,0,1]}}}},
    {{"doubleSided":true,"pbrMetallicRoughness":{{"baseColorFactor":[0,1,0,1]}}}}],
  "buffers":[{{"byteLength":{len}}}],
  "bufferViews":[{QUAD_VIEWS},
    {{"buffer":0,"byteOffset":96,"byteLength":8}},{{"buffer":0,"byteOffset":104,"byteLength":32}},
    {{"buffer":0,"byteOffset":136,"byteLength":8}},{{"buffer":0,"byteOffset":144,"byteLength":2}}],
  "accessors":[{QUAD_ACCESSORS},
    {{"bufferView":3,"componentType":5126,"count":2,"type":"SCALAR","min":[0],"max":[1]}},
    {{"bufferView":4,"componentType":5126,"count":2,"type":"VEC4"}},
    {{"bufferView":5,"componentType":5126,"count":2,"type":"SCALAR","min":[0],"max":[0.5]}},
    {{"bufferView":6,"componentType":5121,"count":2,"type":"SCALAR"}}],
  "animations":[{{"name":"Look","samplers":[{{"input":3,"output":4}},{{"input":5,"output":6,"interpolation":"STEP"}}],
    "channels":[{colour},{visible}]}}]}}"#,
        len = buffer.len(),
        colour = pointer(0, "/materials/0/pbrMetallicRoughness/baseColorFactor"),
        visible = pointer(1, "/nodes/2/extensions/KHR_node_visibility/visible"),
    );
    glb(&json, &buffer)
}

/// An 8×8 PNG: left half red, right half green.
fn half_red_half_green() -> Vec<u8> {
    let img = image::RgbaImage::from_fn(8, 8, |x, _| {
        if x < 4 {
            image::Rgba([255, 0, 0, 255])
        } else {
            image::Rgba([0, 255, 0, 255])
        }
    });
    let mut png = Vec::new();
    img.write_to(&mut std::io::Cursor::new(&mut png), image::ImageFormat::Png)
        .unwrap();
    png
}

/// One quad whose UVs cover the texture's left half (`u ∈ [0, 0.5]`), shifted by a
/// `KHR_texture_transform` offset of 0.5 in the file (so it shows the green half), animated
/// back to 0 (the red half) over a second.
fn texture_offset() -> Vec<u8> {
    let mut extra = floats(&[0.0, 1.0]); // times @96
    extra.extend(floats(&[0.5, 0.0, 0.0, 0.0])); // offsets @104
    let png = half_red_half_green();
    let png_len = png.len();
    extra.extend(png); // @120
    let buffer = quad_buffer(0.5, &extra);
    let json = format!(
        r#"{{"asset":{{"version":"2.0"}},
  "extensionsUsed":["KHR_animation_pointer","KHR_texture_transform"],
  "scenes":[{{"nodes":[0]}}],
  "nodes":[{{"mesh":0}}],
  "meshes":[{{"primitives":[{{"attributes":{{"POSITION":0,"TEXCOORD_0":1}},"indices":2,"material":0}}]}}],
  "materials":[{{"doubleSided":true,"pbrMetallicRoughness":{{"baseColorTexture":{{"index":0,
    "extensions":{{"KHR_texture_transform":{{"offset":[0.5,0]}}}}}}}}}}],
  "samplers":[{{"magFilter":9728,"minFilter":9728}}],
  "textures":[{{"source":0,"sampler":0}}],
  "images":[{{"bufferView":5,"mimeType":"image/png"}}],
  "buffers":[{{"byteLength":{len}}}],
  "bufferViews":[{QUAD_VIEWS},
    {{"buffer":0,"byteOffset":96,"byteLength":8}},{{"buffer":0,"byteOffset":104,"byteLength":16}},
    {{"buffer":0,"byteOffset":120,"byteLength":{png_len}}}],
  "accessors":[{QUAD_ACCESSORS},
    {{"bufferView":3,"componentType":5126,"count":2,"type":"SCALAR","min":[0],"max":[1]}},
    {{"bufferView":4,"componentType":5126,"count":2,"type":"VEC2"}}],
  "animations":[{{"name":"Slide","samplers":[{{"input":3,"output":4}}],
    "channels":[{offset}]}}]}}"#,
        len = buffer.len(),
        offset = pointer(
            0,
            "/materials/0/pbrMetallicRoughness/baseColorTexture/extensions/KHR_texture_transform/offset"
        ),
    );
    glb(&json, &buffer)
}

struct Scene {
    ctx: GpuContext,
    character: AssetContainer,
    renderer: AssetRenderer,
    target: OffscreenTarget,
    camera: Camera,
    pose: PropertyPose,
}

impl Scene {
    fn new(ctx: GpuContext, bytes: &[u8]) -> Self {
        let options = LoadOptions::default();
        let character = load_gltf(&ctx, bytes, &options).unwrap();
        let target = OffscreenTarget::new(&ctx.device, SIDE, SIDE, 1).unwrap();
        let renderer = AssetRenderer::new(&ctx, &character, &target.format()).unwrap();
        let camera = Camera::orbit(Vec3::ZERO, 3.0, 0.0, 0.0, 1.0, options.handedness);
        renderer.set_camera(&ctx.queue, &camera);
        let pose = PropertyPose::new(&character.animation.clips);
        Self {
            ctx,
            character,
            renderer,
            target,
            camera,
            pose,
        }
    }

    /// Poses the nodes of clip 0 at `time` seconds, not its properties.
    fn pose_nodes_at(&mut self, time: f32) {
        self.character.animation_groups[0].seek(time);
        self.character.tick_animation(0, 0.0, &self.ctx.queue);
        self.renderer
            .update_from_group(&self.ctx.queue, &mut self.character, 0);
    }

    /// Poses clip 0 at `time` seconds, properties included.
    fn pose_at(&mut self, time: f32) {
        self.pose_nodes_at(time);
        self.character.animation_groups[0]
            .player()
            .sample_properties(&mut self.pose);
        self.renderer
            .set_properties(&self.ctx.queue, &self.character, &self.pose);
    }

    /// Draws and returns the sRGB pixel at the world position of node `node`.
    fn pixel_at_node(&mut self, node: usize) -> [u8; 4] {
        let world = self.character.animation_groups[0].world_matrices()[node];
        let clip = self.camera.view_projection() * world.w_axis;
        let ndc = clip.truncate() / clip.w;
        let side = SIDE as f32;
        let x = (((ndc.x * 0.5 + 0.5) * side) as u32).min(SIDE - 1);
        let y = (((0.5 - ndc.y * 0.5) * side) as u32).min(SIDE - 1);
        let ctx = &self.ctx;
        let rgba = common::draw_rgba(ctx, &self.renderer, &self.character, &self.target);
        let i = ((y * SIDE + x) * 4) as usize;
        [rgba[i], rgba[i + 1], rgba[i + 2], rgba[i + 3]]
    }
}

/// The background, #262a34, within a few levels.
fn is_background(p: [u8; 4]) -> bool {
    p[0].abs_diff(38) < 8 && p[1].abs_diff(42) < 8 && p[2].abs_diff(52) < 8
}

/// Channel `c` clearly above the other two (lit colours are mixed with grey ambient and rim).
fn dominated_by(p: [u8; 4], c: usize) -> bool {
    (0..3).all(|k| k == c || i32::from(p[c]) > i32::from(p[k]) + 60)
}

#[test]
fn animated_base_colour_and_visibility_are_drawn() {
    let Some(ctx) = gpu("animated_base_colour_and_visibility_are_drawn") else {
        return;
    };
    let mut s = Scene::new(ctx, &colour_and_visibility());
    assert!(!s.pose.is_empty(), "the property tracks were not loaded");

    s.pose_at(0.0);
    let left = s.pixel_at_node(0);
    let right = s.pixel_at_node(1);
    assert!(
        dominated_by(left, 0),
        "left quad at 0 s: {left:?}, expected red"
    );
    assert!(
        dominated_by(right, 1),
        "right quad at 0 s: {right:?}, expected green"
    );

    // Nearly at the end: blue, and the right quad's parent is hidden (since 0.5 s).
    s.pose_at(0.95);
    let left = s.pixel_at_node(0);
    let right = s.pixel_at_node(1);
    assert!(
        dominated_by(left, 2),
        "left quad at 0.95 s: {left:?}, expected blue"
    );
    assert!(
        is_background(right),
        "right quad at 0.95 s: {right:?}, expected hidden by its parent"
    );

    // Back to the start: both return (the look is rewritten, visibility recomputed).
    s.pose_at(0.0);
    assert!(dominated_by(s.pixel_at_node(0), 0));
    assert!(dominated_by(s.pixel_at_node(1), 1));
}

#[test]
fn texture_transforms_move_the_texels_statically_and_animated() {
    let Some(ctx) = gpu("texture_transforms_move_the_texels_statically_and_animated") else {
        return;
    };
    let mut s = Scene::new(ctx, &texture_offset());
    // Before any property pose: the file's offset of 0.5 shows the green half.
    s.pose_nodes_at(0.95);
    let p = s.pixel_at_node(0);
    assert!(
        dominated_by(p, 1),
        "static transform: {p:?}, expected green"
    );
    // The animation takes the offset from 0.5 at 0 s to 0 at 1 s.
    s.pose_at(0.0);
    let p = s.pixel_at_node(0);
    assert!(
        dominated_by(p, 1),
        "offset 0.5 at 0 s: {p:?}, expected green"
    );
    s.pose_at(0.95);
    let p = s.pixel_at_node(0);
    assert!(
        dominated_by(p, 0),
        "offset ≈ 0 at 0.95 s: {p:?}, expected red"
    );
}

/// Draws the fixture `name` (under `fixtures/`) head-on and returns its sRGB pixels.
fn draw_fixture(ctx: &GpuContext, name: &str) -> Vec<u8> {
    let path =
        std::path::Path::new(concat!(env!("CARGO_MANIFEST_DIR"), "/../../fixtures")).join(name);
    let options = LoadOptions::default();
    let character = load_gltf(ctx, path.as_path(), &options).unwrap();
    let target = OffscreenTarget::new(&ctx.device, SIDE, SIDE, 1).unwrap();
    let renderer = AssetRenderer::new(ctx, &character, &target.format()).unwrap();
    let camera = Camera::orbit(Vec3::ZERO, 1.6, 0.0, 0.0, 1.0, options.handedness);
    renderer.set_camera(&ctx.queue, &camera);
    let rest = skel::gltf::rest_world_matrices(&character.animation).unwrap();
    renderer.set_world_matrices(&ctx.queue, &character, &rest);
    common::draw_rgba(ctx, &renderer, &character, &target)
}

#[test]
fn gltfpack_quantised_uvs_draw_like_the_original() {
    let Some(ctx) = gpu("gltfpack_quantised_uvs_draw_like_the_original") else {
        return;
    };
    let original = draw_fixture(&ctx, "textured_grid.glb");
    let covered = original
        .chunks_exact(4)
        .filter(|p| !is_background([p[0], p[1], p[2], p[3]]))
        .count();
    assert!(
        covered > (SIDE * SIDE / 4) as usize,
        "the plane covers {covered} pixels"
    );
    for variant in [
        "peer/textured_gltfpack.glb",
        "peer/textured_gltfpack_cc.glb",
    ] {
        let packed = draw_fixture(&ctx, variant);
        // Nearest sampling: a UV a quantisation step off can only change pixels on a cell
        // border; a missing transform changes most of the plane.
        let differ = original
            .chunks_exact(4)
            .zip(packed.chunks_exact(4))
            .filter(|(a, b)| (0..3).any(|k| a[k].abs_diff(b[k]) > 8))
            .count();
        eprintln!("{variant}: {differ} of {covered} pixels differ by more than 8 levels");
        assert!(
            differ * 100 <= covered,
            "{variant}: {differ} of {covered} pixels differ from the original's picture"
        );
    }
}
