//! The browser check's flags, thresholds and timeouts, in one place.

use std::time::Duration;

/// Debian's browser and its WebDriver.
pub(super) const CHROMIUM: &str = "/usr/bin/chromium";
pub(super) const CHROMEDRIVER: &str = "/usr/bin/chromedriver";

/// Flags every session gets: headless, no sandbox (containers), nothing that phones home.
pub(super) const COMMON: [&str; 8] = [
    "--headless",
    "--no-sandbox",
    "--no-first-run",
    "--disable-quic",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--window-size=900,1000",
];
/// WebGPU on SwiftShader's Vulkan (checked on Chromium 156: a canvas draws and reads back).
pub(super) const WEBGPU: [&str; 5] = [
    "--enable-unsafe-webgpu",
    "--enable-unsafe-swiftshader",
    "--use-angle=swiftshader",
    "--enable-features=Vulkan",
    "--use-vulkan=swiftshader",
];
/// WebGL2 on SwiftShader's GL (Chromium's software fallback without a GPU).
pub(super) const WEBGL2: [&str; 1] = ["--disable-gpu"];

/// The crowd the check shows: small enough for SwiftShader's compute to skin every frame
/// quickly (100 characters took over 10 s a frame there).
pub(super) const CHECK_CROWD: u32 = 16;
/// How many times one character's pixels the crowd must cover (neighbours overlap in
/// perspective, and the overlooking camera is further away).
pub(super) const MIN_CROWD_COVER: f64 = 3.0;
/// The file the check opens through the page's file input (a small rig that is not the
/// built-in character).
pub(super) const PICKED_FIXTURE: &str = "fixtures/eight_influences_u8.glb";
/// The meshopt-compressed file the check opens next (gltfpack `-cc` of the textured grid:
/// `EXT_meshopt_compression` with filters, decoded by skel-gltf's Rust decoder in wasm).
pub(super) const MESHOPT_FIXTURE: &str = "fixtures/peer/textured_gltfpack_cc.glb";
/// The time the check holds the clip at (between keys of Walk).
pub(super) const HELD: f32 = 0.437;
/// How long a backend may take to draw its first frame (SwiftShader compiles slowly).
pub(super) const READY_TIMEOUT: Duration = Duration::from_secs(180);
/// wasm and native run the same code; only libm's last bits may differ.
pub(super) const POSE_TOLERANCE: f64 = 1e-6;
/// Two rasterisers of one picture agree on almost every pixel of the silhouette.
pub(super) const MIN_IOU: f64 = 0.9;
/// How far (pixels, each way) from a projected CPU vertex a drawn pixel may be: rasterisation
/// rules, and a vertex exactly on the silhouette's edge.
pub(super) const NEAR_PIXELS: i64 = 2;
/// A pixel is the character's when a channel differs from the background by more than this.
pub(super) const INK_LEVELS: i32 = 24;

/// The slope scene: how long the feet and the head get to ease after the page is ready or a
/// toggle changed (foot placement fades over 0.2 s and eases the ground over about as long;
/// SwiftShader draws a few frames a second at worst), and how many readings follow.
pub(super) const SETTLE: Duration = Duration::from_millis(2500);
pub(super) const SAMPLES: usize = 5;
/// The most a toe may be from the slope (beyond its rest height above a level floor) with
/// foot placement on (natively, idle on the 18° slope: 3.5 mm at most).
pub(super) const TOE_TOLERANCE: f64 = 0.01;
/// How far the lower toe must sink into the slope with foot placement off (natively, idle:
/// 2.7–3.2 cm: the slope rises 18° across the stance).
pub(super) const SINK: f64 = 0.02;
/// The most the head's forward axis may be from the pointer's point with the look-at on
/// (radians; natively 0.02 for a point up and to the side).
pub(super) const LOOK_TOLERANCE: f64 = 0.15;
/// How much further off the head must be without the look-at (radians; natively 0.57 more).
pub(super) const LOOK_GAIN: f64 = 0.25;
/// The slope under the character covers at least this much of the canvas.
pub(super) const MIN_GROUND_COVER: f64 = 0.25;
