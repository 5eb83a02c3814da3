#![no_main]
//! A well-formed document built from the bytes -> xml encoder -> xml decoder: the same events up to what xml keeps.
libfuzzer_sys::fuzz_target!(|data: &[u8]| binxml_fuzz::round_trip(binxml::Format::Xml, data));
