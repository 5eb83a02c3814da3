#![no_main]
//! Bytes -> asn1-aper events to the end: never a panic, hang or unbounded allocation.
libfuzzer_sys::fuzz_target!(|data: &[u8]| binxml_fuzz::decode_all(binxml::Format::Asn1Aper, data));
