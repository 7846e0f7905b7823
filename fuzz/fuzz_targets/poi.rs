#![no_main]
libfuzzer_sys::fuzz_target!(|input: &str| pidcanon_fuzz::adapter(
    "poi",
    "http://purl.org/poi/",
    input
));
