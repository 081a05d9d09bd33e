//! Arbitrary bytes as an `EXT_meshopt_compression` buffer view (a 4-byte header choosing mode,
//! filter, stride and count, then the stream), loaded as a mesh. See
//! `skel_fuzz::extensions::meshopt_bytes`. The view is decoded by skel-gltf's own Rust meshopt
//! decoder (`skel_gltf::meshopt`, issue 43), on every target.

#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| {
    skel_fuzz::extensions::meshopt_bytes(data);
});
