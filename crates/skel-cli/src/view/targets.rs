//! `skel view --graph`: the graph's IK and look-at targets moved with the mouse. Tab selects
//! the next target; Shift + left drag, or a right drag, moves the selected one across the
//! screen on the plane through it facing the camera ([`pick`](super::pick)). Each change is
//! one stdout line (`target NAME = X,Y,Z`), so scripts and tests can follow it.
//!
//! Kept apart from winit: the window hands it a camera, a cursor and a window size, and it
//! sets the parameter on the graph instance. The event rules are tested without a window.

use glam::{Vec2, Vec3};
use skel::graph::{Graph, GraphInstance, ParamId, ParamValue};
use skel::render::Camera;

/// The targets the mouse reaches and which one it moves.
#[derive(Debug, Clone)]
pub(super) struct Targets {
    /// The graph's target parameters ([`Graph::target_params`]), in declared order.
    params: Vec<(ParamId, String)>,
    /// Index into `params`.
    selected: usize,
    /// Whether a drag is moving the selected target.
    dragging: bool,
}

impl Targets {
    /// The targets of `graph`'s pose operations (none when it has no operation).
    pub(super) fn new(graph: &Graph) -> Self {
        let params = graph
            .target_params()
            .into_iter()
            .filter_map(|id| {
                graph
                    .params()
                    .find(|&(p, _, _)| p == id)
                    .map(|(_, name, _)| (id, name.to_owned()))
            })
            .collect();
        Self {
            params,
            selected: 0,
            dragging: false,
        }
    }

    /// The selected target's name.
    pub(super) fn selected(&self) -> Option<&str> {
        self.params.get(self.selected).map(|(_, n)| n.as_str())
    }

    /// Where the selected target is now.
    pub(super) fn selected_at(&self, instance: &GraphInstance) -> Option<Vec3> {
        vec3(instance, self.params.get(self.selected)?.0)
    }

    /// Selects the next target (wrapping) and says which, and where it is now.
    pub(super) fn cycle(&mut self, instance: &GraphInstance) -> Option<String> {
        if self.params.is_empty() {
            return None;
        }
        self.selected = (self.selected + 1) % self.params.len();
        let (id, name) = &self.params[self.selected];
        let at = vec3(instance, *id)?;
        Some(format!("target {name} selected at {}", text(at)))
    }

    /// Starts moving the selected target; `false` when the graph has none (the drag is the
    /// camera's then).
    pub(super) fn begin(&mut self) -> bool {
        self.dragging = !self.params.is_empty();
        self.dragging
    }

    /// Whether a drag is moving a target.
    pub(super) fn dragging(&self) -> bool {
        self.dragging
    }

    /// Ends the drag.
    pub(super) fn end(&mut self) {
        self.dragging = false;
    }

    /// While dragging: puts the selected target under `cursor` (physical pixels of a window
    /// `size` pixels large, seen through `camera`), on the plane through where it is now
    /// facing the camera, and says where. `None` when not dragging, or when the cursor's ray
    /// misses the plane (nothing changes then).
    pub(super) fn drag(
        &self,
        instance: &mut GraphInstance,
        camera: &Camera,
        cursor: Vec2,
        size: Vec2,
    ) -> Option<String> {
        if !self.dragging {
            return None;
        }
        let (id, name) = self.params.get(self.selected)?;
        let now = vec3(instance, *id)?;
        let to = super::pick::drag_point(camera.view_projection(), camera.back, cursor, size, now)?;
        instance.set(*id, ParamValue::Vec3(to)).ok()?;
        Some(format!("target {name} = {}", text(to)))
    }
}

/// Parameter `id`'s vector, when it is a vec3.
fn vec3(instance: &GraphInstance, id: ParamId) -> Option<Vec3> {
    match instance.get(id)? {
        ParamValue::Vec3(v) => Some(v),
        _ => None,
    }
}

/// A point as `--set` takes it back (`X,Y,Z`), to a tenth of a millimetre.
fn text(v: Vec3) -> String {
    format!("{:.4},{:.4},{:.4}", v.x, v.y, v.z)
}

#[cfg(test)]
mod tests {
    use std::sync::Arc;

    use glam::{Vec2, Vec3, Vec4Swizzles as _};
    use skel::anim::{Handedness, Rig};
    use skel::graph::{Graph, GraphInstance, ParamValue};
    use skel::render::Camera;

    use super::Targets;

    const SIZE: Vec2 = Vec2::new(640.0, 480.0);

    /// A graph file of the repository's `graphs/` folder, read at run time (a crate includes
    /// only its own files).
    fn graph_file(name: &str) -> String {
        let path = format!("{}/../../graphs/{name}", env!("CARGO_MANIFEST_DIR"));
        std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{path}: {e}"))
    }

    /// A graph file's instance on the built-in character.
    fn instance(json: &str) -> GraphInstance {
        let options = skel::gltf::LoadOptions {
            handedness: Handedness::LeftHanded,
            decode_images: false,
        };
        let asset = skel::gltf::load_slice(skel::DEFAULT_CHARACTER, None, &options).unwrap();
        let rig = Rig::new(Arc::new(asset.animation)).unwrap();
        GraphInstance::new(&Graph::from_json(json, &rig).unwrap())
    }

    /// graphs/ik_gallery.json on the built-in character.
    fn gallery() -> GraphInstance {
        instance(&graph_file("ik_gallery.json"))
    }

    fn value(instance: &GraphInstance, name: &str) -> Vec3 {
        match instance.get(instance.param_id(name).unwrap()) {
            Some(ParamValue::Vec3(v)) => v,
            other => panic!("{name}: {other:?}"),
        }
    }

    fn pixel(camera: &Camera, p: Vec3) -> Vec2 {
        let clip = camera.view_projection() * p.extend(1.0);
        let ndc = clip.xy() / clip.w;
        Vec2::new((ndc.x + 1.0) * 0.5 * SIZE.x, (1.0 - ndc.y) * 0.5 * SIZE.y)
    }

    #[test]
    fn tab_cycles_the_operation_targets_and_skips_the_poles() {
        let instance = gallery();
        let mut targets = Targets::new(instance.graph());
        // The gallery's targets in declared order; "elbow" and "knees" are poles.
        let mut seen = vec![targets.selected().unwrap().to_owned()];
        for _ in 0..5 {
            let line = targets.cycle(&instance).unwrap();
            let name = targets.selected().unwrap().to_owned();
            assert!(
                line.starts_with(&format!("target {name} selected at ")),
                "{line}"
            );
            seen.push(name);
        }
        assert_eq!(
            seen,
            ["hand", "reach", "point", "left_step", "right_step", "hand"]
        );
    }

    #[test]
    fn a_drag_moves_the_selected_target_under_the_cursor() {
        let mut instance = gallery();
        let mut targets = Targets::new(instance.graph());
        let camera = Camera::orbit(
            Vec3::new(0.0, 0.9, 0.0),
            4.0,
            0.6,
            0.2,
            SIZE.x / SIZE.y,
            Handedness::LeftHanded,
        );
        let start = value(&instance, "hand");
        let cursor = pixel(&camera, start) + Vec2::new(40.0, -30.0);
        // Not dragging: the cursor moves nothing.
        assert!(targets.drag(&mut instance, &camera, cursor, SIZE).is_none());
        assert_eq!(value(&instance, "hand"), start);
        assert!(targets.begin());
        let line = targets.drag(&mut instance, &camera, cursor, SIZE).unwrap();
        let moved = value(&instance, "hand");
        assert!(line.starts_with("target hand = "), "{line}");
        assert!((moved - start).length() > 0.05, "{start} -> {moved}");
        // On the plane through where it was, facing the camera, and drawn under the cursor.
        assert!((moved - start).dot(camera.back).abs() < 1e-4);
        assert!((pixel(&camera, moved) - cursor).length() < 0.05);
        // The other targets stay.
        assert_eq!(value(&instance, "reach"), Vec3::new(0.35, 1.75, 0.3));
        // After the release the cursor moves nothing again.
        targets.end();
        assert!(!targets.dragging());
        assert!(
            targets
                .drag(&mut instance, &camera, Vec2::new(5.0, 5.0), SIZE)
                .is_none()
        );
        assert_eq!(value(&instance, "hand"), moved);
        // The next target is the one the next drag moves.
        targets.cycle(&instance);
        assert!(targets.begin());
        targets
            .drag(&mut instance, &camera, SIZE * 0.5, SIZE)
            .unwrap();
        assert_eq!(value(&instance, "hand"), moved);
        assert_ne!(value(&instance, "reach"), Vec3::new(0.35, 1.75, 0.3));
    }

    #[test]
    fn a_graph_without_operations_has_nothing_to_drag() {
        let instance = instance(&graph_file("default_character.json"));
        let mut targets = Targets::new(instance.graph());
        assert_eq!(targets.selected(), None);
        assert!(targets.cycle(&instance).is_none());
        // The drag stays the camera's.
        assert!(!targets.begin());
    }
}
