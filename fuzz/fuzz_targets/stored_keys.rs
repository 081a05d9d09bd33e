//! Arbitrary bytes as a clip's stored compressed keys. See
//! `skel_fuzz::stored::stored_keys_bytes`.

#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| {
    skel_fuzz::stored::stored_keys_bytes(data);
});
