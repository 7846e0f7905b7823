#![no_main]
libfuzzer_sys::fuzz_target!(|input: &[u8]| pidcanon_fuzz::rewrite(
    pidcanon::rewrite::RdfFormat::NTriples,
    input
));
