//! `ssaref stats --compare-backends` (`evaluation/backend_comparison.rs`):
//! the shape of its Markdown on a tiny corpus, its static counts against
//! the listings of `ssaref emit`, and its dynamic counts on a program that
//! needs no spill code.

use ssaref::evaluation::backend_comparison::{compare_backends, CompareConfig, Engine};
use std::process::Command;

const LOOP: &str = "// args: 10
fn main(n) {
    s = 0;
    i = 0;
    while (i < n) {
        s = s + i;
        i = i + 1;
    }
    out s;
    return s;
}
";

/// Seven values live across the loop and a division: spill code at K = 2.
const PRESSURE: &str = "// args: 9 4
fn main(a, b) {
    c = a + 1; d = b + 2; e = a * b; f = a - b; g = a ^ 3;
    i = 0;
    while (i < 5) {
        c = c + d; d = d + e; e = e + f; f = f + g; g = g + c;
        i = i + 1;
    }
    out c / (b | 1);
    out d % 7;
    return c + d + e + f + g;
}
";

fn ssaref(args: &[&str]) -> (i32, String, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_ssaref")).args(args).output().expect("runs");
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).into(),
        String::from_utf8_lossy(&out.stderr).into(),
    )
}

fn corpus_dir() -> std::path::PathBuf {
    let dir = std::env::temp_dir().join(format!("ssaref-compare-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("temp dir");
    std::fs::write(dir.join("a_loop.src"), LOOP).expect("write");
    std::fs::write(dir.join("b_pressure.src"), PRESSURE).expect("write");
    dir
}

/// The rows of the table of K = `k` (the lines starting with `| ` and a
/// back end's name, after `### K = k`).
fn rows(out: &str, k: usize) -> Vec<Vec<String>> {
    let section = out.split(&format!("### K = {k}\n")).nth(1).unwrap_or_else(|| panic!("no K = {k} section:\n{out}"));
    let section = section.split("### ").next().unwrap_or("");
    section
        .lines()
        .filter(|l| ["| ssa-ra", "| out-of-ssa", "| regalloc2"].iter().any(|p| l.starts_with(p)))
        .map(|l| l.trim_matches('|').split('|').map(|c| c.trim().to_string()).collect())
        .collect()
}

/// Spill instructions, moves and swaps in `ssaref emit --stage alloc`.
fn listing_counts(file: &str, route: &str, k: usize) -> [u64; 4] {
    let (code, out, err) = ssaref(&["emit", file, "--stage", "alloc", "--route", route, "--regs", &k.to_string()]);
    assert_eq!(code, 0, "{err}");
    let count = |pat: &str| out.lines().filter(|l| l.contains(pat)).count() as u64;
    [count(" = reload "), count(" = spill "), count(" = move "), count("    swap ")]
}

#[test]
fn the_tables_have_a_row_per_back_end_and_static_counts_match_the_listings() {
    let dir = corpus_dir();
    let d = dir.to_string_lossy().to_string();
    let (code, out, err) = ssaref(&[
        "stats",
        "--compare-backends",
        "--corpus",
        "realistic",
        "--corpus-dir",
        &d,
        "--compare-regs",
        "2,15",
        "--repeat",
        "1",
        "--coalescing",
        "sharing",
    ]);
    assert_eq!(code, 0, "{err}");
    assert!(out.contains("2 programs measured (0 skipped"), "{out}");
    for k in [2, 15] {
        let rows = rows(&out, k);
        assert_eq!(rows.len(), 3, "K = {k}: {rows:?}");
        assert!(
            rows[0][0].starts_with("ssa-ra")
                && rows[1][0].starts_with("out-of-ssa (sharing")
                && rows[2][0].starts_with("regalloc2")
        );
        for row in &rows {
            assert_eq!(row.len(), 16, "{row:?}");
            // Counts: static loads..total, slots, dynamic loads..total.
            for i in [1, 2, 3, 4, 5, 7, 8, 9, 10, 11, 12] {
                assert!(row[i].parse::<u64>().is_ok(), "K = {k}, column {i} of {row:?}");
            }
            let total: u64 = (1..=4).map(|i| row[i].parse::<u64>().unwrap_or(0)).sum();
            assert_eq!(row[5], total.to_string(), "the static total is the sum: {row:?}");
            assert!(row[14].parse::<f64>().is_ok(), "time: {row:?}");
        }
        // The static counts are those of the allocated code that `emit`
        // prints, summed over the two programs.
        for (row, route) in rows.iter().zip(["ssa-ra", "out-of-ssa", "regalloc2"]) {
            let mut listed = [0u64; 4];
            for file in ["a_loop.src", "b_pressure.src"] {
                let c = listing_counts(&dir.join(file).to_string_lossy(), route, k);
                for i in 0..4 {
                    listed[i] += c[i];
                }
            }
            let table: Vec<u64> = (1..=4).map(|i| row[i].parse().unwrap_or(u64::MAX)).collect();
            assert_eq!(table, listed.to_vec(), "{route} at K = {k}: table vs listing");
        }
    }
    // out-of-ssa's variant is measured unless given.
    let (code, out, err) = ssaref(&[
        "stats",
        "--compare-backends",
        "--corpus",
        "generated",
        "--count",
        "2",
        "--compare-regs",
        "3",
        "--repeat",
        "1",
    ]);
    assert_eq!(code, 0, "{err}");
    assert!(
        out.contains("the fewest executed spill instructions, moves and swaps over all K (measured: intersect"),
        "{out}"
    );
    assert_eq!(rows(&out, 3).len(), 3, "{out}");
}

fn corpus() -> Vec<(ssaref::ast::Program, Vec<i64>)> {
    [LOOP, PRESSURE]
        .iter()
        .map(|t| {
            let c = ssaref::frontend::case_file::CaseFile::parse(t).expect("parses");
            (c.program, c.args)
        })
        .collect()
}

#[test]
fn a_program_without_pressure_executes_no_spill_code_at_large_k_in_any_back_end() {
    let config = CompareConfig { regs: vec![2, 15], repeat: 1, fuel: 100_000, out_of_ssa_variant: None };
    let loop_only = &corpus()[..1];
    let c = compare_backends("loop", loop_only, &ssaref_interp::Interp, &config).expect("measures");
    let at15 = &c.tables[1];
    assert_eq!(at15.k, 15);
    for row in &at15.rows {
        let d = &row.counts.dynamic;
        assert_eq!((d.loads, d.stores, row.counts.slots), (0, 0, 0), "{:?}", row.engine);
        assert_eq!(row.counts.runs, 1, "{:?}", row.engine);
        // The loop ran: 10 iterations of at least the comparison, two
        // additions and the branch.
        assert!(d.executed >= 40, "{:?}: {d:?}", row.engine);
    }
    // The second program needs spill code at K = 2, which every back end
    // executes; the counts are not all zero.
    let c = compare_backends("both", &corpus(), &ssaref_interp::Interp, &config).expect("measures");
    for row in &c.tables[0].rows {
        assert!(row.counts.dynamic.loads > 0 && row.counts.slots > 0, "{:?}: {:?}", row.engine, row.counts);
    }
    assert_eq!(c.programs, 2);
    assert_eq!(c.out_of_ssa_selection.len(), 7, "every variant measured");
}

#[test]
fn each_back_end_checked_and_unchecked_give_the_same_code_that_the_checker_accepts() {
    for (program, _) in corpus() {
        let ssa = ssaref::construction::braun::construct_program(
            &program,
            &ssaref::construction::braun::BraunOptions::all_on(),
        );
        for engine in [
            Engine::SsaRa,
            Engine::OutOfSsa(ssaref::out_of_ssa::coalescing::CoalescingVariant::Sharing),
            Engine::Regalloc2,
        ] {
            for k in [2, 3, 15] {
                let checked = engine.allocate_checked(&ssa, k).expect("allocates");
                ssaref::checkers::alloc_checker::check_module(&checked).expect("the allocation checker accepts it");
                let unchecked = engine.allocate_unchecked(&ssa, k).expect("allocates");
                assert_eq!(checked, unchecked, "{engine:?} at K = {k}");
            }
        }
    }
}
