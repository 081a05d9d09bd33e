//! The viewer's frame and its controls: keys, clip selection, the readout, drawing.

use std::time::Instant;

use skel::render::{BACKGROUND, Camera};
use winit::event::{ElementState, MouseButton};
use winit::keyboard::{Key, NamedKey};

use super::Viewer;

impl Viewer {
    /// Handles a key press; `true` asks to close.
    pub(super) fn key(&mut self, key: &Key) -> bool {
        if let Some(graph) = &mut self.graph
            && graph.key(key)
        {
            self.report(true);
            return false;
        }
        if let Some(crowd) = &mut self.crowd {
            match key.as_ref() {
                Key::Named(NamedKey::Space) => {
                    crowd.toggle_pause();
                    self.report(true);
                    return false;
                }
                Key::Character(c) if c.eq_ignore_ascii_case("b") => {
                    crowd.toggle_boxes();
                    self.report(true);
                    return false;
                }
                _ => {}
            }
        }
        let clips = self.character.animation_groups.len();
        match key.as_ref() {
            Key::Named(NamedKey::Escape) => return true,
            Key::Named(NamedKey::Space) => {
                if let Some(g) = self.character.animation_groups.get_mut(self.clip) {
                    if g.is_playing() {
                        g.pause();
                    } else {
                        g.play();
                    }
                }
            }
            Key::Named(NamedKey::ArrowRight) if clips > 0 => self.select((self.clip + 1) % clips),
            Key::Named(NamedKey::ArrowLeft) if clips > 0 => {
                self.select((self.clip + clips - 1) % clips);
            }
            Key::Character(c) => match c.to_ascii_lowercase().as_str() {
                "q" => return true,
                "n" if clips > 0 => self.select((self.clip + 1) % clips),
                "p" if clips > 0 => self.select((self.clip + clips - 1) % clips),
                "+" | "=" => self.set_speed(self.speed * 2.0),
                "-" | "_" => self.set_speed(self.speed * 0.5),
                "a" => self.orbit.turn(0.2, 0.0),
                "d" => self.orbit.turn(-0.2, 0.0),
                "w" => self.orbit.turn(0.0, 0.1),
                "s" => self.orbit.turn(0.0, -0.1),
                _ => {}
            },
            _ => {}
        }
        self.report(true);
        false
    }

    /// A mouse button: the left one orbits; with Shift held, or the right one, it moves the
    /// graph's selected target instead (when the graph has targets).
    pub(super) fn mouse_button(&mut self, state: ElementState, button: MouseButton) {
        let pressed = state == ElementState::Pressed;
        let wants_target =
            button == MouseButton::Right || (button == MouseButton::Left && self.shift);
        if pressed
            && wants_target
            && let Some(graph) = &mut self.graph
            && graph.targets_mut().begin()
        {
            // The target jumps under the cursor at once, on its plane facing the camera.
            self.drag_target();
            return;
        }
        if !pressed && let Some(graph) = &mut self.graph {
            graph.targets_mut().end();
        }
        if button == MouseButton::Left {
            self.drag = pressed.then_some(self.cursor);
            let press = self.press.take();
            if pressed {
                self.press = Some(self.cursor);
            } else if let Some((x, y)) = press
                && (x - self.cursor.0).hypot(y - self.cursor.1) < 4.0
            {
                self.click();
            }
        }
    }

    /// A left click (pressed and released within a few pixels): in a crowd, picks the
    /// character under the cursor and prints what was picked.
    fn click(&mut self) {
        let camera = self.camera();
        let (cursor, size) = self.cursor_in_window();
        if let Some(crowd) = &mut self.crowd {
            let line = crowd.pick(&self.gpu.ctx, &self.character, &camera, (cursor, size));
            println!("{line}");
            self.report(true);
        }
    }

    /// Moves the graph's selected target under the cursor (during a target drag).
    pub(super) fn drag_target(&mut self) {
        let camera = self.camera();
        let (cursor, size) = self.cursor_in_window();
        if let Some(graph) = &mut self.graph
            && graph.drag_target(&camera, cursor, size)
        {
            self.report(true);
        }
    }

    /// The cursor and the window's size, in physical pixels.
    fn cursor_in_window(&self) -> (glam::Vec2, glam::Vec2) {
        let size = self.window.inner_size();
        #[expect(
            clippy::cast_possible_truncation,
            reason = "pixel positions of a window"
        )]
        let cursor = glam::Vec2::new(self.cursor.0 as f32, self.cursor.1 as f32);
        (
            cursor,
            glam::Vec2::new(size.width as f32, size.height as f32),
        )
    }

    /// The orbit camera as it is now.
    fn camera(&self) -> Camera {
        self.orbit.camera(self.gpu.aspect())
    }

    /// Plays clip `clip` from its start.
    pub(super) fn select(&mut self, clip: usize) {
        self.clip = clip;
        if let Some(g) = self.character.animation_groups.get_mut(clip) {
            g.set_looping(true);
            g.set_speed_ratio(self.speed);
            g.restart();
            g.play();
        }
        self.report(true);
    }

    fn set_speed(&mut self, speed: f32) {
        self.speed = speed.clamp(1.0 / 64.0, 64.0);
        if let Some(g) = self.character.animation_groups.get_mut(self.clip) {
            g.set_speed_ratio(self.speed);
        }
    }

    /// Title bar and stdout: clip, speed, state and frame time; on every change (`now`) and
    /// once a second.
    fn report(&mut self, now: bool) {
        if !now && self.last_report.elapsed().as_secs_f32() < 1.0 {
            return;
        }
        self.last_report = Instant::now();
        let (name, playing) = self
            .character
            .animation_groups
            .get(self.clip)
            .map_or(("rest pose", false), |g| (g.name(), g.is_playing()));
        let line = match (&self.graph, &self.crowd) {
            (_, Some(crowd)) => format!(
                "{} | {:.1} ms/frame | frame {}",
                crowd.summary(),
                self.frame_ms,
                self.frames
            ),
            (graph, None) => match graph {
                Some(graph) => format!(
                    "graph {} | {:.1} ms/frame | frame {}",
                    graph.summary(),
                    self.frame_ms,
                    self.frames
                ),
                None => format!(
                    "clip {} {name:?} | {} | speed {}x | {}{:.1} ms/frame | frame {}",
                    self.clip,
                    if playing { "playing" } else { "paused" },
                    self.speed,
                    self.feet
                        .as_ref()
                        .map_or_else(String::new, |f| format!("{} | ", f.summary())),
                    self.frame_ms,
                    self.frames
                ),
            },
        };
        self.window.set_title(&format!("skel view | {line}"));
        println!("{line}");
    }

    /// Advances the animation by the wall-clock time since the last frame, draws and presents;
    /// with `capture`, returns what was presented.
    pub(super) fn frame(&mut self, capture: bool) -> Result<Option<image::RgbaImage>, String> {
        let wall = self.last.elapsed().as_secs_f32();
        self.last = Instant::now();
        let dt_ms = wall * 1000.0;
        let dt = self.fixed_dt.unwrap_or(wall);
        self.frame_ms = if self.frames == 0 {
            dt_ms
        } else {
            0.9 * self.frame_ms + 0.1 * dt_ms
        };
        let (ctx, clip) = (&self.gpu.ctx, self.clip);
        // The facade's frame: bones, node transforms, animated properties and root motion,
        // written into the renderer.
        let (character, renderer, frame) =
            (&mut self.character, &mut self.renderer, &mut self.frame);
        let advanced = if self.crowd.is_some() {
            // The crowd's players advance in its own tick, with the encoder below.
            Ok(())
        } else if let Some(graph) = &mut self.graph {
            frame.advance(ctx, character, graph, dt, renderer)
        } else if let Some(feet) = &mut self.feet {
            feet.follow_group(dt, clip, character);
            frame.advance(ctx, character, feet.player_mut(), dt, renderer)
        } else {
            // The group is lent out of the container for the frame, which borrows both.
            let mut groups = std::mem::take(&mut character.animation_groups);
            let advanced = match groups.get_mut(clip) {
                Some(group) => frame.advance(ctx, character, group, dt, renderer),
                None => Ok(()),
            };
            character.animation_groups = groups;
            advanced
        };
        advanced.map_err(|e| e.to_string())?;
        let camera = self.camera();
        self.renderer.set_camera(&ctx.queue, &camera);
        if let Some(ground) = &self.ground {
            ground.set_camera(&ctx.queue, &camera);
        }
        if let (Some(marker), Some(graph)) = (&mut self.marker, &self.graph) {
            marker.place(ctx, graph.selected_target_at());
            marker.drawer().set_camera(&ctx.queue, &camera);
        }
        let Some(frame) = self.gpu.acquire() else {
            return Ok(None);
        };
        let mut encoder = ctx.device.create_command_encoder(&Default::default());
        if let Some(crowd) = &mut self.crowd {
            crowd.tick(ctx, dt, &camera, &mut encoder)?;
        }
        {
            let mut pass = encoder.begin_render_pass(&wgpu::RenderPassDescriptor {
                label: Some("skel view"),
                color_attachments: &[Some(self.gpu.color_attachment(&frame, BACKGROUND))],
                depth_stencil_attachment: Some(self.gpu.depth_attachment()),
                ..Default::default()
            });
            if let Some(ground) = &self.ground {
                ground.draw(&mut pass);
            }
            if let Some(crowd) = &self.crowd {
                crowd.draw(&self.character, &mut pass);
            } else {
                self.renderer
                    .draw(&self.character, &mut pass)
                    .map_err(|e| e.to_string())?;
            }
            if let Some(marker) = &self.marker {
                marker.drawer().draw(&mut pass);
            }
        }
        let capture = capture
            .then(|| self.gpu.encode_capture(&mut encoder, frame.texture()))
            .flatten();
        ctx.queue.submit([encoder.finish()]);
        self.window.pre_present_notify();
        frame.present(&ctx.queue);
        self.frames += 1;
        self.report(false);
        capture.map(|buffer| self.gpu.read(&buffer)).transpose()
    }
}
