#![no_main]
//! Bytes -> xml events to the end: never a panic, hang or unbounded allocation.
libfuzzer_sys::fuzz_target!(|data: &[u8]| binxml_fuzz::decode_all(binxml::Format::Xml, data));
