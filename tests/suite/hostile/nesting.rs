//! Deep nesting through every command: 40,000 nested blocks (and `if`s,
//! `while`s, an `else if` chain) run, reduce and go to the production
//! compilers without overflowing a stack, and a program nested deeper
//! than the documented bound (`ssaref::ast::MAX_NESTING`) is bad input at
//! the construct that passes it, whatever the command.

use super::{holds, ssaref, write_bytes};
use ssaref::ast::MAX_NESTING;

/// `main` with `open` repeated `n` times around `out 1;`, each closed by
/// `}`, on line 3 of a case file.
fn nested(open: &str, n: usize) -> String {
    format!("// args: 0\nfn main(x) {{\n{}out 1;{}\n    return 0;\n}}\n", open.repeat(n), "}".repeat(n))
}

/// An `else if` chain of `n` `if`s (nested `n` deep in the tree).
fn else_if_chain(n: usize) -> String {
    let arms: String = (1..n).map(|i| format!(" else if (x == {i}) {{ out {i}; }}")).collect();
    format!("// args: 3\nfn main(x) {{\n    if (x == 0) {{ out 0; }}{arms}\n    return 0;\n}}\n")
}

#[test]
fn forty_thousand_levels_pass_every_command() {
    let blocks = write_bytes("nesting-blocks.src", nested("{", 40_000).as_bytes());
    // `reduce` of a case that does not fail compares every stage first.
    let run = ssaref(&["reduce", &blocks, "--fuel", "100000"]);
    holds(&run, &blocks, &[1], "reduce of 40,000 levels");
    assert!(run.stderr.contains("does not fail"), "{}", run.stderr);
    // The production compilers' exports recurse on the tree (exit code 8
    // where gcc is not installed).
    for cmd in ["check", "repro"] {
        let run = ssaref(&[cmd, &blocks, "--target", "gcc", "--options", "O0"]);
        holds(&run, &blocks, &[0, 8], &format!("{cmd} --target gcc of 40,000 levels"));
    }
    // An `else if` chain is as deep in the tree as its `if`s.
    let chain = write_bytes("nesting-chain.src", else_if_chain(40_000).as_bytes());
    let run = ssaref(&["emit", &chain, "--stage", "source"]);
    holds(&run, &chain, &[0], "emit of an else-if chain of 40,000");
    let chain = write_bytes("nesting-long-chain.src", else_if_chain(MAX_NESTING + 1).as_bytes());
    let run = ssaref(&["run", &chain]);
    holds(&run, &chain, &[1], "an else-if chain past the bound");
    assert!(run.stderr.contains(&format!("nested deeper than {MAX_NESTING}")), "{}", run.stderr);
}

#[test]
fn nesting_past_the_bound_is_bad_input_at_its_construct() {
    let n = MAX_NESTING + 1;
    let file = write_bytes("nesting-past.src", nested("{", n).as_bytes());
    for args in [&["run", &file][..], &["reduce", &file], &["check", &file], &["repro", &file]] {
        let run = ssaref(args);
        holds(&run, &file, &[1], &format!("{args:?} past the bound"));
        let at = format!("{file}:3:{n}: statements nested deeper than {MAX_NESTING} levels");
        assert!(run.stderr.starts_with(&at), "{args:?}: {}", run.stderr);
    }
    // Exactly at the bound, a program parses.
    let at_bound = write_bytes("nesting-at.src", nested("while (x) { x = x - 1; ", MAX_NESTING).as_bytes());
    let run = ssaref(&["emit", &at_bound, "--stage", "source"]);
    holds(&run, &at_bound, &[0], "emit at the bound");
}

/// `reproduce --corpus` on a folder holding a program nested past the
/// bound: bad input at the construct that passes it, reported before any
/// measurement starts (a corpus within the bound is measured as any other).
#[test]
fn reproduce_corpus_nested_past_the_bound_is_bad_input_at_its_construct() {
    let corpus = super::dir().join("nesting-corpus");
    std::fs::create_dir_all(&corpus).expect("a corpus folder");
    let n = MAX_NESTING + 1;
    let file = corpus.join("deep.src");
    std::fs::write(&file, nested("while (x) { x = x - 1; ", n)).expect("the deep program");
    let file = file.to_string_lossy().into_owned();
    let report = super::dir().join("nesting-corpus-report");
    let corpus = corpus.to_string_lossy().into_owned();
    let run = ssaref(&["reproduce", "--tiny", "--corpus", &corpus, "--out", &report.to_string_lossy()]);
    holds(&run, &file, &[1], "reproduce --corpus with a program nested past the bound");
    let at = format!("{file}:3:{}: statements nested deeper than {MAX_NESTING} levels", 1 + 23 * (n - 1));
    assert!(run.stderr.starts_with(&at), "{}", run.stderr);
    assert!(!report.join("REPORT.md").exists(), "a report was written");
}
