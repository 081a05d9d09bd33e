//! The DOM the demo touches: the canvas, the status line, and `<body>`'s `data-skel-*`
//! attributes that scripts (the headless check) wait for.

use wasm_bindgen::JsCast as _;

use crate::{PageParams, WebError};

/// The page's elements, looked up once.
pub(crate) struct Page {
    window: web_sys::Window,
    body: web_sys::HtmlElement,
    status: Option<web_sys::Element>,
    stats: Option<web_sys::Element>,
    /// `<select id="clip">` and `<input id="crowd">`, read every frame.
    clip: Option<web_sys::HtmlSelectElement>,
    crowd: Option<web_sys::HtmlInputElement>,
    /// The slope scene's panel and its `#feet` and `#look` toggles, read every frame.
    slope_panel: Option<web_sys::HtmlElement>,
    feet: Option<web_sys::HtmlInputElement>,
    look: Option<web_sys::HtmlInputElement>,
    /// `<canvas id="skel">`.
    pub(crate) canvas: web_sys::HtmlCanvasElement,
}

impl Page {
    /// Finds `window`, `<body>`, `<canvas id="skel">` and the optional `#status`, `#stats`,
    /// `#clip`, `#crowd`, and the slope scene's `#slope-controls`, `#feet` and `#look`.
    pub(crate) fn find() -> Result<Self, WebError> {
        let window = web_sys::window().ok_or(WebError::Page { what: "window" })?;
        let document = window
            .document()
            .ok_or(WebError::Page { what: "document" })?;
        let body = document.body().ok_or(WebError::Page { what: "<body>" })?;
        let canvas = document
            .get_element_by_id("skel")
            .and_then(|e| e.dyn_into::<web_sys::HtmlCanvasElement>().ok())
            .ok_or(WebError::Page {
                what: "<canvas id=\"skel\">",
            })?;
        Ok(Self {
            status: document.get_element_by_id("status"),
            stats: document.get_element_by_id("stats"),
            clip: document
                .get_element_by_id("clip")
                .and_then(|e| e.dyn_into().ok()),
            crowd: document
                .get_element_by_id("crowd")
                .and_then(|e| e.dyn_into().ok()),
            slope_panel: document
                .get_element_by_id("slope-controls")
                .and_then(|e| e.dyn_into().ok()),
            feet: document
                .get_element_by_id("feet")
                .and_then(|e| e.dyn_into().ok()),
            look: document
                .get_element_by_id("look")
                .and_then(|e| e.dyn_into().ok()),
            window,
            body,
            canvas,
        })
    }

    /// The window (requestAnimationFrame, fetch, performance).
    pub(crate) fn window(&self) -> &web_sys::Window {
        &self.window
    }

    /// The query string's parameters.
    pub(crate) fn params(&self) -> Result<PageParams, WebError> {
        let search = self.window.location().search().unwrap_or_default();
        let query =
            web_sys::UrlSearchParams::new_with_str(&search).map_err(|_| WebError::Page {
                what: "parsable query string",
            })?;
        let pair = |key: &str| query.get(key).map(|v| (key.to_owned(), v));
        PageParams::from_pairs(
            [
                "backend", "asset", "t", "test", "graph", "crowd", "scene", "springs",
            ]
            .into_iter()
            .filter_map(pair),
        )
    }

    /// Milliseconds since page load (`performance.now()`), 0 without a performance object.
    pub(crate) fn now_ms(&self) -> f64 {
        self.window.performance().map_or(0.0, |p| p.now())
    }

    /// Shows `text` in `#status` (as news, not as an error).
    pub(crate) fn set_status(&self, text: &str) {
        if let Some(status) = &self.status {
            status.set_text_content(Some(text));
            let _ = status.remove_attribute("class");
        }
        if let Some(body) = self.window.document().and_then(|d| d.body()) {
            let _ = body.remove_attribute("data-skel-file-error");
        }
    }

    /// Says why the file `name` the user gave was not loaded, in `#status` styled as an
    /// error and in `<body data-skel-file-error>`, and logs it. Unlike [`Page::show_error`]
    /// the page goes on: the character before it still plays.
    pub(crate) fn refuse_file(&self, name: &str, error: &WebError) {
        let message = format!("{name} was not loaded: {error}; still playing the previous file");
        web_sys::console::warn_1(&format!("skel: {message}").into());
        if let Some(status) = &self.status {
            status.set_text_content(Some(&message));
            let _ = status.set_attribute("class", "error");
        }
        if let Some(body) = self.window.document().and_then(|d| d.body()) {
            let _ = body.set_attribute("data-skel-file-error", &message);
        }
    }

    /// Shows `text` in `#stats`.
    pub(crate) fn set_stats(&self, text: &str) {
        if let Some(stats) = &self.stats {
            stats.set_text_content(Some(text));
        }
    }

    /// Marks the page ready: `<body data-skel-ready="webgpu">`.
    pub(crate) fn set_ready(&self, backend: &str) {
        // Setting an attribute on <body> only fails for an invalid name; the name is fixed.
        let _ = self.body.set_attribute("data-skel-ready", backend);
    }

    /// Publishes the CPU pose of `?test=1`: `<body data-skel-pose="{…}">`, JSON with
    /// `nodes`, `positions` and `diagonal` (floats printed so that they parse back exactly).
    pub(crate) fn set_pose(&self, digest: &crate::PoseDigest) {
        let list = |v: &[f32]| {
            let items: Vec<String> = v.iter().map(f32::to_string).collect();
            format!("[{}]", items.join(","))
        };
        let json = format!(
            "{{\"nodes\":{},\"positions\":{},\"diagonal\":{}}}",
            list(&digest.nodes),
            list(&digest.positions),
            digest.diagonal
        );
        let _ = self.body.set_attribute("data-skel-pose", &json);
    }

    /// `<select id="clip">`, when the page has one.
    pub(crate) fn clip_select(&self) -> Option<&web_sys::HtmlSelectElement> {
        self.clip.as_ref()
    }

    /// The value chosen in `#clip`.
    pub(crate) fn clip_choice(&self) -> Option<String> {
        self.clip.as_ref().map(web_sys::HtmlSelectElement::value)
    }

    /// Whether `#crowd` is ticked.
    pub(crate) fn crowd_ticked(&self) -> bool {
        self.crowd.as_ref().is_some_and(|i| i.checked())
    }

    /// Shows the slope scene's toggles (`#slope-controls`), hidden in other scenes.
    pub(crate) fn show_slope_controls(&self) {
        if let Some(panel) = &self.slope_panel {
            panel.set_hidden(false);
        }
    }

    /// Whether `#feet` (foot placement on the slope) is ticked; on when the page lacks it.
    pub(crate) fn feet_ticked(&self) -> bool {
        self.feet
            .as_ref()
            .is_none_or(web_sys::HtmlInputElement::checked)
    }

    /// Whether `#look` (the look-at follows the pointer) is ticked; on when the page lacks it.
    pub(crate) fn look_ticked(&self) -> bool {
        self.look
            .as_ref()
            .is_none_or(web_sys::HtmlInputElement::checked)
    }

    /// Unticks and greys out `#crowd`, with `why` as its tooltip and in the status line
    /// (WebGL2 has no compute; an asset without a skinned mesh has no crowd).
    pub(crate) fn refuse_crowd(&self, why: &str) {
        if let Some(input) = &self.crowd {
            input.set_checked(false);
            input.set_disabled(true);
            input.set_title(why);
        }
        self.set_status(why);
    }

    /// Offers `#crowd` again (another asset was opened on WebGPU).
    pub(crate) fn allow_crowd(&self) {
        if let Some(input) = &self.crowd {
            input.set_disabled(false);
            input.set_title("");
        }
    }

    /// Empties `#controls` and the graph's state line (before another asset loads).
    pub(crate) fn clear_controls(&self) {
        if let Some(document) = self.window.document() {
            for id in ["controls", "graph-state"] {
                if let Some(e) = document.get_element_by_id(id) {
                    e.set_inner_html("");
                }
            }
        }
        let _ = self.body.remove_attribute("data-skel-state");
    }

    /// Sets `<body name="value">` (names are the page's own, so setting cannot fail).
    pub(crate) fn set_data(&self, name: &str, value: &str) {
        let _ = self.body.set_attribute(name, value);
    }

    /// Publishes the animation graph's states: `<body data-skel-state="locomotion: run; …">`.
    pub(crate) fn set_state(&self, text: &str) {
        let _ = self.body.set_attribute("data-skel-state", text);
    }

    /// Shows `error` on the page, sets `data-skel-error` and logs it to the console.
    pub(crate) fn show_error(&self, error: &WebError) {
        report_error(&error.to_string());
    }
}

/// Shows `message` in `#status` (or as `<body>`'s text when the page lacks one), sets
/// `<body data-skel-error>` and logs it; works even when [`Page::find`] failed.
pub(crate) fn report_error(message: &str) {
    web_sys::console::error_1(&format!("skel: {message}").into());
    let Some(document) = web_sys::window().and_then(|w| w.document()) else {
        return;
    };
    if let Some(status) = document.get_element_by_id("status") {
        status.set_text_content(Some(message));
        let _ = status.set_attribute("class", "error");
    }
    if let Some(body) = document.body() {
        let _ = body.set_attribute("data-skel-error", message);
        if document.get_element_by_id("status").is_none() {
            body.set_text_content(Some(message));
        }
    }
}
