//! The rotation of a campaign's configurations (`campaign/rotation.rs`):
//! within a few hundred consecutive seeds every construction
//! variant (those with copy propagation within 512: copy sharing takes it
//! off), every K, every ssa-ra switch on and off alone, every class
//! test and every out-of-ssa configuration runs; a program's configuration
//! round-trips through its case file's `// config:` line; and a failing
//! case replays the configuration it failed with.

use crate::common::InterpOracle;
use ssaref::backend::{Backend, Prepared, SsaRa};
use ssaref::campaign::driver::{run_campaign, CampaignConfig};
use ssaref::campaign::rotation::{out_of_ssa_rotation, pick, ProgramConfig, Rotation, FIXED_REGS};
use ssaref::construction::braun::BraunOptions;
use ssaref::differential::{differential_full, Verdict};
use ssaref::error::{ConventionalAllocError, PassError};
use ssaref::frontend::case_file::CaseFile;
use ssaref::ir::{Module, Op};
use ssaref::mir::MModule;
use ssaref::out_of_ssa::coalescing::ClassTest;
use ssaref::pass_manager::flags::Flags;
use ssaref::pass_manager::runner::Observer;
use ssaref::ssa_ra::regalloc::RegallocOptions;
use std::collections::BTreeSet;
use std::sync::atomic::AtomicBool;
use std::sync::Arc;

/// Every configuration that programs `start..start + n` run.
#[derive(Default)]
struct Seen {
    constructions: BTreeSet<String>,
    regs: BTreeSet<usize>,
    ssa_ra: BTreeSet<[bool; SWITCHES]>,
    class_tests: BTreeSet<&'static str>,
    out_of_ssa: BTreeSet<String>,
}

fn seen(rotation: &Rotation, start: u64, n: u64) -> Seen {
    let mut s = Seen::default();
    for seed in (0..n).map(|i| start.wrapping_add(i)) {
        let c = rotation.program(seed);
        s.constructions.insert(c.construction.describe());
        s.regs.extend(c.regs.iter().copied());
        s.ssa_ra.extend(c.ssa_ra.iter().map(|o| o.switches()));
        for r in &c.out_of_ssa {
            s.class_tests.insert(r.out_of_ssa.class_test.name());
            s.out_of_ssa.insert(r.with_class_test(ClassTest::Linear).describe());
        }
    }
    s
}

/// ssa-ra's switches (`RegallocOptions::SWITCHES`).
const SWITCHES: usize = RegallocOptions::SWITCHES.len();
#[test]
fn the_rotation_covers_every_configuration_within_256_programs() {
    let rotation = Rotation::default();
    for start in [0, 1, 20261124, u64::MAX - 100] {
        let s = seen(&rotation, start, 256);
        // A program that runs copy sharing takes its variant with copy
        // propagation off, so the 64 variants without it run within 256
        // programs and the others within 512.
        let without_copyprop = s.constructions.iter().filter(|c| !c.contains("copyprop")).count();
        assert_eq!(without_copyprop, 64, "from seed {start}: {:?}", s.constructions);
        let wider = seen(&rotation, start, 512);
        assert_eq!(wider.constructions.len(), 128, "from seed {start}: {:?}", wider.constructions);
        assert_eq!(s.regs, (2..=15).collect::<BTreeSet<_>>(), "from seed {start}");
        for i in 0..SWITCHES {
            let off_alone: [bool; SWITCHES] = std::array::from_fn(|j| j != i);
            let on_alone: [bool; SWITCHES] = std::array::from_fn(|j| j == i);
            let name = RegallocOptions::SWITCHES[i];
            assert!(s.ssa_ra.contains(&off_alone), "from seed {start}: {name} never off alone");
            assert!(s.ssa_ra.contains(&on_alone), "from seed {start}: {name} never on alone");
        }
        assert!(s.ssa_ra.contains(&[true; SWITCHES]) && s.ssa_ra.contains(&[false; SWITCHES]), "from seed {start}");
        assert_eq!(s.class_tests.len(), ClassTest::ALL.len(), "from seed {start}: {:?}", s.class_tests);
        assert_eq!(s.out_of_ssa.len(), out_of_ssa_rotation().len(), "from seed {start}");
    }
}

#[test]
fn every_k_runs_within_three_programs_and_every_class_test_with_every_configuration() {
    let rotation = Rotation::default();
    for start in [0u64, 7, 1000] {
        assert_eq!(seen(&rotation, start, 3).regs, (2..=15).collect::<BTreeSet<_>>(), "from seed {start}");
        // Every K group with every class test within 24 programs.
        let pairs: BTreeSet<(usize, &str)> = (start..start + 24)
            .map(|seed| {
                let c = rotation.program(seed);
                (c.regs[2], c.out_of_ssa[0].out_of_ssa.class_test.name())
            })
            .collect();
        assert_eq!(pairs.len(), 3 * ClassTest::ALL.len(), "from seed {start}: {pairs:?}");
    }
    // Every out-of-ssa configuration with every class test (Sreedhar III with
    // both baselines' graphs among them) in each aligned block of 4 n.
    let n = out_of_ssa_rotation().len() as u64;
    for block in [0u64, 3, 1 << 30] {
        let pairs: BTreeSet<String> =
            (block * 4 * n..(block + 1) * 4 * n).map(|seed| rotation.program(seed).out_of_ssa[0].describe()).collect();
        assert_eq!(pairs.len() as u64, 4 * n, "block {block}");
        assert!(pairs.contains("sreedhar-iii,sets,linear-scan,graph-bitmatrix"), "{pairs:?}");
    }
    // Each aligned block of n seeds takes every value of a dimension of n.
    for (n, salt) in [(128, 3), (16, 1), (3, 0), (4, 1), (30, 0)] {
        for block in [0u64, 5, 1 << 40] {
            let values: BTreeSet<usize> =
                (block * n as u64..(block + 1) * n as u64).map(|s| pick(s, n, salt)).collect();
            assert_eq!(values.len(), n, "n = {n}, salt = {salt}, block {block}");
        }
    }
}

#[test]
fn without_rotation_the_campaign_runs_the_configuration_it_always_ran() {
    let rotation = Rotation { rotate: false, ..Rotation::default() };
    let all = RegallocOptions::with_k(2);
    for seed in 0..56 {
        let c = rotation.program(seed);
        assert_eq!(c.construction, BraunOptions::all_on());
        assert_eq!(c.regs, FIXED_REGS);
        assert_eq!(c.ssa_ra, [all, all.without_section_6()]);
        assert_eq!(c.out_of_ssa.len(), 1);
        assert_eq!(c.out_of_ssa[0].out_of_ssa.class_test, ClassTest::Linear);
    }
    assert_eq!(seen(&rotation, 0, 28).out_of_ssa.len(), 28);
    // Fixed register counts stay fixed while the rest rotates.
    let fixed = Rotation { regs: Some(vec![5]), ..Rotation::default() };
    assert_eq!(seen(&fixed, 0, 300).regs, BTreeSet::from([5]));
    assert_eq!(seen(&fixed, 0, 300).constructions.len(), 128);
}

#[test]
fn a_program_configuration_round_trips_through_its_case_file_line() {
    let rotation = Rotation { regalloc2: true, ..Rotation::default() };
    for seed in 0..400 {
        let c = rotation.program(seed);
        let text = c.render();
        assert_eq!(ProgramConfig::parse(&text, &c.regs), Ok(c.clone()), "seed {seed}: {text}");
        let diff = c.diff_config(1000);
        assert_eq!(diff.backend_ssa, c.construction);
        assert!(diff.variants.contains(&c.construction), "the allocated variant is checked too");
        assert_eq!(diff.regalloc, c.ssa_ra);
        assert_eq!(diff.out_of_ssa, c.out_of_ssa);
        assert!(diff.regalloc2);
    }
    let bad = [
        ("braun=phi+scc ssa-ra[opt] out-of-ssa[bogus]", 26, "`out-of-ssa[bogus]` is not an out-of-ssa configuration"),
        ("braun=marker+nope", 0, "`braun=marker+nope` is not a construction variant"),
        ("ssa-ra[opt]  ssa-ra[pmc+x]", 13, "`ssa-ra[pmc+x]` is not an ssa-ra option set"),
        ("ssa-ra=opt", 0, "`ssa-ra=opt` is not"),
        ("regalloc2=1", 0, "`regalloc2=1` is not"),
        ("regalloc2[]", 0, "`regalloc2[]` is not"),
    ];
    for (text, at, message) in bad {
        let (got_at, got) = ProgramConfig::parse(text, &[2]).expect_err(text);
        assert_eq!(got_at, at, "{text}: {got}");
        assert!(got.starts_with(message), "{text}: {got}");
    }
}

/// A case file written before each back end had one name is still read:
/// the `config:` words of that time (ssa-ra's `ra=`, out-of-ssa's numbered
/// word and `boissinot[…]`, regalloc2's numbered word) give the
/// configuration that the back ends' names give, the stage names of that
/// time in its description are free text, and it replays.
#[test]
fn a_case_file_with_the_old_names_is_still_read() {
    let (old, new) = old_and_new_config_lines();
    let text = old_case_file(&old);
    let case = CaseFile::parse(&text).expect("the old case file parses");
    let (_, line) = case.config.as_ref().expect("a config line");
    let config = ProgramConfig::parse(line, &[2, 4]).expect("its config line reads");
    assert_eq!(config.render(), new);
    assert_eq!(ProgramConfig::parse(&new, &[2, 4]), Ok(config.clone()));
    assert_eq!(config.ssa_ra.len(), 2);
    assert_eq!(config.out_of_ssa.len(), 2);
    assert!(config.regalloc2);
    let verdict = differential_full(&case.program, &case.args, &InterpOracle, &config.diff_config(100_000));
    assert!(matches!(verdict, Verdict::Agree { .. }), "{verdict:?}");
}

/// A `config:` line with the words of older case files, and the line that
/// campaigns write for the same configuration. The numbered words are
/// built from parts, so that no file but the name check
/// (`backend_names.rs`) spells them.
pub fn old_and_new_config_lines() -> (String, String) {
    let (r2, r3) = (format!("r{}", 2), format!("r{}", 3));
    (
        format!(
            "braun=phi+scc ra=opt ra=plain {r2}=sharing,check,linear-scan \
             boissinot[value,sets,spill-everything,quadratic] {r3}"
        ),
        "braun=phi+scc ssa-ra[opt] ssa-ra[plain] out-of-ssa[sharing,check,linear-scan] \
         out-of-ssa[value,sets,spill-everything,quadratic] regalloc2"
            .to_string(),
    )
}

/// A case file as campaigns wrote it before each back end had one name,
/// with the `config:` line `config`.
pub fn old_case_file(config: &str) -> String {
    format!(
        "// ssaref fuzz failure, seed 7\n// reproduce: ssaref repro case-7.src\n\
         // | stage alloc[k=4,opt] diverges from the source, as do conv[k=4,sharing,check,linear-scan]\n\
         // | and x86[k=4,opt]; back end boissinot[value,sets,spill-everything,quadratic]\n// regs: 2 4\n\
         // config: {config}\n// args: 3\n// expect:\n// 3\n// 6\n// return 0\n\
         fn main(a) {{\n    b = a + a;\n    out a;\n    out b;\n    return 0;\n}}\n"
    )
}

/// A back end that allocates with ssa-ra but rejects any SSA that still
/// has a `copy`: only construction variants without copy propagation give
/// it one, so it fails on some programs under the rotation and on none with
/// the SSA of `BraunOptions::all_on()`.
struct RejectsCopies;

impl Backend for RejectsCopies {
    fn name(&self) -> String {
        "rejects-copies".into()
    }

    fn allocate(
        &self,
        ssa: &Module,
        prepared: &Prepared,
        k: usize,
        flags: Flags,
        stages: &mut dyn Observer<Module>,
    ) -> Result<MModule, PassError> {
        let copy = ssa
            .functions
            .iter()
            .flat_map(|f| f.blocks.values())
            .flat_map(|d| &d.insts)
            .find(|i| matches!(i.op, Op::Copy(_)));
        if let Some(i) = copy {
            let error = ConventionalAllocError::Unallocatable { op: i.op.clone(), dest: i.dest };
            return Err(PassError::new(format!("rejects-copies[k={k}]"), "planted", error));
        }
        SsaRa(RegallocOptions::with_k(k)).allocate(ssa, prepared, k, flags, stages)
    }
}

#[test]
fn a_failing_case_records_its_configuration_and_replays_it() {
    let dir = std::env::temp_dir().join(format!("ssaref-rotation-replay-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    let config = CampaignConfig::new(&dir)
        .with_max_programs(24)
        .with_jobs(2)
        .with_seed(900)
        .with_regs(vec![3])
        .with_fuel(100_000)
        .with_routes(false, Vec::new(), false)
        .with_backends(vec![Arc::new(RejectsCopies)]);
    let summary = run_campaign(&config, &InterpOracle, &AtomicBool::new(false));
    assert_eq!(summary.programs, 24);
    assert!(!summary.failures.is_empty(), "no program failed: {}", summary.render(2));
    assert!(summary.render(2).contains("construction: 24 of 128 variants"), "{}", summary.render(2));
    for path in &summary.failures {
        let text = std::fs::read_to_string(path).expect("the case is on disk");
        let case = CaseFile::parse(&text).expect("a valid case file");
        let (_, line) = case.config.clone().expect("the case records its configuration");
        let regs = case.regs.clone().expect("the case records its register counts");
        assert_eq!(regs, [3]);
        let recorded = ProgramConfig::parse(&line, &regs).expect("the line parses");
        assert!(!recorded.construction.copy_propagation, "{}: {line}", path.display());
        // The seed alone gives the same configuration.
        let seed: u64 = path
            .file_stem()
            .and_then(|s| s.to_str())
            .and_then(|s| s.strip_prefix("case-"))
            .and_then(|s| s.parse().ok())
            .expect("case-SEED.src");
        assert_eq!(config.program(seed).0, recorded, "{}", path.display());
        // Replayed with the recorded configuration, the case fails again...
        let tc = case.test_case(path.display().to_string());
        let mut diff = recorded.diff_config(100_000);
        diff.backends = vec![Arc::new(RejectsCopies)];
        match differential_full(&tc.program, &tc.args, &InterpOracle, &diff) {
            Verdict::CheckFailed(e) => assert_eq!((e.pass.as_str(), e.check), ("rejects-copies[k=3]", "planted")),
            other => panic!("{}: replay gives {other:?}", path.display()),
        }
        // ... and with the SSA of every optimization (what campaigns ran
        // before the rotation, and replays without the line) it passes.
        diff.backend_ssa = BraunOptions::all_on();
        let verdict = differential_full(&tc.program, &tc.args, &InterpOracle, &diff);
        assert!(verdict.is_ok(), "{}: {verdict:?}", path.display());
    }
    let _ = std::fs::remove_dir_all(&dir);
}
