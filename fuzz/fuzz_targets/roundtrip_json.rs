#![no_main]
//! JSON text -> events -> JSON encoder -> JSON decoder: the same events.
libfuzzer_sys::fuzz_target!(|data: &[u8]| binxml_fuzz::json_round_trip(data));
