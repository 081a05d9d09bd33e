//! Waiting for a buffer mapping without blocking a browser: natively the device is polled until
//! the mapping's callback has run; on wasm32 the wait yields to the page's event loop (WebGPU
//! resolves the mapping there, WebGL2's fences are checked between tasks) and polls again.

use std::sync::{Arc, Condvar, Mutex};

/// What `map_async` reports.
type MapResult = Result<(), wgpu::BufferAsyncError>;

/// How long a native wait gives the callback after the device is idle. Another thread's
/// `poll` may be the one that runs it, a moment after this thread's poll has returned.
#[cfg(not(target_arch = "wasm32"))]
const CALLBACK_GRACE: std::time::Duration = std::time::Duration::from_secs(60);

/// The slot a `map_async` callback fills (and signals) and [`MapWait::wait`] empties.
pub(crate) struct MapWait {
    slot: Arc<(Mutex<Option<MapResult>>, Condvar)>,
}

impl MapWait {
    /// An empty slot.
    pub(crate) fn new() -> Self {
        Self {
            slot: Arc::new((Mutex::new(None), Condvar::new())),
        }
    }

    /// The callback to hand to `map_async`: it stores the mapping's result in the slot and
    /// wakes a waiting thread.
    pub(crate) fn callback(&self) -> impl FnOnce(MapResult) + Send + 'static {
        let slot = Arc::clone(&self.slot);
        move |result| {
            if let Ok(mut stored) = slot.0.lock() {
                *stored = Some(result);
                slot.1.notify_all();
            }
        }
    }

    /// The stored result, if the callback has run.
    #[cfg(target_arch = "wasm32")]
    fn take(&self) -> Option<MapResult> {
        self.slot.0.lock().ok().and_then(|mut slot| slot.take())
    }

    /// Waits for the callback: the mapping's own result, or the reason the wait failed.
    pub(crate) async fn wait(self, device: &wgpu::Device) -> Result<MapResult, String> {
        #[cfg(not(target_arch = "wasm32"))]
        {
            device
                .poll(wgpu::PollType::wait_indefinitely())
                .map_err(|e| e.to_string())?;
            let (lock, ready) = &*self.slot;
            let stored = lock.lock().map_err(|e| e.to_string())?;
            let (mut stored, _) = ready
                .wait_timeout_while(stored, CALLBACK_GRACE, |s| s.is_none())
                .map_err(|e| e.to_string())?;
            stored
                .take()
                .ok_or_else(|| "the mapping callback did not run".to_owned())
        }
        #[cfg(target_arch = "wasm32")]
        loop {
            // A no-op on WebGPU; runs WebGL2's finished submissions' callbacks.
            let _ = device.poll(wgpu::PollType::Poll);
            if let Some(result) = self.take() {
                return Ok(result);
            }
            next_task().await;
        }
    }
}

/// Resolves on the next task of the page's event loop (`setTimeout(0)`), so that the browser
/// can finish GPU work and resolve promises in between.
#[cfg(target_arch = "wasm32")]
async fn next_task() {
    use wasm_bindgen::{JsCast, JsValue};
    let promise = js_sys::Promise::new(&mut |resolve, _reject| {
        let global = js_sys::global();
        let scheduled = js_sys::Reflect::get(&global, &JsValue::from_str("setTimeout"))
            .ok()
            .and_then(|f| f.dyn_into::<js_sys::Function>().ok())
            .is_some_and(|f| f.call2(&global, &resolve, &JsValue::from(0)).is_ok());
        if !scheduled {
            let _ = resolve.call0(&JsValue::UNDEFINED);
        }
    });
    let _ = wasm_bindgen_futures::JsFuture::from(promise).await;
}
