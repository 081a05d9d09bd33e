//! [`AssetRenderer`] as the [`ShowFrame`] of [`Frame::advance`](crate::Frame::advance): what
//! a frame changed, written into the renderer's uniforms and instances.

use skel_gpu::GpuContext;

use super::renderer::AssetRenderer;
use crate::{AssetContainer, FrameState, ShowFrame};

impl ShowFrame for AssetRenderer {
    /// Writes the nodes' world matrices, the animated properties (when the asset animates
    /// any) and, with root motion, the one instance that carries the character. Without root
    /// motion the instances stay as [`set_instances`](AssetRenderer::set_instances) left them.
    fn show(&mut self, ctx: &GpuContext, container: &AssetContainer, frame: &FrameState<'_>) {
        self.set_world_matrices(&ctx.queue, container, frame.world);
        if !frame.properties.is_empty() {
            self.set_properties(&ctx.queue, container, frame.properties);
        }
        if let Some(moved) = frame.root_instance {
            self.set_instances(ctx, &[moved]);
        }
    }
}
