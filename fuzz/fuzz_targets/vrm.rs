//! Arbitrary text as a VRM extension of a real avatar, loaded, sprung and constrained. See
//! `skel_fuzz::vrm::vrm_bytes`.

#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| {
    skel_fuzz::vrm::vrm_bytes(data);
});
