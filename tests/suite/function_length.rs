//! No function of the algorithm folders is longer than [`LIMIT`] lines, so
//! that each algorithm's body reads like the paper's pseudo-code and its
//! plumbing (counting sorts, option and table building) sits in helpers of
//! its own.
//!
//! A function's length is counted from the line of its `fn` keyword to the
//! line of its closing brace, both included; comments, string and char
//! literals are blanked first (line breaks kept), so that a brace inside
//! them does not count. Unit-test modules (from `#[cfg(test)]` to the end
//! of a file) are left out, and so are declarations without a body. The
//! counter is tested on made-up text at the end of this file.

use crate::layout::{root, rs_files};

/// The folders whose functions are held to the limit.
const ALGORITHM_FOLDERS: &[&str] = &[
    "src/ssa_ra",
    "src/out_of_ssa",
    "src/construction",
    "src/analysis",
    "src/checkers",
    "src/machine",
    "src/regalloc2",
];

/// The longest a function may be, in lines.
const LIMIT: usize = 80;

/// The functions still over the limit, as (file, function, reason). Each is
/// in a file another change is restructuring, or was not reached yet; an
/// entry whose function comes within the limit must go (the test says so).
const ALLOWED: &[(&str, &str, &str)] = &[];

/// `text` with comments, string and char literals replaced by spaces; line
/// breaks are kept, so that line numbers do not move.
fn blank(text: &str) -> String {
    let cs: Vec<char> = text.chars().collect();
    let mut out = String::with_capacity(text.len());
    let blank_to = |out: &mut String, from: usize, to: usize| {
        for &c in &cs[from..to.min(cs.len())] {
            out.push(if c == '\n' { '\n' } else { ' ' });
        }
    };
    let ident = |i: usize| i > 0 && (cs[i - 1].is_alphanumeric() || cs[i - 1] == '_');
    let mut i = 0;
    while i < cs.len() {
        let c = cs[i];
        let next = cs.get(i + 1).copied();
        if c == '/' && next == Some('/') {
            let end = cs[i..].iter().position(|&c| c == '\n').map_or(cs.len(), |p| i + p);
            blank_to(&mut out, i, end);
            i = end;
        } else if c == '/' && next == Some('*') {
            let (mut depth, mut j) = (0, i);
            while j < cs.len() {
                if cs[j] == '/' && cs.get(j + 1) == Some(&'*') {
                    depth += 1;
                    j += 2;
                } else if cs[j] == '*' && cs.get(j + 1) == Some(&'/') {
                    depth -= 1;
                    j += 2;
                    if depth == 0 {
                        break;
                    }
                } else {
                    j += 1;
                }
            }
            blank_to(&mut out, i, j);
            i = j;
        } else if c == 'r' && matches!(next, Some('"' | '#')) && !ident(i) {
            // A raw string, r"..." or r#"..."#, or an identifier like r#type.
            let mut j = i + 1;
            while cs.get(j) == Some(&'#') {
                j += 1;
            }
            if cs.get(j) != Some(&'"') {
                out.push(c);
                i += 1;
                continue;
            }
            let hashes = j - i - 1;
            j += 1;
            while j < cs.len() && !(cs[j] == '"' && (1..=hashes).all(|h| cs.get(j + h) == Some(&'#'))) {
                j += 1;
            }
            let end = j + 1 + hashes;
            blank_to(&mut out, i, end);
            i = end;
        } else if c == '"' {
            let mut j = i + 1;
            while j < cs.len() && cs[j] != '"' {
                if cs[j] == '\\' {
                    j += 1;
                }
                j += 1;
            }
            blank_to(&mut out, i, j + 1);
            i = j + 1;
        } else if c == '\'' {
            // A char literal ('a', '\n', '\u{7f}') or a lifetime ('a).
            let end = if next == Some('\\') {
                cs[i + 2..].iter().position(|&c| c == '\'').map(|p| i + 2 + p)
            } else if cs.get(i + 2) == Some(&'\'') {
                Some(i + 2)
            } else {
                None
            };
            match end {
                Some(e) => {
                    blank_to(&mut out, i, e + 1);
                    i = e + 1;
                }
                None => {
                    out.push(c);
                    i += 1;
                }
            }
        } else {
            out.push(c);
            i += 1;
        }
    }
    out
}

/// Every function of `text` with a body, as (name, line of its `fn`,
/// length in lines).
fn function_lengths(text: &str) -> Vec<(String, usize, usize)> {
    let code = blank(text);
    let code = code.split("#[cfg(test)]").next().unwrap_or("");
    let cs: Vec<char> = code.chars().collect();
    let line_at = |i: usize| 1 + cs[..i].iter().filter(|&&c| c == '\n').count();
    let is_ident = |c: char| c.is_alphanumeric() || c == '_';
    let mut out = Vec::new();
    for i in 0..cs.len() {
        let keyword = cs[i..].starts_with(&['f', 'n'])
            && (i == 0 || !is_ident(cs[i - 1]))
            && cs.get(i + 2).is_some_and(|c| c.is_whitespace());
        if !keyword {
            continue;
        }
        let mut j = i + 2;
        while j < cs.len() && cs[j].is_whitespace() {
            j += 1;
        }
        let name: String = cs[j..].iter().take_while(|&&c| is_ident(c)).collect();
        if name.is_empty() {
            continue;
        }
        // The body opens at the first `{` after the signature outside
        // brackets; a `;` first is a declaration without a body (a `;`
        // inside brackets is an array type's).
        let mut brackets = 0i32;
        let mut open = None;
        for (k, &c) in cs.iter().enumerate().skip(j) {
            match c {
                '(' | '[' => brackets += 1,
                ')' | ']' => brackets -= 1,
                '{' | ';' if brackets == 0 => {
                    open = (c == '{').then_some(k);
                    break;
                }
                _ => {}
            }
        }
        let Some(open) = open else { continue };
        let mut depth = 0;
        let mut close = open;
        for (k, &c) in cs.iter().enumerate().skip(open) {
            match c {
                '{' => depth += 1,
                '}' => depth -= 1,
                _ => {}
            }
            if depth == 0 {
                close = k;
                break;
            }
        }
        let first = line_at(i);
        out.push((name, first, line_at(close) - first + 1));
    }
    out
}

/// The functions of the algorithm folders over the limit, as (file,
/// function, length).
fn long_functions() -> Vec<(String, String, usize)> {
    let root = root();
    let mut files = Vec::new();
    for dir in ALGORITHM_FOLDERS {
        rs_files(&root.join(dir), &mut files);
    }
    let mut long = Vec::new();
    for p in files {
        let rel = p.strip_prefix(&root).unwrap().to_string_lossy().replace('\\', "/");
        let text = std::fs::read_to_string(&p).unwrap();
        for (name, _, len) in function_lengths(&text) {
            if len > LIMIT {
                long.push((rel.clone(), name, len));
            }
        }
    }
    long
}

#[test]
fn no_long_function_in_the_algorithm_folders() {
    let long = long_functions();
    let mut problems: Vec<String> = long
        .iter()
        .filter(|(file, name, _)| !ALLOWED.iter().any(|(f, n, _)| f == file && n == name))
        .map(|(file, name, len)| format!("{file}: `{name}` has {len} lines (limit {LIMIT})"))
        .collect();
    // An entry of the allow-list that is no longer over the limit goes.
    for (file, name, _) in ALLOWED {
        if !long.iter().any(|(f, n, _)| f == file && n == name) {
            problems.push(format!("{file}: `{name}` is within the limit: remove it from ALLOWED"));
        }
    }
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}

#[test]
fn the_counter_finds_a_long_function_and_ignores_braces_in_text() {
    let mut text = String::from("/// Doc with a brace {\nfn short() { let s = \"}}}\"; let c = '{'; }\n");
    text.push_str("fn array() -> [u8; 2] {\n    [0; 2]\n}\n");
    text.push_str("pub(crate) fn long_one<'a>(x: &'a str) -> &'a str\nwhere\n    'a: 'a,\n{\n");
    for i in 0..85 {
        text.push_str(&format!("    let _v{i} = r#\"{{\"#; // }}\n"));
    }
    text.push_str("    /* } */ x\n}\n\ntrait T {\n    fn declared(&self);\n}\n");
    text.push_str("#[cfg(test)]\nmod tests {\n    fn in_a_test() {\n");
    text.push_str(&"\n".repeat(100));
    text.push_str("    }\n}\n");
    let found = function_lengths(&text);
    let expected = [("short", 2, 1), ("array", 3, 3), ("long_one", 6, 91)];
    assert_eq!(found, expected.map(|(name, line, len)| (name.to_string(), line, len)));
    assert!(found.iter().any(|(_, _, len)| *len > LIMIT));
}
