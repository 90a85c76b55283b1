//! Fuzz target `construct`: bytes to a generated program (`ssaref::generate::source`),
//! then every SSA construction variant against the interpreter. The checks
//! live in `ssaref::campaign::fuzz_targets::fuzz_construct`.

#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| ssaref::campaign::fuzz_targets::fuzz_construct(data, &ssaref_interp::Interp));
