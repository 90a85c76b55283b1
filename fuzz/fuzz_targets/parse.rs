//! Fuzz target `parse`: arbitrary bytes through the parser and the printer.
//! The checks live in `ssaref::campaign::fuzz_targets::fuzz_parse`.

#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| ssaref::campaign::fuzz_targets::fuzz_parse(data));
