//! The functions of extreme shape of `gen --shape params|nested-loops|
//! wide-join|many-functions` (`generate/source/worst_case.rs`), small: each
//! goes through every stage of every back end and agrees with the source,
//! and its text grows linearly with the size (the benchmark's sizes are
//! sizes of the function, not of its indentation).

use crate::common::InterpOracle;
use ssaref::differential::{differential_full, DiffConfig, Verdict};
use ssaref::frontend::parser::parse_program;
use ssaref::generate::source::WorstShape;

#[test]
fn every_worst_case_shape_agrees_on_every_back_end() {
    for shape in WorstShape::ALL {
        let text = shape.source(12);
        let program = parse_program(&text).unwrap_or_else(|d| panic!("{}: {d}\n{text}", shape.name()));
        let config = DiffConfig::standard(&[2, 3, 4], 100_000).with_regalloc2();
        let main = program.functions.iter().find(|f| f.name == "main").expect("a main");
        for args in [vec![], vec![3, 5, -2], vec![7]] {
            // Too many arguments is an error: as many as `main` takes.
            let args: Vec<i64> = args.into_iter().take(main.params.len()).collect();
            match differential_full(&program, &args, &InterpOracle, &config) {
                Verdict::Agree { stages, .. } => {
                    assert!(stages.len() > 20, "{}: {} stages", shape.name(), stages.len())
                }
                other => panic!("{} with {args:?}: {other}", shape.name()),
            }
        }
    }
}

#[test]
fn worst_case_shapes_grow_linearly_in_text() {
    for shape in WorstShape::ALL {
        let (small, large) = (shape.source(100).len(), shape.source(1000).len());
        assert!(large < small * 12, "{}: {small} bytes at 100, {large} at 1000", shape.name());
        assert!(large > small * 8, "{}: {small} bytes at 100, {large} at 1000", shape.name());
    }
}
