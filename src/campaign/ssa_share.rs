//! The IR-level share of a campaign (`ssaref fuzz --ir-share P`): which
//! programs of a campaign are written by the IR-level generator
//! (`generate/ssa/`) instead of the source-level one, and the `.ssa` case file a
//! failing one leaves.
//!
//! The choice depends on the program's seed alone (a hash of it against
//! the share), so a program is the same whatever the number of threads or
//! shards, and the IR program is `IrCase::from_seed` of that seed: a
//! failing case names its seed and replays from its file.

use crate::campaign::rotation::ProgramConfig;
use crate::differential::{differential_full_catching, differential_ssa_catching, DiffConfig, Verdict};
use crate::frontend::ssa_case_file::SsaCaseFile;
use crate::generate::source::{GenConfig, TestCase};
use crate::generate::ssa::{IrCase, IrGenConfig};
use crate::oracle::Oracle;
use std::path::{Path, PathBuf};

/// One program of a campaign: source-level or IR-level.
pub enum Generated {
    Source(TestCase),
    Ir(IrCase),
}

/// Whether the program of `seed` is IR-level when a fraction `share` of a
/// campaign is (0 never, 1 always).
pub fn is_ir_program(seed: u64, share: f64) -> bool {
    draw(seed) < share
}

/// The fraction of a campaign without `--calls` whose programs have calls
/// (docs/campaign-calls.md): every back end allocates them, so the default
/// campaign meets calls too.
pub const DEFAULT_CALL_SHARE: f64 = 0.25;

/// Whether the program of `seed` is generated with calls when a fraction
/// `share` of a campaign is; the draw is independent of the IR-level one.
pub fn is_call_program(seed: u64, share: f64) -> bool {
    draw(seed ^ 0x5ca1_ab1e_ca11_5eed) < share
}

/// A uniform draw in [0, 1) from `seed`: SplitMix64's finalizer, so that
/// consecutive seeds give unrelated draws.
fn draw(seed: u64) -> f64 {
    let mut z = seed.wrapping_add(0x9e37_79b9_7f4a_7c15);
    z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    z ^= z >> 31;
    (z >> 11) as f64 / (1u64 << 53) as f64
}

impl Generated {
    /// The program of `seed` in a campaign whose IR-level share is `share`.
    /// Without `gen.calls`, a [`DEFAULT_CALL_SHARE`] of the programs have
    /// calls.
    pub fn from_seed(seed: u64, share: f64, gen: &GenConfig) -> Generated {
        let gen = &GenConfig { calls: gen.calls || is_call_program(seed, DEFAULT_CALL_SHARE), ..gen.clone() };
        if is_ir_program(seed, share) {
            Generated::Ir(IrCase::from_seed(seed, &IrGenConfig { calls: gen.calls, ..IrGenConfig::default() }))
        } else {
            Generated::Source(TestCase::from_seed(seed, gen))
        }
    }

    pub fn is_ir(&self) -> bool {
        matches!(self, Generated::Ir(_))
    }

    /// True when the program contains a call.
    pub fn has_calls(&self) -> bool {
        match self {
            Generated::Source(tc) => tc.program.has_calls(),
            Generated::Ir(case) => case.module.has_calls(),
        }
    }

    /// Every stage against the source (`differential_full`) or, for an IR
    /// program, every back end against the SSA's own run
    /// (`differential_ssa`).
    pub fn verdict(&self, oracle: &dyn Oracle, diff: &DiffConfig) -> Verdict {
        match self {
            Generated::Source(tc) => differential_full_catching(&tc.program, &tc.args, oracle, diff),
            Generated::Ir(case) => differential_ssa_catching(&case.module, &case.args, oracle, diff),
        }
    }
}

/// Writes the `.ssa` case file of a failing IR-level program to
/// `DIR/case-SEED.ssa`; returns its path.
pub fn write_ssa_case(
    dir: &Path,
    seed: u64,
    case: &IrCase,
    verdict: &Verdict,
    config: &ProgramConfig,
) -> std::io::Result<PathBuf> {
    crate::campaign::failure_case::write_new_case(dir, &format!("case-{seed}"), "ssa", |path| {
        let mut file = SsaCaseFile::for_failure(
            &format!("ssaref fuzz failure, seed {seed} (IR-level program)"),
            &path.display().to_string(),
            case,
            verdict,
            &config.regs,
        );
        // The construction variant is recorded too, though a `.ssa` program
        // is not constructed: `config:` lines have one form.
        file.header.config = Some((crate::diag::Pos::START, config.render()));
        file.render()
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_share_is_met_and_the_choice_is_the_seeds() {
        let n = (0..10_000).filter(|&s| is_ir_program(s, 0.25)).count();
        assert!((2300..2700).contains(&n), "{n} of 10000");
        assert_eq!((0..1000).filter(|&s| is_ir_program(s, 0.0)).count(), 0);
        assert_eq!((0..1000).filter(|&s| is_ir_program(s, 1.0)).count(), 1000);
        assert!((0..100).all(|s| is_ir_program(s, 0.5) == is_ir_program(s, 0.5)));
    }

    #[test]
    fn the_call_share_is_met_and_independent_of_the_ir_share() {
        let calls = (0..10_000).filter(|&s| is_call_program(s, DEFAULT_CALL_SHARE)).count();
        assert!((2300..2700).contains(&calls), "{calls} of 10000");
        let both = (0..10_000).filter(|&s| is_call_program(s, 0.5) && is_ir_program(s, 0.5)).count();
        assert!((2300..2700).contains(&both), "{both} of 10000 with both at one half");
    }
}
