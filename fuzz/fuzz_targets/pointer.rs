//! Arbitrary text as a `KHR_animation_pointer` pointer: parsed, then loaded as a channel's
//! target. See `skel_fuzz::extensions::pointer_bytes`.

#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| {
    skel_fuzz::extensions::pointer_bytes(data);
});
