//! The inputs of the fuzz target `command_line` (`fuzz/fuzz_targets/`),
//! argument vectors and case files from `ssaref::campaign::command_line_input`,
//! run through the binary: no panic, and an exit code of the table of
//! docs/command-line.md. The fuzz target runs the same inputs in-process;
//! this is its smoke test. `SSAREF_HOSTILE_COUNT` (default 40) sets how
//! many random inputs run, after the fixed ones.

use super::{count, dir, ssaref, Rng};
use ssaref::campaign::command_line_input::{CommandLineInput, DOCUMENTED_EXIT_CODES};

/// Runs the input `data` encodes; panics when the contract is broken.
fn run_input(data: &[u8], name: &str) {
    let Ok(input) = CommandLineInput::from_bytes(data) else { return };
    let folder = dir().join(name);
    let _ = std::fs::remove_dir_all(&folder);
    std::fs::create_dir_all(&folder).expect("a folder");
    let case = folder.join(input.case_name());
    std::fs::write(&case, &input.case).expect("the case file");
    let scratch = folder.join("out").join("x");
    let args = input.arguments(&case.to_string_lossy(), &scratch.to_string_lossy());
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    let run = ssaref(&args);
    assert!(!run.stderr.contains("panicked"), "{input:?}: a panic\n{}", run.stderr);
    let known = u8::try_from(run.code).is_ok_and(|c| DOCUMENTED_EXIT_CODES.contains(&c));
    assert!(known, "{input:?}: exit code {} is not in the table\n{}", run.code, run.stderr);
}

#[test]
fn command_line_fuzz_inputs_keep_the_contract() {
    // Fixed inputs: the empty one, and inputs whose first bytes pick each
    // command with the case file.
    run_input(&[], "command-line-empty");
    for first in 0..8u8 {
        run_input(&[first, 0, 0, 0, 0, 0, 0, 0, 1, 2, 3, 4], &format!("command-line-fixed-{first}"));
    }
    let mut rng = Rng(37);
    for i in 0..count() {
        let data: Vec<u8> = (0..rng.below(600)).map(|_| rng.next() as u8).collect();
        run_input(&data, &format!("command-line-{i}"));
    }
}
