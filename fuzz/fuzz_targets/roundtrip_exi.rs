#![no_main]
//! The first three bytes pick the EXI options (`binxml_fuzz::exi_options`), the rest builds a
//! well-formed document -> exi encoder -> exi decoder: the same events up to what EXI keeps
//! with those options (`binxml_fuzz::exi_normalize`).
libfuzzer_sys::fuzz_target!(|data: &[u8]| binxml_fuzz::exi_round_trip(data));
