//! The page's entry point: set up (asynchronously, never blocking the page) and run the
//! `requestAnimationFrame` loop until an error stops it.

use std::cell::RefCell;
use std::rc::Rc;

use wasm_bindgen::JsCast as _;
use wasm_bindgen::prelude::*;

use crate::WebError;
use crate::app::App;
use crate::gpu::CanvasGpu;
use crate::page::{Page, report_error};

/// Runs when the module is instantiated: starts the demo on the page's event loop.
#[wasm_bindgen(start)]
pub fn start() {
    // A panic would otherwise leave a trap in the console and a page that never says why.
    std::panic::set_hook(Box::new(|info| report_error(&format!("panic: {info}"))));
    wasm_bindgen_futures::spawn_local(async {
        match setup().await {
            Ok(app) => run(app),
            Err(error) => report_error(&error.to_string()),
        }
    });
}

/// Reads the query string, makes the GPU, fetches the asset and builds the app.
async fn setup() -> Result<App, WebError> {
    let page = Page::find()?;
    let params = page.params()?;
    page.set_status("starting the GPU…");
    let gpu = CanvasGpu::new(page.canvas.clone(), params.backend).await?;
    let glb = match &params.asset {
        Some(url) => {
            page.set_status(&format!("fetching {url}…"));
            fetch(page.window(), url).await?
        }
        None => skel::DEFAULT_CHARACTER.to_vec(),
    };
    if params.test {
        let clip = params.asset.is_none().then_some(crate::TEST_CLIP);
        page.set_pose(&crate::pose_digest(&glb, clip, &crate::TEST_TIMES)?);
    }
    let graph = match params.graph_url() {
        Some(url) => {
            page.set_status(&format!("fetching {url}…"));
            let bytes = fetch(page.window(), url).await?;
            Some(String::from_utf8(bytes).map_err(|_| WebError::Fetch {
                url: url.to_owned(),
                reason: "not UTF-8 text".to_owned(),
            })?)
        }
        None => None,
    };
    let crowd = params.crowd.unwrap_or(crate::DEFAULT_CROWD);
    let app = App::new(
        page,
        gpu,
        &glb,
        params.time,
        graph.as_deref(),
        crowd,
        crate::scene::Setup {
            kind: params.scene,
            test: params.test,
            springs: !params.no_springs,
        },
    )?;
    if params.test {
        app.publish_test();
    }
    Ok(app)
}

/// `fetch(url)` as bytes.
async fn fetch(window: &web_sys::Window, url: &str) -> Result<Vec<u8>, WebError> {
    let failed = |reason: String| WebError::Fetch {
        url: url.to_owned(),
        reason,
    };
    let response = wasm_bindgen_futures::JsFuture::from(window.fetch_with_str(url))
        .await
        .map_err(|e| failed(js_message(&e)))?;
    let response: web_sys::Response = response
        .dyn_into()
        .map_err(|_| failed("not a Response".to_owned()))?;
    if !response.ok() {
        return Err(failed(format!(
            "HTTP {} {}",
            response.status(),
            response.status_text()
        )));
    }
    let buffer = response
        .array_buffer()
        .map_err(|e| failed(js_message(&e)))?;
    let buffer = wasm_bindgen_futures::JsFuture::from(buffer)
        .await
        .map_err(|e| failed(js_message(&e)))?;
    Ok(js_sys::Uint8Array::new(&buffer).to_vec())
}

/// A JavaScript exception's text.
fn js_message(value: &JsValue) -> String {
    value
        .as_string()
        .or_else(|| {
            value
                .dyn_ref::<js_sys::Error>()
                .map(|e| String::from(e.message()))
        })
        .unwrap_or_else(|| format!("{value:?}"))
}

/// The callback `requestAnimationFrame` calls, kept alive by the cell that it re-schedules.
type FrameCallback = Rc<RefCell<Option<Closure<dyn FnMut(f64)>>>>;

/// Draws a frame on every `requestAnimationFrame` until a frame fails; the failure is shown.
fn run(app: App) {
    let callback: FrameCallback = Rc::new(RefCell::new(None));
    let again = Rc::clone(&callback);
    let mut app = app;
    *callback.borrow_mut() = Some(Closure::new(move |now_ms: f64| {
        if let Err(error) = app.frame(now_ms) {
            // Not scheduled again: the loop stops (the closure stays alive; dropping it while
            // it runs would free the code that is running).
            app.page().show_error(&error);
            return;
        }
        if let Some(cb) = again.borrow().as_ref() {
            request_frame(app.page().window(), cb);
        }
    }));
    if let (Some(window), Some(cb)) = (web_sys::window(), callback.borrow().as_ref()) {
        request_frame(&window, cb);
    }
}

/// Schedules `cb` for the next frame; a browser that refuses has no rAF, which the page says.
fn request_frame(window: &web_sys::Window, cb: &Closure<dyn FnMut(f64)>) {
    if window
        .request_animation_frame(cb.as_ref().unchecked_ref())
        .is_err()
    {
        report_error("requestAnimationFrame is not available");
    }
}
