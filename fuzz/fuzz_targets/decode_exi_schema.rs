#![no_main]
//! Bytes -> schema-informed EXI events to the end (`binxml_fuzz::decode_exi_schema`): never a
//! panic, hang or unbounded allocation.
libfuzzer_sys::fuzz_target!(|data: &[u8]| binxml_fuzz::decode_exi_schema(data));
