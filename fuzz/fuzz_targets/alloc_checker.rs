//! Fuzz target `alloc_checker`: bytes to a generated program, allocated by
//! ssa-ra and then mutated; a mutant the allocation checker accepts must
//! compute what the original computes. The checks live in
//! `ssaref::campaign::fuzz_targets::fuzz_alloc_checker`.

#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    ssaref::campaign::fuzz_targets::fuzz_alloc_checker(data, &ssaref_interp::Interp);
});
