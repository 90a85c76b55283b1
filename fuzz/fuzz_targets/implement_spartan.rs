//! Fuzz target `implement_spartan`: arbitrary parallel copies through
//! spill-free SSA elimination (Pereira and Palsberg, CC 2009). The checks
//! live in `ssaref::campaign::fuzz_targets::fuzz_implement_spartan`.

#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| ssaref::campaign::fuzz_targets::fuzz_implement_spartan(data));
