//! The report of `ssaref reproduce`: the header (commit, date, machine,
//! command line), the two workloads, then one section per paper, in the
//! order of the papers in README.md's list. Each section is measured by its own
//! file; this one only assembles them.

use crate::evaluation::eval_error::EvalError;
use crate::evaluation::reproduce::measure::{count, Case, InstructionCounter, Plot, Scale, Section, Workload};
use crate::evaluation::reproduce::{boissinot, braun, pereira, pereira_palsberg};
use crate::evaluation::timing::MemoryProbe;
use crate::generate::source::{Shape, TestCase};
use crate::oracle::Oracle;
use std::time::Instant;

/// Where and how the report was made; the command line fills it in.
#[derive(Clone, Debug, Default)]
pub struct Header {
    pub commit: String,
    pub date: String,
    pub machine: String,
    pub command: String,
    /// The build's profile: debug assertions and overflow checks.
    pub profile: String,
    /// Reads the machine's load average (read at the start and at the end).
    pub load_average: Option<fn() -> String>,
    /// The check switch the measurements ran with (`reproduce` runs with
    /// it off).
    pub flags: crate::pass_manager::flags::Flags,
}

/// The report: `REPORT.md` and its SVG plots.
#[derive(Clone, Debug, Default)]
pub struct Report {
    pub markdown: String,
    pub plots: Vec<Plot>,
}

/// Statements of each generated program of the generated workload.
pub const GENERATED_SIZE: usize = 150;

/// The generated workload: `ssaref gen --shape swarm` programs of
/// [`GENERATED_SIZE`] statements, seeds 0, 1, ...
pub fn generated_workload(scale: Scale) -> Workload {
    let mut config = Shape::Swarm.config();
    config.size = GENERATED_SIZE;
    let n = scale.generated_programs();
    let cases = (0..n)
        .map(|seed| {
            let tc = TestCase::from_seed(seed, &config);
            Case { name: format!("seed{seed}"), program: tc.program, args: tc.args }
        })
        .collect();
    Workload {
        label: "generated".into(),
        description: format!(
            "{n} generated programs, `ssaref gen --shape swarm --size {GENERATED_SIZE} --seed S` for S = 0..{}",
            n.saturating_sub(1)
        ),
        cases,
    }
}

/// Measures every section and assembles the report.
pub fn reproduce(
    header: &Header,
    scale: Scale,
    corpus: &Workload,
    oracle: &dyn Oracle,
    fuel: u64,
    probe: &dyn MemoryProbe,
    counter: &dyn InstructionCounter,
) -> Result<Report, EvalError> {
    let start = Instant::now();
    let load = || header.load_average.map_or_else(|| "unknown".to_string(), |f| f());
    let load_at_start = load();
    let checks_before = crate::pass_manager::self_checks::invocations();
    let generated = generated_workload(scale);
    let workloads = [corpus, &generated];
    let mut durations = Vec::new();
    let mut sections: Vec<Section> = Vec::new();
    let mut timed = |name: &str, f: &mut dyn FnMut() -> Result<Section, EvalError>| -> Result<(), EvalError> {
        let start = Instant::now();
        sections.push(f().map_err(|e| e.within(name))?);
        durations.push(format!("{name} {:.1} s", start.elapsed().as_secs_f64()));
        Ok(())
    };
    timed("Braun et al.", &mut || braun::section(&workloads, scale, probe, counter))?;
    timed("Boissinot et al.", &mut || boissinot::section(&workloads, scale, oracle, fuel, probe))?;
    timed("Pereira", &mut || pereira::section(&workloads, oracle, fuel))?;
    timed("Pereira and Palsberg", &mut || pereira_palsberg::section(&workloads, scale, oracle, fuel))?;

    let mut md = String::new();
    md.push_str("# The papers' evaluations, reproduced by ssaref\n\n");
    let checks_run = crate::pass_manager::self_checks::invocations() - checks_before;
    md.push_str(&format!(
        "- commit: `{}`\n- date: {}\n- machine: {}\n- load average (1 min): {} at the start, {} at the end\n\
         - profile: {}\n- the passes' own checks: {} (checkers started on the measuring thread during the run: {})\n\
         - command: `{}`\n- scale: {} ({} repetitions of each timed configuration)\n\
         - duration: {:.1} s in all; per section: {}\n\n",
        header.commit,
        header.date,
        header.machine,
        load_at_start,
        load(),
        header.profile,
        header.flags,
        checks_run,
        header.command,
        scale.name(),
        scale.repeat(),
        start.elapsed().as_secs_f64(),
        durations.join(", ")
    ));
    md.push_str(
        "Every figure below was measured by this run, in-process, with the build and the checks stated \
         above. Timings are \
         medians of interleaved repetitions with [min–max]; every ratio is of two medians from the same \
         run. Counts are exact and deterministic. Each row that compares with a paper ends in a verdict \
         computed from the paper's figure and ours: *reproduced* when ours is within the tolerance printed \
         beside it, *not reproduced* otherwise, *not comparable* where the paper has no figure or measured \
         something else (the row or the text below the table says what). The papers' figures are copied from their text, with the \
         table or figure they come from; where a figure is an image without numbers in the text, the paper \
         column says what the text states. The corpus and the generated programs are reported side by side, \
         never mixed.\n\n",
    );
    md.push_str("## Workloads\n\n");
    for w in &workloads {
        md.push_str(&format!(
            "- **{}**: {} ({} programs, {} statements).\n",
            w.label,
            w.description,
            w.cases.len(),
            count(w.statements() as u64)
        ));
    }
    md.push('\n');
    let mut plots = Vec::new();
    for s in sections {
        md.push_str(&s.markdown);
        plots.extend(s.plots);
    }
    Ok(Report { markdown: md, plots })
}
