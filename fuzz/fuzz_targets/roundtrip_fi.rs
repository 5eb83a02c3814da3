#![no_main]
//! A well-formed document built from the bytes -> fi encoder -> fi decoder: the same events up to what fi keeps.
libfuzzer_sys::fuzz_target!(|data: &[u8]| binxml_fuzz::round_trip(binxml::Format::Fi, data));
