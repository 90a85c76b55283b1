//! Shared helpers of the integration tests: the oracle adapter and the
//! reader of test-case headers (`tests/cases/*.src` and `tests/corpus/*.src`,
//! format in docs/testing.md, "Test cases").

#![allow(dead_code)] // Each test binary uses a different subset.

pub mod call_programs;
pub mod passes;

use ssaref::outcome::Outcome;

/// The oracle of crate `ssaref-interp`, behind the library's `Oracle` trait.
// Not every test binary that includes this module runs the oracle.
#[allow(unused_imports)]
pub use ssaref_interp::Interp as InterpOracle;
use std::path::PathBuf;

/// A test case: its description, arguments and expected outcome text.
#[derive(Clone, Debug)]
pub struct Case {
    pub description: String,
    pub args: Vec<i64>,
    /// The expected outcome as `Outcome::render_full` prints it.
    pub expect: String,
    /// The program text after the header.
    pub body: String,
}

/// Reads a case header. Errors name the line: `LINE: message`.
pub fn parse_case(text: &str) -> Result<Case, String> {
    let mut description = Vec::new();
    let mut args = Vec::new();
    let mut expect: Option<Vec<String>> = None;
    let mut body_start = text.len();
    let mut offset = 0;
    for (i, line) in text.split_inclusive('\n').enumerate() {
        let trimmed = line.trim_end();
        let Some(comment) = trimmed.strip_prefix("//") else {
            body_start = offset;
            break;
        };
        offset += line.len();
        let comment = comment.strip_prefix(' ').unwrap_or(comment);
        if let Some(exp) = expect.as_mut() {
            exp.push(comment.to_string());
        } else if let Some(rest) = comment.strip_prefix("args:") {
            for a in rest.split_whitespace() {
                args.push(a.parse::<i64>().map_err(|_| format!("{}: bad argument `{a}`", i + 1))?);
            }
        } else if comment.trim() == "expect:" {
            expect = Some(Vec::new());
        } else {
            description.push(comment.to_string());
        }
    }
    let expect = expect.ok_or("no `// expect:` block in the header")?;
    let mut expect_text = expect.join("\n");
    expect_text.push('\n');
    Ok(Case { description: description.join("\n"), args, expect: expect_text, body: text[body_start..].to_string() })
}

/// Rewrites a case file's expect block with `outcome` (bless mode).
pub fn bless_case(text: &str, outcome: &Outcome) -> String {
    let mut out = String::new();
    let mut lines = text.split_inclusive('\n').peekable();
    while let Some(line) = lines.next() {
        if line.trim_end() == "// expect:" {
            out.push_str(line);
            while lines.peek().is_some_and(|l| l.starts_with("//")) {
                lines.next();
            }
            for l in outcome.render_full().lines() {
                out.push_str("// ");
                out.push_str(l);
                out.push('\n');
            }
        } else {
            out.push_str(line);
        }
    }
    out
}

/// Runs `f` on a thread with a 2 MiB stack (the size cargo test gives its
/// threads), to show that deep inputs do not need a bigger one.
pub fn on_small_stack<T: Send + 'static>(f: impl FnOnce() -> T + Send + 'static) -> T {
    std::thread::Builder::new().stack_size(2 << 20).spawn(f).expect("spawn").join().expect("no panic")
}

/// The `.src` files of `tests/cases/` whose reference run is conclusive,
/// sorted by name: a case whose expected end is the call-depth bound
/// (`// call-depth-exceeded`) has nothing for a back end's stages to agree
/// with. [`all_case_files`] has it too.
pub fn case_files() -> Vec<PathBuf> {
    conclusive(src_files("tests/cases"))
}

/// Every `.src` file of `tests/cases/`, programs with calls included.
pub fn all_case_files() -> Vec<PathBuf> {
    src_files("tests/cases")
}

/// Every `.src` file of `tests/corpus/`, programs with calls included.
pub fn all_corpus_files() -> Vec<PathBuf> {
    src_files("tests/corpus")
}

/// The files of `files` whose expected outcome (the header's `// expect:`
/// block) does not end at the call-depth bound.
fn conclusive(files: Vec<PathBuf>) -> Vec<PathBuf> {
    files
        .into_iter()
        .filter(|p| {
            let text = std::fs::read_to_string(p).unwrap_or_default();
            !text.lines().take_while(|l| l.starts_with("//")).any(|l| l.trim() == "// call-depth-exceeded")
        })
        .collect()
}

/// The `.src` files of `tests/corpus/` (the realistic programs), sorted by
/// name.
pub fn corpus_files() -> Vec<PathBuf> {
    conclusive(src_files("tests/corpus"))
}

/// The `.src` files directly in `dir` (relative to the repository root),
/// sorted by name.
pub fn src_files(dir: &str) -> Vec<PathBuf> {
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join(dir);
    let mut files: Vec<PathBuf> = std::fs::read_dir(&dir)
        .unwrap_or_else(|e| panic!("{} exists: {e}", dir.display()))
        .map(|e| e.expect("readable entry").path())
        .filter(|p| p.extension().is_some_and(|x| x == "src"))
        .collect();
    files.sort();
    files
}

/// The `.ssa` files of `tests/cases/` (programs in the SSA text form, with
/// the same header), sorted by name.
pub fn ssa_case_files() -> Vec<PathBuf> {
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/cases");
    let mut files: Vec<PathBuf> = std::fs::read_dir(&dir)
        .expect("tests/cases exists")
        .map(|e| e.expect("readable entry").path())
        .filter(|p| p.extension().is_some_and(|x| x == "ssa"))
        .collect();
    files.sort();
    files
}

/// out-of-ssa's input shape, made from SSA for the tests of the conventional
/// allocators: critical edges split, Method I copies
/// (`copy_insertion::insert_copies`, which yields CSSA), then each phi
/// congruence class (the phi's destination and arguments, all fresh after
/// Method I) renamed to the phi's destination and the phis dropped. This is
/// naive coalescing, valid in CSSA: the members of a class never interfere.
/// The result has no phis, and its phi variables are defined several times.
pub fn out_of_ssa_function(f: &ssaref::ir::Function) -> ssaref::ir::Function {
    use ssaref::ir::Value;
    let mut g = f.clone();
    ssaref::analysis::critical_edges::split_critical_edges(&mut g);
    ssaref::out_of_ssa::copy_insertion::insert_copies(&mut g);
    let mut rename: Vec<Value> = (0..g.value_count).map(Value).collect();
    for data in g.blocks.values() {
        for phi in &data.phis {
            for &a in &phi.args {
                rename[a.0 as usize] = phi.dest;
            }
        }
    }
    for data in g.blocks.values_mut() {
        data.phis.clear();
        for inst in &mut data.insts {
            inst.dest = inst.dest.map(|d| rename[d.0 as usize]);
            inst.op.map_args(|a| rename[a.0 as usize]);
        }
    }
    g
}

/// [`out_of_ssa_function`] on every function of a module.
pub fn out_of_ssa_module(m: &ssaref::ir::Module) -> ssaref::ir::Module {
    ssaref::ir::Module { functions: m.functions.iter().map(out_of_ssa_function).collect() }
}

/// Parses a test's IR text (one function), without the SSA verifier: the
/// text may be a destructed, non-SSA program.
pub fn parse_unverified(text: &str) -> ssaref::ir::Function {
    let m = ssaref::ssa_text::parse_module(text).unwrap_or_else(|d| panic!("test IR parses: {d}"));
    m.functions.into_iter().next().expect("one function")
}

/// Parses a test's SSA text (one function) and verifies it; panics with the
/// diagnostic otherwise.
pub fn parse_one(text: &str) -> ssaref::ir::Function {
    let f = parse_unverified(text);
    ssaref::analysis::verifier::verify_function(&f).unwrap_or_else(|e| panic!("test IR verifies: {e}"));
    f
}

/// Boissinot et al., Fig. 3, the swap problem: after copy propagation the
/// two loop-header phis read each other on the back edge.
pub const BOISSINOT_FIG3_SWAP: &str = "
fn main(v0) {
b0:
    v1 = const 1
    v2 = const 2
    v3 = const 0
    v9 = const 1
    jump b1
b1(b0, b2):
    v4 = phi v1, v5
    v5 = phi v2, v4
    v6 = phi v3, v7
    v8 = lt v6, v0
    br v8, b2, b3
b2(b1):
    v7 = add v6, v9
    jump b1
b3(b1):
    out v4
    ret v5
}
";

/// Boissinot et al., Fig. 4, the lost-copy problem: after copy propagation
/// the value of the phi is used after the loop while the back edge (a
/// critical edge, left unsplit) redefines it.
pub const BOISSINOT_FIG4_LOST_COPY: &str = "
fn main(v0) {
b0:
    v1 = const 1
    v5 = const 1
    jump b1
b1(b0, b1):
    v2 = phi v1, v3
    v3 = add v2, v5
    v4 = lt v3, v0
    br v4, b1, b2
b2(b1):
    ret v2
}
";

/// Generated program `seed` (the pattern shape for even seeds, the default
/// one for odd seeds) with its SSA form (Braun's construction, all options
/// on when `seed % 4 < 2`, plain otherwise) and its outcome; `None` when it
/// fails to run or runs out of `fuel`.
pub fn seeded_ssa(seed: u64, fuel: u64) -> Option<(ssaref::generate::source::TestCase, ssaref::ir::Module, Outcome)> {
    use ssaref::construction::braun::{construct_program, BraunOptions};
    use ssaref::generate::source::{GenConfig, Shape, TestCase};
    let config = if seed.is_multiple_of(2) { Shape::Patterns.config() } else { GenConfig::default() };
    let tc = TestCase::from_seed(seed, &config);
    let expected = ssaref_interp::run_ast(&tc.program, &tc.args, fuel).ok()?;
    if expected.end == ssaref::outcome::End::OutOfFuel {
        return None;
    }
    let braun = if seed % 4 < 2 { BraunOptions::all_on() } else { BraunOptions::plain() };
    let module = construct_program(&tc.program, &braun);
    Some((tc, module, expected))
}

/// The oracle with a planted divergence: the SSA engine (`ssa`) or the MIR
/// engine (`mir`) appends one value to every trace it returns. A smoke test
/// that runs a fuzz target with it must see the target fail, which proves
/// that the target compares those stages at all.
#[derive(Clone, Copy, Debug)]
pub struct PlantedOracle {
    pub ssa: bool,
    pub mir: bool,
}

impl PlantedOracle {
    fn plant(
        on: bool,
        o: Result<Outcome, ssaref::oracle::OracleError>,
    ) -> Result<Outcome, ssaref::oracle::OracleError> {
        o.map(|mut o| {
            if on {
                o.trace.push(0x5eed);
            }
            o
        })
    }
}

impl ssaref::oracle::Oracle for PlantedOracle {
    fn run_source(
        &self,
        program: &ssaref::ast::Program,
        args: &[i64],
        fuel: u64,
    ) -> Result<Outcome, ssaref::oracle::OracleError> {
        InterpOracle.run_source(program, args, fuel)
    }
    fn run_ssa(
        &self,
        module: &ssaref::ir::Module,
        args: &[i64],
        fuel: u64,
    ) -> Result<Outcome, ssaref::oracle::OracleError> {
        Self::plant(self.ssa, InterpOracle.run_ssa(module, args, fuel))
    }
    fn run_mir(
        &self,
        module: &ssaref::mir::MModule,
        args: &[i64],
        fuel: u64,
    ) -> Result<Outcome, ssaref::oracle::OracleError> {
        Self::plant(self.mir, InterpOracle.run_mir(module, args, fuel))
    }
}

/// Runs `f` on each input and counts the inputs on which it panics, with
/// the panic messages silenced (the default hook is restored after).
pub fn count_panics<T>(inputs: &[T], f: impl Fn(&T)) -> usize {
    let hook = std::panic::take_hook();
    std::panic::set_hook(Box::new(|_| {}));
    let n = inputs.iter().filter(|x| std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| f(x))).is_err()).count();
    std::panic::set_hook(hook);
    n
}

/// Every single corruption of the allocation of `f`: two different
/// registers exchanged in one binary operation or store, one reload of
/// spill code dropped, one store of spill code dropped. Each comes with its
/// kind.
pub fn corruptions(f: &ssaref::mir::MFunction) -> Vec<(&'static str, ssaref::mir::MFunction)> {
    let mut out = Vec::new();
    for (b, data) in f.blocks.iter() {
        for (i, mi) in data.insts.iter().enumerate() {
            let mut g = f.clone();
            let target = &mut g.blocks[b].insts[i].inst;
            match *target {
                ssaref::mir::MInst::Binary { op, dst, a, b: rb } if a != rb => {
                    *target = ssaref::mir::MInst::Binary { op, dst, a: rb, b: a };
                    out.push(("swapped registers", g));
                }
                ssaref::mir::MInst::Store { addr, src } if addr != src => {
                    *target = ssaref::mir::MInst::Store { addr: src, src: addr };
                    out.push(("swapped registers", g));
                }
                // Spill code only: an annotated transfer is a program copy,
                // and dropping it changes the program, not the allocation
                // (the checker does not see the source program).
                ssaref::mir::MInst::Reload { .. } | ssaref::mir::MInst::Spill { .. }
                    if mi.annot == ssaref::mir::Annot::default() =>
                {
                    let kind = if matches!(mi.inst, ssaref::mir::MInst::Reload { .. }) {
                        "dropped reload"
                    } else {
                        "dropped store"
                    };
                    g.blocks[b].insts.remove(i);
                    out.push((kind, g));
                }
                _ => {}
            }
        }
    }
    out
}

/// A counting loop in the SSA text form (`v3` counts from 0 to `v0`),
/// shared by the liveness, lifting and interval tests.
pub const COUNTING_LOOP: &str = "
fn main(v0) {
b0:
    v1 = const 0
    v2 = const 1
    jump b1
b1(b0, b2):
    v3 = phi v1, v5
    v4 = lt v3, v0
    br v4, b2, b3
b2(b1):
    v5 = add v3, v2
    jump b1
b3(b1):
    ret v3
}
";
