//! The library entry points of the cargo-fuzz targets in `fuzz/`.
//!
//! Each target in `fuzz/fuzz_targets/` is a thin wrapper around one function
//! of this module, so the same checks also run in ordinary tests (more
//! targets are added as the pipeline grows). A function here panics exactly
//! when it finds a bug.

use crate::ast_print::print_program;
use crate::parser::parse_program;

/// Parses `data` as (lossy UTF-8) source text. Parsing must never panic, a
/// program that parses must be valid, and it must print to text that parses
/// back to itself.
pub fn fuzz_parse(data: &[u8]) {
    let src = String::from_utf8_lossy(data);
    let Ok(program) = parse_program(&src) else {
        return;
    };
    if let Err(e) = program.validate() {
        panic!("the parser accepted an invalid program ({e}):\n{src}");
    }
    let printed = print_program(&program);
    let reparsed = parse_program(&printed);
    assert!(
        reparsed.as_ref() == Ok(&program),
        "print/parse round trip failed\n--- input:\n{src}\n--- printed:\n{printed}\n--- reparsed:\n{reparsed:?}"
    );
}
