//! Calls through the stages that handle them (docs/source-language.md,
//! "Calls"): the parser's and the text form's checks of callees and
//! arities, the verifier's, the oracle's one fuel budget and call-depth
//! bound, the construction (calls never merged), and the back ends and
//! targets that refuse programs with calls with a typed error (regalloc2
//! handles them: `calls_machine.rs`). The cases
//! `tests/cases/calls_*.src` run every construction stage (`cases.rs`).

use crate::common::InterpOracle;
use ssaref::analysis::verifier::verify_module;
use ssaref::ast::MAX_CALL_DEPTH;
use ssaref::construction::braun::BraunOptions;
use ssaref::differential::{differential_full, DiffConfig, StageError, Verdict};
use ssaref::frontend::parser::parse_program;
use ssaref::ir::Op;
use ssaref::outcome::End;
use ssaref::pass_manager::flags::Flags;
use ssaref::pipeline::{build_ssa, Config};
use ssaref::ssa_text::{parse_module, print_module};

const FUEL: u64 = 1_000_000;

#[test]
fn the_parser_checks_callees_and_arities_at_the_call() {
    let cases = [
        ("fn main() { return g(1); }", "1:20: call of unknown function `g`"),
        ("fn f(a, b) { return a; }\nfn main() { return f(1); }", "2:20: `f` takes 2 argument(s) but the call passes 1"),
        ("fn main() { f(1, 2); }\nfn f(a) { return a; }", "1:13: `f` takes 1 argument(s) but the call passes 2"),
        ("fn main() { out h(); }", "1:17: call of unknown function `h`"),
        ("fn main() { x = f(1,); }\nfn f(a) { return a; }", "1:21: expected expression, found `)`"),
        ("fn main() { f(1) }\nfn f(a) { return a; }", "1:18: expected `;`, found `}`"),
    ];
    for (src, expected) in cases {
        let got = parse_program(src).map(|_| ()).map_err(|d| d.to_string());
        assert_eq!(got, Err(expected.to_string()), "{src}");
    }
}

#[test]
fn calls_print_and_parse_back_in_both_text_forms() {
    let src = "fn f(a, b) {\n    return a - b;\n}\n\nfn main(x) {\n    g();\n    out f(x, f(2, x)) * 3;\n    \
               return f(mem[x], -x);\n}\n\nfn g() {\n    return 0;\n}\n";
    let program = parse_program(src).expect("parses");
    assert_eq!(ssaref::frontend::ast_print::print_program(&program), src);
    let module = build_ssa(&program, &Config { braun: BraunOptions::all_on(), flags: Flags::checked() }).unwrap();
    let text = print_module(&module);
    assert!(text.contains(" = call f("), "{text}");
    assert_eq!(parse_module(&text).map(|m| print_module(&m)), Ok(text));
}

#[test]
fn the_text_form_and_the_verifier_check_callees_and_arities() {
    let unknown = "fn main() {\nb0:\n    v0 = call nowhere()\n    ret v0\n}\n";
    assert_eq!(parse_module(unknown).unwrap_err().to_string(), "3:15: call of unknown function `nowhere`");
    let arity = "fn main(v0) {\nb0:\n    v1 = call main(v0, v0)\n    ret v1\n}\n";
    assert_eq!(parse_module(arity).unwrap_err().to_string(), "3:15: `main` takes 1 argument(s) but the call passes 2");
    // A module built some other way meets the same check in the verifier.
    let good = parse_module("fn f(v0) {\nb0:\n    ret v0\n}\nfn main(v0) {\nb0:\n    v1 = call f(v0)\n    ret v1\n}\n")
        .expect("parses");
    assert_eq!(verify_module(&good), Ok(()));
    let mut bad = good.clone();
    bad.functions.remove(0);
    let e = verify_module(&bad).unwrap_err();
    assert_eq!(e.to_string(), "function `main`, block b0: `v1 = call f(v0)`: call of unknown function `f`");
}

#[test]
fn one_fuel_budget_covers_the_whole_call_tree() {
    // Each call of `f` costs the same; the budget that suffices for the
    // run with 10 calls does not suffice for the one with 20.
    let src = "fn f(n) { mem[0] = mem[0] + n; return n; }\nfn main(k) { var i = 0; while (i < k) { f(i); i = i + 1; } \
               return mem[0]; }";
    let program = parse_program(src).unwrap();
    let ten = ssaref_interp::run_ast(&program, &[10], FUEL).unwrap();
    assert_eq!(ten.end, End::Return(45));
    let used = (1..FUEL).find(|&fuel| ssaref_interp::run_ast(&program, &[10], fuel).unwrap().end != End::OutOfFuel);
    let used = used.expect("ends within the budget");
    assert_eq!(ssaref_interp::run_ast(&program, &[20], used).unwrap().end, End::OutOfFuel);
    let module = build_ssa(&program, &Config { braun: BraunOptions::plain(), flags: Flags::checked() }).unwrap();
    assert_eq!(ssaref_interp::run_ssa(&module, &[20], used).unwrap().end, End::OutOfFuel);
    assert_eq!(ssaref_interp::run_ssa(&module, &[20], FUEL).unwrap().end, End::Return(190));
}

#[test]
fn the_call_depth_bound_is_exact_at_source_and_ssa_stages() {
    // `down(n)` recurses n levels below itself; with `main` the stack is
    // n + 2 deep at the innermost call.
    let src = "fn down(n) { if (n == 0) { return 7; } return down(n - 1); }\nfn main(n) { return down(n); }";
    let program = parse_program(src).unwrap();
    let module = build_ssa(&program, &Config { braun: BraunOptions::all_on(), flags: Flags::checked() }).unwrap();
    let deepest_allowed = (MAX_CALL_DEPTH - 2) as i64;
    for (n, end) in [(deepest_allowed, End::Return(7)), (deepest_allowed + 1, End::CallDepthExceeded)] {
        assert_eq!(ssaref_interp::run_ast(&program, &[n], FUEL).unwrap().end, end, "source, n = {n}");
        assert_eq!(ssaref_interp::run_ssa(&module, &[n], FUEL).unwrap().end, end, "ssa, n = {n}");
    }
    assert!(End::CallDepthExceeded.is_inconclusive());
}

#[test]
fn calls_are_never_merged_or_folded_and_loads_stay_after_calls() {
    // Two equal calls and two loads of one address around a call: every
    // construction variant keeps both calls and both loads.
    let src = "fn bump() { mem[1] = mem[1] + 1; return 5; }\nfn main() { var a = mem[1]; var x = bump() + bump(); \
               return a + mem[1] + x; }";
    let program = parse_program(src).unwrap();
    for braun in BraunOptions::every_combination() {
        let module = build_ssa(&program, &Config { braun, flags: Flags::checked() }).unwrap();
        let main = module.main().unwrap();
        let ops: Vec<&Op> = main.blocks.values().flat_map(|b| b.insts.iter().map(|i| &i.op)).collect();
        assert_eq!(ops.iter().filter(|op| op.is_call()).count(), 2, "{}", braun.describe());
        assert_eq!(ops.iter().filter(|op| matches!(op, Op::Load(_))).count(), 2, "{}", braun.describe());
        assert_eq!(ssaref_interp::run_ssa(&module, &[], FUEL).unwrap().end, End::Return(12));
    }
}

#[test]
fn every_back_end_allocates_calls_and_the_driver_runs_every_stage() {
    let program = parse_program("fn f(a, b) { return a - b; }\nfn main(x, y) { return f(y, x); }").unwrap();
    match differential_full(&program, &[3, 10], &InterpOracle, &DiffConfig::standard(&[2, 15], FUEL).with_regalloc2()) {
        Verdict::Agree { outcome, stages } => {
            assert_eq!(outcome.end, End::Return(7));
            // Every back end's machine IR and x86-64 code run: no stage is
            // refused.
            let outcome_of = |name: &str| stages.iter().find(|s| s.stage == name).map(|s| s.outcome.clone());
            let names: Vec<&str> = stages.iter().map(|s| s.stage.as_str()).collect();
            for k in [2, 15] {
                assert!(matches!(outcome_of(&format!("regalloc2[k={k}]")), Some(Ok(_))), "{names:?}");
                assert!(matches!(outcome_of(&format!("x86-regalloc2[k={k}]")), Some(Ok(_))), "{names:?}");
                assert!(matches!(outcome_of(&format!("ssa-ra[k={k},opt]")), Some(Ok(_))), "{names:?}");
                assert!(matches!(outcome_of(&format!("x86-ssa-ra[k={k},opt]")), Some(Ok(_))), "{names:?}");
            }
            let refused: Vec<&str> = stages.iter().filter(|s| s.outcome.is_err()).map(|s| s.stage.as_str()).collect();
            assert!(refused.is_empty(), "{refused:?}");
            assert!(!stages.iter().any(|s| s.outcome == Err(StageError::NotSupported("calls"))));
        }
        other => panic!("expected agreement on every stage: {other}"),
    }
    let module = build_ssa(&program, &Config { braun: BraunOptions::all_on(), flags: Flags::checked() }).unwrap();
    let main = module.main().unwrap();
    let opts = ssaref::ssa_ra::regalloc::RegallocOptions::with_k(4);
    let mut none = ssaref::pass_manager::runner::Unobserved;
    let (mf, _) = ssaref::backend::ssa_ra::allocate_function(main, &opts, Flags::checked(), &mut none).unwrap();
    assert!(mf.blocks.values().any(|b| b.insts.iter().any(|i| matches!(i.inst, ssaref::mir::MInst::Call(_)))));
    assert!(ssaref::backend::regalloc2::allocate_function(main, 4, Flags::checked()).is_ok());
    let opts = ssaref::out_of_ssa::translate_options::OutOfSsaOptions::default();
    assert!(ssaref::backend::out_of_ssa::translate_function(main, &opts, Flags::checked()).is_ok());
}

#[test]
fn production_targets_run_calls_to_the_depth_bound_and_skip_deeper_runs() {
    use ssaref::targets::target::{run_against_oracle, Limits, TargetCase, TargetVerdict};
    // `down` recurses to exactly `MAX_CALL_DEPTH` activations, `main`
    // counting, with 40 live variables in each frame; `over` one deeper.
    let body = (0..40).map(|i| format!("var x{i} = mem[n + {i}] + n * {i};")).collect::<String>();
    let sum = (0..40).map(|i| format!("x{i}")).collect::<Vec<_>>().join(" + ");
    let program = |depth: usize| {
        parse_program(&format!(
            "fn down(n) {{ if (n == 0) {{ return 1; }} {body} return down(n - 1) + ({sum}) % 7; }}
             fn main() {{ mem[5] = 3; return down({depth}); }}"
        ))
        .unwrap()
    };
    let cases = [
        TargetCase::source(program(MAX_CALL_DEPTH - 2), vec![]),
        TargetCase::source(program(MAX_CALL_DEPTH - 1), vec![]),
    ];
    for name in ssaref::targets::registry::names() {
        let target = ssaref::targets::registry::by_name(name).expect("a registered target");
        if target.version().is_err() {
            eprintln!("SKIPPED: target {name} is not installed");
            continue;
        }
        let sets = target.option_sets();
        let options = sets.iter().find(|o| o.starts_with("O0")).or(sets.first()).cloned().unwrap_or_default();
        let verdicts = run_against_oracle(&*target, &cases, &options, &InterpOracle, FUEL, &Limits::for_fuel(FUEL));
        assert_eq!(verdicts[0], TargetVerdict::Agree, "{name} {options}");
        assert_eq!(verdicts[1], TargetVerdict::Skipped, "{name}: one activation deeper is inconclusive");
        assert!(!verdicts[1].is_failure());
    }
}
