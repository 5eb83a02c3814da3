#![no_main]
//! A well-formed document built from the bytes -> tsf encoder -> tsf decoder: the same events up to what tsf keeps.
libfuzzer_sys::fuzz_target!(|data: &[u8]| binxml_fuzz::round_trip(binxml::Format::Tsf, data));
