//! Test-case reduction (`ssaref reduce`): shrink a failing case while it
//! keeps failing in the same way.
//!
//! A failing case is a program, the arguments of its `main` and the
//! register counts of ssa-ra; `differential::differential_full` (with
//! [`DiffConfig::standard`] and regalloc2, which runs last, so a failure of
//! ssa-ra and out-of-ssa reduces as before) gives its verdict. The reducer keeps a
//! candidate only if its verdict is the same [`Failure`]: the same kind of
//! verdict and
//! - for a divergence, the same first diverging stage up to K
//!   (`ssa-ra[k=4,opt]` and `ssa-ra[k=2,opt]` are both `ssa-ra[k=*,opt]`)
//!   and the same kind of wrong result (another outcome, a later stage out
//!   of fuel, or an error of the oracle such as a read of a location never
//!   written);
//! - for a failed check, the same pass and checker;
//! - for a source the oracle cannot run, that again.
//!
//! A candidate whose source run ends out of fuel is `Verdict::Inconclusive`,
//! which is no failure, so it is never kept: the reducer may remove the
//! loop budget of a generated program (it runs the shrinker with
//! `ShrinkOptions::keep_budget` off), but only keeps the result when the
//! source still ends.
//!
//! The algorithm, greedy and deterministic:
//! 1. Narrow the register counts to one: the K of the failing stage, or for
//!    a failed check of ssa-ra the smallest K of the case that still
//!    fails; for a failure before ssa-ra, none at all.
//! 2. Lower K: try K = 2, 3, ... below the current one; keep the first that
//!    still fails.
//! 3. Shrink to a fixpoint with the candidates of `generate/source/shrink.rs` (delete
//!    statements, in halving chunks then one by one; unwrap an `if`,
//!    `while` or `{ .. }` into its body, drop an else; drop a label and its
//!    `goto`s; replace an expression by an operand, `0` or `1`; zero or
//!    halve an argument; drop an unused parameter): go through the
//!    candidates of the current case, move to the first that still fails,
//!    and start the candidates of the new case at the same index, wrapping
//!    around; stop after a whole round without success.
//! 4. Repeat 2 and 3 until K stops going down.
//!
//! Every candidate is smaller in a well-founded order (statements, then
//! expression nodes, then literals and arguments), so the fixpoint exists;
//! [`ReduceConfig::max_tests`] bounds the number of differential runs in
//! any case, and the reducer then returns the smallest failing case found
//! so far.
//!
//! The algorithm works on anything [`Reducible`]: a source-level
//! [`TestCase`] (this file) or an SSA-level case (`reduce/ssa.rs`, whose
//! candidates edit the IR and whose verdict is `differential::differential_ssa`);
//! the failure a candidate must keep is the same [`Failure`] for both.

use crate::differential::{differential_full_catching, DiffConfig, Verdict};
use crate::generate::source::shrink::{Candidates, ShrinkOptions};
use crate::generate::source::TestCase;
use crate::oracle::Oracle;
use std::fmt;

/// A case the reducer can shrink: its verdict, its size, and the smaller
/// candidates of step 3, each smaller in a well-founded order.
pub trait Reducible: Clone {
    /// The candidates of one case, made lazily.
    type Candidates: CandidateList<Self>;
    /// The verdict of the case under `diff` (panics caught).
    fn verdict(&self, oracle: &dyn Oracle, diff: &DiffConfig) -> Verdict;
    /// The candidates of this case, most aggressive first.
    fn candidates(&self) -> Self::Candidates;
    /// True when `other` is the same program with the same arguments.
    fn same_as(&self, other: &Self) -> bool;
    /// The size the reducer reports: statements of a source program,
    /// phis and instructions of an SSA one.
    fn size(&self) -> usize;
    /// Where the case comes from, for reports.
    fn origin_mut(&mut self) -> &mut String;
}

/// The candidates of one case, by index.
pub trait CandidateList<T> {
    fn len(&self) -> usize;
    fn is_empty(&self) -> bool {
        self.len() == 0
    }
    /// Candidate `i`, or `None` when its edit gives an invalid program.
    fn get(&self, i: usize) -> Option<T>;
}

impl CandidateList<TestCase> for Candidates {
    fn len(&self) -> usize {
        Candidates::len(self)
    }

    fn get(&self, i: usize) -> Option<TestCase> {
        Candidates::get(self, i)
    }
}

impl Reducible for TestCase {
    type Candidates = Candidates;

    fn verdict(&self, oracle: &dyn Oracle, diff: &DiffConfig) -> Verdict {
        differential_full_catching(&self.program, &self.args, oracle, diff)
    }

    fn candidates(&self) -> Candidates {
        Candidates::new(self, ShrinkOptions { keep_budget: false })
    }

    fn same_as(&self, other: &Self) -> bool {
        self.program == other.program && self.args == other.args
    }

    fn size(&self) -> usize {
        self.statement_count()
    }

    fn origin_mut(&mut self) -> &mut String {
        &mut self.origin
    }
}

/// How a case fails, with K abstracted: what every kept candidate shares.
#[derive(Clone, PartialEq, Eq, Debug)]
pub enum Failure {
    /// The first stage whose outcome differs from the source's, as
    /// [`stage_family`] writes it.
    Diverge { stage: String, how: Divergence },
    /// A checker rejected the output of a pass.
    CheckFailed { pass: String, check: &'static str },
    /// The oracle could not run the source program.
    SourceError,
    /// A pass panicked with this message.
    Panic { message: String },
}

/// What a diverging stage gave instead of the source's outcome.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum Divergence {
    /// Another trace, end or memory.
    WrongOutcome,
    /// The stage ran out of its (larger) fuel, or went deeper than the
    /// call-depth bound, where the source ended.
    OutOfFuel,
    /// The oracle rejected the stage's run (e.g. a read of a location that
    /// was never written).
    OracleError,
}

impl Failure {
    /// The failure of a verdict; `None` for `Agree` and `Inconclusive`.
    pub fn of(verdict: &Verdict) -> Option<Failure> {
        match verdict {
            Verdict::Agree { .. } | Verdict::Inconclusive | Verdict::Limit { .. } => None,
            Verdict::Diverge { stage, got, .. } => {
                let how = match got {
                    Err(_) => Divergence::OracleError,
                    Ok(o) if o.end.is_inconclusive() => Divergence::OutOfFuel,
                    Ok(_) => Divergence::WrongOutcome,
                };
                Some(Failure::Diverge { stage: stage_family(stage), how })
            }
            Verdict::CheckFailed(e) => Some(Failure::CheckFailed { pass: stage_family(&e.pass), check: e.check }),
            Verdict::SourceError(_) => Some(Failure::SourceError),
            Verdict::Panic(message) => Some(Failure::Panic { message: normalize_numbers(message) }),
        }
    }
}

impl fmt::Display for Failure {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Failure::Diverge { stage, how } => {
                let how = match how {
                    Divergence::WrongOutcome => "another outcome",
                    Divergence::OutOfFuel => "out of fuel or call depth",
                    Divergence::OracleError => "an oracle error",
                };
                write!(f, "stage {stage} diverges ({how})")
            }
            Failure::CheckFailed { pass, check } => write!(f, "check `{check}` fails after {pass}"),
            Failure::SourceError => f.write_str("the oracle cannot run the source"),
            Failure::Panic { message } => write!(f, "ssaref panics: {message}"),
        }
    }
}

/// A stage or pass name with its register count replaced by `*`:
/// `ssa-ra[k=4,opt]/spill` gives `ssa-ra[k=*,opt]/spill`.
pub fn stage_family(stage: &str) -> String {
    let mut out = String::with_capacity(stage.len());
    let mut rest = stage;
    while let Some(at) = rest.find("k=") {
        out.push_str(&rest[..at + 2]);
        let after = &rest[at + 2..];
        let digits = leading_digits(after);
        if digits > 0 {
            out.push('*');
        }
        rest = &after[digits..];
    }
    out.push_str(rest);
    out
}

/// A panic message with its value and block numbers replaced by `*`
/// (`v12` gives `v*`, `b3` gives `b*`, where the letter starts a word and
/// the digits end it), so that a case whose candidates renumber their
/// values still counts as failing the same way.
pub fn normalize_numbers(message: &str) -> String {
    let ident = |c: char| c.is_ascii_alphanumeric() || c == '_';
    let mut out = String::with_capacity(message.len());
    let mut rest = message;
    let mut prev: Option<char> = None;
    while let Some(c) = rest.chars().next() {
        let after = &rest[c.len_utf8()..];
        let digits = leading_digits(after);
        let word_start = prev.is_none_or(|p| !ident(p));
        let word_end = after[digits..].chars().next().is_none_or(|n| !ident(n));
        if (c == 'v' || c == 'b') && word_start && digits > 0 && word_end {
            out.push(c);
            out.push('*');
            rest = &after[digits..];
            prev = Some('*');
            continue;
        }
        out.push(c);
        prev = Some(c);
        rest = after;
    }
    out
}

/// The register count a stage name gives (`ssa-ra[k=4,opt]` gives 4).
pub fn stage_k(stage: &str) -> Option<usize> {
    let after = &stage[stage.find("k=")? + 2..];
    after[..leading_digits(after)].parse().ok()
}

/// The length of the run of ASCII digits that starts `s`.
fn leading_digits(s: &str) -> usize {
    s.len() - s.trim_start_matches(|c: char| c.is_ascii_digit()).len()
}

/// How much the reducer may do.
#[derive(Clone, Copy, Debug)]
pub struct ReduceConfig {
    /// The most differential runs (candidates tested, the initial run
    /// included); the reducer stops there with what it has.
    pub max_tests: u64,
    /// Fuel of each source run (the later stages get
    /// `differential::later_stage_fuel` of it).
    pub fuel: u64,
}

impl ReduceConfig {
    /// The default bound on tests.
    pub const DEFAULT_MAX_TESTS: u64 = 20_000;

    pub fn new(fuel: u64) -> Self {
        ReduceConfig { max_tests: Self::DEFAULT_MAX_TESTS, fuel }
    }
}

/// What the reducer did.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct ReduceStats {
    /// Differential runs, the initial one included.
    pub tests: u64,
    /// Candidates kept.
    pub accepted: u64,
    /// Candidates whose source ran out of fuel (never kept).
    pub inconclusive: u64,
    /// Candidates on which every stage agreed.
    pub passing: u64,
    /// Candidates that failed in another way.
    pub other_failures: u64,
    /// Candidate edits that gave an invalid program (not run).
    pub invalid: u64,
    /// True when [`ReduceConfig::max_tests`] stopped the reduction before
    /// the fixpoint.
    pub stopped_early: bool,
    pub statements_before: usize,
    pub statements_after: usize,
}

/// A reduced case.
#[derive(Clone, Debug)]
pub struct Reduction<T = TestCase> {
    pub case: T,
    /// The register counts the reduced case fails with (one K, or none
    /// when the failure comes before ssa-ra).
    pub regs: Vec<usize>,
    /// The verdict of the reduced case.
    pub verdict: Verdict,
    /// How the original and the reduced case fail.
    pub failure: Failure,
    /// The K of the original failure and of the reduced one, when the
    /// failure is in ssa-ra.
    pub k_before: Option<usize>,
    pub k_after: Option<usize>,
    pub stats: ReduceStats,
}

/// Why a case cannot be reduced.
#[derive(Clone, Debug)]
pub enum ReduceError {
    /// The case does not fail: its verdict is `Agree`, or `Inconclusive`
    /// (the source ran out of fuel).
    NotFailing(Box<Verdict>),
}

impl fmt::Display for ReduceError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ReduceError::NotFailing(v) if **v == Verdict::Inconclusive => f.write_str(
                "the case does not fail: its reference run (the source, or the SSA input) runs out of fuel, so nothing is compared",
            ),
            ReduceError::NotFailing(_) => f.write_str(
                "the case does not fail: every stage agrees with the reference run (the source, or the SSA input)",
            ),
        }
    }
}

impl std::error::Error for ReduceError {}

/// Reduces a failing case (see the module comment). `regs` are the
/// register counts it failed with. Every candidate runs
/// [`DiffConfig::standard`] with regalloc2.
pub fn reduce(
    tc: &TestCase,
    regs: &[usize],
    oracle: &dyn Oracle,
    config: &ReduceConfig,
) -> Result<Reduction, ReduceError> {
    reduce_with(tc, regs, oracle, config, &DiffConfig::standard(regs, config.fuel).with_regalloc2())
}

/// [`reduce`] with the back ends and construction variants of `diff` (its
/// `regs` and `fuel` are replaced by the candidate's and `config.fuel`):
/// how a user's back end (`backend/`) is reduced alone. Any
/// [`Reducible`] case: `reduce/ssa.rs` reduces SSA programs with it.
pub fn reduce_with<T: Reducible>(
    tc: &T,
    regs: &[usize],
    oracle: &dyn Oracle,
    config: &ReduceConfig,
    diff: &DiffConfig,
) -> Result<Reduction<T>, ReduceError> {
    let diff = DiffConfig { fuel: config.fuel, ..diff.clone() };
    let verdict = tc.verdict(oracle, &DiffConfig { regs: regs.to_vec(), ..diff.clone() });
    let Some(failure) = Failure::of(&verdict) else { return Err(ReduceError::NotFailing(Box::new(verdict))) };
    let mut r = Reducer {
        oracle,
        config,
        diff: &diff,
        target: failure.clone(),
        stats: ReduceStats { tests: 1, statements_before: tc.size(), ..ReduceStats::default() },
    };
    let mut cur = Current { case: tc.clone(), regs: regs.to_vec(), verdict };
    r.narrow_regs(&mut cur);
    let k_before = match &cur.verdict {
        Verdict::Diverge { stage, .. } => stage_k(stage),
        _ => None,
    }
    .or(match cur.regs[..] {
        [k] => Some(k),
        _ => None,
    });
    r.lower_k(&mut cur);
    loop {
        r.shrink_to_fixpoint(&mut cur);
        if !r.lower_k(&mut cur) {
            break;
        }
    }
    r.stats.statements_after = cur.case.size();
    let k_after = match cur.regs[..] {
        [k] => Some(k),
        _ => None,
    };
    let mut case = cur.case;
    let origin = format!("{}, reduced", case.origin_mut());
    *case.origin_mut() = origin;
    Ok(Reduction { case, regs: cur.regs, verdict: cur.verdict, failure, k_before, k_after, stats: r.stats })
}

/// The smallest failing case so far, with what it fails with.
struct Current<T> {
    case: T,
    regs: Vec<usize>,
    verdict: Verdict,
}

struct Reducer<'a> {
    oracle: &'a dyn Oracle,
    config: &'a ReduceConfig,
    /// The back ends and variants every candidate runs (`regs` replaced).
    diff: &'a DiffConfig,
    target: Failure,
    stats: ReduceStats,
}

impl Reducer<'_> {
    fn exhausted(&mut self) -> bool {
        if self.stats.tests >= self.config.max_tests {
            self.stats.stopped_early = true;
        }
        self.stats.stopped_early
    }

    /// Runs a candidate; its verdict if it fails like the original.
    fn test<T: Reducible>(&mut self, tc: &T, regs: &[usize]) -> Option<Verdict> {
        self.stats.tests += 1;
        let diff = DiffConfig { regs: regs.to_vec(), ..self.diff.clone() };
        let verdict = tc.verdict(self.oracle, &diff);
        match Failure::of(&verdict) {
            Some(f) if f == self.target => {
                self.stats.accepted += 1;
                return Some(verdict);
            }
            Some(_) => self.stats.other_failures += 1,
            None if matches!(verdict, Verdict::Inconclusive | Verdict::Limit { .. }) => self.stats.inconclusive += 1,
            None => self.stats.passing += 1,
        }
        None
    }

    /// Step 1: one K (the failing stage's, else the smallest that fails),
    /// or none when ssa-ra is not needed.
    fn narrow_regs<T: Reducible>(&mut self, cur: &mut Current<T>) {
        let mut tries: Vec<Vec<usize>> = Vec::new();
        if let Some(k) = match &cur.verdict {
            Verdict::Diverge { stage, .. } => stage_k(stage),
            _ => None,
        } {
            tries.push(vec![k]);
        } else {
            tries.push(Vec::new());
            let mut ks = cur.regs.clone();
            ks.sort_unstable();
            ks.dedup();
            tries.extend(ks.into_iter().map(|k| vec![k]));
        }
        for regs in tries {
            if regs == cur.regs || self.exhausted() {
                return;
            }
            if let Some(v) = self.test(&cur.case, &regs) {
                cur.regs = regs;
                cur.verdict = v;
                return;
            }
        }
    }

    /// Step 2: the smallest K below the current one that still fails.
    fn lower_k<T: Reducible>(&mut self, cur: &mut Current<T>) -> bool {
        let [k] = cur.regs[..] else { return false };
        for lower in crate::mir::MIN_REGS..k {
            if self.exhausted() {
                return false;
            }
            if let Some(v) = self.test(&cur.case, &[lower]) {
                cur.regs = vec![lower];
                cur.verdict = v;
                return true;
            }
        }
        false
    }

    /// Step 3: greedy shrinking to a fixpoint of the candidates.
    fn shrink_to_fixpoint<T: Reducible>(&mut self, cur: &mut Current<T>) {
        let mut start = 0;
        'cases: loop {
            let candidates = cur.case.candidates();
            let n = candidates.len();
            for j in 0..n {
                let index = (start + j) % n;
                let Some(c) = candidates.get(index) else {
                    self.stats.invalid += 1;
                    continue;
                };
                if c.same_as(&cur.case) {
                    continue;
                }
                if self.exhausted() {
                    return;
                }
                if let Some(v) = self.test(&c, &cur.regs) {
                    cur.case = c;
                    cur.verdict = v;
                    start = index;
                    continue 'cases;
                }
            }
            return;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn stage_names_lose_their_k() {
        assert_eq!(stage_family("ssa-ra[k=4,opt]"), "ssa-ra[k=*,opt]");
        assert_eq!(stage_family("x86-ssa-ra[k=12,opt]"), "x86-ssa-ra[k=*,opt]");
        assert_eq!(
            stage_family("out-of-ssa[k=3,sharing,check,linear-scan]"),
            "out-of-ssa[k=*,sharing,check,linear-scan]"
        );
        assert_eq!(stage_family("out-of-ssa[sharing,check]"), "out-of-ssa[sharing,check]");
        assert_eq!(stage_family("x86-regalloc2[k=2]"), "x86-regalloc2[k=*]");
        assert_eq!(stage_family("ssa-ra[k=15,plain]/phi-lifting"), "ssa-ra[k=*,plain]/phi-lifting");
        assert_eq!(stage_family("ssa[phi+scc]"), "ssa[phi+scc]");
        assert_eq!(stage_family("k="), "k=");
        assert_eq!(stage_k("ssa-ra[k=15,opt]"), Some(15));
        assert_eq!(stage_k("x86-out-of-ssa[k=7,value,sets,linear-scan]"), Some(7));
        assert_eq!(stage_k("out-of-ssa[value,sets]"), None);
        assert_eq!(stage_k("cytron"), None);
        assert_eq!(stage_k("k=x"), None);
    }
}
