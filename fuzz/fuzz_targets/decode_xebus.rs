#![no_main]
//! Bytes -> XebuS decoding with the notification schema's automata (`binxml_fuzz::decode_xebus`).
libfuzzer_sys::fuzz_target!(|data: &[u8]| binxml_fuzz::decode_xebus(data));
