//! What the user does on the page between two frames: drags and wheel turns on the canvas
//! (the orbit camera), where the pointer is over the canvas (the slope scene's look-at), a
//! `.glb` picked in `#file` or dropped on the canvas, and the clip chosen in `#clip`. Event listeners only record into cells; [`Input::take`] hands the frame
//! everything since the last one, so no listener touches the scene.

use std::cell::{Cell, RefCell};
use std::rc::Rc;

use wasm_bindgen::JsCast as _;
use wasm_bindgen::prelude::*;

use crate::WebError;

/// A `.glb` (or `.vrm`) the user opened: its name and bytes, once read.
type OpenedFile = Rc<RefCell<Option<(String, Vec<u8>)>>>;

/// What happened since the last frame.
#[derive(Debug, Default)]
pub(crate) struct Gestures {
    /// Pixels dragged with a button held.
    pub(crate) drag: (f32, f32),
    /// Wheel `deltaY` summed.
    pub(crate) wheel: f32,
    /// A `.glb` (or `.vrm`) the user picked or dropped: its name and bytes.
    pub(crate) file: Option<(String, Vec<u8>)>,
    /// Where the pointer last was over the canvas, in normalised device coordinates (none
    /// before it first moved there).
    pub(crate) pointer: Option<glam::Vec2>,
}

/// The page's listeners and what they recorded.
pub(crate) struct Input {
    drag: Rc<Cell<(f32, f32)>>,
    wheel: Rc<Cell<f32>>,
    pointer: Rc<Cell<Option<glam::Vec2>>>,
    file: OpenedFile,
    /// Kept alive as long as the page listens.
    _listeners: Vec<Closure<dyn FnMut(web_sys::Event)>>,
}

impl Input {
    /// Listens on `canvas` (pointer drags, wheel, drops) and on `#file` when the page has one.
    ///
    /// # Errors
    /// [`WebError::Page`] when a listener cannot be added.
    pub(crate) fn listen(
        document: &web_sys::Document,
        canvas: &web_sys::HtmlCanvasElement,
    ) -> Result<Self, WebError> {
        let drag = Rc::new(Cell::new((0.0_f32, 0.0_f32)));
        let wheel = Rc::new(Cell::new(0.0_f32));
        let pointer = Rc::new(Cell::new(None));
        let file: OpenedFile = Rc::new(RefCell::new(None));
        let mut listeners = Vec::new();
        let mut on = |target: &web_sys::EventTarget,
                      name: &str,
                      f: Box<dyn FnMut(web_sys::Event)>|
         -> Result<(), WebError> {
            let closure = Closure::wrap(f);
            target
                .add_event_listener_with_callback(name, closure.as_ref().unchecked_ref())
                .map_err(|_| WebError::Page {
                    what: "event listeners",
                })?;
            listeners.push(closure);
            Ok(())
        };
        let cell = Rc::clone(&drag);
        let at = Rc::clone(&pointer);
        let area = canvas.clone();
        on(
            canvas,
            "pointermove",
            Box::new(move |e| {
                let Some(e) = e.dyn_ref::<web_sys::PointerEvent>() else {
                    return;
                };
                #[expect(clippy::cast_precision_loss, reason = "pixels")]
                let ndc = crate::canvas_ndc(
                    e.offset_x() as f32,
                    e.offset_y() as f32,
                    area.client_width() as f32,
                    area.client_height() as f32,
                );
                if ndc.is_some() {
                    at.set(ndc);
                }
                if e.buttons() != 0 {
                    let (x, y) = cell.get();
                    #[expect(clippy::cast_precision_loss, reason = "pixels")]
                    cell.set((x + e.movement_x() as f32, y + e.movement_y() as f32));
                }
            }),
        )?;
        let cell = Rc::clone(&wheel);
        on(
            canvas,
            "wheel",
            Box::new(move |e| {
                if let Some(e) = e.dyn_ref::<web_sys::WheelEvent>() {
                    e.prevent_default();
                    #[expect(clippy::cast_possible_truncation, reason = "wheel steps")]
                    cell.set(cell.get() + e.delta_y() as f32);
                }
            }),
        )?;
        on(canvas, "dragover", Box::new(|e| e.prevent_default()))?;
        let slot = Rc::clone(&file);
        on(
            canvas,
            "drop",
            Box::new(move |e| {
                e.prevent_default();
                let first = e
                    .dyn_ref::<web_sys::DragEvent>()
                    .and_then(web_sys::DragEvent::data_transfer)
                    .and_then(|d| d.files())
                    .and_then(|files| files.get(0));
                if let Some(f) = first {
                    read_into(f, Rc::clone(&slot));
                }
            }),
        )?;
        if let Some(picker) = document
            .get_element_by_id("file")
            .and_then(|e| e.dyn_into::<web_sys::HtmlInputElement>().ok())
        {
            let slot = Rc::clone(&file);
            let input = picker.clone();
            on(
                &picker,
                "change",
                Box::new(move |_| {
                    if let Some(f) = input.files().and_then(|files| files.get(0)) {
                        read_into(f, Rc::clone(&slot));
                    }
                }),
            )?;
        }
        Ok(Self {
            drag,
            wheel,
            pointer,
            file,
            _listeners: listeners,
        })
    }

    /// Everything recorded since the last call.
    pub(crate) fn take(&self) -> Gestures {
        Gestures {
            drag: self.drag.replace((0.0, 0.0)),
            wheel: self.wheel.replace(0.0),
            pointer: self.pointer.get(),
            file: self.file.borrow_mut().take(),
        }
    }
}

/// Reads `file` asynchronously into `slot` (a failed read is reported on the page).
fn read_into(file: web_sys::File, slot: OpenedFile) {
    wasm_bindgen_futures::spawn_local(async move {
        match wasm_bindgen_futures::JsFuture::from(file.array_buffer()).await {
            Ok(buffer) => {
                let bytes = js_sys::Uint8Array::new(&buffer).to_vec();
                *slot.borrow_mut() = Some((file.name(), bytes));
            }
            Err(_) => crate::page::report_error(&format!("cannot read {}", file.name())),
        }
    });
}
