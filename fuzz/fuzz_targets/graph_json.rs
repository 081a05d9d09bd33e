//! Arbitrary text as an animation-graph file → compile against a small rig → play what
//! compiles with every parameter moving. See `skel_fuzz::graph`.

#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| {
    skel_fuzz::graph::run_bytes(data);
});
