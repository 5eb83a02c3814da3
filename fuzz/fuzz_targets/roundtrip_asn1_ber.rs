#![no_main]
//! A well-formed document built from the bytes -> asn1-ber encoder -> asn1-ber decoder: the same events up to what asn1-ber keeps.
libfuzzer_sys::fuzz_target!(|data: &[u8]| binxml_fuzz::round_trip(binxml::Format::Asn1Ber, data));
