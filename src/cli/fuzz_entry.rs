//! The cargo-fuzz target `command_line`: `ssaref`'s command line, run in
//! this process on an argument vector and a case file made from the input
//! (`ssaref::campaign::command_line_input`). A run must not panic and must
//! end with an exit code of docs/command-line.md's table.
//!
//! `fuzz/Cargo.toml` builds `main.rs` as the target's crate root, and
//! cargo-fuzz passes `--cfg fuzzing`, under which this module replaces
//! `main`; the ordinary build never compiles it.

use ssaref::campaign::command_line_input::{CommandLineInput, DOCUMENTED_EXIT_CODES};
use std::process::ExitCode;

libfuzzer_sys::fuzz_target!(|data: &[u8]| {
    let Ok(input) = CommandLineInput::from_bytes(data) else { return };
    let dir = std::env::temp_dir().join(format!("ssaref-command-line-fuzz-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).expect("a scratch folder");
    // Relative paths among the arguments land in the scratch folder, not
    // in the folder the fuzzer was started from.
    std::env::set_current_dir(&dir).expect("the scratch folder as working directory");
    let case = dir.join(input.case_name());
    std::fs::write(&case, &input.case).expect("the case file");
    let scratch = dir.join("out").join("x");
    let mut args = vec!["ssaref".into()];
    args.extend(input.arguments(&case.to_string_lossy(), &scratch.to_string_lossy()).into_iter().map(Into::into));
    let code = crate::run_in_process(args, Box::new(std::io::sink()), Box::new(std::io::sink()));
    let known = DOCUMENTED_EXIT_CODES.iter().any(|&c| ExitCode::from(c) == code);
    assert!(known, "exit code {code:?} is not in the table for {input:?}");
});
