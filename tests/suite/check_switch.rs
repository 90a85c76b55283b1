//! The check switch is one value (`pass_manager/flags.rs`), chosen at the
//! top and passed down (ARCHITECTURE.md, "Checks"):
//! - only the pass runner and the pipeline read it: a call of
//!   `.checks()` on the flags appears only under `src/pass_manager/`, in
//!   `src/pipeline.rs` and in the back ends' pass lists (`src/backend/`);
//! - the query a pass's own self-checks make, `in_checked_pass`, answers
//!   what the runner set for the running pass, so it is asked only inside
//!   the passes and checkers (the folders below the back ends' pass lists),
//!   never by code that runs passes (pipeline, differential driver,
//!   evaluation, campaigns, commands), which hands them flags instead;
//! - nothing sets the switch for a whole process or thread outside the pass
//!   runner and the top (`with_flags` only in `src/pass_manager/` and the
//!   commands of `src/cli/`), and no process-wide setter exists.
//!
//! Comments, string literals and unit-test modules are left out. The
//! detector is tested on made-up text at the end.

/// Where each kind of use is allowed (path prefixes under the repository).
const READ_FLAGS: &[&str] = &["src/pass_manager/", "src/pipeline.rs", "src/backend/"];
const ASK_IN_PASS: &[&str] = &[
    "src/pass_manager/",
    "src/analysis/",
    "src/construction/",
    "src/checkers/",
    "src/ssa_ra/",
    "src/out_of_ssa/",
    "src/regalloc2/",
    "src/machine/",
];
const SET_FLAGS: &[&str] = &["src/pass_manager/", "src/cli/"];

/// The violations in one file's code (comments and literals stripped).
fn violations(path: &str, code: &str) -> Vec<String> {
    let allowed = |list: &[&str]| list.iter().any(|p| path.starts_with(p));
    let mut out = Vec::new();
    for (n, line) in code.lines().enumerate() {
        let at = |what: &str| format!("{path}:{}: {what}", n + 1);
        if line.contains(".checks()") && !allowed(READ_FLAGS) {
            out.push(at("reads the check switch outside the pass runner and the pipeline"));
        }
        if line.contains("in_checked_pass") && !allowed(ASK_IN_PASS) {
            out.push(at("asks whether the running pass is checked from outside the passes"));
        }
        if line.contains("with_flags") && !allowed(SET_FLAGS) {
            out.push(at("sets the check switch for a thread outside the runner and the commands"));
        }
        if line.contains("set_process_checks") || line.contains("static PROCESS") {
            out.push(at("a process-wide check setting"));
        }
    }
    out
}

#[test]
fn the_check_switch_is_read_by_the_runner_and_the_pipeline_only() {
    use crate::layout::{root, rs_files};
    let root = root();
    let mut files = Vec::new();
    for dir in ["src", "interp/src"] {
        rs_files(&root.join(dir), &mut files);
    }
    files.sort();
    let mut found = Vec::new();
    for p in files {
        let rel = p.strip_prefix(&root).expect("under the root").to_string_lossy().replace('\\', "/");
        let text = std::fs::read_to_string(&p).expect("readable file");
        let code = crate::layout::strip(text.split("#[cfg(test)]").next().unwrap_or(""));
        found.extend(violations(&rel, &code));
    }
    assert!(found.is_empty(), "the check switch (pass_manager/flags.rs):\n{}", found.join("\n"));
}

#[test]
fn the_detector_finds_each_kind_of_use_where_it_is_not_allowed() {
    let code = "let on = flags.checks();\nif self_checks::in_checked_pass() {}\nwith_flags(f, || x);\nset_process_checks(None);";
    let found = violations("src/evaluation/x.rs", code);
    assert_eq!(found.len(), 4, "{found:?}");
    assert!(found[0].starts_with("src/evaluation/x.rs:1: reads the check switch"));
    assert!(found[1].starts_with("src/evaluation/x.rs:2: asks whether"));
    assert!(found[2].starts_with("src/evaluation/x.rs:3: sets the check switch"));
    assert!(found[3].starts_with("src/evaluation/x.rs:4: a process-wide"));
    // Where each is allowed, only the process-wide setter is reported.
    assert_eq!(violations("src/pass_manager/runner.rs", code).len(), 1);
    assert!(violations("src/backend/ssa_ra.rs", "let on = flags.checks();").is_empty());
    assert!(violations("src/ssa_ra/spill.rs", "if self_checks::in_checked_pass() {}").is_empty());
    assert_eq!(violations("src/ssa_ra/spill.rs", "let on = flags.checks();").len(), 1);
    assert!(violations("src/cli/reproduce.rs", "with_flags(Flags::unchecked(), || run(a))").is_empty());
}
