//! The verifier is the contract between the input and the back ends:
//! whatever `.ssa` program the verifier accepts, the SSA interpreter runs
//! and every back end handles, at every K, down to x86-64, with the same
//! outcome (`differential::differential_ssa`). This test looks for
//! programs that break it: it mutates the text of IR-level generated
//! programs (deletes, duplicates or swaps a line, renames a value or a
//! block, changes an operation, adds a phi), keeps the mutants that parse and pass the
//! verifier, and requires each to agree (or to run out of fuel in the
//! reference run). A mutant that fails is either a hole in the verifier
//! (the input class then goes to `tests/filetests/verifier/`, rejected) or
//! a bug of a back end.
//!
//! `SSAREF_VERIFIER_MUTANTS` (default 80) sets how many mutants are run
//! through the back ends; every mutant is reproducible from its number.

use crate::common::InterpOracle;
use ssaref::analysis::verifier::verify_module;
use ssaref::differential::{differential_ssa_catching, DiffConfig, Verdict};
use ssaref::generate::ssa::{IrCase, IrGenConfig};
use ssaref::ssa_text::{parse_module, print_module};

/// A small reproducible random source (SplitMix64).
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    fn below(&mut self, n: usize) -> usize {
        (self.next() % n.max(1) as u64) as usize
    }
}

const MNEMONICS: [&str; 12] =
    ["add", "sub", "mul", "div", "rem", "copy", "neg", "const", "load", "phi", "undef", "shl"];

/// One mutation of the text's lines.
fn mutate(lines: &mut Vec<String>, rng: &mut Rng) {
    if lines.len() < 2 {
        return;
    }
    let i = rng.below(lines.len());
    match rng.below(8) {
        7 => {
            // A new phi after a block header, with one argument per
            // predecessor (the entry block: none).
            let headers: Vec<usize> = (0..lines.len()).filter(|&k| lines[k].starts_with('b')).collect();
            if let Some(&h) = headers.get(rng.below(headers.len())) {
                let preds = lines[h].find('(').map_or(0, |_| lines[h].matches(',').count() + 1);
                let args: Vec<String> = (0..preds).map(|_| format!("v{}", rng.below(4))).collect();
                let phi = format!("    v{} = phi {}", 1000 + rng.below(100), args.join(", "));
                lines.insert(h + 1, phi.trim_end().to_string());
            }
        }
        0 => {
            lines.remove(i);
        }
        1 => {
            let l = lines[i].clone();
            lines.insert(i, l);
        }
        2 => {
            let j = rng.below(lines.len());
            lines.swap(i, j);
        }
        3 | 4 => {
            // Rename one value or block reference to a nearby number.
            let prefix = if rng.below(3) == 0 { 'b' } else { 'v' };
            let words: Vec<(usize, usize)> = word_spans(&lines[i], prefix);
            if let Some(&(s, e)) = words.get(rng.below(words.len().max(1))) {
                let n: u64 = lines[i][s + 1..e].parse().unwrap_or(0);
                let m = match rng.below(4) {
                    0 => 0,
                    1 => n + 1,
                    2 => n.saturating_sub(1),
                    _ => rng.below(8) as u64,
                };
                lines[i].replace_range(s..e, &format!("{prefix}{m}"));
            }
        }
        5 => {
            // Replace the operation of `vN = OP ...`.
            if let Some(eq) = lines[i].find("= ") {
                let rest = &lines[i][eq + 2..];
                let end = rest.find(' ').map_or(lines[i].len(), |k| eq + 2 + k);
                let m = MNEMONICS[rng.below(MNEMONICS.len())];
                lines[i].replace_range(eq + 2..end, m);
            }
        }
        _ => {
            // Move a line into another block (or function).
            let l = lines.remove(i);
            let j = rng.below(lines.len());
            lines.insert(j, l);
        }
    }
}

/// The spans of the words `prefixN` of a line.
fn word_spans(line: &str, prefix: char) -> Vec<(usize, usize)> {
    let b = line.as_bytes();
    let mut out = Vec::new();
    let mut i = 0;
    while i < b.len() {
        let starts = b[i] == prefix as u8 && (i == 0 || !b[i - 1].is_ascii_alphanumeric());
        if starts {
            let mut e = i + 1;
            while e < b.len() && b[e].is_ascii_digit() {
                e += 1;
            }
            if e > i + 1 && (e == b.len() || !b[e].is_ascii_alphanumeric()) {
                out.push((i, e));
            }
            i = e;
        } else {
            i += 1;
        }
    }
    out
}

#[test]
fn every_program_the_verifier_accepts_runs_the_same_on_every_back_end() {
    let wanted: usize = std::env::var("SSAREF_VERIFIER_MUTANTS").ok().and_then(|s| s.parse().ok()).unwrap_or(80);
    let config = IrGenConfig { max_blocks: 6, ..IrGenConfig::default() };
    let diff = DiffConfig::standard(&[2, 3, 4], ssaref_interp::DEFAULT_FUEL);
    let mut run = 0;
    let mut failures = Vec::new();
    let mut attempt: u64 = 0;
    while run < wanted && attempt < 200 * wanted as u64 {
        attempt += 1;
        let mut rng = Rng(attempt);
        let case = IrCase::from_seed(rng.next() % 10_000, &config);
        let mut lines: Vec<String> = print_module(&case.module).lines().map(str::to_string).collect();
        for _ in 0..1 + rng.below(3) {
            mutate(&mut lines, &mut rng);
        }
        let text = lines.join("\n") + "\n";
        let Ok(module) = parse_module(&text) else { continue };
        if verify_module(&module).is_err() {
            continue;
        }
        let Some(main) = module.main() else { continue };
        let mut args = case.args.clone();
        args.resize(main.params.len(), 0);
        run += 1;
        match differential_ssa_catching(&module, &args, &InterpOracle, &diff) {
            Verdict::Agree { .. } | Verdict::Inconclusive => {}
            v => failures.push(format!("mutant {attempt}: {v:?}\n{text}")),
        }
    }
    assert!(run * 2 >= wanted, "only {run} of {wanted} mutants passed the verifier in {attempt} attempts");
    assert!(failures.is_empty(), "{} of {run} accepted mutants fail:\n{}", failures.len(), failures.join("\n"));
}
