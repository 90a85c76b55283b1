//! The front door and the architecture document stay short, and the table
//! of docs/algorithms.md that maps each algorithm of the papers to its code
//! stays true:
//! - README.md is at most 12 KB and ARCHITECTURE.md at most 25 KB (bytes,
//!   1 KB = 1,000 bytes);
//! - every row of the algorithm table (a Markdown table whose columns are
//!   `algorithm | file | function`) names one file in backticks and one or
//!   more functions in backticks, the file exists, and it defines each
//!   function (`fn NAME(` or `fn NAME<`);
//! - the algorithms the papers are known for each have a row, under the
//!   heading row of their paper.
//!
//! `PENDING` lists the (file, function) pairs that the table names before
//! the code exists; each must be named by the table and must still be
//! missing, so the list cannot go stale.

use std::path::{Path, PathBuf};

const README_MAX_BYTES: usize = 12_000;
const ARCHITECTURE_MAX_BYTES: usize = 25_000;

/// The document that holds the algorithm table.
const ALGORITHM_TABLE: &str = "docs/algorithms.md";

/// Rows of the algorithm table whose code is not written yet (a change
/// that documents an algorithm before writing it lists its rows here).
const PENDING: &[(&str, &str)] = &[];

/// Each algorithm that must have a row: the start of its paper's heading
/// row, and a phrase of the row's algorithm cell.
const REQUIRED: &[(&str, &str)] = &[
    ("Braun et al.", "as printed"),
    ("Braun et al.", "Algorithm 1,"),
    ("Braun et al.", "Algorithm 2,"),
    ("Braun et al.", "Algorithm 3,"),
    ("Braun et al.", "Algorithm 4,"),
    ("Braun et al.", "Algorithm 5,"),
    ("Braun et al.", "marker algorithm"),
    ("Braun et al.", "on-the-fly optimizations"),
    ("Cytron et al.", "phi placement"),
    ("Boissinot et al.", "Method I"),
    ("Boissinot et al.", "value-based interference"),
    ("Boissinot et al.", "Algorithm 2, §IV-B"),
    ("Boissinot et al.", "sequentialization (Algorithm 1)"),
    ("Boissinot et al.", "coalescing variants"),
    ("Boissinot et al.", "fast liveness checking"),
    ("Boissinot et al.", "virtualized"),
    ("Boissinot et al.", "renaming constraints"),
    ("Pereira, ", "PhiLifting"),
    ("Pereira, ", "PhiMemCoalesce"),
    ("Pereira, ", "spill weights"),
    ("Pereira, ", "dominance-tree pre-order"),
    ("Pereira, ", "global coalescing"),
    ("Pereira, ", "SSA deconstruction"),
    ("Pereira and Palsberg", "ImplementComponent"),
    ("Pereira and Palsberg", "ImplementSpartan"),
    ("Pereira and Palsberg", "location transfer graphs"),
    ("Pereira and Palsberg", "store hoisting"),
    ("Pereira and Palsberg", "load lowering"),
    ("Pereira and Palsberg", "redundant memory transfer elimination"),
    ("The pipeline", "with a check after each"),
];

/// One row of the algorithm table, under the heading row of its paper.
#[derive(Debug, PartialEq)]
struct Row {
    paper: String,
    algorithm: String,
    file: String,
    functions: Vec<String>,
}

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

fn read(rel: &str) -> String {
    std::fs::read_to_string(root().join(rel)).unwrap_or_else(|e| panic!("{rel}: {e}"))
}

/// The text between each pair of backticks of `cell`.
fn backticked(cell: &str) -> Vec<String> {
    cell.split('`').skip(1).step_by(2).map(str::to_string).collect()
}

fn cells(line: &str) -> Vec<String> {
    let inner = line.trim().trim_start_matches('|').trim_end_matches('|');
    inner.split('|').map(|c| c.trim().to_string()).collect()
}

/// The rows of the table whose header is `algorithm | file | function`. A
/// row with empty file and function cells is the heading of a paper; any
/// other row must name exactly one file and at least one function.
fn algorithm_table(markdown: &str) -> Result<Vec<Row>, String> {
    let mut lines = markdown.lines().enumerate();
    let header = ["algorithm", "file", "function"];
    for (_, line) in lines.by_ref() {
        if line.trim_start().starts_with('|') && cells(line) == header {
            break;
        }
    }
    match lines.next() {
        Some((_, l)) if l.trim_start().starts_with("|---") => {}
        _ => return Err("no table with the columns `algorithm | file | function`".into()),
    }
    let mut rows = Vec::new();
    let mut paper = String::new();
    for (n, line) in lines {
        if !line.trim_start().starts_with('|') {
            break;
        }
        let c = cells(line);
        if c.len() != 3 {
            return Err(format!("line {}: {} cells, not 3", n + 1, c.len()));
        }
        if c[1].is_empty() && c[2].is_empty() {
            paper = c[0].clone();
            continue;
        }
        let files = backticked(&c[1]);
        let functions = backticked(&c[2]);
        if files.len() != 1 || !files[0].ends_with(".rs") {
            return Err(format!("line {}: the file cell must name one `.rs` file in backticks", n + 1));
        }
        if functions.is_empty() || functions.iter().any(|f| !is_identifier(f)) {
            return Err(format!("line {}: the function cell must name functions in backticks", n + 1));
        }
        rows.push(Row { paper: paper.clone(), algorithm: c[0].clone(), file: files[0].clone(), functions });
    }
    if rows.is_empty() {
        return Err("the algorithm table has no rows".into());
    }
    Ok(rows)
}

fn is_identifier(s: &str) -> bool {
    !s.is_empty()
        && s.chars().all(|c| c == '_' || c.is_ascii_alphanumeric())
        && !s.starts_with(|c: char| c.is_ascii_digit())
}

/// Does `code` define a function named `name`?
fn defines(code: &str, name: &str) -> bool {
    let needle = format!("fn {name}");
    code.match_indices(&needle).any(|(i, _)| {
        let before_ok = i == 0 || !code[..i].ends_with(|c: char| c == '_' || c.is_ascii_alphanumeric());
        let after = code[i + needle.len()..].chars().next();
        before_ok && matches!(after, Some('(') | Some('<'))
    })
}

/// What is wrong with the table's rows against the tree under `root`:
/// missing files and functions not in `pending`, and `pending` entries
/// that the table does not name or that exist by now.
fn problems(rows: &[Row], root: &Path, pending: &[(&str, &str)]) -> Vec<String> {
    let mut out = Vec::new();
    for row in rows {
        let code = std::fs::read_to_string(root.join(&row.file)).ok();
        for f in &row.functions {
            let exists = code.as_deref().is_some_and(|c| defines(c, f));
            let is_pending = pending.contains(&(row.file.as_str(), f.as_str()));
            match (exists, is_pending) {
                (false, false) if code.is_none() => {
                    out.push(format!("{}: no such file (row \"{}\")", row.file, row.algorithm))
                }
                (false, false) => out.push(format!("{}: no `fn {f}` (row \"{}\")", row.file, row.algorithm)),
                (true, true) => out.push(format!("{}: `fn {f}` exists now: remove it from PENDING", row.file)),
                _ => {}
            }
        }
    }
    for &(file, f) in pending {
        if !rows.iter().any(|r| r.file == file && r.functions.iter().any(|g| g == f)) {
            out.push(format!("PENDING names {file} `{f}`, which the table does not"));
        }
    }
    out
}

#[test]
fn readme_and_architecture_are_short() {
    for (file, max) in [("README.md", README_MAX_BYTES), ("ARCHITECTURE.md", ARCHITECTURE_MAX_BYTES)] {
        let len = read(file).len();
        assert!(len <= max, "{file} is {len} bytes, more than {max}");
    }
}

#[test]
fn every_file_and_function_of_the_algorithm_table_exists() {
    let rows = algorithm_table(&read(ALGORITHM_TABLE)).unwrap();
    let found = problems(&rows, &root(), PENDING);
    assert!(found.is_empty(), "{ALGORITHM_TABLE}'s algorithm table:\n{}", found.join("\n"));
}

#[test]
fn every_algorithm_of_the_papers_has_a_row() {
    let rows = algorithm_table(&read(ALGORITHM_TABLE)).unwrap();
    let missing: Vec<String> = REQUIRED
        .iter()
        .filter(|(paper, phrase)| !rows.iter().any(|r| r.paper.starts_with(paper) && r.algorithm.contains(phrase)))
        .map(|(paper, phrase)| format!("{paper}: {phrase}"))
        .collect();
    assert!(missing.is_empty(), "no row in {ALGORITHM_TABLE}'s algorithm table for:\n{}", missing.join("\n"));
}

#[test]
fn the_table_checker_rejects_what_it_should() {
    let dir = std::env::temp_dir().join(format!("ssaref-docs-test-{}", std::process::id()));
    std::fs::create_dir_all(dir.join("src")).unwrap();
    std::fs::write(dir.join("src/a.rs"), "pub fn walk(x: u32) {}\nfn seal_block<T>() {}\nfn walker() {}\n").unwrap();
    let table =
        |rows: &str| format!("intro\n\n| algorithm | file | function |\n|---|---|---|\n| Paper | | |\n{rows}\nafter\n");

    let good = algorithm_table(&table("| Alg. 1 | `src/a.rs` | `walk`, `seal_block` |")).unwrap();
    assert_eq!(
        good,
        vec![Row {
            paper: "Paper".into(),
            algorithm: "Alg. 1".into(),
            file: "src/a.rs".into(),
            functions: vec!["walk".into(), "seal_block".into()],
        }]
    );
    assert!(problems(&good, &dir, &[]).is_empty());

    // A typo in a function name, a prefix of an existing name, a missing file.
    for row in
        ["| Alg. 1 | `src/a.rs` | `wlak` |", "| Alg. 1 | `src/a.rs` | `walke` |", "| Alg. 1 | `src/b.rs` | `walk` |"]
    {
        let rows = algorithm_table(&table(row)).unwrap();
        assert_eq!(problems(&rows, &dir, &[]).len(), 1, "{row}");
    }
    // Pending: allowed while missing, reported once it exists or when the
    // table does not name it.
    let rows = algorithm_table(&table("| Alg. 2 | `src/b.rs` | `compile` |")).unwrap();
    assert!(problems(&rows, &dir, &[("src/b.rs", "compile")]).is_empty());
    assert_eq!(problems(&good, &dir, &[("src/a.rs", "walk")]).len(), 1);
    assert_eq!(problems(&good, &dir, &[("src/c.rs", "other")]).len(), 1);
    // Malformed rows and a missing table.
    assert!(algorithm_table(&table("| Alg. 1 | src/a.rs | `walk` |")).is_err());
    assert!(algorithm_table(&table("| Alg. 1 | `src/a.rs` | walk |")).is_err());
    assert!(algorithm_table(&table("| Alg. 1 | `src/a.rs` |")).is_err());
    assert!(algorithm_table("| algorithm | file |\n|---|---|\n").is_err());
    std::fs::remove_dir_all(&dir).unwrap();
}
