//! The passes' own checks follow the one switch (`pass_manager/flags.rs`),
//! passed down from `pipeline::Config` and never set on the thread:
//! with checks off, every back end compiles through the pipeline without
//! starting a single checker (the per-thread count of checker invocations
//! does not move), and produces the same code as with checks on; with
//! checks on, the same compilation starts checkers (so that the count is
//! seen to move at all, and the first assertion can fail).

use ssaref::backend::{Backend, OutOfSsa, Regalloc2, SsaRa};
use ssaref::pass_manager::flags::Flags;
use ssaref::pass_manager::self_checks::invocations;
use ssaref::ssa_ra::regalloc::RegallocOptions;

/// ssa-ra with every switch on, without the §6 optimizations, and with each
/// switch of `RegallocOptions::SWITCHES` flipped from the default alone.
fn ssa_ra_option_sets(k: usize) -> Vec<RegallocOptions> {
    let default = RegallocOptions::with_k(k);
    let mut out = vec![default, default.without_section_6()];
    for i in 0..RegallocOptions::SWITCHES.len() {
        let mut o = default;
        let s = o.switch(i).expect("a switch of SWITCHES");
        *s = !*s;
        out.push(o);
    }
    out
}

fn backends(k: usize) -> Vec<Box<dyn Backend>> {
    let mut out: Vec<Box<dyn Backend>> = Vec::new();
    out.extend(ssa_ra_option_sets(k).into_iter().map(|o| Box::new(SsaRa(o)) as Box<dyn Backend>));
    out.extend(OutOfSsa::all().into_iter().map(|b| Box::new(b) as Box<dyn Backend>));
    out.push(Box::new(Regalloc2));
    out
}

/// A few small corpus programs and generated ones.
fn programs() -> Vec<(String, ssaref::ast::Program)> {
    let mut out = Vec::new();
    for name in ["primes", "fnv1a", "insertion_sort"] {
        let text = std::fs::read_to_string(format!("tests/corpus/{name}.src")).expect("readable corpus file");
        out.push((name.to_string(), ssaref::frontend::parser::parse_program(&text).expect("parses")));
    }
    let config = ssaref::generate::source::GenConfig { size: 60, ..Default::default() };
    for seed in [3, 8] {
        out.push((format!("seed {seed}"), ssaref::generate::source::TestCase::from_seed(seed, &config).program));
    }
    out
}

/// Construction, the back end's allocation and the lowering, through the
/// pipeline, with checks `on`: the allocated code, the x86 bytes, and how
/// many checkers started.
fn compile(on: bool, program: &ssaref::ast::Program, backend: &dyn Backend, k: usize) -> (String, Vec<u8>, u64) {
    let before = invocations();
    let config = ssaref::pipeline::Config { flags: Flags::with_checks(on), ..Default::default() };
    let ssa = ssaref::pipeline::build_ssa(program, &config).expect("builds");
    let mir = ssaref::pipeline::allocate(&ssa, backend, k, &config).expect("allocates");
    let code = ssaref::pipeline::lower(&mir, &config).expect("lowers");
    (ssaref::mir::print_module(&mir), code.bytes, invocations() - before)
}

#[test]
fn no_checker_runs_with_checks_off_and_the_code_is_the_same() {
    let programs = programs();
    for k in [3, 8] {
        for backend in backends(k) {
            for (name, program) in &programs {
                let (mir_on, x86_on, ran_on) = compile(true, program, backend.as_ref(), k);
                let (mir_off, x86_off, ran_off) = compile(false, program, backend.as_ref(), k);
                let what = format!("{} at K = {k} on {name}", backend.name());
                assert_eq!(ran_off, 0, "{what}: {ran_off} checker(s) started with checks off");
                assert!(ran_on > 0, "{what}: no checker started with checks on");
                assert_eq!(mir_on, mir_off, "{what}: the allocated code depends on the checks");
                assert_eq!(x86_on, x86_off, "{what}: the machine code depends on the checks");
            }
        }
    }
}
