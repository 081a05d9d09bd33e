//! `skel view --crowd N`: a grid of N characters (their own phases and speeds, laid out and
//! first seen as `skel render --crowd` does: [`skel_demo::CrowdLayout`],
//! [`OrbitView::overlook`]), culled against the window's camera every frame (what is out of
//! view is neither skinned nor drawn), the drawn count on the title bar and stdout, and the
//! character under the mouse picked on a click (its triangles as posed, not its box) and
//! printed with its index and clip.
//!
//! `--posing cpu` (the default): CPU players, [`skel::Crowd::cull`], [`skel::CrowdPicker`]; the
//! picked character is boxed in amber and printed with its time, B shows every character's
//! box. `--posing gpu` (or `baked`: the pose pass from clips baked to skinning matrices): the
//! pose pass, [`skel::Crowd::encode_cull`] and [`skel::GpuCrowdPicker`]; the count comes back
//! from the GPU a frame or two late.

use glam::{Mat4, Vec2};
use skel::render::{Camera, CrowdRenderer, RenderFormat};
use skel::{AssetContainer, Crowd, CrowdHit, CrowdPicker, GpuCrowdPicker, SkelError};
use skel_demo::{CrowdLayout, OrbitView};

use super::pick::cursor_ray;
use crate::render::crowd::{CrowdPosing, CrowdSpec, make_crowd};
use crate::render::crowd_boxes::{BoxCounts, Boxes, CrowdBoxes};

/// Who picks: the CPU over CPU players, or the GPU over the GPU-posed crowd.
enum Picker {
    Cpu(CrowdPicker),
    Gpu(GpuCrowdPicker),
}

/// The crowd, where its characters stand, its drawer, boxes and picker.
pub(super) struct LiveCrowd {
    crowd: Crowd,
    placements: Vec<Mat4>,
    scene: CrowdRenderer,
    boxes: CrowdBoxes,
    picker: Picker,
    /// Every character's box drawn (B), or only the picked one's.
    all_boxes: bool,
    picked: Option<u32>,
    /// How many characters the last frame kept and culled.
    counts: BoxCounts,
    clip: Option<usize>,
    paused: bool,
}

impl LiveCrowd {
    /// `count` characters of `character` playing `clip` (the rest pose without one), posed
    /// where `posing` says (the CPU for an asset without clips), and the orbit that first sees them
    /// for a window of aspect `aspect`: the view `skel render --crowd` draws
    /// ([`OrbitView::overlook`]).
    pub(super) fn new(
        ctx: &skel::gpu::GpuContext,
        character: &AssetContainer,
        (format, aspect): (&RenderFormat, f32),
        (count, clip): (u32, Option<usize>),
        (posing, handedness): (CrowdPosing, skel::anim::Handedness),
    ) -> Result<(Self, OrbitView), String> {
        let max = crate::render::crowd::MAX_CROWD;
        if !(1..=max).contains(&count) {
            return Err(format!("--crowd must be from 1 to {max}, got {count}"));
        }
        let clip = clip.or((!character.animation.clips.is_empty()).then_some(0));
        let e = |e: crate::render::RenderError| e.to_string();
        let grid =
            CrowdLayout::new(character, clip, count, handedness).map_err(|e| e.to_string())?;
        let spec = CrowdSpec {
            count,
            posing,
            boxes: false,
            cull_view: 1.0,
        };
        let (mut crowd, _) = make_crowd(ctx, character, &spec, clip, grid.duration).map_err(e)?;
        let s = |e: SkelError| e.to_string();
        let picker = if crowd.posed_on_gpu() {
            crowd.set_placements(ctx, &grid.placements).map_err(s)?;
            Picker::Gpu(GpuCrowdPicker::new(ctx, character, &crowd).map_err(s)?)
        } else {
            Picker::Cpu(CrowdPicker::new(character))
        };
        let scene = CrowdRenderer::new(
            ctx,
            character,
            &crowd,
            &grid.world,
            &grid.placements,
            format,
        )
        .map_err(|e| e.to_string())?;
        let boxes = CrowdBoxes::new(ctx, format, grid.extent.max_element() * 0.008).map_err(e)?;
        let view = OrbitView::overlook(&grid.corners, aspect, handedness);
        let live = Self {
            crowd,
            placements: grid.placements,
            scene,
            boxes,
            picker,
            all_boxes: false,
            picked: None,
            counts: BoxCounts::default(),
            clip,
            paused: false,
        };
        Ok((live, view))
    }

    /// Advances every player by `dt` seconds, culls against `camera`, and records the upload
    /// and skinning of what is left into `encoder`.
    pub(super) fn tick(
        &mut self,
        ctx: &skel::gpu::GpuContext,
        dt: f32,
        camera: &Camera,
        encoder: &mut wgpu::CommandEncoder,
    ) -> Result<(), String> {
        let s = |e: SkelError| e.to_string();
        self.crowd.tick(if self.paused { 0.0 } else { dt });
        self.scene.set_camera(&ctx.queue, camera);
        if self.crowd.posed_on_gpu() {
            self.crowd.upload(ctx, encoder).map_err(s)?;
            self.crowd
                .encode_cull(ctx, encoder, camera.view_projection())
                .map_err(s)?;
            // The count of a frame or two ago (the list itself stays on the GPU).
            if let Some(kept) = self.crowd.gpu_visible_count(ctx) {
                let all = self.crowd.gpu().instance_count();
                self.counts = BoxCounts {
                    kept: kept as usize,
                    culled: all.saturating_sub(kept) as usize,
                };
            }
        } else {
            self.crowd
                .cull(camera.view_projection(), &self.placements)
                .map_err(s)?;
            self.boxes.set_camera(&ctx.queue, camera);
            self.counts = self.update_boxes(ctx);
            self.crowd.upload(ctx, encoder).map_err(s)?;
        }
        self.crowd.skin(encoder);
        self.scene.place(encoder);
        Ok(())
    }

    /// The boxes to draw: every one with B, else only the picked character's.
    fn update_boxes(&mut self, ctx: &skel::gpu::GpuContext) -> BoxCounts {
        let shown = if self.all_boxes {
            Boxes::All
        } else {
            Boxes::PickedOnly
        };
        self.boxes
            .update(ctx, &self.crowd, &self.placements, self.picked, shown)
    }

    /// Draws the culled crowd and its boxes into `pass`.
    pub(super) fn draw(&self, character: &AssetContainer, pass: &mut wgpu::RenderPass<'_>) {
        self.scene.draw(character, pass);
        self.boxes.draw(pass);
    }

    /// Picks the character under `cursor` (window pixels) of a window `size` pixels seen by
    /// `camera`; the line to print.
    pub(super) fn pick(
        &mut self,
        ctx: &skel::gpu::GpuContext,
        character: &AssetContainer,
        camera: &Camera,
        (cursor, size): (Vec2, Vec2),
    ) -> String {
        let Some(ray) = cursor_ray(camera.view_projection(), cursor, size) else {
            return "picked nothing (no ray through the cursor)".to_owned();
        };
        let picked: Result<Option<CrowdHit>, SkelError> = match &mut self.picker {
            Picker::Cpu(picker) => picker.pick(
                &self.crowd,
                character,
                &self.placements,
                ray.origin,
                ray.dir,
            ),
            Picker::Gpu(picker) => picker.pick(ctx, ray.origin, ray.dir),
        };
        match picked {
            Ok(Some(hit)) => {
                self.picked = Some(hit.instance);
                let clip = match self.clip {
                    Some(c) => format!(
                        "clip {c} {:?}",
                        character
                            .animation
                            .clips
                            .get(c)
                            .map_or("", |k| k.name.as_str())
                    ),
                    None => "rest pose".to_owned(),
                };
                // A GPU-posed character's playhead lives on the GPU.
                let time = self
                    .crowd
                    .players
                    .get(hit.instance as usize)
                    .and_then(|p| p.layers().first())
                    .map_or_else(String::new, |l| format!(" at {:.2} s", l.clock().time()));
                format!(
                    "picked instance {} ({clip}{time}), mesh {} triangle {} at {:.3}",
                    hit.instance, hit.hit.mesh, hit.hit.triangle, hit.hit.distance
                )
            }
            Ok(None) => {
                self.picked = None;
                "picked nothing".to_owned()
            }
            Err(e) => format!("cannot pick: {e}"),
        }
    }

    /// Shows or hides every character's box (B).
    pub(super) fn toggle_boxes(&mut self) {
        self.all_boxes = !self.all_boxes;
    }

    /// Pauses or plays every character (Space).
    pub(super) fn toggle_pause(&mut self) {
        self.paused = !self.paused;
    }

    /// `crowd N | V drawn | picked I`, for the title bar and stdout.
    pub(super) fn summary(&self) -> String {
        let picked = self
            .picked
            .map_or_else(|| "none".to_owned(), |i| i.to_string());
        format!(
            "crowd {} | {} drawn, {} culled | {} | picked {picked}",
            self.crowd.gpu().instance_count(),
            self.counts.kept,
            self.counts.culled,
            if self.paused { "paused" } else { "playing" },
        )
    }
}
