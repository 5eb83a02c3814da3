#![no_main]
//! A well-formed document built from the bytes -> xebu encoder -> xebu decoder: the same events up to what xebu keeps.
libfuzzer_sys::fuzz_target!(|data: &[u8]| binxml_fuzz::round_trip(binxml::Format::Xebu, data));
