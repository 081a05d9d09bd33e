//! Arbitrary `.glb` / `.gltf` bytes → load (both handedness modes) → controller, blend and bone
//! control → every clip at a few times → CPU skinning of every primitive. See
//! `skel_fuzz::exercise_asset`.

#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| {
    skel_fuzz::exercise_asset(data);
});
