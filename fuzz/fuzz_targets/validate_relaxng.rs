#![no_main]
//! `flag schema NUL instance` -> the instance validated against the RELAX NG schema: never a
//! panic, hang or unbounded allocation (`binxml_fuzz::validate_relaxng`).
libfuzzer_sys::fuzz_target!(|data: &[u8]| binxml_fuzz::validate_relaxng(data));
