#![no_main]
//! A reused EXI decoder (`ExiDecoder::reset`) gives the same events and errors as a new one
//! (`binxml_fuzz::decode_exi_reuse`).
libfuzzer_sys::fuzz_target!(|data: &[u8]| binxml_fuzz::decode_exi_reuse(data));
