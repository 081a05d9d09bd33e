//! `bench.html`'s skel side (issue 32, "Size and speed"): N characters of the built-in
//! character ([`skel::DEFAULT_CHARACTER`]), each with its own [`Player`] over one shared
//! [`Rig`], playing Walk from its own time, advanced together by [`skel_bench_frame`].
//!
//! A frame computes what a renderer needs before it draws, as three.js's
//! `scene.updateMatrixWorld()` + `skeleton.update()` do: every character's skinning matrices,
//! copied into one reusable array (the buffer a GPU upload would read; the page's three.js
//! side fills `skeleton.boneMatrices`), and with `world` every node's world matrix (what
//! `AssetRenderer::set_world_matrices` reads). Nothing is drawn. Setup ([`skel_bench_setup`])
//! allocates; a frame does not.
//!
//! The page (`crates/skel-web/web/bench.html`, run by `scripts/web-bench/run.mjs`) times both
//! libraries in the same page, interleaved; see `docs/web.md`, "Speed against three.js".

use std::cell::RefCell;
use std::sync::Arc;

use glam::Mat4;
use skel::anim::{Handedness, LayerDesc, Player, PoseSink, RecordingSink, Rig};
use skel::gltf::{LoadOptions, load_slice};
use wasm_bindgen::prelude::*;

/// The clip every character plays (the built-in character's walk cycle).
const CLIP: &str = "Walk";

/// The skinning matrices of every character, one after the other, refilled every frame.
struct BoneBuffer {
    matrices: Vec<Mat4>,
    /// Where the next binding's matrices go.
    at: usize,
}

impl PoseSink for BoneBuffer {
    fn bone_matrices(&mut self, _binding: usize, matrices: &[Mat4]) {
        let end = self.at + matrices.len();
        if let Some(slots) = self.matrices.get_mut(self.at..end) {
            slots.copy_from_slice(matrices);
        }
        self.at = end;
    }

    fn morph_weights(&mut self, _binding: usize, _weights: &[f32]) {}

    /// Only the matrices are read (as by a GPU upload).
    fn wants_local_transforms(&self) -> bool {
        false
    }
}

/// The benchmark's characters.
struct Bench {
    players: Vec<Player>,
    bones: BoneBuffer,
    /// Also resolve every node's world matrix each frame.
    world: bool,
}

thread_local! {
    static BENCH: RefCell<Option<Bench>> = const { RefCell::new(None) };
}

/// Builds `n` characters (replacing any earlier ones): the built-in character loaded once in
/// glTF's right-handed space (three.js's), one rig, `n` players of Walk, character `i`
/// starting at `i / n` of the clip. `world`: frames also compute every node's world matrix.
/// Returns the skinning matrices per character.
///
/// # Errors
/// When the built-in character does not load or has no Walk clip (a broken build).
#[wasm_bindgen]
pub fn skel_bench_setup(n: u32, world: bool) -> Result<u32, JsError> {
    let options = LoadOptions {
        handedness: Handedness::RightHanded,
        decode_images: false,
    };
    let asset = load_slice(skel::DEFAULT_CHARACTER, None, &options)
        .map_err(|e| JsError::new(&e.to_string()))?;
    let rig = Rig::new(Arc::new(asset.animation)).map_err(|e| JsError::new(&e.to_string()))?;
    let clip = rig
        .clip_index(CLIP)
        .ok_or_else(|| JsError::new("the built-in character has no Walk clip"))?;
    let duration = rig.clip_duration(clip).unwrap_or(1.0);
    let mut players = Vec::new();
    for i in 0..n {
        let mut player = Player::new(&rig);
        #[expect(clippy::cast_precision_loss, reason = "n is at most a few thousand")]
        let start = duration * i as f32 / n.max(1) as f32;
        player
            .add_layer(LayerDesc::new(clip).start(start))
            .map_err(|e| JsError::new(&e.to_string()))?;
        players.push(player);
    }
    // One pose tells how many skinning matrices a character has (every skin of the asset).
    let mut probe = RecordingSink::default();
    if let Some(first) = players.first_mut() {
        first.evaluate(&mut probe);
    }
    let per_character: usize = probe.bone_matrices.iter().map(Vec::len).sum();
    let bones = BoneBuffer {
        matrices: vec![Mat4::IDENTITY; per_character * players.len()],
        at: 0,
    };
    BENCH.with(|cell| {
        *cell.borrow_mut() = Some(Bench {
            players,
            bones,
            world,
        });
    });
    u32::try_from(per_character).map_err(|_| JsError::new("too many joints"))
}

/// Advances every character by `dt` seconds and computes its skinning matrices (and, when set
/// up with `world`, every node's world matrix). Returns a checksum that reads every skinning
/// matrix: the sum of their diagonals' first three entries and translations, the sum the page
/// takes over three.js's `boneMatrices` (equal within interpolation rounding while the two
/// play the same times). 0 before [`skel_bench_setup`].
#[wasm_bindgen]
#[must_use]
pub fn skel_bench_frame(dt: f32) -> f64 {
    BENCH.with(|cell| {
        let mut guard = cell.borrow_mut();
        let Some(bench) = guard.as_mut() else {
            return 0.0;
        };
        bench.bones.at = 0;
        for player in &mut bench.players {
            player.tick(dt, &mut bench.bones);
            if bench.world {
                // Kept in the player's scratch, as a renderer reads it.
                player.resolve_world_matrices();
            }
        }
        bench
            .bones
            .matrices
            .iter()
            .map(|m| {
                let diagonal = m.x_axis.x + m.y_axis.y + m.z_axis.z;
                f64::from(diagonal + m.w_axis.x + m.w_axis.y + m.w_axis.z)
            })
            .sum()
    })
}
