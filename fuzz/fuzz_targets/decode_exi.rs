#![no_main]
//! Bytes -> exi events to the end: never a panic, hang or unbounded allocation, and every error
//! with its byte and bit offset. The first three bytes pick the EXI options a stream without
//! options in its header is decoded with, and the limits (`binxml_fuzz::exi_options`).
libfuzzer_sys::fuzz_target!(|data: &[u8]| binxml_fuzz::decode_exi(data));
