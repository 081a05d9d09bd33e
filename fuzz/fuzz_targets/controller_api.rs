//! Arbitrary sequences of playback and bone-control calls on a code-built rig and the default
//! character fixture, with invariants checked after every call. See `skel_fuzz::api`.

#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| {
    skel_fuzz::api::run_bytes(data);
});
