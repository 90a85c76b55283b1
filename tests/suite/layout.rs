//! The source tree keeps the shape ARCHITECTURE.md describes:
//! - imports flow downward: a folder of `src/` imports only folders of a
//!   lower layer (`LAYERS`), and no two files import each other, directly
//!   or through a chain (no import cycle between files);
//! - the oracle (`interp/`) imports nothing of ssaref but the data-type
//!   modules of `ssaref-types`, and its package depends on nothing else;
//! - no `#[path]` attribute, no `.rs` file over 900 lines, at most 8 `.rs`
//!   files at the top of `src/` and at least 5 folders, no two files of
//!   `src/` with one name (but `mod.rs`), and one test binary in `tests/`;
//! - no file of `src/`, `interp/` or `tests/` (test data included) names an
//!   issue number, a development branch or the path of the papers' texts
//!   (`HISTORY_PATTERNS`): comments cite a paper by authors, title and
//!   section, and history belongs in the commit log and `docs/`.
//!
//! An import is any path in code (comments and string literals removed)
//! that starts with `crate::`, `super::`, `self::`, `ssaref::` or
//! `ssaref_types::`, brace groups expanded; it is resolved to the file that
//! defines the longest matching module. A `mod.rs` that re-exports a child
//! imports that child, so a child that imports through its parent's
//! `mod.rs` closes a cycle. The checker is tested on small made-up trees at
//! the end of this file, so it is known to reject what it should. Unit-test
//! modules (from `#[cfg(test)]` to the end of a file) are left out.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

/// The folders of `src/` (and its top files `ssa_text.rs`, `pipeline.rs`,
/// `differential.rs`; `error/` is a folder) by layer: a file may import
/// files of its own folder and of folders of a strictly lower layer.
const LAYERS: &[(&str, u32)] = &[
    ("types", 0),
    ("pass_manager", 1),
    ("ssa_text", 1),
    ("analysis", 2),
    ("frontend", 3),
    ("construction", 4),
    ("checkers", 4),
    ("error", 5),
    ("ssa_ra", 6),
    ("out_of_ssa", 6),
    ("regalloc2", 6),
    ("machine", 6),
    ("backend", 7),
    ("pipeline", 8),
    ("differential", 9),
    ("generate", 10),
    ("targets", 10),
    ("reduce", 11),
    ("evaluation", 11),
    ("campaign", 12),
    ("cli", 13),
];

/// The modules of `ssaref-types` that the oracle may import.
const ORACLE_MAY_IMPORT: &[&str] = &["ast", "entity", "ir", "mir", "op", "oracle", "outcome"];

/// The data-type modules, re-exported at the root of the library.
const TYPE_MODULES: &[&str] = &["ast", "diag", "entity", "ir", "mir", "op", "oracle", "outcome"];

/// One source file: where it is, the module path it defines (crate root
/// first: `lib`, `types`, `bin` or `interp`), and its code.
pub(super) struct SourceFile {
    pub(super) path: String,
    module: Vec<String>,
    pub(super) code: String,
}

/// A file's module path from its path under `src/` (or `interp/src/`).
fn module_of(rel: &str) -> Vec<String> {
    let parts: Vec<&str> = rel.trim_end_matches(".rs").split('/').collect();
    let (root, rest): (&str, &[&str]) = match parts[0] {
        "types" => ("types", &parts[1..]),
        "cli" => ("bin", &parts[1..]),
        "interp" => ("interp", &parts[1..]),
        _ => ("lib", &parts[..]),
    };
    let mut m = vec![root.to_string()];
    for (i, p) in rest.iter().enumerate() {
        let last = i + 1 == rest.len();
        if last && (*p == "mod" || *p == "lib" || *p == "main") {
            continue;
        }
        m.push(p.to_string());
    }
    m
}

/// The code of a Rust file without comments, string and char literals.
pub(crate) fn strip(src: &str) -> String {
    let b = src.as_bytes();
    let mut out = String::with_capacity(src.len());
    let mut i = 0;
    while i < b.len() {
        if b[i] == b'/' && b.get(i + 1) == Some(&b'/') {
            while i < b.len() && b[i] != b'\n' {
                i += 1;
            }
        } else if b[i] == b'/' && b.get(i + 1) == Some(&b'*') {
            let mut depth = 0;
            while i < b.len() {
                if b[i] == b'/' && b.get(i + 1) == Some(&b'*') {
                    depth += 1;
                    i += 2;
                } else if b[i] == b'*' && b.get(i + 1) == Some(&b'/') {
                    depth -= 1;
                    i += 2;
                    if depth == 0 {
                        break;
                    }
                } else {
                    i += 1;
                }
            }
        } else if b[i] == b'r' && (b.get(i + 1) == Some(&b'"') || b.get(i + 1) == Some(&b'#')) && !ident_byte(b, i) {
            // Raw string: r"..." or r#"..."#.
            let mut j = i + 1;
            let mut hashes = 0;
            while b.get(j) == Some(&b'#') {
                hashes += 1;
                j += 1;
            }
            if b.get(j) != Some(&b'"') {
                out.push('r');
                i += 1;
                continue;
            }
            j += 1;
            let close: Vec<u8> = std::iter::once(b'"').chain(std::iter::repeat_n(b'#', hashes)).collect();
            while j < b.len() && !b[j..].starts_with(&close) {
                j += 1;
            }
            i = j + close.len();
            out.push_str("\"\"");
        } else if b[i] == b'"' {
            i += 1;
            while i < b.len() && b[i] != b'"' {
                if b[i] == b'\\' {
                    i += 1;
                }
                i += 1;
            }
            i += 1;
            out.push_str("\"\"");
        } else if b[i] == b'\'' {
            // A char literal ('a', '\n', '\u{..}') or a lifetime ('a).
            let end = if b.get(i + 1) == Some(&b'\\') {
                b[i + 2..].iter().position(|&c| c == b'\'').map(|p| i + 2 + p)
            } else if b.get(i + 2) == Some(&b'\'') {
                Some(i + 2)
            } else {
                // A multi-byte char literal, or a lifetime.
                let s = &src[i + 1..];
                let c = s.chars().next().map_or(0, char::len_utf8);
                if s.as_bytes().get(c) == Some(&b'\'') {
                    Some(i + 1 + c)
                } else {
                    None
                }
            };
            match end {
                Some(e) => {
                    out.push_str("' '");
                    i = e + 1;
                }
                None => {
                    out.push('\'');
                    i += 1;
                }
            }
        } else {
            let c = src[i..].chars().next().unwrap();
            out.push(c);
            i += c.len_utf8();
        }
    }
    out
}

fn ident_byte(b: &[u8], i: usize) -> bool {
    i > 0 && (b[i - 1].is_ascii_alphanumeric() || b[i - 1] == b'_')
}

/// Every path in `code` that starts with one of the roots, brace groups
/// expanded, as segment lists (`crate::a::{b, c::d}` gives `crate a b` and
/// `crate a c d`).
fn paths(code: &str) -> Vec<Vec<String>> {
    let toks = tokenize(code);
    let mut out = Vec::new();
    let mut i = 0;
    while i < toks.len() {
        // A path starts at a root, or at any identifier followed by `::`
        // (a child module named without `self::`, in 2018 paths; `Tree::
        // absolute` keeps only those that name a module of the tree).
        let t = toks[i].as_str();
        let ident = t.chars().next().is_some_and(|c| c.is_alphabetic() || c == '_');
        let starts = ident && toks.get(i + 1).map(String::as_str) == Some("::") && (i == 0 || toks[i - 1] != "::");
        if starts {
            let (end, found) = parse_tree(&toks, i, Vec::new());
            out.extend(found);
            i = end.max(i + 1);
        } else {
            i += 1;
        }
    }
    out
}

/// Identifiers, `::`, `{`, `}`, `,` and other single characters.
fn tokenize(code: &str) -> Vec<String> {
    let mut toks = Vec::new();
    let cs: Vec<char> = code.chars().collect();
    let mut i = 0;
    while i < cs.len() {
        let c = cs[i];
        if c.is_alphanumeric() || c == '_' {
            let s = i;
            while i < cs.len() && (cs[i].is_alphanumeric() || cs[i] == '_') {
                i += 1;
            }
            toks.push(cs[s..i].iter().collect());
        } else if c == ':' && cs.get(i + 1) == Some(&':') {
            toks.push("::".into());
            i += 2;
        } else {
            if !c.is_whitespace() {
                toks.push(c.to_string());
            }
            i += 1;
        }
    }
    toks
}

/// Parses a use tree at `toks[i]` under `prefix`; returns the index after
/// it and the paths it names.
fn parse_tree(toks: &[String], mut i: usize, mut prefix: Vec<String>) -> (usize, Vec<Vec<String>>) {
    let is_ident = |t: &str| t.chars().next().is_some_and(|c| c.is_alphabetic() || c == '_');
    loop {
        match toks.get(i).map(String::as_str) {
            Some("{") => {
                let mut out = Vec::new();
                i += 1;
                loop {
                    match toks.get(i).map(String::as_str) {
                        Some("}") => return (i + 1, out),
                        Some(",") => i += 1,
                        None => return (i, out),
                        Some(_) => {
                            let (next, found) = parse_tree(toks, i, prefix.clone());
                            out.extend(found);
                            i = if next > i { next } else { i + 1 };
                        }
                    }
                }
            }
            Some(t) if is_ident(t) => {
                prefix.push(t.to_string());
                i += 1;
                if toks.get(i).map(String::as_str) == Some("::") {
                    i += 1;
                } else {
                    return (i, vec![prefix]);
                }
            }
            _ => return (i, vec![prefix]),
        }
    }
}

/// The tree: every file, and the file of each module path.
struct Tree {
    files: Vec<SourceFile>,
    by_module: BTreeMap<Vec<String>, usize>,
}

impl Tree {
    fn new(files: Vec<SourceFile>) -> Tree {
        let by_module = files.iter().enumerate().map(|(i, f)| (f.module.clone(), i)).collect();
        Tree { files, by_module }
    }

    /// The absolute module path a path of file `f` names.
    fn absolute(&self, f: &SourceFile, p: &[String]) -> Option<Vec<String>> {
        let crate_root = f.module[0].clone();
        let mut abs: Vec<String>;
        let mut rest = p;
        match p[0].as_str() {
            "crate" => {
                abs = vec![crate_root.clone()];
                rest = &p[1..];
            }
            "self" | "super" => {
                abs = f.module.clone();
                while let Some(s) = rest.first() {
                    match s.as_str() {
                        "self" => rest = &rest[1..],
                        "super" => {
                            abs.pop();
                            rest = &rest[1..];
                        }
                        _ => break,
                    }
                }
            }
            "ssaref" => {
                abs = vec!["lib".into()];
                rest = &p[1..];
            }
            "ssaref_types" => {
                abs = vec!["types".into()];
                rest = &p[1..];
            }
            first => {
                // A child module of this file's module, named directly.
                let mut child = f.module.clone();
                child.push(first.to_string());
                if !self.by_module.contains_key(&child) {
                    return None;
                }
                abs = f.module.clone();
            }
        }
        // The library re-exports the data-type modules at its root.
        if abs == ["lib"] && rest.first().is_some_and(|s| TYPE_MODULES.contains(&s.as_str())) {
            abs = vec!["types".into()];
        }
        abs.extend(rest.iter().cloned());
        Some(abs)
    }

    /// The file that defines the longest module prefix of `abs`.
    fn file_of(&self, abs: &[String]) -> Option<usize> {
        (1..=abs.len()).rev().find_map(|n| self.by_module.get(&abs[..n]).copied())
    }

    /// Every import edge (from file, to file, the path as written).
    fn edges(&self) -> Vec<(usize, usize, String)> {
        let mut out = Vec::new();
        for (i, f) in self.files.iter().enumerate() {
            let mut seen = BTreeSet::new();
            for p in paths(&f.code) {
                let Some(abs) = self.absolute(f, &p) else { continue };
                let Some(j) = self.file_of(&abs) else { continue };
                if j != i && seen.insert(j) {
                    out.push((i, j, p.join("::")));
                }
            }
        }
        out
    }

    /// The import cycles, each as the files of one strongly connected
    /// component with more than one file.
    fn cycles(&self) -> Vec<Vec<String>> {
        let n = self.files.len();
        let mut succs = vec![Vec::new(); n];
        for (a, b, _) in self.edges() {
            succs[a].push(b);
        }
        // Reachability closure is enough at this size (a few hundred files).
        let reach: Vec<Vec<bool>> = (0..n)
            .map(|s| {
                let mut seen = vec![false; n];
                let mut stack = vec![s];
                while let Some(v) = stack.pop() {
                    for &w in &succs[v] {
                        if !seen[w] {
                            seen[w] = true;
                            stack.push(w);
                        }
                    }
                }
                seen
            })
            .collect();
        let mut done = vec![false; n];
        let mut out = Vec::new();
        for a in 0..n {
            if done[a] || !reach[a][a] {
                continue;
            }
            let comp: Vec<usize> = (0..n).filter(|&b| reach[a][b] && reach[b][a]).collect();
            for &b in &comp {
                done[b] = true;
            }
            out.push(comp.iter().map(|&b| self.files[b].path.clone()).collect());
        }
        out
    }
}

/// The layer of a library file: its top folder or top file.
fn layer(module: &[String]) -> Option<(&'static str, u32)> {
    let top = match module[0].as_str() {
        "types" => "types",
        "bin" => "cli",
        "lib" => module.get(1)?.as_str(),
        _ => return None,
    };
    LAYERS.iter().copied().find(|&(name, _)| name == top)
}

/// The violations of the layering: a file importing a file of another
/// folder that is not in a lower layer.
fn layer_violations(tree: &Tree) -> Vec<String> {
    let mut out = Vec::new();
    for (a, b, path) in tree.edges() {
        let (fa, fb) = (&tree.files[a], &tree.files[b]);
        let (Some((na, la)), Some((nb, lb))) = (layer(&fa.module), layer(&fb.module)) else { continue };
        if na != nb && lb >= la {
            out.push(format!("{} ({na}, layer {la}) imports `{path}` from {} ({nb}, layer {lb})", fa.path, fb.path));
        }
    }
    out
}

/// The imports of the oracle's files that name anything of ssaref beyond
/// the data-type modules it may use.
fn oracle_violations(files: &[SourceFile]) -> Vec<String> {
    let mut out = Vec::new();
    for f in files {
        for p in paths(&f.code) {
            let bad = match p[0].as_str() {
                "ssaref" => true,
                "ssaref_types" => p.get(1).is_none_or(|m| !ORACLE_MAY_IMPORT.contains(&m.as_str())),
                _ => false,
            };
            if bad {
                out.push(format!("{} imports `{}`", f.path, p.join("::")));
            }
        }
    }
    out
}

pub(crate) fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// Every `.rs` file under `dir`, sorted (the other test files that scan the
/// tree share it).
pub(crate) fn rs_files(dir: &Path, out: &mut Vec<PathBuf>) {
    let mut entries: Vec<_> = std::fs::read_dir(dir).unwrap().map(|e| e.unwrap().path()).collect();
    entries.sort();
    for p in entries {
        if p.is_dir() {
            rs_files(&p, out);
        } else if p.extension().is_some_and(|e| e == "rs") {
            out.push(p);
        }
    }
}

/// The files under `dir` (relative names prefixed by `prefix`).
pub(super) fn load(dir: &str, prefix: &str) -> Vec<SourceFile> {
    let base = root().join(dir);
    let mut files = Vec::new();
    rs_files(&base, &mut files);
    files
        .into_iter()
        .map(|p| {
            let rel = p.strip_prefix(&base).unwrap().to_string_lossy().replace('\\', "/");
            let text = std::fs::read_to_string(&p).unwrap();
            // A unit-test module (`#[cfg(test)] mod tests`, at the end of a
            // file by convention) imports its own file through `super::`.
            let code = strip(text.split("#[cfg(test)]").next().unwrap_or(""));
            SourceFile { path: format!("{dir}/{rel}"), module: module_of(&format!("{prefix}{rel}")), code }
        })
        .collect()
}

fn made_up(files: &[(&str, &str)]) -> Tree {
    Tree::new(
        files
            .iter()
            .map(|(rel, code)| SourceFile { path: rel.to_string(), module: module_of(rel), code: strip(code) })
            .collect(),
    )
}

#[test]
fn imports_flow_downward_and_no_file_cycle() {
    let tree = Tree::new(load("src", ""));
    let n = tree.files.len();
    assert!(n > 50, "only {n} files found under src/");
    let edges = tree.edges();
    assert!(edges.len() > 200, "only {} import edges found: the path parser is broken", edges.len());
    let cycles = tree.cycles();
    assert!(
        cycles.is_empty(),
        "import cycles between files:\n{}",
        cycles.iter().map(|c| c.join(" <-> ")).collect::<Vec<_>>().join("\n")
    );
    let bad = layer_violations(&tree);
    assert!(bad.is_empty(), "imports that do not flow downward:\n{}", bad.join("\n"));
    println!("{n} files, {} import edges, no cycle, every edge downward", edges.len());
}

#[test]
fn the_oracle_imports_only_data_types() {
    let files = load("interp", "interp/");
    assert!(files.len() >= 5, "interp/ has {} files", files.len());
    let bad = oracle_violations(&files);
    assert!(bad.is_empty(), "the oracle imports more than data types:\n{}", bad.join("\n"));
    let tree = Tree::new(load("interp/src", "interp/"));
    assert!(tree.edges().len() >= 6, "the path parser finds too few imports in interp/src");
    assert!(tree.cycles().is_empty(), "import cycles in interp/src: {:?}", tree.cycles());
    // Its package depends on the data types only.
    let manifest = std::fs::read_to_string(root().join("interp/Cargo.toml")).unwrap();
    let deps = manifest.split("[dependencies]").nth(1).unwrap_or("");
    let deps: Vec<&str> = deps
        .lines()
        .take_while(|l| !l.trim_start().starts_with('['))
        .filter(|l| !l.trim().is_empty() && !l.trim_start().starts_with('#'))
        .collect();
    assert_eq!(deps.len(), 1, "interp/Cargo.toml depends on more than ssaref-types: {deps:?}");
    assert!(deps[0].trim_start().starts_with("ssaref-types"), "interp/Cargo.toml: {deps:?}");
}

#[test]
fn file_sizes_and_top_level_shape() {
    let mut files = Vec::new();
    rs_files(&root().join("src"), &mut files);
    rs_files(&root().join("interp/src"), &mut files);
    let mut problems = Vec::new();
    for p in &files {
        let text = std::fs::read_to_string(p).unwrap();
        let lines = text.lines().count();
        if lines > 900 {
            problems.push(format!("{} has {lines} lines (limit 900)", p.display()));
        }
        if text.lines().any(|l| l.trim_start().starts_with("#[path")) {
            problems.push(format!("{} has a #[path] attribute", p.display()));
        }
    }
    let top: Vec<_> = std::fs::read_dir(root().join("src")).unwrap().map(|e| e.unwrap().path()).collect();
    let rs = top.iter().filter(|p| p.extension().is_some_and(|e| e == "rs")).count();
    let dirs = top.iter().filter(|p| p.is_dir()).count();
    if rs > 8 {
        problems.push(format!("src/ has {rs} .rs files at its top level (limit 8)"));
    }
    if dirs < 5 {
        problems.push(format!("src/ has {dirs} folders (at least 5)"));
    }
    // No two files of `src/` share a name (but `mod.rs`, `lib.rs` and
    // `main.rs`): a reader who meets `stats.rs` should not have to guess
    // which one is meant.
    let mut by_name: BTreeMap<String, Vec<String>> = BTreeMap::new();
    let mut src_files = Vec::new();
    rs_files(&root().join("src"), &mut src_files);
    for p in &src_files {
        let name = p.file_name().unwrap().to_string_lossy().to_string();
        if !["mod.rs", "lib.rs", "main.rs"].contains(&name.as_str()) {
            let rel = p.strip_prefix(root()).unwrap().to_string_lossy().replace('\\', "/");
            by_name.entry(name).or_default().push(rel);
        }
    }
    for (name, paths) in &by_name {
        if paths.len() > 1 {
            problems.push(format!("{name} is the name of {} files: {}", paths.len(), paths.join(", ")));
        }
    }
    // The integration tests link once: `tests/` holds one test binary,
    // `tests/suite/`, and data folders; no `.rs` file at its top (each
    // would be a binary of its own) and no other folder with a `main.rs`.
    for e in std::fs::read_dir(root().join("tests")).unwrap() {
        let p = e.unwrap().path();
        let name = p.file_name().unwrap().to_string_lossy().to_string();
        if p.extension().is_some_and(|e| e == "rs") {
            problems.push(format!("tests/{name} is a test binary of its own: make it a module of tests/suite/"));
        }
        if p.is_dir() && name != "suite" && p.join("main.rs").exists() {
            problems
                .push(format!("tests/{name}/main.rs is a test binary of its own: make it a module of tests/suite/"));
        }
    }
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}

// The checker itself, on made-up trees.

#[test]
fn checker_finds_a_cycle_through_a_parent_mod_rs() {
    let tree = made_up(&[
        ("lib.rs", "pub mod a;"),
        ("a/mod.rs", "mod x; mod y; pub use x::Thing; pub use std::fmt::Debug; fn h() { Vec::<u8>::new(); }"),
        ("a/x.rs", "pub struct Thing; fn f() { super::y::g(); }"),
        ("a/y.rs", "use super::Thing; // goes through mod.rs\npub fn g() {}"),
    ]);
    let cycles = tree.cycles();
    assert_eq!(cycles, vec![vec!["a/mod.rs".to_string(), "a/x.rs".into(), "a/y.rs".into()]]);
}

#[test]
fn checker_reads_brace_groups_and_ignores_comments_and_strings() {
    let tree = made_up(&[
        ("lib.rs", ""),
        ("analysis/a.rs", "// use crate::ssa_ra::b;\nconst S: &str = \"crate::ssa_ra::b\"; fn f() { let c = '\"'; }"),
        ("ssa_ra/b.rs", "use crate::{analysis::{a::X, c}, frontend::p};"),
        ("analysis/c.rs", ""),
        ("frontend/p.rs", ""),
    ]);
    let edges: Vec<(String, String)> =
        tree.edges().into_iter().map(|(a, b, _)| (tree.files[a].path.clone(), tree.files[b].path.clone())).collect();
    assert_eq!(
        edges,
        vec![
            ("ssa_ra/b.rs".into(), "analysis/a.rs".into()),
            ("ssa_ra/b.rs".into(), "analysis/c.rs".into()),
            ("ssa_ra/b.rs".into(), "frontend/p.rs".into()),
        ]
    );
    assert!(layer_violations(&tree).is_empty());
}

#[test]
fn checker_rejects_an_upward_import_and_a_sibling_route() {
    let tree = made_up(&[
        ("lib.rs", ""),
        ("analysis/liveness.rs", "use crate::ssa_ra::spill::weight;"),
        ("ssa_ra/spill.rs", "pub fn weight() {}"),
        ("out_of_ssa/coalescing.rs", "use crate::ssa_ra::spill::weight;"),
        ("ssa_ra/regalloc.rs", "use crate::ir::Function; use crate::analysis::liveness;"),
    ]);
    let bad = layer_violations(&tree);
    assert_eq!(bad.len(), 2, "{bad:?}");
    assert!(bad[0].starts_with("analysis/liveness.rs (analysis, layer 2) imports `crate::ssa_ra::spill::weight`"));
    assert!(bad[1].starts_with("out_of_ssa/coalescing.rs (out_of_ssa, layer 6)"));
}

#[test]
fn checker_names_the_file_and_import_of_an_oracle_violation() {
    let files = vec![
        SourceFile {
            path: "interp/src/lib.rs".into(),
            module: module_of("interp/lib.rs"),
            code: strip("use ssaref_types::ir::Function;\nuse ssaref_types::diag::Diag;"),
        },
        SourceFile {
            path: "interp/src/x.rs".into(),
            module: module_of("interp/x.rs"),
            code: strip("fn f() { ssaref::ssa_ra::regalloc::allocate_function(); }"),
        },
    ];
    assert_eq!(
        oracle_violations(&files),
        vec![
            "interp/src/lib.rs imports `ssaref_types::diag::Diag`".to_string(),
            "interp/src/x.rs imports `ssaref::ssa_ra::regalloc::allocate_function`".to_string(),
        ]
    );
}

// No history in the tree.

/// Development branches of the project, matched as whole words. Common
/// words that were also branch names (`reduce`, `corpus`, `compare`, ...)
/// are left out: they name what the code does.
const BRANCH_NAMES: &[&str] = &[
    "braun2",
    "braun3",
    "braunfast",
    "r1m",
    "r2m",
    "r2scale",
    "scale100k",
    "scalecons",
    "split-braun",
    "split-cli",
    "split-gen",
    "ssaio",
    "openbugs",
];

/// What the history check looks for besides `issue N` and the branch names:
/// the path of the papers' texts on the build machine, kept in parts so
/// that this file does not spell it.
const HISTORY_PATTERNS: &[&[&str]] = &[&["shared", "seeds"]];

fn is_ident(b: u8) -> bool {
    b.is_ascii_alphanumeric() || b == b'_'
}

/// Whether the `len` bytes of `text` at `at` are a whole word: no
/// identifier character right before or right after them.
fn whole_word(text: &[u8], at: usize, len: usize) -> bool {
    (at == 0 || !is_ident(text[at - 1])) && text.get(at + len).is_none_or(|&b| !is_ident(b))
}

/// The history a text names, one `line N: what` entry per finding: `issue
/// N` (any case, also `issues N` and `issue #N`), a name of
/// [`BRANCH_NAMES`] as a whole word, or a pattern of [`HISTORY_PATTERNS`].
fn history_mentions(text: &str) -> Vec<String> {
    let mut found = Vec::new();
    for (n, line) in text.lines().enumerate() {
        let lower = line.to_ascii_lowercase();
        let bytes = lower.as_bytes();
        let mut at = 0;
        while let Some(i) = lower[at..].find("issue") {
            let start = at + i;
            let mut j = start + "issue".len();
            if bytes.get(j) == Some(&b's') {
                j += 1;
            }
            while matches!(bytes.get(j), Some(b' ' | b'#')) {
                j += 1;
            }
            let mut end = j;
            while bytes.get(end).is_some_and(u8::is_ascii_digit) {
                end += 1;
            }
            if (start == 0 || !is_ident(bytes[start - 1])) && end > j {
                found.push(format!("line {}: `{}`", n + 1, &line[start..end]));
            }
            at = start + 1;
        }
        for name in BRANCH_NAMES {
            let mut at = 0;
            while let Some(i) = lower[at..].find(name) {
                if whole_word(bytes, at + i, name.len()) {
                    found.push(format!("line {}: branch `{name}`", n + 1));
                }
                at += i + 1;
            }
        }
        for parts in HISTORY_PATTERNS {
            let pattern = parts.join("/");
            if lower.contains(&pattern) {
                found.push(format!("line {}: `{pattern}`", n + 1));
            }
        }
    }
    found
}

/// Every file under `dir`, whatever its extension, sorted.
pub(crate) fn all_files(dir: &Path, out: &mut Vec<PathBuf>) {
    let mut entries: Vec<_> = std::fs::read_dir(dir).unwrap().map(|e| e.unwrap().path()).collect();
    entries.sort();
    for p in entries {
        if p.is_dir() {
            all_files(&p, out);
        } else {
            out.push(p);
        }
    }
}

#[test]
fn no_file_names_an_issue_a_branch_or_the_papers_path() {
    let root = root();
    let mut files = Vec::new();
    for dir in ["src", "interp", "tests"] {
        all_files(&root.join(dir), &mut files);
    }
    let mut problems = Vec::new();
    let mut checked = 0;
    for p in &files {
        let rel = p.strip_prefix(&root).unwrap().to_string_lossy().replace('\\', "/");
        if rel == "tests/suite/layout.rs" {
            continue;
        }
        let text = String::from_utf8_lossy(&std::fs::read(p).unwrap()).into_owned();
        checked += 1;
        problems.extend(history_mentions(&text).into_iter().map(|f| format!("{rel}, {f}")));
    }
    assert!(checked > 100, "only {checked} files checked");
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}

#[test]
fn history_check_finds_issues_branches_and_the_papers_path() {
    // The sample is assembled from parts so that this file names no issue
    // and no path of the papers' texts itself.
    let (issue, seeds) = ("issue", ["shared", "seeds"].join("/"));
    let text = format!(
        "// ({issue} 12, §3)\n// Issues 13 and 14\n/// see {issue} #7\n\
         // merged from braun3; r2m's table\n//! (`../{seeds}/000_4fdaa7045539350b.txt`)\n"
    );
    assert_eq!(
        history_mentions(&text),
        vec![
            format!("line 1: `{issue} 12`"),
            "line 2: `Issues 13`".to_string(),
            format!("line 3: `{issue} #7`"),
            "line 4: branch `braun3`".to_string(),
            "line 4: branch `r2m`".to_string(),
            format!("line 5: `{seeds}`"),
        ]
    );
    // Words that only contain a branch name or `issue`, and an issue
    // without a number, are not history.
    let clean = "// braun30 r1mx xr2m tissue 3; the issue is that r2_m\nlet split_gen = 1;\n";
    assert_eq!(history_mentions(clean), Vec::<String>::new());
}
