//! Your own wgpu program draws an animated character: your device, your textures, your encoder
//! and render pass; skel loads and animates, and records its draw calls into your pass.
//!
//! ```text
//! cargo run -p skel --example own_render_loop
//! ```
//!
//! Headless here so that it runs anywhere (CI uses lavapipe); a windowed program passes the
//! device it made for its surface and the surface's format to `RenderFormat`.

use skel::anim::{LayerDesc, Player};
use skel::render::{AssetRenderer, Camera, RenderFormat, Vec3};
use skel::{LoadOptions, gpu::GpuContext, load_gltf};

fn main() -> Result<(), Box<dyn std::error::Error>> {
    // Your device and queue, made the way your program already makes them.
    let instance = wgpu::Instance::default();
    let adapter = pollster::block_on(instance.request_adapter(&Default::default()))?;
    let (device, queue) = pollster::block_on(adapter.request_device(&Default::default()))?;
    let ctx = GpuContext::from_device(device, queue, adapter.get_info());

    let options = LoadOptions::default();
    let mut character = load_gltf(&ctx, skel::DEFAULT_CHARACTER, &options)?;
    let format = RenderFormat::default(); // Rgba8UnormSrgb colour, Depth32Float depth, 1 sample
    let renderer = AssetRenderer::new(&ctx, &character, &format)?;
    let target = Vec3::new(0.0, 0.9, 0.0); // orbit around the hips, 4 m away
    let camera = Camera::orbit(target, 4.0, 0.6, 0.2, 1.0, options.handedness);
    renderer.set_camera(&ctx.queue, &camera);
    let color = attachment(&ctx.device, format.color);
    let depth = attachment(&ctx.device, format.depth);

    // One player per character over the asset's compiled rig: layers, in seconds.
    let mut player = Player::new(&character.rig);
    player.add_layer(LayerDesc::new(character.clip_index("Walk").unwrap_or(0)))?;
    for _frame in 0..60 {
        player.tick(1.0 / 60.0, &mut character.pose_sink(&ctx.queue)); // bones + morph weights
        renderer.set_world_matrices(&ctx.queue, &character, player.world_matrices()); // nodes
        let mut encoder = ctx.device.create_command_encoder(&Default::default());
        let mut pass = encoder.begin_render_pass(&wgpu::RenderPassDescriptor {
            color_attachments: &[Some(wgpu::RenderPassColorAttachment {
                view: &color,
                depth_slice: None,
                resolve_target: None,
                ops: wgpu::Operations::default(), // clear to black, store
            })],
            depth_stencil_attachment: Some(wgpu::RenderPassDepthStencilAttachment {
                view: &depth,
                depth_ops: Some(wgpu::Operations {
                    load: wgpu::LoadOp::Clear(1.0), // the far plane
                    store: wgpu::StoreOp::Store,
                }),
                stencil_ops: None,
            }),
            ..Default::default()
        });
        renderer.draw(&character, &mut pass)?;
        drop(pass);
        ctx.queue.submit([encoder.finish()]);
    }
    println!("drew 60 frames of {} draw calls", renderer.draw_count());
    Ok(())
}

/// A 512×512 render attachment of `format` (your program's swap-chain or offscreen texture).
fn attachment(device: &wgpu::Device, format: wgpu::TextureFormat) -> wgpu::TextureView {
    let texture = device.create_texture(&wgpu::TextureDescriptor {
        label: Some("my attachment"),
        size: wgpu::Extent3d {
            width: 512,
            height: 512,
            depth_or_array_layers: 1,
        },
        mip_level_count: 1,
        sample_count: 1,
        dimension: wgpu::TextureDimension::D2,
        format,
        usage: wgpu::TextureUsages::RENDER_ATTACHMENT,
        view_formats: &[],
    });
    texture.create_view(&Default::default())
}
