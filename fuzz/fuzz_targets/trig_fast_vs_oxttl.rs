#![no_main]
libfuzzer_sys::fuzz_target!(|data: &[u8]| pidcanon_fuzz::differential::trig_fast_vs_oxttl(data));
