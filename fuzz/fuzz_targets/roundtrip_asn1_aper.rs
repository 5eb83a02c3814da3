#![no_main]
//! A well-formed document built from the bytes -> asn1-aper encoder -> asn1-aper decoder: the same events up to what asn1-aper keeps.
libfuzzer_sys::fuzz_target!(|data: &[u8]| binxml_fuzz::round_trip(binxml::Format::Asn1Aper, data));
