#![no_main]
libfuzzer_sys::fuzz_target!(|data: &[u8]| pidcanon_fuzz::differential::turtle_threads_bytes(data));
