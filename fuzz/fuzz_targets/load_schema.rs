#![no_main]
//! Bytes -> an XML Schema -> its EXI grammars: never a panic, hang, stack overflow or unbounded
//! allocation (`binxml_fuzz::load_schema`).
libfuzzer_sys::fuzz_target!(|data: &[u8]| binxml_fuzz::load_schema(data));
