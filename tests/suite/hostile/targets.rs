//! The production-compiler commands (`--target`) keep the exit codes of
//! docs/command-line.md, "Exit codes", as the commands without it do.

use super::{holds, ssaref, write_bytes};

#[test]
fn target_commands_follow_the_exit_code_table() {
    let ok = write_bytes("targets-ok.src", b"fn main() {\n    out 1;\n    return 2;\n}\n");
    // A command line that names nothing is a command-line error.
    let run = ssaref(&["check", &ok, "--target", "gcc", "--options", "bogus"]);
    holds(&run, &ok, &[2], "--options naming no option set");
    let run = ssaref(&["check", &ok, "--target", ""]);
    holds(&run, &ok, &[2], "an empty --target");
    let run = ssaref(&["check", &ok, "--target", " , "]);
    holds(&run, &ok, &[2], "a --target of separators");
    // The reference out of fuel: nothing compared, exit code 4.
    let spin = write_bytes("targets-spin.src", b"fn main() {\n    while (1) { }\n    return 2;\n}\n");
    let run = ssaref(&["check", &spin, "--target", "gcc", "--options", "O0", "--fuel", "1000"]);
    holds(&run, &spin, &[4], "check --target with the reference out of fuel");
    // A case file's `target:` line naming no target is bad input, at its line.
    let nosuch =
        write_bytes("targets-nosuch.src", b"// A case.\n// target: nosuch O2\nfn main() {\n    return 2;\n}\n");
    for cmd in ["repro", "reduce"] {
        let run = ssaref(&[cmd, &nosuch]);
        holds(&run, &nosuch, &[1], &format!("{cmd} of a case whose target: line names no target"));
        assert!(run.stderr.starts_with(&format!("{nosuch}:2:1: ")), "{cmd}: {}", run.stderr);
    }
}
