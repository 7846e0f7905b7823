#![no_main]
libfuzzer_sys::fuzz_target!(
    |data: &[u8]| pidcanon_fuzz::differential::ntriples_scanner_vs_oxttl(data)
);
