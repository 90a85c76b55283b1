//! Each back end has one name, in code, output and documents alike:
//! `ssa-ra`, `out-of-ssa` and `regalloc2`. No file under `src/`, `tests/`
//! or `docs/`, nor README.md or ARCHITECTURE.md, calls a back end by a
//! number: "route 1", "Route 2's", "route-3", "routes 1 and 2", `route1/`, an environment
//! variable such as `SSAREF_ROUTE3_…`, or a label such as `r2=` (the
//! numbered labels a case file's `config:` line once used; campaigns now
//! write the back ends' names, and `ProgramConfig::parse` still reads the
//! old words, which the tests build from parts so that no file spells
//! them). This file, which must spell them to look for them, is the one
//! file left out.
//!
//! The detector is checked on a made-up text at the end of this file, so it
//! is known to find what it should.

/// The bytes that may stand between "route" and its number: spaces, a
/// hyphen or an underscore, and a line break with the next line's comment
/// leader (`//!`, ` * `, `#`, `>`), so that a number wrapped onto the next
/// line of a comment is found too.
fn separator(b: u8) -> bool {
    matches!(b, b' ' | b'\t' | b'\r' | b'\n' | b'-' | b'_' | b'/' | b'!' | b'*' | b'#' | b'>')
}

/// The numbered back-end labels in `text`, in order, one `line N: `what`` entry per
/// finding: "route" or "routes" (any case, not inside a longer word such
/// as "reroute") followed by 1, 2 or 3 and no further digit, and `r1=`, `r2=`
/// or `r3=` (any case) that does not continue a word.
fn numbered_labels(text: &str) -> Vec<String> {
    let lower = text.to_ascii_lowercase();
    let bytes = lower.as_bytes();
    let line_of = |at: usize| lower[..at].matches('\n').count() + 1;
    let mut found = Vec::new();
    let mut at = 0;
    while let Some(i) = lower[at..].find("route") {
        let start = at + i;
        at = start + 1;
        if start > 0 && bytes[start - 1].is_ascii_alphabetic() {
            continue;
        }
        let mut j = start + "route".len();
        if bytes.get(j) == Some(&b's') {
            j += 1;
        }
        while bytes.get(j).copied().is_some_and(separator) {
            j += 1;
        }
        let number = bytes.get(j).is_some_and(|b| (b'1'..=b'3').contains(b));
        if number && !bytes.get(j + 1).is_some_and(u8::is_ascii_digit) {
            let words: Vec<&str> = text[start..=j].split_whitespace().collect();
            found.push((start, format!("line {}: `{}`", line_of(start), words.join(" "))));
        }
    }
    for (i, w) in bytes.windows(3).enumerate() {
        let label = w[0] == b'r' && (b'1'..=b'3').contains(&w[1]) && w[2] == b'=';
        let word_start = i == 0 || !(bytes[i - 1].is_ascii_alphanumeric() || bytes[i - 1] == b'_');
        if label && word_start {
            found.push((i, format!("line {}: `{}`", line_of(i), &text[i..i + 3])));
        }
    }
    found.sort();
    found.into_iter().map(|(_, f)| f).collect()
}

#[test]
fn no_file_numbers_a_back_end() {
    use crate::layout::{all_files, root};
    let root = root();
    let mut files = vec![root.join("README.md"), root.join("ARCHITECTURE.md")];
    for dir in ["src", "tests", "docs"] {
        all_files(&root.join(dir), &mut files);
    }
    let mut problems = Vec::new();
    for p in &files {
        let rel = p.strip_prefix(&root).unwrap().to_string_lossy().replace('\\', "/");
        if rel == "tests/suite/backend_names.rs" {
            continue;
        }
        let text = String::from_utf8_lossy(&std::fs::read(p).unwrap()).into_owned();
        problems.extend(numbered_labels(&text).into_iter().map(|f| format!("{rel}, {f}")));
    }
    assert!(files.len() > 200, "only {} files checked", files.len());
    assert!(problems.is_empty(), "call the back end ssa-ra, out-of-ssa or regalloc2:\n{}", problems.join("\n"));
}

#[test]
fn detector_finds_numbered_back_ends() {
    let text = "// route 1 allocates\n//! Then route\n//! 2's copies, ROUTE-3 and route1/\n\
                let v = std::env::var(\"SSAREF_ROUTE3_DEBUG\");\n// config: r2=sharing,check,linear-scan R3=x\n\
                // (routes 1 and 2)\n";
    assert_eq!(
        numbered_labels(text),
        vec![
            "line 1: `route 1`",
            "line 2: `route //! 2`",
            "line 3: `ROUTE-3`",
            "line 3: `route1`",
            "line 4: `ROUTE3`",
            "line 5: `r2=`",
            "line 5: `R3=`",
            "line 6: `routes 1`",
        ]
    );
    // A longer word, another number, a register name and a word ending in
    // `r2=` are no back-end labels.
    let clean = "// reroute 2 blocks; routes 12 and route 4; --route out-of-ssa; r2 + r3; expr2=1\n";
    assert_eq!(numbered_labels(clean), Vec::<String>::new());
}
