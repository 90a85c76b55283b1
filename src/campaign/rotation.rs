//! The rotation of a campaign's configurations, so that every
//! configuration runs in every campaign: which construction variant, which
//! register counts, which ssa-ra switches and which out-of-ssa configuration
//! and class-interference test each program of `ssaref fuzz` runs. Every
//! back end runs on every program by default ([`Rotation::default`]):
//! ssa-ra, out-of-ssa, regalloc2 and the back ends a campaign registers
//! (`CampaignConfig::with_backends`).
//!
//! Each program's configuration is a function of its seed alone
//! ([`Rotation::program`]), so a failing case replays from its seed, and
//! the case file records it besides (`// config:`, [`ProgramConfig::render`]),
//! so that `ssaref repro`, `check` and `reduce` replay exactly that
//! configuration ([`ProgramConfig::parse`]). Every dimension of `n` values
//! takes each value once in every aligned block of `n` consecutive seeds,
//! so any `2 n` consecutive seeds cover it:
//! - the construction: all 128 variants of Braun et al.'s options
//!   (`BraunOptions::every_combination`); the variant's SSA is checked and
//!   interpreted like the four standard variants, and every back end
//!   allocates it (`DiffConfig::backend_ssa`);
//! - the register counts: 2 and 3 on every program, and four of 4..=15
//!   (`4 7 10 13`, `5 8 11 14` or `6 9 12 15`), so every K in 2..=15 within
//!   three programs;
//! - ssa-ra: every switch on (`opt`) on every program, and one of 16 more
//!   option sets: without the §6 optimizations (`plain`), all off (`none`),
//!   and each of the seven switches (`RegallocOptions::SWITCHES`, spilling
//!   during coloring included) off alone and on alone;
//! - out-of-ssa: one of the campaign's configurations (the 28 of
//!   [`out_of_ssa_rotation`], each with its cross-checks), with one of the four
//!   class-interference tests (`ClassTest::ALL`: with Sreedhar III, the
//!   graphs of the two §IV-D baselines). A program whose configuration is
//!   copy sharing's gets its construction variant with copy propagation
//!   off (the reason is given at `paired_construction`).
//!
//! The dimensions advance at different phases (see [`pick`]), so that two
//! dimensions of the same size do not stay paired. Without rotation
//! ([`Rotation::rotate`] off) a campaign runs one fixed configuration:
//! the SSA of `BraunOptions::all_on()`, K in {2, 3, 4, 6, 8, 15},
//! ssa-ra with and without the §6 optimizations, the linear class test.

use crate::backend::{Backend, OutOfSsa, Regalloc2, SsaRa};
use crate::construction::braun::BraunOptions;
use crate::differential::DiffConfig;
use crate::out_of_ssa::coalescing::{ClassTest, CoalescingVariant};
use crate::ssa_ra::regalloc::RegallocOptions;
use std::collections::BTreeMap;

/// The register counts of a campaign without rotation and of `ssaref
/// repro` when a case names none.
pub const FIXED_REGS: [usize; 6] = [2, 3, 4, 6, 8, 15];

/// What a campaign rotates through.
#[derive(Clone, Debug)]
pub struct Rotation {
    /// Rotate (see the module documentation); off: the fixed configuration
    /// of campaigns before the rotation.
    pub rotate: bool,
    /// Register counts for every program; `None`: rotate them (or
    /// [`FIXED_REGS`] without rotation).
    pub regs: Option<Vec<usize>>,
    /// Run ssa-ra.
    pub ssa_ra: bool,
    /// out-of-ssa's configurations; program of seed `s` runs one of them (none:
    /// no out-of-ssa).
    pub out_of_ssa: Vec<OutOfSsa>,
    /// Run regalloc2 (regalloc2).
    pub regalloc2: bool,
}

impl Default for Rotation {
    /// Everything rotates; every back end: ssa-ra, out-of-ssa (the 28
    /// configurations of [`out_of_ssa_rotation`]) and regalloc2.
    fn default() -> Self {
        Rotation { rotate: true, regs: None, ssa_ra: true, out_of_ssa: out_of_ssa_rotation(), regalloc2: true }
    }
}

/// The out-of-ssa configurations a campaign rotates through: those of
/// `OutOfSsa::all` with the linear class test (28). The two Sreedhar III
/// baselines of `OutOfSsa::all` are not listed apart: the class-test
/// dimension gives Sreedhar III with each baseline's graph, with the
/// cross-checks on, which the baselines' own entries leave off.
pub fn out_of_ssa_rotation() -> Vec<OutOfSsa> {
    OutOfSsa::all().into_iter().filter(|r| r.out_of_ssa.class_test == ClassTest::Linear).collect()
}

/// The configuration of one program (see the module documentation): the
/// back ends, the register counts and the construction variant they start
/// from.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ProgramConfig {
    /// The construction variant every back end allocates.
    pub construction: BraunOptions,
    pub regs: Vec<usize>,
    /// ssa-ra option sets (`k` is replaced by each K).
    pub ssa_ra: Vec<RegallocOptions>,
    /// out-of-ssa configurations, each with its class test.
    pub out_of_ssa: Vec<OutOfSsa>,
    pub regalloc2: bool,
}

/// Index `i` of a dimension of `n` values for the program of seed `seed`:
/// the seed modulo `n`, shifted by `salt` every `n` seeds, so that each
/// aligned block of `n` seeds takes every value once and two dimensions of
/// the same size with different salts go through every pair in `n²` seeds.
pub fn pick(seed: u64, n: usize, salt: u64) -> usize {
    let n = n.max(1) as u64;
    ((seed % n + (seed / n % n) * salt) % n) as usize
}

/// The ssa-ra option sets that rotate beside `opt` (every switch on),
/// in order: `plain`, `none`, each switch off alone, each switch on alone.
pub fn ssa_ra_rotation() -> Vec<RegallocOptions> {
    let all = RegallocOptions::with_k(2);
    let mut none = all;
    for i in 0..RegallocOptions::SWITCHES.len() {
        if let Some(s) = none.switch(i) {
            *s = false;
        }
    }
    let mut out = vec![all.without_section_6(), none];
    for (base, value) in [(all, false), (none, true)] {
        for i in 0..RegallocOptions::SWITCHES.len() {
            let mut o = base;
            if let Some(s) = o.switch(i) {
                *s = value;
            }
            out.push(o);
        }
    }
    out
}

impl Rotation {
    /// The configuration of the program of seed `seed`.
    pub fn program(&self, seed: u64) -> ProgramConfig {
        let all = RegallocOptions::with_k(2);
        if !self.rotate {
            return ProgramConfig {
                construction: BraunOptions::all_on(),
                regs: self.regs.clone().unwrap_or_else(|| FIXED_REGS.to_vec()),
                ssa_ra: if self.ssa_ra { vec![all, all.without_section_6()] } else { Vec::new() },
                out_of_ssa: self.out_of_ssa.get(pick(seed, self.out_of_ssa.len(), 0)).copied().into_iter().collect(),
                regalloc2: self.regalloc2,
            };
        }
        let variants = BraunOptions::every_combination();
        let construction = variants[pick(seed, variants.len(), 3)];
        let regs = self.regs.clone().unwrap_or_else(|| {
            let g = pick(seed, 3, 0);
            vec![2, 3, 4 + g, 7 + g, 10 + g, 13 + g]
        });
        let others = ssa_ra_rotation();
        let ssa_ra = if self.ssa_ra { vec![all, others[pick(seed, others.len(), 1)]] } else { Vec::new() };
        // The class test advances with the seed and once more every time
        // the out-of-ssa configurations come round, so that every pair of a
        // configuration and a class test runs within `4 n` aligned seeds
        // (with `n` configurations; `pick` alone would pair a configuration
        // with half of the class tests when 4 and `n` share a factor).
        let n2 = self.out_of_ssa.len().max(1) as u64;
        let class_test = ClassTest::ALL[((seed % 4 + seed / n2 % 4) % 4) as usize];
        let out_of_ssa: Vec<OutOfSsa> = self
            .out_of_ssa
            .get(pick(seed, self.out_of_ssa.len(), 0))
            .map(|r| r.with_class_test(class_test))
            .into_iter()
            .collect();
        let construction = paired_construction(construction, &out_of_ssa);
        ProgramConfig { construction, regs, ssa_ra, out_of_ssa, regalloc2: self.regalloc2 }
    }
}

/// The construction variant of a program that runs `out_of_ssa`: the
/// rotated one, with copy propagation off when copy sharing runs. Copy
/// sharing removes a copy whose source's value another variable holds,
/// and after copy propagation a source program has no two variables with
/// one value except a phi operand and its inserted copy, so copy sharing's
/// own path almost never runs on them (docs/campaigns.md gives the
/// shares).
fn paired_construction(mut construction: BraunOptions, out_of_ssa: &[OutOfSsa]) -> BraunOptions {
    if out_of_ssa.iter().any(|r| r.out_of_ssa.variant == CoalescingVariant::Sharing) {
        construction.copy_propagation = false;
    }
    construction
}

impl ProgramConfig {
    /// The differential check of this configuration: the four standard
    /// construction variants and this one, checked and interpreted, and
    /// this one's SSA allocated by every back end for every K.
    pub fn diff_config(&self, fuel: u64) -> DiffConfig {
        let mut diff = DiffConfig::standard(&self.regs, fuel);
        if !diff.variants.contains(&self.construction) {
            diff.variants.push(self.construction);
        }
        diff.backend_ssa = self.construction;
        diff.regalloc = self.ssa_ra.clone();
        diff.out_of_ssa = self.out_of_ssa.clone();
        diff.regalloc2 = self.regalloc2;
        diff
    }

    /// The text of a case file's `// config:` line: `braun=VARIANT`, then
    /// the name of each back end it runs (`Backend::name`): one
    /// `ssa-ra[SWITCHES]` per ssa-ra option set, one `out-of-ssa[CONFIG]` per
    /// out-of-ssa configuration, and `regalloc2` (the register counts are
    /// the `// regs:` line's).
    pub fn render(&self) -> String {
        let mut words = vec![format!("braun={}", self.construction.describe())];
        words.extend(self.ssa_ra.iter().map(|&o| SsaRa(o).name()));
        words.extend(self.out_of_ssa.iter().map(|r| r.name()));
        if self.regalloc2 {
            words.push(Regalloc2.name());
        }
        words.join(" ")
    }

    /// Reads [`ProgramConfig::render`]'s text back, with register counts
    /// `regs`. The words of older case files are read too: `ra=SWITCHES`
    /// for ssa-ra, `boissinot[CONFIG]` and its short form (`r2` and `=`,
    /// then `CONFIG`) for out-of-ssa, and `r3` for regalloc2. A back end
    /// named twice runs once, so the configuration is bounded whatever the
    /// length of `text` (by the number of distinct option sets). An error gives
    /// the character offset in `text` of the word it is about.
    pub fn parse(text: &str, regs: &[usize]) -> Result<ProgramConfig, (usize, String)> {
        let mut config = ProgramConfig {
            construction: BraunOptions::all_on(),
            regs: regs.to_vec(),
            ssa_ra: Vec::new(),
            out_of_ssa: Vec::new(),
            regalloc2: false,
        };
        let mut offset = 0;
        for word in text.split(' ') {
            let at = text[..offset].chars().count();
            offset += word.len() + 1;
            if word.is_empty() {
                continue;
            }
            // `NAME[VALUE]` for a back end's name, `KEY=VALUE` for the
            // construction and the older words.
            let named = word.strip_suffix(']').and_then(|w| w.split_once('['));
            let (key, value) = named.or_else(|| word.split_once('=')).unwrap_or((word, ""));
            let bad = |what: &str| (at, format!("`{word}` is not {what}"));
            match (key, named.is_some()) {
                ("braun", false) => {
                    config.construction = BraunOptions::from_description(value)
                        .ok_or_else(|| bad("a construction variant (`braun=phi+scc+witness`)"))?;
                }
                ("ssa-ra", true) | ("ra", false) => {
                    let o = RegallocOptions::from_description(value).ok_or_else(|| {
                        bad("an ssa-ra option set (`ssa-ra[opt]`, `ssa-ra[plain]`, `ssa-ra[pmc+hoist]`)")
                    })?;
                    if !config.ssa_ra.contains(&o) {
                        config.ssa_ra.push(o);
                    }
                }
                ("out-of-ssa" | "boissinot", true) | ("r2", false) => {
                    let r = OutOfSsa::from_description(value).ok_or_else(|| {
                        bad("an out-of-ssa configuration (`out-of-ssa[sharing,check,linear-scan,graph]`)")
                    })?;
                    if !config.out_of_ssa.contains(&r) {
                        config.out_of_ssa.push(r);
                    }
                }
                ("regalloc2" | "r3", false) if key == word => config.regalloc2 = true,
                _ => return Err(bad("`braun=`, `ssa-ra[…]`, `out-of-ssa[…]` or `regalloc2`")),
            }
        }
        Ok(config)
    }
}

/// How often each configuration ran in a campaign, for its summary.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Coverage {
    /// Programs per construction variant (`BraunOptions::describe`).
    pub construction: BTreeMap<String, u64>,
    /// Programs per K.
    pub regs: BTreeMap<usize, u64>,
    /// Programs per ssa-ra option set (`RegallocOptions::describe`).
    pub ssa_ra: BTreeMap<String, u64>,
    /// Programs per out-of-ssa configuration, without the class test.
    pub out_of_ssa: BTreeMap<String, u64>,
    /// Programs per class-interference test.
    pub class_tests: BTreeMap<&'static str, u64>,
}

impl Coverage {
    /// Counts one program of configuration `c`.
    pub fn add(&mut self, c: &ProgramConfig) {
        *self.construction.entry(c.construction.describe()).or_default() += 1;
        for &k in &c.regs {
            *self.regs.entry(k).or_default() += 1;
        }
        for o in &c.ssa_ra {
            *self.ssa_ra.entry(o.describe()).or_default() += 1;
        }
        for r in &c.out_of_ssa {
            *self.out_of_ssa.entry(r.with_class_test(ClassTest::Linear).describe()).or_default() += 1;
            *self.class_tests.entry(r.out_of_ssa.class_test.name()).or_default() += 1;
        }
    }

    /// Each ssa-ra switch, with the number of option sets that ran with
    /// it off.
    fn switches_off(&self) -> Vec<(&'static str, u64)> {
        RegallocOptions::SWITCHES
            .iter()
            .enumerate()
            .map(|(i, &name)| {
                let off = self
                    .ssa_ra
                    .iter()
                    .filter(|(d, _)| {
                        RegallocOptions::from_description(d).is_some_and(|mut o| o.switch(i).is_some_and(|s| !*s))
                    })
                    .map(|(_, n)| n)
                    .sum();
                (name, off)
            })
            .collect()
    }

    /// The lines of the campaign summary that list the configurations.
    pub fn render(&self) -> String {
        let join = |items: Vec<String>| items.join(", ");
        let mut s = String::from("configurations:\n");
        let mut switch_on = [0u64; 7];
        for (d, n) in &self.construction {
            if let Some(o) = BraunOptions::from_description(d) {
                let flags = [
                    o.marker,
                    o.remove_redundant_sccs,
                    o.witness_cache,
                    o.fold_constants,
                    o.simplify_arithmetic,
                    o.cse,
                    o.copy_propagation,
                ];
                for (count, on) in switch_on.iter_mut().zip(flags) {
                    *count += u64::from(on) * n;
                }
            }
        }
        let total: u64 = self.construction.values().sum();
        let names = ["marker", "scc", "witness", "fold", "simplify", "cse", "copyprop"];
        s.push_str(&format!(
            "  construction: {} of 128 variants; programs with each switch on (of {total}): {}\n",
            self.construction.len(),
            join(names.iter().zip(switch_on).map(|(n, c)| format!("{n} {c}")).collect())
        ));
        s.push_str(&format!(
            "  K: {} of 14; programs per K: {}\n",
            self.regs.len(),
            join(self.regs.iter().map(|(k, n)| format!("{k}:{n}")).collect())
        ));
        if !self.ssa_ra.is_empty() {
            s.push_str(&format!(
                "  ssa-ra: {} option sets: {}; option sets run with each switch off: {}\n",
                self.ssa_ra.len(),
                join(self.ssa_ra.iter().map(|(d, n)| format!("{d} {n}")).collect()),
                join(self.switches_off().iter().map(|(d, n)| format!("{d} {n}")).collect())
            ));
        }
        if !self.out_of_ssa.is_empty() {
            s.push_str(&format!(
                "  out-of-ssa: {} configurations; class tests: {}\n",
                self.out_of_ssa.len(),
                join(self.class_tests.iter().map(|(d, n)| format!("{d} {n}")).collect())
            ));
        }
        s
    }
}
