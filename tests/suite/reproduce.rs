//! Smoke test of `ssaref reproduce` (docs/results/README.md, "Reproducing
//! the papers' evaluations"): the hidden `--tiny` scale runs every section
//! on three corpus programs and four generated ones in a few seconds, and
//! this test checks the report's shape, never its timings: the header,
//! every section and table, the papers' columns and figures beside ours,
//! every plot written as SVG, and every measured cell a number.

use std::path::{Path, PathBuf};
use std::process::Command;

fn ssaref() -> Command {
    let mut c = Command::new(env!("CARGO_BIN_EXE_ssaref"));
    c.current_dir(env!("CARGO_MANIFEST_DIR"));
    c
}

fn out_dir(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("ssaref-reproduce-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    dir
}

/// The Markdown tables of `md`: (the heading above, header cells, rows).
fn tables(md: &str) -> Vec<(String, Vec<String>, Vec<Vec<String>>)> {
    let cells = |line: &str| -> Vec<String> {
        line.trim().trim_start_matches('|').trim_end_matches('|').split('|').map(|c| c.trim().to_string()).collect()
    };
    let mut out = Vec::new();
    let mut heading = String::new();
    let lines: Vec<&str> = md.lines().collect();
    let mut i = 0;
    while i < lines.len() {
        if lines[i].starts_with('#') {
            heading = lines[i].to_string();
        }
        if lines[i].starts_with('|') && lines.get(i + 1).is_some_and(|l| l.starts_with("|---")) {
            let header = cells(lines[i]);
            let mut rows = Vec::new();
            i += 2;
            while i < lines.len() && lines[i].starts_with('|') {
                rows.push(cells(lines[i]));
                i += 1;
            }
            out.push((heading.clone(), header, rows));
            continue;
        }
        i += 1;
    }
    out
}

/// A measured cell: a number, possibly with thousands separators, a sign,
/// a `%` or ` ms`, or a timing `median [min–max]`; `–` where a ratio has
/// no base.
fn is_measurement(cell: &str) -> bool {
    if cell == "–" {
        return true;
    }
    let cell = cell.trim_end_matches(" ms");
    let parts: Vec<&str> = match cell.split_once(" [") {
        Some((median, spread)) => {
            let Some((lo, hi)) = spread.trim_end_matches(']').split_once('–') else { return false };
            vec![median, lo, hi]
        }
        None => vec![cell],
    };
    parts.iter().all(|p| {
        let p = p.replace(',', "");
        let p = p.trim_end_matches('%').trim_start_matches(['+', '-', '−']);
        !p.is_empty() && p.parse::<f64>().is_ok_and(f64::is_finite)
    })
}

/// Columns that name things rather than measure them.
const LABEL_COLUMNS: [&str; 16] = [
    "winner",
    "paper's winner",
    "same winner under other weights",
    "count",
    "construction",
    "measure",
    "program",
    "variant",
    "input",
    "allocator",
    "configuration",
    "part",
    "fewer transfers",
    "N",
    "phase",
    "verdict",
];

fn check_report(dir: &Path) {
    let md = std::fs::read_to_string(dir.join("REPORT.md")).expect("REPORT.md written");
    assert!(md.contains("debug assertions o"), "the header does not state the debug assertions");
    for line in [
        "- commit: `",
        "- date: ",
        "- machine: ",
        "- load average (1 min): ",
        "- profile: ",
        "- the passes' own checks: off (checkers started on the measuring thread during the run: 0)",
        "- command: `",
        "- scale: ",
        "- duration: ",
    ] {
        assert!(md.contains(line), "the header lacks {line:?}");
    }
    for heading in [
        "## Workloads",
        "## Braun et al.",
        "### Table 1: instructions and phis",
        "### Table 2: executed instructions and construction time",
        "### Table 3: on-the-fly optimizations",
        "### Construction time per statement",
        "## Boissinot et al.",
        "### Fig. 5: copies left by each coalescing variant",
        "### §IV-D (Figs. 6–7): speed and memory",
        "## Pereira, ",
        "### Table 1: spill code and copies",
        "### Fig. 9: ssa-ra against linear scan",
        "### Why ssa-ra executes more spill code than linear scan",
        "## Pereira and Palsberg",
        "### §6: memory accesses removed by each optimization",
        "### §7: SSA elimination's share of compile time",
    ] {
        assert!(md.lines().any(|l| l.starts_with(heading)), "the report lacks the heading {heading:?}");
    }
    // The papers' figures, copied from their text, beside ours.
    for figure in [
        "934,392",
        "38,696",
        "71,846,356,773",
        "99.72%",
        "974,743",
        "859,311",
        "10,508",
        "57,094",
        "12,428",
        "more than 9%",
        "4.8%",
        "2.5%",
        "about twice faster",
        "crossover",
    ] {
        assert!(md.contains(figure), "the report lacks the paper's figure {figure:?}");
    }
    let tables = tables(&md);
    assert!(tables.len() >= 11, "only {} tables", tables.len());
    let mut paper_columns = 0;
    let mut ours_columns = 0;
    for (heading, header, rows) in &tables {
        assert!(!rows.is_empty(), "{heading}: an empty table");
        for row in rows {
            assert_eq!(
                row.len(),
                header.len(),
                "{heading}: a row of {} cells under {} headers",
                row.len(),
                header.len()
            );
        }
        for (c, name) in header.iter().enumerate() {
            if name.starts_with("paper") {
                paper_columns += 1;
                continue;
            }
            if name.starts_with("ours") {
                ours_columns += 1;
            }
            if c == 0
                || LABEL_COLUMNS.contains(&name.as_str())
                || name.starts_with("paper")
                || name.starts_with("verdict")
            {
                continue;
            }
            for row in rows {
                assert!(is_measurement(&row[c]), "{heading}, column {name:?}: {:?} is not a number", row[c]);
            }
        }
    }
    assert!(paper_columns >= 8, "only {paper_columns} columns of the papers' figures");
    assert!(ours_columns >= 8, "only {ours_columns} columns of ours");
    // Workloads side by side, never mixed.
    for label in ["ours: corpus", "ours: generated"] {
        assert!(md.contains(label), "no column {label:?}");
    }
    // Every plot the report shows is an SVG file beside it.
    let plots: Vec<&str> =
        md.lines().filter_map(|l| l.strip_prefix("![")?.split("](").nth(1)?.strip_suffix(')')).collect();
    assert!(plots.len() >= 6, "only {} plots: {plots:?}", plots.len());
    for file in ["braun_scaling.svg", "boissinot_time.svg", "boissinot_memory.svg", "pereira_fig9_corpus.svg"] {
        assert!(plots.contains(&file), "the report does not show {file}");
    }
    for file in plots {
        let svg = std::fs::read_to_string(dir.join(file)).unwrap_or_else(|e| panic!("{file}: {e}"));
        assert!(svg.trim_start().starts_with("<svg"), "{file} does not start with <svg");
        assert!(svg.trim_end().ends_with("</svg>"), "{file} does not end with </svg>");
        assert!(svg.contains("<text"), "{file} has no text (axis labels, legend)");
    }
}

#[test]
fn reproduce_tiny_writes_a_report_of_the_right_shape() {
    let dir = out_dir("tiny");
    let out = ssaref().args(["reproduce", "--tiny", "--out"]).arg(&dir).output().expect("ssaref runs");
    assert!(out.status.success(), "ssaref reproduce --tiny failed: {}", String::from_utf8_lossy(&out.stderr));
    check_report(&dir);
    let _ = std::fs::remove_dir_all(&dir);
}

/// The tests' build has debug assertions: the full run, whose figures are
/// timings, refuses it before measuring anything.
#[test]
fn the_full_run_refuses_a_build_with_debug_assertions() {
    if !cfg!(debug_assertions) {
        // The binary of this build is fit for timing (the same profile).
        return;
    }
    let dir = out_dir("full");
    let out = ssaref().args(["reproduce", "--out"]).arg(&dir).output().expect("ssaref runs");
    assert_eq!(out.status.code(), Some(1), "stderr: {}", String::from_utf8_lossy(&out.stderr));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.contains("--profile measure"), "{stderr}");
    assert!(!dir.exists(), "a refused run wrote {}", dir.display());
}

#[test]
fn reproduce_without_a_corpus_is_bad_input() {
    let dir = out_dir("nocorpus");
    let out = ssaref()
        .args(["reproduce", "--tiny", "--corpus", "tests/no-such-folder", "--out"])
        .arg(&dir)
        .output()
        .expect("ssaref runs");
    assert_eq!(out.status.code(), Some(1), "stderr: {}", String::from_utf8_lossy(&out.stderr));
    assert!(String::from_utf8_lossy(&out.stderr).contains("tests/no-such-folder: cannot read"));
    assert!(!dir.join("REPORT.md").exists());
}

#[test]
fn measured_cells_are_recognized() {
    for ok in ["1,130", "99.6%", "-73.2%", "+42%", "0.565 [0.555–0.581]", "8.69 ms", "–", "0.18"] {
        assert!(is_measurement(ok), "{ok}");
    }
    for bad in ["", "NaN", "inf", "not reported", "1.0 [2.0]", "12 apples"] {
        assert!(!is_measurement(bad), "{bad}");
    }
}
