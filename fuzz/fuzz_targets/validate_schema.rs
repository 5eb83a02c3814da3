#![no_main]
//! `schema NUL instance` -> the instance validated against the schema: never a panic, hang or
//! unbounded allocation (`binxml_fuzz::validate_schema`).
libfuzzer_sys::fuzz_target!(|data: &[u8]| binxml_fuzz::validate_schema(data));
