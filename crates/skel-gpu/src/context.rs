//! The device and queue everything in this crate works with (the seed's `EngineContext`).

use std::sync::Arc;
use std::sync::Mutex;
use std::sync::atomic::{AtomicBool, Ordering};

use crate::GpuError;

/// Optional knobs for [`GpuContext::new_headless_with`].
#[derive(Debug, Clone, Default)]
pub struct HeadlessOptions {
    /// Limits to request instead of the adapter's own. `None` (the default) requests everything
    /// the adapter offers, so bone textures get as wide as the hardware allows. Tests use
    /// `Some(wgpu::Limits::default())` to see the wrapping that WebGPU-default devices see.
    pub required_limits: Option<wgpu::Limits>,
    /// Features to enable when the adapter has them (e.g. `TIMESTAMP_QUERY` for profiling);
    /// missing ones are left out silently. Check [`GpuContext::features`].
    pub optional_features: wgpu::Features,
}

/// A wgpu device and queue plus what this crate needs to know about them: the adapter's
/// description and the limits the device was created with (bone texture width, storage buffer
/// counts and sizes are derived from them, never from constants).
#[derive(Debug, Clone)]
#[doc(alias = "EngineContext")]
pub struct GpuContext {
    /// The device.
    pub device: wgpu::Device,
    /// Its queue.
    pub queue: wgpu::Queue,
    /// The adapter it came from.
    pub adapter_info: wgpu::AdapterInfo,
    /// The device's limits (what was granted, not what the adapter could do).
    pub limits: wgpu::Limits,
    /// Whether vertex shaders may read storage buffers (see
    /// [`vertex_storage_buffers`](Self::vertex_storage_buffers)).
    vertex_storage: bool,
    lost: Arc<AtomicBool>,
    uncaptured: Arc<Mutex<Option<String>>>,
}

impl GpuContext {
    /// Creates a device without a window: the instance reads `WGPU_BACKEND`,
    /// `WGPU_POWER_PREF` and friends from the environment (`with_env`), the adapter is the
    /// preferred one for those, and the device gets the adapter's full limits.
    ///
    /// Installs a device-lost callback ([`is_lost`](Self::is_lost)) and an uncaptured-error
    /// handler that records the message ([`take_uncaptured_error`](Self::take_uncaptured_error))
    /// instead of wgpu's default panic. Blocks on [`new_async`](Self::new_async); not on wasm32,
    /// where a page cannot block.
    ///
    /// # Errors
    /// [`GpuError::NoAdapter`] when no adapter matches; [`GpuError::RequestDevice`] when the
    /// adapter refuses the device.
    #[cfg(not(target_arch = "wasm32"))]
    pub fn new_headless() -> Result<Self, GpuError> {
        Self::new_headless_with(&HeadlessOptions::default())
    }

    /// [`new_headless`](Self::new_headless) with explicit limits and optional features.
    ///
    /// # Errors
    /// [`GpuError::NoAdapter`]; [`GpuError::MissingLimit`] naming the first requested limit
    /// the adapter does not reach; [`GpuError::RequestDevice`].
    #[cfg(not(target_arch = "wasm32"))]
    pub fn new_headless_with(options: &HeadlessOptions) -> Result<Self, GpuError> {
        pollster::block_on(Self::new_async(options))
    }

    /// Creates a device without a surface, waiting without blocking: what a browser needs
    /// (and what [`new_headless_with`](Self::new_headless_with) blocks on natively). Natively
    /// the instance reads `WGPU_BACKEND` and friends from the environment; on wasm32 it is made
    /// with `new_instance_with_webgpu_detection`, so WebGPU is used where the browser has it and
    /// WebGL2 (with wgpu's `webgl` feature, [`crate`]'s `webgl`) otherwise. A WebGL2 device
    /// that draws to a canvas needs the canvas's surface at adapter time: make the adapter with
    /// it as `compatible_surface` and call [`from_adapter_async`](Self::from_adapter_async).
    ///
    /// # Errors
    /// [`GpuError::NoAdapter`]; [`GpuError::MissingLimit`]; [`GpuError::RequestDevice`].
    pub async fn new_async(options: &HeadlessOptions) -> Result<Self, GpuError> {
        let descriptor = wgpu::InstanceDescriptor::new_without_display_handle().with_env();
        let backends = format!("{:?}", descriptor.backends);
        #[cfg(target_arch = "wasm32")]
        let instance = wgpu::util::new_instance_with_webgpu_detection(descriptor).await;
        #[cfg(not(target_arch = "wasm32"))]
        let instance = wgpu::Instance::new(descriptor);
        let adapter_options = wgpu::RequestAdapterOptions {
            power_preference: wgpu::PowerPreference::from_env()
                .unwrap_or(wgpu::PowerPreference::HighPerformance),
            ..Default::default()
        };
        let adapter = instance
            .request_adapter(&adapter_options)
            .await
            .map_err(|e| GpuError::NoAdapter {
                backends,
                reason: e.to_string(),
            })?;
        Self::from_adapter_async(&adapter, options).await
    }

    /// Requests the device of an adapter the application chose (a page's, made with its
    /// canvas as `compatible_surface`), with the device-lost and uncaptured-error handlers of
    /// [`new_headless`](Self::new_headless).
    ///
    /// # Errors
    /// [`GpuError::MissingLimit`] naming the first requested limit the adapter does not reach;
    /// [`GpuError::RequestDevice`].
    pub async fn from_adapter_async(
        adapter: &wgpu::Adapter,
        options: &HeadlessOptions,
    ) -> Result<Self, GpuError> {
        let adapter_limits = adapter.limits();
        let required_limits = match &options.required_limits {
            Some(limits) => {
                check_limits(limits, &adapter_limits)?;
                limits.clone()
            }
            None => adapter_limits,
        };
        let required_features = options.optional_features & adapter.features();
        let adapter_info = adapter.get_info();
        let (device, queue) = adapter
            .request_device(&wgpu::DeviceDescriptor {
                label: Some("skel-gpu headless device"),
                required_features,
                required_limits,
                ..Default::default()
            })
            .await
            .map_err(|e| GpuError::RequestDevice {
                adapter: adapter_info.name.clone(),
                reason: e.to_string(),
            })?;
        let mut context = Self::from_device(device, queue, adapter_info);
        // The adapter knows what the limits cannot say: a GL ES 3.1 device may have storage
        // buffers in fragment and compute shaders but none in vertex shaders.
        context.vertex_storage = has_storage_buffers(&context.limits)
            && adapter
                .get_downlevel_capabilities()
                .flags
                .contains(wgpu::DownlevelFlags::VERTEX_STORAGE);
        let lost = Arc::clone(&context.lost);
        context
            .device
            .set_device_lost_callback(move |_reason, _message| {
                lost.store(true, Ordering::Release);
            });
        let uncaptured = Arc::clone(&context.uncaptured);
        context
            .device
            .on_uncaptured_error(Arc::new(move |error: wgpu::Error| {
                record(&uncaptured, error.to_string());
            }));
        Ok(context)
    }

    /// Wraps a device the application already has. Its limits are read from the device. No
    /// callbacks are installed: the application's own device-lost and uncaptured-error
    /// handlers stay in place.
    #[must_use]
    pub fn from_device(
        device: wgpu::Device,
        queue: wgpu::Queue,
        adapter_info: wgpu::AdapterInfo,
    ) -> Self {
        let limits = device.limits();
        // Without the adapter's downlevel flags, trust the limits except on GL, where vertex
        // shaders often have no storage blocks while fragment shaders do (and the limit is the
        // larger of the two there).
        let vertex_storage =
            has_storage_buffers(&limits) && adapter_info.backend != wgpu::Backend::Gl;
        Self {
            device,
            queue,
            adapter_info,
            limits,
            vertex_storage,
            lost: Arc::new(AtomicBool::new(false)),
            uncaptured: Arc::new(Mutex::new(None)),
        }
    }

    /// Whether vertex shaders on this device may read storage buffers: the device has storage
    /// buffers at all (`max_storage_buffers_per_shader_stage` and
    /// `max_storage_buffer_binding_size` above 0, which WebGL2 never has) and, for contexts
    /// made from an adapter, the adapter reports `DownlevelFlags::VERTEX_STORAGE`. For a
    /// [`from_device`](Self::from_device) context on the GL backend this is `false` (its
    /// adapter's flags are unknown there, and many GL ES devices lack vertex storage blocks).
    ///
    /// [`create_morph`](crate::create_morph) puts morph deltas in a texture where this is
    /// `false` ([`MorphDeltaStorage::for_context`](crate::MorphDeltaStorage::for_context)).
    #[must_use]
    pub fn vertex_storage_buffers(&self) -> bool {
        self.vertex_storage
    }

    /// The features the device was created with.
    #[must_use]
    pub fn features(&self) -> wgpu::Features {
        self.device.features()
    }

    /// Whether the device was lost (or destroyed). Only tracked for contexts made by
    /// [`new_headless`](Self::new_headless); after a loss, make a new context and call
    /// [`SkeletonGpu::recreate`](crate::SkeletonGpu::recreate) /
    /// [`MorphGpu::recreate`](crate::MorphGpu::recreate).
    #[must_use]
    pub fn is_lost(&self) -> bool {
        self.lost.load(Ordering::Acquire)
    }

    /// The last error wgpu reported outside any error scope, if any, clearing it. Only
    /// recorded for contexts made by [`new_headless`](Self::new_headless).
    #[must_use]
    pub fn take_uncaptured_error(&self) -> Option<String> {
        self.uncaptured.lock().ok().and_then(|mut slot| slot.take())
    }

    /// Runs `f` inside validation and out-of-memory error scopes and turns what they catch
    /// into a [`GpuError`], so that a wgpu validation failure becomes a typed error rather than
    /// a panic in the uncaptured-error handler. Natively this waits for the scopes
    /// ([`capture_async`](Self::capture_async)). On wasm32 a page cannot wait: the scopes'
    /// results arrive on the event loop and land where uncaptured errors do
    /// ([`take_uncaptured_error`](Self::take_uncaptured_error)), so this returns `Ok` at once.
    ///
    /// # Errors
    /// [`GpuError::Validation`] or [`GpuError::OutOfMemory`], tagged with `context`.
    #[cfg(not(target_arch = "wasm32"))]
    pub fn capture<T>(&self, context: &'static str, f: impl FnOnce() -> T) -> Result<T, GpuError> {
        pollster::block_on(self.capture_async(context, f))
    }

    /// Runs `f` inside validation and out-of-memory error scopes; see the native `capture`.
    /// On wasm32 the scopes resolve on the page's event loop, later, into
    /// [`take_uncaptured_error`](Self::take_uncaptured_error); await
    /// [`capture_async`](Self::capture_async) for the typed error there.
    ///
    /// # Errors
    /// Never on wasm32 (see above); the signature is the native one.
    #[cfg(target_arch = "wasm32")]
    pub fn capture<T>(&self, context: &'static str, f: impl FnOnce() -> T) -> Result<T, GpuError> {
        let oom = self.device.push_error_scope(wgpu::ErrorFilter::OutOfMemory);
        let validation = self.device.push_error_scope(wgpu::ErrorFilter::Validation);
        let value = f();
        let validation = validation.pop();
        let oom = oom.pop();
        let uncaptured = Arc::clone(&self.uncaptured);
        wasm_bindgen_futures::spawn_local(async move {
            if let Some(error) = validation.await {
                record(&uncaptured, format!("{context}: {error}"));
            }
            if oom.await.is_some() {
                record(&uncaptured, format!("{context}: out of memory"));
            }
        });
        Ok(value)
    }

    /// [`capture`](Self::capture) that waits for the error scopes without blocking: the typed
    /// error on every target, a browser's included.
    ///
    /// # Errors
    /// [`GpuError::Validation`] or [`GpuError::OutOfMemory`], tagged with `context`.
    pub async fn capture_async<T>(
        &self,
        context: &'static str,
        f: impl FnOnce() -> T,
    ) -> Result<T, GpuError> {
        let oom = self.device.push_error_scope(wgpu::ErrorFilter::OutOfMemory);
        let validation = self.device.push_error_scope(wgpu::ErrorFilter::Validation);
        let value = f();
        let validation = validation.pop();
        let oom = oom.pop();
        if let Some(error) = validation.await {
            return Err(GpuError::Validation {
                context,
                message: error.to_string(),
            });
        }
        if oom.await.is_some() {
            return Err(GpuError::OutOfMemory { context });
        }
        Ok(value)
    }

    /// Fails with [`GpuError::MissingLimit`] unless the device's `name` limit (read by `get`)
    /// is at least `needed`.
    pub(crate) fn require_limit(
        &self,
        name: &'static str,
        needed: u64,
        get: impl Fn(&wgpu::Limits) -> u64,
    ) -> Result<(), GpuError> {
        let available = get(&self.limits);
        if available < needed {
            return Err(GpuError::MissingLimit {
                name,
                needed,
                available,
            });
        }
        Ok(())
    }
}

/// Whether `limits` allow any storage buffer binding (WebGL2's allow none).
fn has_storage_buffers(limits: &wgpu::Limits) -> bool {
    limits.max_storage_buffers_per_shader_stage > 0 && limits.max_storage_buffer_binding_size > 0
}

/// Checks every requested limit against what the adapter offers, naming the first it misses.
fn check_limits(requested: &wgpu::Limits, adapter: &wgpu::Limits) -> Result<(), GpuError> {
    let mut first_failure = None;
    requested.check_limits_with_fail_fn(adapter, false, |name, needed, available| {
        first_failure.get_or_insert(GpuError::MissingLimit {
            name,
            needed,
            available,
        });
    });
    first_failure.map_or(Ok(()), Err)
}

/// Keeps `message` as the last uncaptured error (a poisoned slot only loses the message).
fn record(slot: &Mutex<Option<String>>, message: String) {
    if let Ok(mut slot) = slot.lock() {
        *slot = Some(message);
    }
}
