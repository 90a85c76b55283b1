//! Fuzz target `pipeline`: bytes to a generated program, then every stage
//! from the source to x86-64 under Unicorn, with every checker. The checks
//! live in `ssaref::campaign::fuzz_targets::fuzz_pipeline`.

#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| ssaref::campaign::fuzz_targets::fuzz_pipeline(data, &ssaref_interp::Interp));
