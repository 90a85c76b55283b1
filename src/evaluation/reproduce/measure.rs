//! What every section of `ssaref reproduce` shares: the workloads (the
//! realistic corpus and generated programs, never mixed), the scale of a
//! run, the times of one compilation, how figures are written, and the
//! Markdown tables, and each row's verdict (the paper's figure against
//! ours, within a stated tolerance). The measurement itself (interleaved repetitions, the
//! clocks, the median, the peak-memory probe) is `evaluation/timing.rs`.

use crate::ast::{self, Program};
use crate::evaluation::eval_error::EvalError;
use crate::evaluation::timing::{median, min_max, Stopwatch};

/// One program of a workload with the arguments of its `main`.
#[derive(Clone, Debug)]
pub struct Case {
    pub name: String,
    pub program: Program,
    pub args: Vec<i64>,
}

impl Case {
    /// Statements of the program, every function's.
    pub fn statements(&self) -> usize {
        statements(&self.program)
    }
}

/// The statements of every function of `program`.
pub fn statements(program: &Program) -> usize {
    let mut n = 0;
    for f in &program.functions {
        ast::walk_stmts(&f.body, |_, _| n += 1);
    }
    n
}

/// A set of programs reported in its own column: the corpus or the
/// generated programs.
#[derive(Clone, Debug)]
pub struct Workload {
    /// Short column label, e.g. `corpus`.
    pub label: String,
    /// One sentence on what it holds, for the report.
    pub description: String,
    pub cases: Vec<Case>,
}

impl Workload {
    /// `(program, args)` pairs, the input of the statistics of `generate/`, `campaign/`, `reduce/`, `evaluation/`.
    pub fn pairs(&self) -> Vec<(Program, Vec<i64>)> {
        self.cases.iter().map(|c| (c.program.clone(), c.args.clone())).collect()
    }

    /// Statements over every program.
    pub fn statements(&self) -> usize {
        self.cases.iter().map(Case::statements).sum()
    }
}

/// How much `ssaref reproduce` measures.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum Scale {
    /// The CI smoke test's run: every section, tiny inputs, few repetitions.
    Tiny,
    /// `--quick`: about a minute on an unloaded 2-core machine.
    Quick,
    /// The full run: within 30 minutes.
    Full,
}

impl Scale {
    pub fn name(self) -> &'static str {
        match self {
            Scale::Tiny => "tiny (smoke test)",
            Scale::Quick => "quick",
            Scale::Full => "full",
        }
    }

    /// Repetitions of each timed configuration.
    pub fn repeat(self) -> usize {
        match self {
            Scale::Tiny => 3,
            Scale::Quick => 5,
            Scale::Full => 11,
        }
    }

    /// Generated programs of the generated workload.
    pub fn generated_programs(self) -> u64 {
        match self {
            Scale::Tiny => 4,
            Scale::Quick => 40,
            Scale::Full => 200,
        }
    }

    /// The workloads whose executed instructions are counted (Braun et
    /// al.'s Table 2), `None` for none: the counter runs ssaref under
    /// valgrind, some fifty times slower, so the full run counts the
    /// `--quick` workloads (the corpus, the first 40 generated programs)
    /// and `--quick` counts nothing, to stay within their time.
    pub fn instruction_sample(self) -> Option<Scale> {
        match self {
            Scale::Tiny => Some(Scale::Tiny),
            Scale::Quick => None,
            Scale::Full => Some(Scale::Quick),
        }
    }

    /// Corpus programs used (the tiny run takes the first few only).
    pub fn corpus_programs(self) -> usize {
        match self {
            Scale::Tiny => 3,
            Scale::Quick | Scale::Full => usize::MAX,
        }
    }

    /// Statements of the generated functions of Braun et al.'s scaling plot.
    pub fn construction_sizes(self) -> Vec<usize> {
        match self {
            Scale::Tiny => vec![300, 1_000],
            Scale::Quick => vec![1_000, 3_000, 10_000, 30_000],
            Scale::Full => vec![1_000, 3_000, 10_000, 30_000, 100_000, 300_000, 1_000_000],
        }
    }

    /// Repetitions at a size (statements or instructions) of a scaling
    /// measurement: fewer for the largest.
    pub fn repeat_at(self, size: usize) -> usize {
        if size >= 300_000 {
            3
        } else if size >= 30_000 {
            self.repeat().min(5)
        } else {
            self.repeat()
        }
    }

    /// Statements of the generated functions of the out-of-SSA size series
    /// (Boissinot et al. §IV-D), smallest first, and the instructions of
    /// each generated compilation unit of the series.
    pub fn out_of_ssa_series(self) -> (Vec<usize>, usize) {
        match self {
            Scale::Tiny => (vec![50, 300], 2_000),
            Scale::Quick => (vec![50, 500, 3_000], 20_000),
            Scale::Full => (vec![50, 150, 500, 1_500, 5_000, 15_000], 50_000),
        }
    }
}

/// Milliseconds with 3 significant digits or more.
pub fn ms(seconds: f64) -> String {
    let m = seconds * 1e3;
    if m >= 100.0 {
        format!("{m:.0}")
    } else if m >= 1.0 {
        format!("{m:.2}")
    } else {
        format!("{m:.3}")
    }
}

/// `median [min–max]` of `seconds`, in milliseconds (see [`ms`]).
pub fn ms_spread(seconds: &[f64]) -> String {
    let (min, max) = min_max(seconds);
    format!("{} [{}–{}]", ms(median(seconds)), ms(min), ms(max))
}

/// `x / base` as a ratio with 2 decimals, or `–` when `base` is 0.
pub fn ratio(x: f64, base: f64) -> String {
    if base == 0.0 {
        "–".into()
    } else {
        format!("{:.2}", x / base)
    }
}

/// `x / base` as a percentage with 1 decimal, or `–` when `base` is 0.
pub fn percent(x: f64, base: f64) -> String {
    if base == 0.0 {
        "–".into()
    } else {
        format!("{:.1}%", x * 100.0 / base)
    }
}

/// The change from `before` to `after` as a signed percentage.
pub fn change(before: f64, after: f64) -> String {
    if before == 0.0 {
        "–".into()
    } else {
        format!("{:+.1}%", (after - before) * 100.0 / before)
    }
}

/// An integer with thousands separators, as the papers print them.
pub fn count(n: u64) -> String {
    let digits = n.to_string();
    let mut out = String::new();
    for (i, c) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(c);
    }
    out
}

/// A Markdown table.
#[derive(Clone, Debug, Default)]
pub struct Table {
    pub header: Vec<String>,
    pub rows: Vec<Vec<String>>,
}

impl Table {
    pub fn new(header: &[&str]) -> Table {
        Table { header: header.iter().map(|s| s.to_string()).collect(), rows: Vec::new() }
    }

    pub fn row(&mut self, cells: Vec<String>) {
        self.rows.push(cells);
    }

    /// The table as Markdown, with a blank line after it.
    pub fn render(&self) -> String {
        let mut s = format!("| {} |\n|", self.header.join(" | "));
        for _ in &self.header {
            s.push_str("---|");
        }
        s.push('\n');
        for r in &self.rows {
            s.push_str(&format!("| {} |\n", r.join(" | ")));
        }
        s.push('\n');
        s
    }
}

/// One SVG plot of the report: its file name (in the output folder) and text.
#[derive(Clone, Debug)]
pub struct Plot {
    pub file: String,
    pub svg: String,
}

/// One section of the report: Markdown and its plots.
#[derive(Clone, Debug, Default)]
pub struct Section {
    pub markdown: String,
    pub plots: Vec<Plot>,
}

impl Section {
    /// Adds a plot and the Markdown line that shows it.
    pub fn plot(&mut self, file: &str, svg: String, caption: &str) {
        self.markdown.push_str(&format!("![{caption}]({file})\n\n*{caption}*\n\n"));
        self.plots.push(Plot { file: file.to_string(), svg });
    }
}

/// The times of one compilation by ssa-ra, each pass alone, in seconds
/// (measured with the passes' own checks off, `pass_manager/self_checks.rs`).
#[derive(Clone, Debug, Default)]
pub struct CompileTimes {
    /// Braun et al.'s construction from the AST.
    pub construction: f64,
    /// The construction's phases (`pass_manager/clock.rs`), in order.
    pub construction_phases: Vec<(&'static str, f64)>,
    /// ssa-ra's passes in order (`AllocReport::pass_times`), summed over
    /// the functions.
    pub passes: Vec<(&'static str, f64)>,
    /// x86-64 lowering and encoding of every function.
    pub lowering: f64,
}

impl CompileTimes {
    pub fn total(&self) -> f64 {
        self.construction + self.passes.iter().map(|p| p.1).sum::<f64>() + self.lowering
    }

    /// Adds the times of `other`, pass by pass.
    pub fn add(&mut self, other: &CompileTimes) {
        self.construction += other.construction;
        self.lowering += other.lowering;
        add_named(&mut self.passes, &other.passes);
        add_named(&mut self.construction_phases, &other.construction_phases);
    }

    /// Every part in order with its time: each construction phase
    /// (`construction: NAME`), each ssa-ra pass (`ssa-ra: NAME`), then
    /// `x86-64 lowering`.
    pub fn parts(&self) -> Vec<(String, f64)> {
        let mut out: Vec<(String, f64)> =
            self.construction_phases.iter().map(|&(n, t)| (format!("construction: {n}"), t)).collect();
        out.extend(self.passes.iter().map(|&(n, t)| (format!("ssa-ra: {n}"), t)));
        out.push(("x86-64 lowering".into(), self.lowering));
        out
    }

    /// The time of the passes named in `names`.
    pub fn passes_named(&self, names: &[&str]) -> f64 {
        self.passes.iter().filter(|p| names.contains(&p.0)).map(|p| p.1).sum()
    }
}

/// Adds each `(name, time)` of `other` to the entry of `into` with that
/// name, or appends it.
fn add_named(into: &mut Vec<(&'static str, f64)>, other: &[(&'static str, f64)]) {
    for &(name, d) in other {
        match into.iter_mut().find(|p| p.0 == name) {
            Some(p) => p.1 += d,
            None => into.push((name, d)),
        }
    }
}

/// What [`compile`] measured and counted of one compilation.
#[derive(Clone, Debug, Default)]
pub struct Compiled {
    pub times: CompileTimes,
    /// Values ssa-ra spilled, summed over the functions.
    pub spilled: u64,
    /// Instructions and phis of the SSA form.
    pub ir_size: u64,
}

/// Compiles `program` with ssa-ra down to x86-64 and times each part (the
/// thread's CPU time, `timing::Stopwatch`, as the passes' own times). The
/// passes' own checks follow the switch (`pass_manager/self_checks.rs`):
/// `ssaref reproduce` turns them off, so that no checker is timed.
pub fn compile(
    program: &Program,
    construction: &crate::construction::braun::BraunOptions,
    regalloc: &crate::ssa_ra::regalloc::RegallocOptions,
) -> Result<Compiled, EvalError> {
    let start = Stopwatch::start();
    let (ssa, phases) =
        crate::pass_manager::clock::record(|| crate::construction::braun::construct_program(program, construction));
    let mut t = CompileTimes { construction: start.cpu_seconds(), ..Default::default() };
    t.construction_phases = phases.iter().map(|&(n, d)| (n, d.as_secs_f64())).collect();
    let ir_size = ssa.functions.iter().map(|f| (f.inst_count() + f.phi_count()) as u64).sum();
    let (mir, reports) = crate::backend::ssa_ra::allocate_module(
        &ssa,
        regalloc,
        crate::pass_manager::flags::Flags::unchecked(),
        &mut crate::pass_manager::runner::Unobserved,
    )?;
    for r in &reports {
        let passes: Vec<(&'static str, f64)> = r.pass_times.iter().map(|&(name, d)| (name, d.as_secs_f64())).collect();
        add_named(&mut t.passes, &passes);
    }
    let start = Stopwatch::start();
    for f in &mir.functions {
        let code = crate::machine::x86_lower::lower_function(f)?;
        drop(code);
    }
    t.lowering = start.cpu_seconds();
    let spilled = reports.iter().map(|r| r.spilled as u64).sum();
    Ok(Compiled { times: t, spilled, ir_size })
}

/// Builds the SSA form of every program of `w` with `construct`, once:
/// the region `ssaref reproduce` counts executed instructions of for
/// "construction alone" (never inlined, so that an instruction counter
/// can find it by name; see `cli/reproduce.rs`).
#[inline(never)]
pub fn construct_workload(w: &Workload, construct: &Construct) -> usize {
    w.cases.iter().map(|c| construct(&c.program).functions.len()).sum()
}

/// Compiles every program of `w` once: `construct`, then ssa-ra at `k`
/// and the x86-64 lowering; the region counted for "the whole pipeline"
/// (never inlined, as [`construct_workload`]).
#[inline(never)]
pub fn compile_workload(w: &Workload, construct: &Construct, k: usize) -> Result<usize, EvalError> {
    let regalloc = crate::ssa_ra::regalloc::RegallocOptions::with_k(k);
    let mut bytes = 0;
    for c in &w.cases {
        let ssa = construct(&c.program);
        let (mir, _) = crate::backend::ssa_ra::allocate_module(
            &ssa,
            &regalloc,
            crate::pass_manager::flags::Flags::unchecked(),
            &mut crate::pass_manager::runner::Unobserved,
        )
        .map_err(|e| EvalError::from(e).within(c.name.clone()))?;
        for f in &mir.functions {
            bytes += crate::machine::x86_lower::lower_function(f)?.bytes.len();
        }
    }
    Ok(bytes)
}

/// How close our figure must be to the paper's for a row to count as
/// reproduced. The report prints it beside the verdict, so that a reader
/// can judge the verdict.
#[derive(Clone, Copy, PartialEq, Debug)]
pub enum Tolerance {
    /// `|ours − paper| ≤ f · |paper|`, e.g. `Relative(0.10)` for ±10%.
    Relative(f64),
    /// `|ours − paper| ≤ d`, in the figure's own unit.
    Absolute(f64),
    /// `|ours − paper| ≤ d` for figures in percent: `d` percentage points.
    Points(f64),
    /// Same sign, or both within `d` of zero: for a change whose direction
    /// is the paper's claim ("slower", "fewer"), not its size.
    SameSign(f64),
}

impl Tolerance {
    fn holds(self, paper: f64, ours: f64) -> bool {
        match self {
            Tolerance::Relative(f) => (ours - paper).abs() <= f * paper.abs(),
            Tolerance::Absolute(d) | Tolerance::Points(d) => (ours - paper).abs() <= d,
            Tolerance::SameSign(d) => {
                (paper.abs() <= d && ours.abs() <= d) || (paper > d && ours > d) || (paper < -d && ours < -d)
            }
        }
    }

    /// The tolerance as a table cell, e.g. `±10%`, `±2`, `same sign (±1)`.
    pub fn render(self) -> String {
        let num = |x: f64| {
            let s = format!("{x:.3}");
            s.trim_end_matches('0').trim_end_matches('.').to_string()
        };
        match self {
            Tolerance::Relative(f) => format!("±{}%", num(f * 100.0)),
            Tolerance::Absolute(d) => format!("±{}", num(d)),
            Tolerance::Points(d) => format!("±{} percentage point{}", num(d), if d == 1.0 { "" } else { "s" }),
            Tolerance::SameSign(d) => format!("same sign (0 ± {})", num(d)),
        }
    }
}

/// A row's verdict: whether our figure reproduces the paper's.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum Verdict {
    /// Ours is within the tolerance of the paper's figure.
    Reproduced,
    /// Ours is outside the tolerance.
    NotReproduced,
    /// The paper gives no figure for this row, or ours measures something
    /// else (the row's text says what).
    NotComparable,
}

impl Verdict {
    /// The verdict from the paper's figure (`None`: the paper has none, or
    /// it is not comparable with ours), ours and the tolerance. A figure
    /// that is not finite (a ratio over zero) is not comparable.
    pub fn of(paper: Option<f64>, ours: f64, tolerance: Tolerance) -> Verdict {
        match paper {
            Some(p) if p.is_finite() && ours.is_finite() => {
                if tolerance.holds(p, ours) {
                    Verdict::Reproduced
                } else {
                    Verdict::NotReproduced
                }
            }
            _ => Verdict::NotComparable,
        }
    }

    /// The verdict over several figures (one per workload, say): reproduced
    /// only if every one is, not reproduced if any is, otherwise not
    /// comparable.
    pub fn all(verdicts: &[Verdict]) -> Verdict {
        if verdicts.is_empty() || verdicts.contains(&Verdict::NotComparable) {
            Verdict::NotComparable
        } else if verdicts.iter().all(|v| *v == Verdict::Reproduced) {
            Verdict::Reproduced
        } else {
            Verdict::NotReproduced
        }
    }

    pub fn name(self) -> &'static str {
        match self {
            Verdict::Reproduced => "reproduced",
            Verdict::NotReproduced => "not reproduced",
            Verdict::NotComparable => "not comparable",
        }
    }

    /// The verdict column's cell: the verdict and the tolerance it was
    /// judged with, e.g. `reproduced (±10%)`.
    pub fn cell(self, tolerance: Tolerance) -> String {
        match self {
            Verdict::NotComparable => self.name().to_string(),
            _ => format!("{} ({})", self.name(), tolerance.render()),
        }
    }
}

/// The verdict column's cell for the paper's figure against ours.
pub fn verdict_cell(paper: Option<f64>, ours: f64, tolerance: Tolerance) -> String {
    Verdict::of(paper, ours, tolerance).cell(tolerance)
}

/// Which region of a compilation an [`InstructionCounter`] counts.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum Region {
    /// The construction alone ([`construct_workload`]).
    Construction,
    /// Construction, ssa-ra and lowering ([`compile_workload`]).
    Pipeline,
}

impl Region {
    pub fn name(self) -> &'static str {
        match self {
            Region::Construction => "construction",
            Region::Pipeline => "pipeline",
        }
    }
}

/// Counts the instructions the machine executes in a region of a
/// compilation of a whole workload. The command line provides it (it runs
/// ssaref under an instruction counter); `None` from [`Self::count`] when
/// the machine has none.
pub trait InstructionCounter {
    /// How the count is made, for the report.
    fn method(&self) -> String;
    /// Executed instructions of `region` over the workload labelled
    /// `workload` as `scale` makes it, built by the construction named
    /// `construction` (`cytron`, `plain` or `marker`).
    fn count(&self, workload: &str, scale: Scale, construction: &str, region: Region)
        -> Result<Option<u64>, EvalError>;
}

/// A counter that counts nothing, for callers without one.
#[derive(Clone, Copy, Debug, Default)]
pub struct NoInstructionCounter;

impl InstructionCounter for NoInstructionCounter {
    fn method(&self) -> String {
        "no instruction counter".into()
    }
    fn count(&self, _: &str, _: Scale, _: &str, _: Region) -> Result<Option<u64>, EvalError> {
        Ok(None)
    }
}

/// An SSA construction from the AST.
pub type Construct = dyn Fn(&Program) -> crate::ir::Module;

/// The construction named `name` (`cytron`, `plain`, `marker`), as the
/// instruction counter's child process runs it.
pub fn construction_named(name: &str) -> Option<Box<Construct>> {
    use crate::construction::braun::{construct_program, BraunOptions};
    match name {
        "cytron" => Some(Box::new(crate::construction::cytron::construct_cytron)),
        "plain" => Some(Box::new(|p: &Program| construct_program(p, &BraunOptions::plain()))),
        "marker" => {
            Some(Box::new(|p: &Program| construct_program(p, &BraunOptions { marker: true, ..BraunOptions::plain() })))
        }
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn verdicts_follow_the_tolerance() {
        let r = Tolerance::Relative(0.10);
        assert_eq!(Verdict::of(Some(100.0), 109.0, r), Verdict::Reproduced);
        assert_eq!(Verdict::of(Some(100.0), 91.0, r), Verdict::Reproduced);
        assert_eq!(Verdict::of(Some(100.0), 111.0, r), Verdict::NotReproduced);
        assert_eq!(Verdict::of(Some(-100.0), -95.0, r), Verdict::Reproduced);
        assert_eq!(Verdict::of(None, 1.0, r), Verdict::NotComparable);
        assert_eq!(Verdict::of(Some(1.0), f64::NAN, r), Verdict::NotComparable);
        let a = Tolerance::Absolute(2.0);
        assert_eq!(Verdict::of(Some(4.8), 6.5, a), Verdict::Reproduced);
        assert_eq!(Verdict::of(Some(4.8), 7.0, a), Verdict::NotReproduced);
        let s = Tolerance::SameSign(1.0);
        assert_eq!(Verdict::of(Some(-1.0), 0.5, s), Verdict::Reproduced);
        assert_eq!(Verdict::of(Some(42.0), 3.0, s), Verdict::Reproduced);
        assert_eq!(Verdict::of(Some(42.0), -3.0, s), Verdict::NotReproduced);
        assert_eq!(Verdict::of(Some(-12.0), 0.2, s), Verdict::NotReproduced);
    }

    #[test]
    fn combined_verdicts_and_cells() {
        use Verdict::*;
        assert_eq!(Verdict::all(&[Reproduced, Reproduced]), Reproduced);
        assert_eq!(Verdict::all(&[Reproduced, NotReproduced]), NotReproduced);
        assert_eq!(Verdict::all(&[Reproduced, NotComparable]), NotComparable);
        assert_eq!(Verdict::all(&[]), NotComparable);
        assert_eq!(verdict_cell(Some(100.0), 105.0, Tolerance::Relative(0.1)), "reproduced (±10%)");
        assert_eq!(verdict_cell(Some(4.8), 26.2, Tolerance::Absolute(2.0)), "not reproduced (±2)");
        assert_eq!(verdict_cell(None, 1.0, Tolerance::Absolute(2.0)), "not comparable");
        assert_eq!(Tolerance::SameSign(0.5).render(), "same sign (0 ± 0.5)");
        assert_eq!(verdict_cell(Some(99.72), 99.0, Tolerance::Points(1.0)), "reproduced (±1 percentage point)");
        assert_eq!(verdict_cell(Some(4.8), 1.3, Tolerance::Points(2.0)), "not reproduced (±2 percentage points)");
    }
}
