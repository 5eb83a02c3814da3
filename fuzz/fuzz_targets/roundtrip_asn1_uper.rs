#![no_main]
//! A well-formed document built from the bytes -> asn1-uper encoder -> asn1-uper decoder: the same events up to what asn1-uper keeps.
libfuzzer_sys::fuzz_target!(|data: &[u8]| binxml_fuzz::round_trip(binxml::Format::Asn1Uper, data));
