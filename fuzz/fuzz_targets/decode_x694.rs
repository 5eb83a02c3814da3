#![no_main]
//! Bytes -> X.694 schema-informed PER or BER events (unaligned, aligned PER or BER) to the end (`binxml_fuzz::decode_x694`): never a
//! panic, hang or unbounded allocation.
libfuzzer_sys::fuzz_target!(|data: &[u8]| binxml_fuzz::decode_x694(data));
